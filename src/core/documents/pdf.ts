import PDFDocument from 'pdfkit'
import { cpuTask, type CpuPool } from '../cpu-pool.ts'
import { percentOf } from '../money.ts'
import { openImage } from './images.ts'
import type { PricedLine } from './lines.ts'
import { addressLines, type DocumentParty, type DocumentSeller } from './parties.ts'
import { drawLines, drawText, heightOf, lineHeight, printable, registerFonts, wrap, type Doc, type Line } from './typeset.ts'

/** A line of a document as it prints: the priced line without its product reference. */
export type PdfLine = Pick<PricedLine, 'description' | 'quantity' | 'unitPrice' | 'discount' | 'taxRate' | 'total'>

/** An amount under the lines; `strong` ones print bold. */
export interface PdfTotal {
  label: string
  amount: number
  strong?: boolean
}

/** The state stamped across every page: a draft, a paid or a cancelled document. */
export type PdfMark = 'DRAFT' | 'PAID' | 'CANCELLED'

/** What a commercial document (invoice, quotation, RFQ) prints. */
export interface PdfDocument {
  /** "Invoice", "Quotation". */
  title: string
  number: string
  /** The organization's profile (logo, name, address, tax id, contact details). */
  seller: DocumentSeller
  /** The other party: its name, address, tax id and e-mail. */
  buyer: DocumentParty
  /** Heading of the buyer block; "Bill to" by default. */
  buyerLabel?: string
  /** Labelled dates in the header ("Invoice date", "Due date"); null ones are skipped. */
  dates: Array<[string, Date | string | null]>
  lines: PdfLine[]
  currency: string
  /** Amounts under the lines, in order (see documentTotals for the usual ones). */
  totals: PdfTotal[]
  /** Labelled text after the totals ("Notes", "Terms", "Payment instructions"); empty ones are skipped. */
  sections?: Array<[string, string | null | undefined]>
  mark?: PdfMark | null
}

/** Intl formatters are costly to build (a 500-line invoice made about 2,000): one per currency and style, kept. */
const formatters = new Map<string, Intl.NumberFormat>()
function formatter(key: string, make: () => Intl.NumberFormat) {
  let f = formatters.get(key)
  if (!f) {
    f = make()
    formatters.set(key, f)
  }
  return f
}

/** Cents in the currency's own format: "$1,234.56", "€12.00", "¥1,200", "₹1.00" (yen and won have no minor unit). */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase()
  const symbol = formatter(`symbol ${code}`, () => new Intl.NumberFormat('en-US', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' }))
  const digits = symbol.resolvedOptions().maximumFractionDigits ?? 2
  const value = amount / 10 ** digits
  const text = symbol.format(value)
  // Every symbol Intl gives is in the fonts today; the code stays as a fallback should one not be.
  return printable(text) ? text : formatter(`code ${code}`, () => new Intl.NumberFormat('en-US', { style: 'currency', currency: code, currencyDisplay: 'code' })).format(value)
}

const formatDate = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString()).slice(0, 10)
const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 })
const formatNumber = (n: number) => numberFormat.format(n)
const formatPercent = (n: number) => `${formatNumber(n)}%`

/**
 * Subtotal, one tax line per rate ("Tax 20% on $100.00"), and the total. The
 * tax of a rate is the sum of its lines' round(line total * rate / 100), as
 * the document's taxAmount is, so the rate lines add up to it.
 */
