import { toCsvText, type CsvColumn } from '../../core/csv.ts'
import type { PayablesAging, ReceivablesAging, SalesBreakdown, StockValuation } from './analytics.schemas.ts'

/** The four reports that have a CSV form (the report-run types of the same name). */
export type CsvReport =
  | { type: 'receivables_aging'; answer: ReceivablesAging }
  | { type: 'payables_aging'; answer: PayablesAging }
  | { type: 'stock_valuation'; answer: StockValuation }
  | { type: 'sales'; answer: SalesBreakdown }

export type CsvCell = string | number
export interface CsvRecords {
  /** In order; `number: true` on money, counts and quantities (never prefixed against formulas, src/core/csv.ts). */
  columns: CsvColumn[]
  rows: CsvCell[][]
}

const text = (key: string): CsvColumn => ({ key })
const number = (key: string): CsvColumn => ({ key, number: true })

/** Integer cents as decimal major units: 123450 -> "1234.50", -5 -> "-0.05". */
export function majorUnits(cents: number): string {
  const abs = Math.abs(cents)
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

const BUCKETS = ['current', 'days1to30', 'days31to60', 'days61to90', 'over90', 'total'] as const

/**
 * A report answer as CSV records: the header (nested references flattened to
 * camelCase columns: contactId, contactName, ...; a currency column last) and
 * one row per row of `data`, money in decimal major units. Pure: no I/O.
 */
export function toCsvRecords(report: CsvReport): CsvRecords {
  switch (report.type) {
    case 'receivables_aging':
    case 'payables_aging': {
      const party = report.type === 'receivables_aging' ? 'contact' : 'vendor'
      const rows = report.type === 'receivables_aging'
        ? report.answer.data.map((r) => ({ ref: r.contact, r }))
        : report.answer.data.map((r) => ({ ref: r.vendor, r }))
      return {
        columns: [text(`${party}Id`), text(`${party}Name`), text(`${party}Email`), ...BUCKETS.map(number), number('invoices'), text('currency')],
        rows: rows.map(({ ref, r }) => [ref.id, ref.name, ref.email ?? '', ...BUCKETS.map((b) => majorUnits(r[b])), r.invoices, report.answer.currency]),
      }
    }
    case 'stock_valuation':
      return {
        columns: [text('productId'), text('productName'), text('productSku'), number('quantity'), number('unitCost'), number('value'), text('currency')],
        rows: report.answer.data.map((r) => [r.product.id, r.product.name, r.product.sku ?? '', r.quantity, majorUnits(r.unitCost), majorUnits(r.value), report.answer.currency]),
      }
    case 'sales': {
      const product = report.answer.groupBy === 'product'
      return {
        columns: [text('keyId'), text('keyName'), number('revenue'), number('orders'), ...(product ? [number('quantity')] : []), text('currency')],
        rows: report.answer.data.map((r) => [r.key.id ?? '', r.key.name, majorUnits(r.revenue), r.orders, ...(product ? [r.quantity ?? 0] : []), report.answer.currency]),
      }
    }
  }
}

/**
 * The CSV text of a report answer, through the kernel's writer (RFC 4180
 * quoting, lines end with \n, text cells that could start a formula prefixed
 * with ', numbers as they are).
 */
export function toCsv(report: CsvReport): string {
  const { columns, rows } = toCsvRecords(report)
  return toCsvText(columns, rows)
}
