import PDFDocument from 'pdfkit'

/** What a commercial document (invoice, quotation) prints. */
export interface PdfDocument {
  /** "Invoice", "Quotation". */
  title: string
  number: string
  organizationName: string
  /** Labelled dates in the header ("Invoice date", "Due date"); null ones are skipped. */
  dates: Array<[string, Date | string | null]>
  contact: { name: string; email: string | null }
  lines: Array<{ description: string; quantity: number; unitPrice: number; discount: number; taxRate: number | null; total: number }>
  currency: string
  /** Labelled amounts under the lines; the last one is printed bold. */
  totals: Array<[string, number]>
  notes?: string | null
}

// The standard PDF fonts cover WinAnsi only; symbols outside it (₹, ₩) fall back to the code.
const WIN_ANSI_EXTRA = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ'
const printable = (s: string) => [...s].every((c) => c.charCodeAt(0) <= 0xff || WIN_ANSI_EXTRA.includes(c))

/** Cents in the currency's own format: "$1,234.56", "€12.00", "¥1,200" (yen have no minor unit). */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase()
  const symbol = new Intl.NumberFormat('en-US', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' })
  const digits = symbol.resolvedOptions().maximumFractionDigits ?? 2
  const value = amount / 10 ** digits
  const text = symbol.format(value)
  return printable(text) ? text : new Intl.NumberFormat('en-US', { style: 'currency', currency: code, currencyDisplay: 'code' }).format(value)
}

const formatDate = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString()).slice(0, 10)
const formatNumber = (n: number) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 }).format(n)

const COLUMNS = [
  { label: 'Description', x: 50, width: 200, align: 'left' },
  { label: 'Qty', x: 255, width: 50, align: 'right' },
  { label: 'Unit price', x: 305, width: 80, align: 'right' },
  { label: 'Disc.', x: 385, width: 40, align: 'right' },
  { label: 'Tax', x: 425, width: 40, align: 'right' },
  { label: 'Total', x: 465, width: 80, align: 'right' },
] as const

/** Renders the document as a PDF with pdfkit. */
export function renderDocumentPdf(d: PdfDocument): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: `${d.title} ${d.number}`, Author: d.organizationName } })
  const chunks: Buffer[] = []
  doc.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
  })

  doc.font('Helvetica-Bold').fontSize(18).text(d.organizationName, 50, 50)
  doc.fontSize(14).text(`${d.title} ${d.number}`, 50, 80)
  doc.font('Helvetica').fontSize(10)
  let y = 110
  for (const [label, value] of d.dates) {
    if (value === null) continue
    doc.text(`${label}: ${formatDate(value)}`, 50, y)
    y += 14
  }
  doc.font('Helvetica-Bold').text('Bill to', 350, 110)
  doc.font('Helvetica').text(d.contact.name, 350, 124, { width: 195 })
  if (d.contact.email) doc.text(d.contact.email, 350, doc.y, { width: 195 })
  y = Math.max(y, doc.y) + 24

  const row = (cells: string[], bold = false) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica')
    let bottom = y
    COLUMNS.forEach((c, i) => {
      doc.text(cells[i], c.x, y, { width: c.width, align: c.align })
      bottom = Math.max(bottom, doc.y)
    })
    y = bottom + 4
    if (y > doc.page.height - 120) {
      doc.addPage()
      y = 50
    }
  }
  row(COLUMNS.map((c) => c.label), true)
  for (const l of d.lines) {
    row([
      l.description, formatNumber(l.quantity), formatMoney(l.unitPrice, d.currency),
      l.discount ? `${formatNumber(l.discount)}%` : '', l.taxRate ? `${formatNumber(l.taxRate)}%` : '', formatMoney(l.total, d.currency),
    ])
  }
  y += 10
  d.totals.forEach(([label, amount], i) => {
    doc.font(i === d.totals.length - 1 ? 'Helvetica-Bold' : 'Helvetica')
    doc.text(label, 305, y, { width: 120, align: 'right' })
    doc.text(formatMoney(amount, d.currency), 425, y, { width: 120, align: 'right' })
    y += 16
  })
  if (d.notes) doc.font('Helvetica').text(d.notes, 50, y + 20, { width: 495 })
  doc.end()
  return done
}

/** A document number as a file name: INV/2026/00001 -> INV-2026-00001.pdf */
export const pdfFilename = (number: string) => `${number.replace(/\//g, '-')}.pdf`

/** A binary response documented as its media type. */
export const PdfResponse = { description: 'The PDF document', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } }
