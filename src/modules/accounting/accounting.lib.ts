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

/** An entry's number: JE/2026/00001 (more digits past 99,999). */
export const entryNumber = (year: number, value: number) => `JE/${year}/${String(value).padStart(5, '0')}`

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

