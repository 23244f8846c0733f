/** The accounting module's types (docs/accounting.md). */

export type AccountType = 'asset' | 'liability' | 'equity' | 'income' | 'expense'

export type SourceType =
  | 'invoice' | 'invoice_payment' | 'invoice_cancellation' | 'vendor_bill' | 'bill_payment'
  | 'stock_move' | 'revaluation' | 'manual' | 'reversal'

/**
 * One line of a posting. `account` is a chart code (`1100`) or, for manual
 * entries, an account id (`accountId`). Amounts are integer cents; a posting
 * may give a signed `amount` (above 0 a debit, below 0 a credit) instead of
 * debit/credit, which is how a difference (5200, a revaluation) is written.
 * Lines of 0 are dropped.
 */
export type PostingLine =
  & ({ account: string; accountId?: never } | { accountId: string; account?: never })
  & ({ debit?: number; credit?: number; amount?: never } | { amount: number; debit?: never; credit?: never })
  & { description?: string | null }

/** What a service posts: `accounting.post(q, organizationId, posting)` inside its transaction. */
export interface Posting {
  /** YYYY-MM-DD: the entry's date (its number's year, the lock date check). */
  date: string
  /** Lower-case ISO 4217. */
  currency: string
  memo: string
  source: { type: SourceType; id: string } | null
  lines: PostingLine[]
  /** For a reversal: the entry it reverses. */
  reverses?: string
}

/** Gives the postings of one organization's documents that predate the ledger (docs/accounting.md "History"). */
export type HistoryProvider = (q: import('../../core/db.ts').Queryable, organizationId: string) => Promise<Posting[]>
