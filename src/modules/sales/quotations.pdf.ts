import type { QuotationRow } from './quotations.repository.ts'
import { renderDocumentPdf } from '../../core/documents/index.ts'

/** The quotation as a PDF: organization, reference, dates, contact, lines, tax, totals and terms. */
export function quotationPdf(r: QuotationRow, organizationName: string): Promise<Buffer> {
  return renderDocumentPdf({
    title: 'Quotation',
    number: r.reference,
    organizationName,
    dates: [['Date', r.created_at], ['Valid until', r.valid_until]],
    contact: { name: r.contact_name, email: r.contact_email },
    lines: r.line_items.map((l) => ({ ...l, description: l.productName ?? l.description })),
    currency: r.currency,
    totals: [['Subtotal', r.subtotal], ['Tax', r.tax_amount], ['Total', r.total]],
    notes: r.terms,
  })
}
