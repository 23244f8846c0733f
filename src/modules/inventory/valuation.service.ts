import type { Queryable } from '../../core/db.ts'
import type { AccountingService, Posting } from '../accounting/index.ts'
import type { ProductsService } from '../products/index.ts'
import { utcDay } from '../../core/dates.ts'
import { movePosting, revaluationPostings, type CostBasis, type PurchasePrice, type ValuedMove } from './valuation.lib.ts'
import { valuationRepository as repo } from './valuation.repository.ts'

/** A receipt's purchase prices: the PO's currency and each product's unitPrice on it. */
export interface ReceiptPrices {
  currency: string
  prices: Record<string, number>
}

/**
 * Given transfer ids, the purchase prices of those that receive a purchase
 * order (the others absent). The purchase module registers one from its
 * register() (it needs inventory; inventory cannot need it).
 */
export type ReceiptPricing = (q: Queryable, organizationId: string, transferIds: string[]) => Promise<Map<string, ReceiptPrices>>

/** A done move to post, as validateTransfer and createAdjustment insert it. */
export type MoveToPost = Omit<ValuedMove, 'productName'> & { productId: string }

const priceOf = (r: ReceiptPrices | undefined, productId: string): PurchasePrice | undefined =>
  r && r.prices[productId] !== undefined ? { currency: r.currency, unitPrice: r.prices[productId] } : undefined

/**
 * The inventory's side of the general ledger,
 * docs/accounting.md "Posting rules: stock moves and revaluations": the entry of every done move between
 * an internal location and another type, the revaluation when a product's
 * cost changes while on hand, and the history of the moves done before the
 * ledger. The rules are valuation.lib.ts's; this posts them.
 */
export class ValuationService {
  private readonly pricing: ReceiptPricing[] = []

  constructor(
    private readonly accounting: AccountingService,
    private readonly products: ProductsService,
  ) {}

  /** The purchase module tells how to find a receipt's purchase prices. */
  registerReceiptPricing(pricing: ReceiptPricing) {
    this.pricing.push(pricing)
  }

  async receiptPrices(q: Queryable, organizationId: string, transferIds: string[]): Promise<Map<string, ReceiptPrices>> {
    const out = new Map<string, ReceiptPrices>()
    if (!transferIds.length) return out
    for (const pricing of this.pricing) for (const [id, r] of await pricing(q, organizationId, transferIds)) if (!out.has(id)) out.set(id, r)
    return out
  }

  /**
   * Posts one entry per move (those the rules value), in the caller's
   * transaction. The caller holds the moves' quant locks: the products' costs
   * are read here, after them, so a cost change waits for this transaction or
   * this one reads the cost it committed (revalue). PERIOD_LOCKED when a
   * move's day is on or before the lock date.
   */
  async postMoves(q: Queryable, organizationId: string, moves: MoveToPost[], receipt?: ReceiptPrices) {
    if (!moves.length) return
    const products = new Map((await this.products.findMany(organizationId, moves.map((m) => m.productId), q)).map((p) => [p.id, p]))
    const postings = moves.flatMap((m) => {
      const p = products.get(m.productId)!
      return movePosting({ ...m, productName: p.name }, { cost: p.cost ?? null, currency: p.currency, type: p.type }, priceOf(receipt, m.productId)) ?? []
    })
    // One statement for every move's entry (docs/decisions/0014-general-ledger.md).
    await this.accounting.postAll(q, organizationId, postings)
  }

  /**
   * The products module's hook, inside the transaction that changes a
   * product's cost, currency or type (the product row locked): locks the
   * product's internal quants, reads the on-hand quantity after the locks, and
   * posts the revaluation dated today (PERIOD_LOCKED, and the change rolled
   * back, when today is locked).
   */
  onCostChanged = async (q: Queryable, organizationId: string, productId: string, before: CostBasis & { name: string }, after: CostBasis & { name: string }) => {
    if (before.cost === after.cost && before.currency === after.currency && before.type === after.type) return
    const onHand = Number(await repo.lockOnHand(q, organizationId, productId))
    if (onHand === 0) return
    await this.accounting.postAll(q, organizationId, revaluationPostings(productId, after.name, onHand, before, after, utcDay(new Date())))
  }

  /**
   * The history provider (accounting.registerHistory('inventory')): the entry
   * of every done move the rules value, at the product's current cost (so
   * that 1200 equals the on-hand quantity at cost, as the stock valuation
   * reads it), receipts of purchase orders at their PO prices, dated at each
   * move's doneAt.
   */
  history = async (q: Queryable, organizationId: string): Promise<Posting[]> => {
    const rows = await repo.doneMoves(q, organizationId)
    const prices = await this.receiptPrices(q, organizationId, [...new Set(rows.filter((r) => r.source_type === 'supplier' && r.transfer_id).map((r) => r.transfer_id!))])
    const out: Posting[] = []
    for (const r of rows) {
      const move: ValuedMove = {
        id: r.id, reference: r.reference, productName: r.product_name, quantity: Number(r.quantity),
        sourceLocationId: r.source_location_id, destinationLocationId: r.destination_location_id,
        sourceType: r.source_type, destinationType: r.destination_type, doneAt: r.done_at,
      }
      const posting = movePosting(move, { cost: r.cost === null ? null : Number(r.cost), currency: r.currency, type: r.product_type },
        r.transfer_id ? priceOf(prices.get(r.transfer_id), r.product_id) : undefined)
      if (posting) out.push(posting)
    }
    return out
  }
}