export function documentTotals(d: { lines: PdfLine[]; subtotal: number; taxAmount: number; total: number; currency: string }): PdfTotal[] {
  const byRate = new Map<number, { base: number; tax: number }>()
  for (const l of d.lines) {
    if (l.taxRate === null || l.taxRate === undefined) continue
    const r = byRate.get(l.taxRate) ?? { base: 0, tax: 0 }
    r.base += l.total
    r.tax += percentOf(l.total, l.taxRate)
    byRate.set(l.taxRate, r)
  }
  const rates = [...byRate.entries()].sort(([a], [b]) => b - a)
  const taxLines: PdfTotal[] = rates.reduce((s, [, r]) => s + r.tax, 0) === d.taxAmount
    ? rates.map(([rate, r]) => ({ label: `Tax ${formatPercent(rate)} on ${formatMoney(r.base, d.currency)}`, amount: r.tax }))
    : [{ label: 'Tax', amount: d.taxAmount }]
  return [{ label: 'Subtotal', amount: d.subtotal }, ...taxLines, { label: 'Total', amount: d.total, strong: true }]
}

// A4 in points, and the frame of the content.
const PAGE = { width: 595.28, height: 841.89 }
const LEFT = 50
const RIGHT = PAGE.width - 50
const WIDTH = RIGHT - LEFT
const TOP = 50
/** Content stops here; the footer sits below. */
const BOTTOM = PAGE.height - 70

const INK = '#111827'
const MUTED = '#6b7280'
const RULE = '#d1d5db'
const BAND = '#f3f4f6'
const MARK_COLORS: Record<PdfMark, string> = { DRAFT: '#6b7280', PAID: '#15803d', CANCELLED: '#b91c1c' }

const COLUMNS = [
  { label: 'Description', x: LEFT, width: 205, align: 'left' },
  { label: 'Qty', x: 259, width: 46, align: 'right' },
  { label: 'Unit price', x: 309, width: 76, align: 'right' },
  { label: 'Disc.', x: 389, width: 36, align: 'right' },
  { label: 'Tax', x: 429, width: 36, align: 'right' },
  { label: 'Total', x: 469, width: RIGHT - 469, align: 'right' },
] as const
const CELL_SIZE = 9
const CELL_PAD = 3

/** The seller or buyer block as printed lines, the name first. */
function partyLines(p: DocumentParty): string[] {
  const out: string[] = []
  if (p.legalName && p.legalName !== p.name) out.push(p.legalName)
  out.push(...addressLines(p.address))
  if (p.taxId) out.push(`Tax ID: ${p.taxId}`)
  const contact = [p.email, p.phone].filter(Boolean).join(' · ')
  if (contact) out.push(contact)
  return out
}

/** The renderer as a task of the CPU pool: pdf.task.ts, in a worker. */
const RENDER = cpuTask<PdfDocument, Uint8Array>(new URL('./pdf.task.ts', import.meta.url), 'renderPdf')

/**
 * Renders the document on the kernel's CPU pool, off the event loop: a
 * 500-line invoice is about a second of CPU, which would otherwise stall every
 * other request (docs/decisions/0011-heavy-work-off-the-event-loop.md).
 * Refused with 503 when the pool's queue is full; a render error is thrown as
 * the renderer threw it.
 */
export async function renderPdf(pool: CpuPool, d: PdfDocument): Promise<Buffer> {
  const bytes = await pool.run(RENDER, d)
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Renders the document as an A4 PDF with pdfkit (layout: docs/documents.md), on the calling thread: pdf.task.ts runs it in a worker. */
export function renderDocumentPdf(d: PdfDocument): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    autoFirstPage: false,
    bufferPages: true,
    info: { Title: `${d.title} ${d.number}`, Author: d.seller.name, Subject: `${d.title} ${d.number} of ${d.seller.name}` },
  }) as Doc
  const chunks: Buffer[] = []
  doc.on('data', (c: Buffer) => chunks.push(c))
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
  })
  try {
    registerFonts(doc)
    // The mark is drawn first on every page, so that the content lies over it.
    doc.on('pageAdded', () => {
      if (d.mark) drawMark(doc, d.mark)
    })
    doc.addPage()
    layout(doc, d)
    footers(doc, d)
    doc.end()
  } catch (err) {
    return Promise.reject(err)
  }
  return done
}

