import type { CpuPool } from '../../core/cpu-pool.ts'
import { documentTotals, renderPdf, type DocumentParty, type DocumentSeller, type PdfMark } from '../../core/documents/index.ts'
import type { PurchaseOrder } from './purchase.schemas.ts'

const MARKS: Partial<Record<PurchaseOrder['status'], PdfMark>> = { draft: 'DRAFT', cancelled: 'CANCELLED' }

/**
 * The RFQ (or, once confirmed, the purchase order) as a PDF: the organization's
 * profile as the issuer, the vendor as the addressee, the lines at the prices
 * asked, the total, the expected arrival and the notes. Rendered on the
 * kernel's CPU pool, off the event loop.
 */
export function purchaseOrderPdf(cpu: CpuPool, po: PurchaseOrder, issuer: DocumentSeller, vendor: DocumentParty): Promise<Buffer> {
  const lines = po.lineItems.map((l) => ({ description: l.productName, quantity: l.quantity, unitPrice: l.unitPrice, discount: 0, taxRate: null, total: l.total }))
  return renderPdf(cpu, {
    title: po.status === 'confirmed' ? 'Purchase Order' : 'Request for Quotation',
    number: po.reference,
    seller: issuer,
    buyer: vendor,
    buyerLabel: 'Vendor',
    dates: [['Date', po.createdAt], ['Expected arrival', po.expectedArrival]],
    lines,
    currency: po.currency,
    totals: documentTotals({ lines, subtotal: po.total, taxAmount: 0, total: po.total, currency: po.currency }),
    sections: [['Notes', po.notes]],
    mark: MARKS[po.status] ?? null,
  })
}
