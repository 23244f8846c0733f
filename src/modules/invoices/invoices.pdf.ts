import type { InvoiceRow } from './invoices.repository.ts'
import type { CpuPool } from '../../core/cpu-pool.ts'
import { documentTotals, renderPdf, type DocumentParty, type DocumentSeller, type PdfMark } from '../../core/documents/index.ts'

const MARKS: Partial<Record<InvoiceRow['status'], PdfMark>> = { draft: 'DRAFT', paid: 'PAID', cancelled: 'CANCELLED' }

/**
 * The invoice as a PDF: the seller's profile and logo, number and dates, the
 * buyer, the lines, tax per rate and totals, notes, and how to pay while
 * something is due. Drafts, paid and cancelled invoices carry their state
 * across every page. Rendered on the kernel's CPU pool, off the event loop.
 */
export function invoicePdf(cpu: CpuPool, r: InvoiceRow, seller: DocumentSeller, buyer: DocumentParty): Promise<Buffer> {
  const totals = documentTotals({ lines: r.line_items, subtotal: r.subtotal, taxAmount: r.tax_amount, total: r.total, currency: r.currency })
  if (r.amount_paid > 0) totals.push({ label: 'Paid', amount: r.amount_paid })
  const open = r.status !== 'cancelled' && r.status !== 'paid'
  if (r.status !== 'cancelled') totals.push({ label: 'Amount due', amount: r.total - r.amount_paid, strong: true })
  return renderPdf(cpu, {
    title: 'Invoice',
    number: r.number,
    seller,
    buyer,
    dates: [['Invoice date', r.invoice_date], ['Due date', r.due_date], ['Paid on', r.status === 'paid' ? r.paid_at : null]],
    lines: r.line_items,
    currency: r.currency,
    totals,
    sections: [['Notes', r.notes], ['Payment instructions', open ? seller.paymentInstructions : null]],
    mark: MARKS[r.status] ?? null,
  })
}