function layout(doc: Doc, d: PdfDocument) {
  doc.fillColor(INK)
  // Header, left: the logo, then the seller.
  let left = TOP
  if (d.seller.logo) left = drawLogo(doc, d.seller.logo, left)
  left = drawText(doc, d.seller.name, LEFT, left, { width: 270, size: 13, weight: 'bold' })
  doc.fillColor(MUTED)
  for (const line of partyLines(d.seller)) left = drawText(doc, line, LEFT, left, { width: 270, size: 9 })

  // Header, right: title, number, dates.
  doc.fillColor(INK)
  let right = drawText(doc, d.title.toUpperCase(), 330, TOP, { width: RIGHT - 330, size: 20, weight: 'bold', align: 'right' })
  right = drawText(doc, d.number, 330, right, { width: RIGHT - 330, size: 11, weight: 'bold', align: 'right' }) + 4
  for (const [label, value] of d.dates) {
    if (value === null) continue
    right = drawText(doc, `${label}: ${formatDate(value)}`, 330, right, { width: RIGHT - 330, size: 9, align: 'right' })
  }

  // The buyer.
  let y = Math.max(left, right) + 22
  doc.fillColor(MUTED)
  y = drawText(doc, (d.buyerLabel ?? 'Bill to').toUpperCase(), LEFT, y, { width: 270, size: 8, weight: 'bold' }) + 2
  doc.fillColor(INK)
  y = drawText(doc, d.buyer.name, LEFT, y, { width: 270, size: 11, weight: 'bold' })
  for (const line of partyLines(d.buyer)) y = drawText(doc, line, LEFT, y, { width: 270, size: 9 })
  y += 22

  // The lines, a header row on every page they cover.
  y = tableHeader(doc, y)
  for (const l of d.lines) {
    const cells = [
      l.description, formatNumber(l.quantity), formatMoney(l.unitPrice, d.currency),
      l.discount ? formatPercent(l.discount) : '', l.taxRate !== null && l.taxRate !== undefined ? formatPercent(l.taxRate) : '', formatMoney(l.total, d.currency),
    ]
    const wrapped = COLUMNS.map((c, i) => wrap(doc, cells[i], { width: c.width, size: CELL_SIZE }))
    const height = Math.max(...wrapped.map((w) => heightOf(w, CELL_SIZE))) + 2 * CELL_PAD
    if (y + height > BOTTOM) {
      doc.addPage()
      y = tableHeader(doc, TOP)
    }
    doc.fillColor(INK)
    COLUMNS.forEach((c, i) => drawLines(doc, wrapped[i], c.x, y + CELL_PAD, { width: c.width, size: CELL_SIZE, align: c.align }))
    y += height
    doc.moveTo(LEFT, y).lineTo(RIGHT, y).lineWidth(0.5).strokeColor(RULE).stroke()
  }

  // Totals, kept together.
  y += 10
  const rows = d.totals.map((t) => ({ t, label: wrap(doc, t.label, { width: 220, size: 10, weight: t.strong ? 'bold' : 'regular' }) }))
  const totalsHeight = rows.reduce((h, r) => h + heightOf(r.label, 10) + 4, 0)
  if (y + totalsHeight > BOTTOM) {
    doc.addPage()
    y = TOP
  }
  for (const { t, label } of rows) {
    const weight = t.strong ? 'bold' : 'regular'
    if (t.strong) doc.moveTo(RIGHT - 330, y - 2).lineTo(RIGHT, y - 2).lineWidth(0.5).strokeColor(RULE).stroke()
    doc.fillColor(INK)
    drawLines(doc, label, RIGHT - 330, y, { width: 220, size: 10, align: 'right' })
    drawText(doc, formatMoney(t.amount, d.currency), RIGHT - 105, y, { width: 105, size: 10, weight, align: 'right' })
    y += heightOf(label, 10) + 4
  }

  // Notes, terms, payment instructions: they may run onto further pages, line by line.
  for (const [label, text] of d.sections ?? []) {
    if (!text?.trim()) continue
    y += 16
    const heading = wrap(doc, label.toUpperCase(), { width: WIDTH, size: 8, weight: 'bold' })
    const body = wrap(doc, text, { width: WIDTH, size: 9 })
    if (y + heightOf(heading, 8) + lineHeight(9) * Math.min(body.length, 2) > BOTTOM) {
      doc.addPage()
      y = TOP
    }
    doc.fillColor(MUTED)
    y = drawLines(doc, heading, LEFT, y, { width: WIDTH, size: 8 }) + 2
    doc.fillColor(INK)
    y = flowLines(doc, body, y, 9)
  }
}

