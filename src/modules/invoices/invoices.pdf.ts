import type { InvoiceRow } from './invoices.repository.ts'
import { renderDocumentPdf } from '../../core/documents/index.ts'

/** The invoice as a PDF: organization, number, dates, contact, lines, tax and totals. */
export function invoicePdf(r: InvoiceRow, organizationName: string): Promise<Buffer> {
  const totals: Array<[string, number]> = [['Subtotal', r.subtotal], ['Tax', r.tax_amount], ['Total', r.total]]
  if (r.amount_paid > 0) totals.push(['Paid', r.amount_paid])
  if (r.status !== 'cancelled') totals.push(['Amount due', r.total - r.amount_paid])
  return renderDocumentPdf({
    title: r.status === 'cancelled' ? 'Invoice (cancelled)' : 'Invoice',
    number: r.number,
    organizationName,
    dates: [['Invoice date', r.invoice_date], ['Due date', r.due_date]],
    contact: { name: r.contact_name, email: r.contact_email },
    lines: r.line_items,
    currency: r.currency,
    totals,
    notes: r.notes,
  })
}
