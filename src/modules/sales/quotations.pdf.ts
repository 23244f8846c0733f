import type { QuotationRow } from './quotations.repository.ts'
import type { CpuPool } from '../../core/cpu-pool.ts'
import { documentTotals, renderPdf, type DocumentParty, type DocumentSeller, type PdfMark } from '../../core/documents/index.ts'

const MARKS: Partial<Record<QuotationRow['status'], PdfMark>> = { draft: 'DRAFT', cancelled: 'CANCELLED' }

/** The quotation as a PDF: seller profile and logo, reference, dates, customer, lines, tax per rate, totals and terms; rendered on the kernel's CPU pool. */
export function quotationPdf(cpu: CpuPool, r: QuotationRow, seller: DocumentSeller, buyer: DocumentParty): Promise<Buffer> {
  const lines = r.line_items.map((l) => ({ ...l, description: l.productName ?? l.description }))
  return renderPdf(cpu, {
    title: 'Quotation',
    number: r.reference,
    seller,
    buyer,
    buyerLabel: 'Quotation for',
    dates: [['Date', r.created_at], ['Valid until', r.valid_until]],
    lines,
    currency: r.currency,
    totals: documentTotals({ lines, subtotal: r.subtotal, taxAmount: r.tax_amount, total: r.total, currency: r.currency }),
    sections: [['Terms', r.terms]],
    mark: MARKS[r.status] ?? null,
  })
}