/** Draws lines from y on, starting a new page where one would cross the bottom; answers the y under them. */
function flowLines(doc: Doc, lines: Line[], y: number, size: number) {
  for (const line of lines) {
    if (y + lineHeight(size) > BOTTOM) {
      doc.addPage()
      doc.fillColor(INK)
      y = TOP
    }
    y = drawLines(doc, [line], LEFT, y, { width: WIDTH, size })
  }
  return y
}

function tableHeader(doc: Doc, y: number) {
  const height = lineHeight(CELL_SIZE) + 2 * CELL_PAD
  doc.rect(LEFT, y, WIDTH, height).fill(BAND)
  doc.fillColor(MUTED)
  for (const c of COLUMNS) drawText(doc, c.label, c.x, y + CELL_PAD, { width: c.width, size: CELL_SIZE, weight: 'bold', align: c.align })
  doc.moveTo(LEFT, y + height).lineTo(RIGHT, y + height).lineWidth(0.75).strokeColor(RULE).stroke()
  return y + height
}

/** The logo, fitted into 180 x 60 points at the top left; answers the y under it. A logo pdfkit cannot read is left out. */
function drawLogo(doc: Doc, logo: Buffer, y: number) {
  try {
    const image = openImage(doc, logo)
    const scale = Math.min(180 / image.width, 60 / image.height, 1)
    doc.image(image as unknown as Buffer, LEFT, y, { width: image.width * scale, height: image.height * scale })
    return y + image.height * scale + 10
  } catch {
    return y
  }
}

/** The state across the page: large, diagonal, faint. */
function drawMark(doc: Doc, mark: PdfMark) {
  const { width, height } = doc.page
  doc.save()
  const angle = -Math.atan2(height, width) * (180 / Math.PI)
  doc.rotate(angle, { origin: [width / 2, height / 2] })
  const size = Math.min(150, (Math.hypot(width, height) * 0.62) / (doc.font('NotoSans-700Bold').fontSize(100).widthOfString(mark) / 100))
  const textWidth = doc.widthOfString(mark, {}) * (size / 100)
  doc.fillColor(MARK_COLORS[mark]).fillOpacity(0.13)
  doc.font('NotoSans-700Bold').fontSize(size).text(mark, width / 2 - textWidth / 2, height / 2 + size * 0.36, { lineBreak: false, baseline: 'alphabetic' })
  doc.restore()
}

/** On every page: the document and its reference on the left, "Page n of N" on the right. */
function footers(doc: Doc, d: PdfDocument) {
  const { start, count } = doc.bufferedPageRange()
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i)
    const y = PAGE.height - 45
    doc.moveTo(LEFT, y - 6).lineTo(RIGHT, y - 6).lineWidth(0.5).strokeColor(RULE).stroke()
    doc.fillColor(MUTED).fillOpacity(1)
    drawText(doc, `${d.seller.name} · ${d.title} ${d.number}`, LEFT, y, { width: WIDTH - 100, size: 8 })
    drawText(doc, `Page ${i - start + 1} of ${count}`, RIGHT - 100, y, { width: 100, size: 8, align: 'right' })
  }
}

/** A document number as a file name: INV/2026/00001 -> INV-2026-00001.pdf */
export const pdfFilename = (number: string) => `${number.replace(/\//g, '-')}.pdf`

/** A binary response documented as its media type. */
export const PdfResponse = { description: 'The PDF document', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } }
