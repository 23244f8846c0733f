import { MAX_YEAR, MIN_YEAR, utcDay } from '../../core/dates.ts'
import { ValidationError } from '../../core/errors.ts'
import type { AccountType } from './accounting.types.ts'

/**
 * The chart every organization is made with
 * (docs/accounting.md "Chart of accounts"); migrations/0129 gave the
 * organizations that existed the same list.
 * `system` accounts keep their code and type and cannot be deleted.
 */
export const CHART: ReadonlyArray<{ code: string; name: string; type: AccountType }> = [
  { code: '1000', name: 'Bank', type: 'asset' },
  { code: '1100', name: 'Accounts receivable', type: 'asset' },
  { code: '1200', name: 'Inventory', type: 'asset' },
  { code: '1300', name: 'Tax receivable', type: 'asset' },
  { code: '2000', name: 'Accounts payable', type: 'liability' },
  { code: '2100', name: 'Tax payable', type: 'liability' },
  { code: '2200', name: 'Goods received not billed', type: 'liability' },
  { code: '3000', name: "Owner's equity", type: 'equity' },
  { code: '4000', name: 'Sales', type: 'income' },
  { code: '5000', name: 'Cost of goods sold', type: 'expense' },
  { code: '5100', name: 'Inventory adjustments', type: 'expense' },
  { code: '5200', name: 'Purchase price difference', type: 'expense' },
  { code: '5300', name: 'Production', type: 'expense' },
]

/** The chart codes the services post to, by name. */
export const ACCOUNTS = {
  bank: '1000',
  receivable: '1100',
  inventory: '1200',
  taxReceivable: '1300',
  payable: '2000',
  taxPayable: '2100',
  goodsReceivedNotBilled: '2200',
  equity: '3000',
  sales: '4000',
  costOfGoodsSold: '5000',
  inventoryAdjustments: '5100',
  purchasePriceDifference: '5200',
  production: '5300',
} as const

/**
 * The lines as stored: each a debit or a credit above 0, zeros dropped. A
 * signed `amount` becomes a debit (above 0) or a credit (below 0); so does a
 * line with both debit and credit, by its net.
 */
export function normalizeLines<L extends { debit?: number; credit?: number; amount?: number }>(lines: readonly L[]) {
  const out: Array<Omit<L, 'debit' | 'credit' | 'amount'> & { debit: number; credit: number }> = []
  for (const l of lines) {
    const net = l.amount ?? (l.debit ?? 0) - (l.credit ?? 0)
    if (!Number.isSafeInteger(net)) throw new Error(`A posting line's amount is not a whole number of cents: ${net}`)
    if (net === 0) continue
    const { debit: _d, credit: _c, amount: _a, ...rest } = l
    out.push({ ...rest, debit: net > 0 ? net : 0, credit: net < 0 ? -net : 0 })
  }
  return out
}


const DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/** A query or body date: YYYY-MM-DD, a real day of the years MIN_YEAR..MAX_YEAR, or 422 naming the field. */
export function parseDay(value: unknown, field: string): string {
  const m = typeof value === 'string' ? DAY.exec(value) : null
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
    const date = new Date(Date.UTC(y, mo - 1, d))
    if (y >= MIN_YEAR && y <= MAX_YEAR && date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d) return value as string
  }
  throw new ValidationError(`${field} must be a date (YYYY-MM-DD) between ${MIN_YEAR} and ${MAX_YEAR}`)
}

/** A currency parameter: default usd, stored lower-case. */
export const currencyOf = (value: string | undefined) => (value ?? 'usd').toLowerCase()

/**
 * from/to of a period (docs/accounting.md "Reports"): each a day, from not
 * after to (422). `to` defaults to the last day of the current month, `from`
 * to the first day of the month of `to`.
 */
export function periodOf(p: { from?: string; to?: string }, now = new Date()) {
  const to = p.to === undefined ? monthEnd(utcDay(now)) : parseDay(p.to, 'to')
  const from = p.from === undefined ? `${to.slice(0, 8)}01` : parseDay(p.from, 'from')
  if (from > to) throw new ValidationError('from must not be after to')
  return { from, to }
}

/** The last day of the month of a YYYY-MM-DD day. */
export function monthEnd(day: string): string {
  const [y, m] = [Number(day.slice(0, 4)), Number(day.slice(5, 7))]
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10)
}

/**
 * A manual line's amount: exactly one of debit and credit above 0 (422
 * otherwise, naming the line). Answers the line's signed amount.
 */
export function manualLineProblem(line: { debit?: number; credit?: number }, index: number): string | undefined {
  const debit = line.debit ?? 0
  const credit = line.credit ?? 0
  if (debit > 0 && credit > 0) return `lines[${index}] has both a debit and a credit: give one of them`
  if (debit === 0 && credit === 0) return `lines[${index}] has neither a debit nor a credit above 0`
  return undefined
}

/** The lines of a reversal: each line of the original with its debit and credit swapped. */
export function reversedLines(lines: ReadonlyArray<{ accountId: string; debit: number; credit: number; description: string | null }>) {
  return lines.map((l) => ({ accountId: l.accountId, debit: l.credit, credit: l.debit, description: l.description }))
}
