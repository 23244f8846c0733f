import { ACCOUNTS, type Posting, type PostingLine } from '../accounting/index.ts'
import { utcDay } from '../../core/dates.ts'
import { mulRound } from './decimal.lib.ts'

/**
 * The stock posting rules, docs/accounting.md "Posting rules: stock moves and revaluations",
 * as pure functions: the live postings (a transfer's or an
 * adjustment's validation, a cost change) and the history of an organization
 * go through the same ones.
 */

/** What a product brings to its valuation: its cost (cents, null when unset) in its currency, and whether it is stocked. */
export interface CostBasis {
  cost: number | null
  currency: string
  type: string
}

/** A done move as the rules read it. */
export interface ValuedMove {
  id: string
  reference: string
  productName: string
  quantity: number
  sourceLocationId: string
  destinationLocationId: string
  sourceType: string
  destinationType: string
  doneAt: Date
}

/** The price a purchase order paid for the product a receipt move brings in: the PO line's unitPrice in the PO's currency. */
export interface PurchasePrice {
  currency: string
  unitPrice: number
}

const INTERNAL = 'internal'

/** The account at the other end of a move between an internal location and a location of this type. */
export const OTHER_END: Readonly<Record<string, string>> = {
  supplier: ACCOUNTS.goodsReceivedNotBilled,
  customer: ACCOUNTS.costOfGoodsSold,
  inventory_loss: ACCOUNTS.inventoryAdjustments,
  production: ACCOUNTS.production,
}

/** The value of a quantity at a cost: round(quantity x cost), half away from zero, exact. */
export const valueAt = (quantity: number, cost: number) => mulRound(quantity, cost)

/** Whether a product's stock has a value in the ledger: storable, with a cost. */
export const isValued = (p: CostBasis): p is CostBasis & { cost: number } => p.type === 'storable' && p.cost !== null

/**
 * The entry of one done move, or null when it posts nothing: between two
 * internal locations or two non-internal ones, a product without a cost, an
 * other end of no known type, or a value of 0 on every line.
 *
 * - Into an internal location: Dr 1200 value; Cr the other end's account.
 *   Out of one: Dr the other end; Cr 1200.
 * - A purchase receipt (supplier into internal, `price` given): Dr 1200 the
 *   value at cost; Cr 2200 round(quantity x unitPrice); the difference to 5200
 *   (Dr when the PO paid more than the cost). When the PO's currency is not
 *   the product's, 5200 stands in for 2200: Dr 1200 value; Cr 5200 value.
 */
export function movePosting(m: ValuedMove, p: CostBasis, price?: PurchasePrice): Posting | null {
  const into = m.destinationType === INTERNAL
  const outOf = m.sourceType === INTERNAL
  if (into === outOf || !isValued(p)) return null
  const otherType = into ? m.sourceType : m.destinationType
  const other = OTHER_END[otherType]
  if (!other) return null
  const value = valueAt(m.quantity, p.cost)
  let lines: PostingLine[]
  if (into && otherType === 'supplier' && price) {
    if (price.currency === p.currency) {
      const paid = valueAt(m.quantity, price.unitPrice)
      lines = [
        { account: ACCOUNTS.inventory, debit: value },
        { account: ACCOUNTS.goodsReceivedNotBilled, credit: paid },
        { account: ACCOUNTS.purchasePriceDifference, amount: paid - value },
      ]
    } else {
      lines = [{ account: ACCOUNTS.inventory, debit: value }, { account: ACCOUNTS.purchasePriceDifference, credit: value }]
    }
  } else if (into) {
    lines = [{ account: ACCOUNTS.inventory, debit: value }, { account: other, credit: value }]
  } else {
    lines = [{ account: other, debit: value }, { account: ACCOUNTS.inventory, credit: value }]
  }
  if (lines.every((l) => (l.amount ?? l.debit ?? l.credit ?? 0) === 0)) return null
  return {
    date: utcDay(m.doneAt),
    currency: p.currency,
    memo: `${m.reference}: ${m.quantity} x ${m.productName} (${m.sourceLocationId} -> ${m.destinationLocationId})`,
    source: { type: 'stock_move', id: m.id },
    lines,
  }
}

/**
 * The entries of a change of a product's cost, currency or type while
 * `onHand` of it is at the internal locations, dated `date`: 1200 against 5100
 * by round(onHand x new cost) - round(onHand x old cost) (Dr 1200 when the
 * value rises). A product that was or becomes unvalued (no cost, not
 * storable) counts 0 on that side; a change of currency takes the old value
 * out in the old currency and puts the new one in, in the new (two entries).
 * The source is the product (`revaluation`, productId): revaluations have no
 * history to skip, and the ledger of one product's revaluations is one filter.
 */
export function revaluationPostings(productId: string, productName: string, onHand: number, before: CostBasis, after: CostBasis, date: string): Posting[] {
  const old = isValued(before) ? valueAt(onHand, before.cost) : 0
  const now = isValued(after) ? valueAt(onHand, after.cost) : 0
  const memo = `Revaluation of ${productName}: ${onHand} on hand, cost ${before.cost ?? 'none'} ${before.currency} -> ${after.cost ?? 'none'} ${after.currency}`
  const posting = (currency: string, delta: number): Posting => ({
    date,
    currency,
    memo,
    source: { type: 'revaluation', id: productId },
    lines: delta >= 0
      ? [{ account: ACCOUNTS.inventory, debit: delta }, { account: ACCOUNTS.inventoryAdjustments, credit: delta }]
      : [{ account: ACCOUNTS.inventoryAdjustments, debit: -delta }, { account: ACCOUNTS.inventory, credit: -delta }],
  })
  const postings = before.currency === after.currency
    ? [posting(after.currency, now - old)]
    : [posting(before.currency, -old), posting(after.currency, now)]
  return postings.filter((p) => p.lines.some((l) => (l.debit ?? l.credit ?? 0) !== 0))
}
