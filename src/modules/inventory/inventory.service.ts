import { randomUUID } from 'node:crypto'
import { isAfterToday, parseRange, parseTimestamp } from '../../core/dates.ts'
import type { Db, Queryable } from '../../core/db.ts'
import { AppError, InvalidStateError, NotFoundError, ValidationError } from '../../core/errors.ts'
import type { DomainEvents } from '../../core/events.ts'
import type { PageParams } from '../../core/pagination.ts'
import { nextSequence } from '../../core/sequences.ts'
import type { ProductsService } from '../products/index.ts'
import { sub } from './decimal.lib.ts'
import { inventoryRepository as repo, toTransfer, type MoveLine, type QuantChange, type StockMoveExportRow } from './inventory.repository.ts'
import { locationsRepository } from './locations.repository.ts'
import type { MoveToPost, ReceiptPrices, ReceiptPricing, ValuationService } from './valuation.service.ts'
import { keysetBatches } from '../../core/batches.ts'
import type { DayRange } from '../../core/dates.ts'
import type {
  Adjustment, AdjustmentListQuery, CreateAdjustment, MoveListQuery, ProductStockQuery, Transfer, TransferListQuery, TransferType,
} from './inventory.schemas.ts'

/** What purchase (and later manufacturing) gives createTransfer. */
export interface NewTransfer {
  type: TransferType
  /** 'LOC-SUPPLIER' etc.; unknown or foreign: ValidationError (422). */
  sourceLocationId: string
  destinationLocationId: string
  /** ISO timestamp (or date). */
  scheduledDate?: string | null
  /** Storable products only (422), one move per product (a duplicate productId: 422). */
  moves: Array<{ productId: string; demandQty: number }>
  /** The source document, e.g. the purchase order reference 'PO/2026/00001'. */
  origin?: string | null
}

export interface ValidateInput {
  moves?: Array<{ productId: string; doneQty: number }>
  /** Stamps the done moves (default now). */
  doneAt?: Date
  /**
   * A purchase receipt's prices, from the purchase module receiving it: the
   * entries credit 2200 at them, docs/accounting.md "Posting rules: stock moves and revaluations".
   * Without them a receipt from a supplier asks the registered receipt pricing.
   */
  receiptPrices?: ReceiptPrices
}

const PREFIX: Record<TransferType | 'adjustment', string> = { receipt: 'WH/IN', delivery: 'WH/OUT', internal: 'WH/INT', adjustment: 'WH/ADJ' }

/**
 * WH/IN/00001: per organization and per kind, five digits (more past 99,999).
 * The references carry no year, so the sequence is one for all years (year 0
 * of core/sequences) and never repeats.
 */
async function nextReference(q: Queryable, organizationId: string, kind: TransferType | 'adjustment') {
  const n = await nextSequence(q, organizationId, PREFIX[kind], 0)
  return `${PREFIX[kind]}/${String(n).padStart(5, '0')}`
}

/** 400 naming every short product, in the order given. */
const insufficient = (productNames: string[]) => new AppError('INSUFFICIENT_STOCK', `Insufficient stock for ${productNames.join(', ')}`)
const INTERNAL = 'internal'

/** Where an adjustment posts its differences: LOC-LOSS when the organization has it, else its first inventory-loss location (ids in code-point order). */
export const lossLocationOf = (lossLocationIds: readonly string[]) => (lossLocationIds.includes('LOC-LOSS') ? 'LOC-LOSS' : lossLocationIds[0])

/** A move as inserted, with the types of its two ends: what the valuation posts. */
const toPost = (m: { id: string; reference: string; productId: string; quantity: number; source: string; destination: string; doneAt: Date }, sourceType: string, destinationType: string): MoveToPost => ({
  id: m.id, reference: m.reference, productId: m.productId, quantity: m.quantity,
  sourceLocationId: m.source, destinationLocationId: m.destination, sourceType, destinationType, doneAt: m.doneAt,
})

export class InventoryService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly products: ProductsService,
    private readonly valuation: ValuationService,
  ) {}

  /**
   * The purchase module registers, from its register(), how to find the PO
   * prices of a receipt transfer validated here directly (and of the history):
   * docs/accounting.md "Posting rules: stock moves and revaluations".
   */
  registerReceiptPricing(pricing: ReceiptPricing) {
    this.valuation.registerReceiptPricing(pricing)
  }

  // ---- shared checks ----

  /** The products of `lines` (checked storable, once each), by id; 422 naming the line otherwise. */
  private async storableProducts(q: Queryable, organizationId: string, ids: string[], field: string) {
    const problems: string[] = []
    const seen = new Set<string>()
    ids.forEach((id, i) => {
      if (seen.has(id)) problems.push(`${field}[${i}].productId: product ${id} is listed twice (one line per product)`)
      seen.add(id)
    })
    const found = new Map((await this.products.findMany(organizationId, ids, q)).map((p) => [p.id, p]))
    ids.forEach((id, i) => {
      const p = found.get(id)
      if (!p) problems.push(`${field}[${i}].productId does not name a product of this organization`)
      else if (p.type !== 'storable') problems.push(`${field}[${i}].productId: ${p.name} is a ${p.type} product; only storable products are tracked in stock`)
    })
    if (problems.length) throw new ValidationError(problems)
    return found
  }

  private async locations(q: Queryable, organizationId: string, fields: Record<string, string>) {
    const found = await repo.locationTypes(q, organizationId, Object.values(fields))
    const problems = Object.entries(fields).filter(([, id]) => !found.has(id)).map(([field, id]) => `${field} ${id} does not name a location of this organization`)
    if (problems.length) throw new ValidationError(problems)
    return found
  }

  private async emitDone(q: Queryable, transfer: Transfer) {
    await this.events.append(q, { organizationId: transfer.organizationId, type: 'transfer.done', resource: { type: 'transfer', id: transfer.id }, object: transfer })
  }

  // ---- transfers: the public face ----

  /**
   * A transfer numbered WH/IN|OUT|INT/<5 digits>, in the caller's transaction;
   * 'draft' unless opts.status is 'ready' (then, from an internal source, it
   * reserves like confirm does: short stock is 400 and nothing is made).
   */
  async createTransfer(q: Queryable, organizationId: string, input: NewTransfer, opts: { status?: 'draft' | 'ready' } = {}): Promise<Transfer> {
    const problems: string[] = []
    if (input.sourceLocationId === input.destinationLocationId) problems.push('destinationLocationId must differ from sourceLocationId')
    if (!input.moves.length) problems.push('moves must hold at least one move')
    input.moves.forEach((m, i) => {
      if (!(Number.isFinite(m.demandQty) && m.demandQty > 0)) problems.push(`moves[${i}].demandQty must be a number above 0`)
    })
    if (problems.length) throw new ValidationError(problems)
    const scheduledDate = input.scheduledDate == null ? null : parseTimestamp(input.scheduledDate, 'scheduledDate')
    const locations = await this.locations(q, organizationId, { sourceLocationId: input.sourceLocationId, destinationLocationId: input.destinationLocationId })
    const products = await this.storableProducts(q, organizationId, input.moves.map((m) => m.productId), 'moves')
    const id = randomUUID()
    const reference = await nextReference(q, organizationId, input.type)
    await repo.insertTransfer(q, {
      id, organizationId, reference, type: input.type, status: 'draft', source: input.sourceLocationId, destination: input.destinationLocationId,
      scheduledDate, origin: input.origin ?? null, backorderOf: null,
      moves: input.moves.map((m) => ({ productId: m.productId, demandQty: m.demandQty, doneQty: 0, reservedQty: 0 })),
    })
    if (opts.status === 'ready') {
      const internal = locations.get(input.sourceLocationId)!.type === INTERNAL
      await this.reserve(q, organizationId, id, input.sourceLocationId, internal, input.moves.map((m) => ({ ...m, productName: products.get(m.productId)!.name })))
    }
    return this.getTransfer(organizationId, id, q)
  }

  /**
   * Moves a draft to ready; from an internal source it reserves each move's
   * demand first (all or nothing: short stock is 400 INSUFFICIENT_STOCK).
   */
  private async reserve(q: Queryable, organizationId: string, id: string, source: string, internal: boolean, moves: Array<{ productId: string; productName: string; demandQty: number }>) {
    if (internal) {
      const quants = await repo.lockQuants(q, organizationId, moves.map((m) => ({ productId: m.productId, locationId: source, internal: true })))
      const short = moves.filter((m) => {
        const quant = quants.get(`${m.productId}|${source}`)!
        return sub(quant.quantity, quant.reserved) < m.demandQty
      })
      if (short.length) throw insufficient(short.map((m) => m.productName))
      await repo.applyQuantChanges(q, organizationId, moves.map((m) => ({ productId: m.productId, locationId: source, internal: true, quantity: 0, reserved: m.demandQty })))
      await repo.setMoveQuantities(q, organizationId, id, moves.map((m) => ({ productId: m.productId, doneQty: 0, reservedQty: m.demandQty })))
    }
    await repo.setTransferStatus(q, organizationId, id, 'ready')
  }

  /**
   * Validates a draft or ready transfer: the done quantities (each move's
   * demand unless `input.moves` overrides it) become ledger moves, the quants
   * and totals change with them, the transfer's reservation is released, and
   * moves done below their demand leave a backorder transfer for the rest, in
   * the state the original had (a ready backorder keeps the reservation of its
   * rest). From draft only unreserved stock is taken; short stock is 400
   * INSUFFICIENT_STOCK and nothing changes. Appends transfer.done.
   */
  async validateTransfer(q: Queryable, organizationId: string, id: string, input: ValidateInput = {}): Promise<Transfer> {
    const t = await repo.lockTransfer(q, organizationId, id)
    if (!t) throw new NotFoundError('Transfer')
    if (t.status === 'done' || t.status === 'cancelled') throw new InvalidStateError(`Transfer ${t.reference} is already ${t.status === 'done' ? 'validated' : 'cancelled'}`)
    const moves = await repo.transferMoves(q, organizationId, id)
    const done = new Map(moves.map((m) => [m.productId, m.demandQty]))
    const problems: string[] = []
    const overridden = new Set<string>()
    ;(input.moves ?? []).forEach((o, i) => {
      const move = moves.find((m) => m.productId === o.productId)
      if (!move) problems.push(`moves[${i}].productId: product ${o.productId} has no move in transfer ${t.reference}`)
      else if (overridden.has(o.productId)) problems.push(`moves[${i}].productId: product ${o.productId} is listed twice`)
      else if (!(o.doneQty >= 0)) problems.push(`moves[${i}].doneQty must not be negative`)
      else if (o.doneQty > move.demandQty) problems.push(`moves[${i}].doneQty ${o.doneQty} exceeds the demand ${move.demandQty} of ${move.productName}`)
      else done.set(o.productId, o.doneQty)
      overridden.add(o.productId)
    })
    if (!problems.length && [...done.values()].every((d) => d === 0)) problems.push('moves: at least one move must have a doneQty above 0 (cancel the transfer instead)')
    if (problems.length) throw new ValidationError(problems)

    const doneAt = input.doneAt ?? new Date()
    const rest = moves.filter((m) => done.get(m.productId)! < m.demandQty)
    // The backorder's number is drawn before any quant is locked (every writer takes the sequence first).
    const backorderReference = rest.length ? await nextReference(q, organizationId, t.type) : undefined
    const locations = await repo.locationTypes(q, organizationId, [t.source_location_id, t.destination_location_id])
    const srcInternal = locations.get(t.source_location_id)?.type === INTERNAL
    const dstInternal = locations.get(t.destination_location_id)?.type === INTERNAL

    // Per move: d taken from the source; of its reservation r, d is consumed and r - d goes to the backorder.
    const plan = moves.map((m) => {
      const d = done.get(m.productId)!
      const consumed = Math.min(d, m.reservedQty)
      return { ...m, d, consumed, carried: sub(m.reservedQty, consumed) }
    })
    const active = plan.filter((m) => m.d > 0)
    const quants = await repo.lockQuants(q, organizationId, active.flatMap((m) => [
      { productId: m.productId, locationId: t.source_location_id, internal: srcInternal },
      { productId: m.productId, locationId: t.destination_location_id, internal: dstInternal },
    ]))
    if (srcInternal) {
      // Free stock plus what this transfer itself holds reserved.
      const short = active.filter((m) => {
        const quant = quants.get(`${m.productId}|${t.source_location_id}`)!
        return sub(quant.quantity, quant.reserved) < sub(m.d, m.consumed)
      })
      if (short.length) throw insufficient(short.map((m) => m.productName))
    }
    const changes: QuantChange[] = active.flatMap((m) => [
      { productId: m.productId, locationId: t.source_location_id, internal: srcInternal, quantity: -m.d, reserved: -m.consumed },
      { productId: m.productId, locationId: t.destination_location_id, internal: dstInternal, quantity: m.d, reserved: 0 },
    ])
    await repo.applyQuantChanges(q, organizationId, changes)
    const doneMoves = active.map((m) => ({
      id: randomUUID(), reference: t.reference, transferId: id, adjustmentId: null, productId: m.productId,
      source: t.source_location_id, destination: t.destination_location_id, quantity: m.d, doneAt,
    }))
    await repo.insertMoves(q, organizationId, doneMoves)
    await repo.setMoveQuantities(q, organizationId, id, plan.map((m) => ({ productId: m.productId, doneQty: m.d, reservedQty: 0 })))

    let backorderId: string | null = null
    if (backorderReference) {
      backorderId = randomUUID()
      const backorderMoves: MoveLine[] = plan.filter((m) => m.d < m.demandQty).map((m) => ({ productId: m.productId, demandQty: sub(m.demandQty, m.d), doneQty: 0, reservedQty: m.carried }))
      await repo.insertTransfer(q, {
        id: backorderId, organizationId, reference: backorderReference, type: t.type, status: t.status, source: t.source_location_id, destination: t.destination_location_id,
        scheduledDate: t.scheduled_date, origin: t.origin, backorderOf: id, moves: backorderMoves,
      })
    }
    await repo.setTransferStatus(q, organizationId, id, 'done', { doneAt, backorderId })
    const transfer = await this.getTransfer(organizationId, id, q)
    await this.emitDone(q, transfer)
    // The entries, after the quant locks (the costs are read under them): docs/accounting.md "Posting rules: stock moves and revaluations".
    // Last, as the ledger asks: the entry numbers hold the organization's JE sequence row until the commit.
    const sourceType = locations.get(t.source_location_id)?.type ?? ''
    const destinationType = locations.get(t.destination_location_id)?.type ?? ''
    const receipt = sourceType === 'supplier' && dstInternal
      ? input.receiptPrices ?? (await this.valuation.receiptPrices(q, organizationId, [id])).get(id)
      : undefined
    await this.valuation.postMoves(q, organizationId, doneMoves.map((m) => toPost(m, sourceType, destinationType)), receipt)
    return transfer
  }

  /** Cancels a draft or ready transfer and releases its reservation; done or cancelled: 400. */
  async cancelTransfer(q: Queryable, organizationId: string, id: string): Promise<Transfer> {
    const t = await repo.lockTransfer(q, organizationId, id)
    if (!t) throw new NotFoundError('Transfer')
    if (t.status === 'done' || t.status === 'cancelled') throw new InvalidStateError(`Transfer ${t.reference} is already ${t.status === 'done' ? 'validated' : 'cancelled'}`)
    const reserved = (await repo.transferMoves(q, organizationId, id)).filter((m) => m.reservedQty > 0)
    if (reserved.length) {
      await repo.lockQuants(q, organizationId, reserved.map((m) => ({ productId: m.productId, locationId: t.source_location_id, internal: true })))
      await repo.applyQuantChanges(q, organizationId, reserved.map((m) => ({ productId: m.productId, locationId: t.source_location_id, internal: true, quantity: 0, reserved: -m.reservedQty })))
      await repo.setMoveQuantities(q, organizationId, id, reserved.map((m) => ({ productId: m.productId, doneQty: 0, reservedQty: 0 })))
    }
    await repo.setTransferStatus(q, organizationId, id, 'cancelled')
    return this.getTransfer(organizationId, id, q)
  }

  /** Draft to ready, reserving the demand at an internal source (short stock 400, nothing reserved); ready, done or cancelled: 400. */
  async confirmTransfer(q: Queryable, organizationId: string, id: string): Promise<Transfer> {
    const t = await repo.lockTransfer(q, organizationId, id)
    if (!t) throw new NotFoundError('Transfer')
    if (t.status !== 'draft') {
      const state = t.status === 'done' ? 'validated' : t.status === 'cancelled' ? 'cancelled' : 'ready'
      throw new InvalidStateError(`Transfer ${t.reference} is already ${state}`)
    }
    const locations = await repo.locationTypes(q, organizationId, [t.source_location_id])
    const moves = await repo.transferMoves(q, organizationId, id)
    await this.reserve(q, organizationId, id, t.source_location_id, locations.get(t.source_location_id)?.type === INTERNAL, moves)
    return this.getTransfer(organizationId, id, q)
  }

  async getTransfer(organizationId: string, id: string, q: Queryable = this.db): Promise<Transfer> {
    const row = await repo.findTransfer(q, organizationId, id)
    if (!row) throw new NotFoundError('Transfer')
    return toTransfer(row)
  }

  // ---- transfers: the routes ----

  create(organizationId: string, input: NewTransfer) {
    return this.db.tx((q) => this.createTransfer(q, organizationId, input))
  }

  confirm(organizationId: string, id: string) {
    return this.db.tx((q) => this.confirmTransfer(q, organizationId, id))
  }

  validate(organizationId: string, id: string, input: ValidateInput) {
    return this.db.tx((q) => this.validateTransfer(q, organizationId, id, input))
  }

  cancel(organizationId: string, id: string) {
    return this.db.tx((q) => this.cancelTransfer(q, organizationId, id))
  }

  listTransfers(organizationId: string, query: TransferListQuery & PageParams) {
    return repo.listTransfers(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  // ---- adjustments ----

  /**
   * Counts of one internal location: afterwards the location holds each
   * line's realQty, through a done move from or to the inventory-loss
   * location for the gap between realQty and what it held. theoreticalQty is
   * what it held, under the quant locks; a sent one must equal it, and a sent
   * difference realQty - theoreticalQty (422). A realQty below what ready
   * transfers hold reserved there is 400.
   */
  createAdjustment(organizationId: string, input: CreateAdjustment): Promise<Adjustment> {
    return this.db.tx((q) => this.adjust(q, organizationId, input))
  }

  /**
   * The stock of an import (docs/imports.md "Stock"), in the caller's
   * transaction: each location is brought to the quantities of its rows by
   * one adjustment (WH/ADJ/, reason Import), as POST /inventory/adjustments
   * makes it (moves, quants, entries), in location order. Answers the adjustments.
   */
  async setStock(q: Queryable, organizationId: string, rows: ReadonlyArray<{ productId: string; locationId: string; quantity: number }>) {
    const byLocation = new Map<string, Array<{ productId: string; realQty: number }>>()
    for (const r of rows) byLocation.set(r.locationId, [...(byLocation.get(r.locationId) ?? []), { productId: r.productId, realQty: r.quantity }])
    const made: Adjustment[] = []
    for (const locationId of [...byLocation.keys()].sort()) made.push(await this.adjust(q, organizationId, { locationId, reason: 'Import', lines: byLocation.get(locationId)! }))
    return made
  }

  /**
   * The rules of an adjustment for the rows of a stock import, by sku
   * (docs/imports.md "Stock"): the sku names a storable product, the
   * location is an internal one of the organization, the quantity is not
   * below what ready transfers hold reserved there. Answers each row's
   * problem by its index, the product of each row, and what the location
   * holds now (0 when nothing).
   */
  async stockRowProblems(q: Queryable, organizationId: string, rows: ReadonlyArray<{ sku: string; locationId: string; quantity: number }>) {
    const ids = await this.products.idsBySku(q, organizationId, [...new Set(rows.map((r) => r.sku))])
    const products = new Map((await this.products.findMany(organizationId, [...ids.values()], q)).map((p) => [p.id, p]))
    const locations = await repo.locationTypes(q, organizationId, [...new Set(rows.map((r) => r.locationId))])
    const keyed = rows.flatMap((r) => (ids.has(r.sku) ? [{ productId: ids.get(r.sku)!, locationId: r.locationId }] : []))
    const quants = await repo.quants(q, organizationId, keyed)
    const problems = new Map<number, { field: string; message: string }>()
    const held = rows.map((r, i) => {
      const productId = ids.get(r.sku)
      const product = productId === undefined ? undefined : products.get(productId)
      const location = locations.get(r.locationId)
      const quant = productId === undefined ? undefined : quants.get(`${productId}|${r.locationId}`)
      if (!product) problems.set(i, { field: 'sku', message: `sku ${r.sku} does not name a product of this organization` })
      else if (product.type !== 'storable') problems.set(i, { field: 'sku', message: `${product.name} is a ${product.type} product; only storable products are tracked in stock` })
      else if (!location) problems.set(i, { field: 'locationId', message: `locationId ${r.locationId} does not name a location of this organization` })
      else if (location.type !== INTERNAL) problems.set(i, { field: 'locationId', message: `locationId ${r.locationId} is not an internal location: only internal locations are counted` })
      else if (quant && r.quantity < quant.reserved) {
        problems.set(i, { field: 'quantity', message: `${product.name}: ${quant.reserved} is reserved at ${r.locationId} by ready transfers; realQty cannot be below it` })
      }
      return { productId, quantity: quant?.quantity ?? 0 }
    })
    return { problems, held }
  }

  private async adjust(q: Queryable, organizationId: string, input: CreateAdjustment): Promise<Adjustment> {
    const problems: string[] = []
    input.lines.forEach((l, i) => {
      if (l.difference !== undefined && l.theoreticalQty === undefined) problems.push(`lines[${i}].difference needs theoreticalQty`)
      else if (l.difference !== undefined && l.difference !== sub(l.realQty, l.theoreticalQty!)) {
        problems.push(`lines[${i}].difference ${l.difference} is not realQty - theoreticalQty (${sub(l.realQty, l.theoreticalQty!)})`)
      }
    })
    const date = input.date === undefined ? new Date() : parseTimestamp(input.date, 'date')
    if (input.date !== undefined && isAfterToday(date)) problems.push('date must not be after today')
    if (problems.length) throw new ValidationError(problems)
    const locations = await this.locations(q, organizationId, { locationId: input.locationId })
    if (locations.get(input.locationId)!.type !== INTERNAL) throw new ValidationError(`locationId ${input.locationId} is not an internal location: only internal locations are counted`)
    const products = await this.storableProducts(q, organizationId, input.lines.map((l) => l.productId), 'lines')
    const loss = lossLocationOf(await repo.lossLocations(q, organizationId))
    if (!loss) throw new ValidationError('The organization has no inventory_loss location to post the differences to')

    const id = randomUUID()
    const reference = await nextReference(q, organizationId, 'adjustment')
    const quants = await repo.lockQuants(q, organizationId, input.lines.flatMap((l) => [
      { productId: l.productId, locationId: input.locationId, internal: true },
      { productId: l.productId, locationId: loss, internal: false },
    ]))
    // The theoretical quantity is what the ledger holds now, read under the quant locks, so that each
    // line's difference is exactly the move posted; a sent value that disagrees (a count made on
    // figures that have moved since) is refused rather than stored beside a ledger it contradicts.
    const stale = input.lines.flatMap((l, i) => {
      const held = quants.get(`${l.productId}|${input.locationId}`)!.quantity
      return l.theoreticalQty === undefined || l.theoreticalQty === held ? [] : [`lines[${i}].theoreticalQty ${l.theoreticalQty} is not what ${input.locationId} holds (${held}); send the held quantity, or leave it out`]
    })
    if (stale.length) throw new ValidationError(stale)
    const changes: QuantChange[] = []
    const moves: Parameters<typeof repo.insertMoves>[2] = []
    const lines = input.lines.map((l) => {
      const held = quants.get(`${l.productId}|${input.locationId}`)!
      if (l.realQty < held.reserved) {
        throw new InvalidStateError(`${products.get(l.productId)!.name}: ${held.reserved} is reserved at ${input.locationId} by ready transfers; realQty cannot be below it`)
      }
      const gap = sub(l.realQty, held.quantity)
      if (gap !== 0) {
        changes.push({ productId: l.productId, locationId: input.locationId, internal: true, quantity: gap, reserved: 0 })
        changes.push({ productId: l.productId, locationId: loss, internal: false, quantity: -gap, reserved: 0 })
        moves.push({
          id: randomUUID(), reference, transferId: null, adjustmentId: id, productId: l.productId,
          source: gap > 0 ? loss : input.locationId, destination: gap > 0 ? input.locationId : loss, quantity: Math.abs(gap), doneAt: date,
        })
      }
      return { productId: l.productId, theoreticalQty: held.quantity, realQty: l.realQty }
    })
    await repo.insertAdjustment(q, { id, organizationId, reference, locationId: input.locationId, date, reason: input.reason ?? null, lines })
    await repo.applyQuantChanges(q, organizationId, changes)
    await repo.insertMoves(q, organizationId, moves)
    // Costs read after the quant locks, as validateTransfer does (docs/accounting.md "Posting rules: stock moves and revaluations").
    await this.valuation.postMoves(q, organizationId, moves.map((m) => toPost(m, m.source === loss ? 'inventory_loss' : INTERNAL, m.destination === loss ? 'inventory_loss' : INTERNAL)))
    return (await repo.findAdjustment(q, organizationId, id))!
  }

  async getAdjustment(organizationId: string, id: string) {
    const a = await repo.findAdjustment(this.db, organizationId, id)
    if (!a) throw new NotFoundError('Adjustment')
    return a
  }

  listAdjustments(organizationId: string, query: AdjustmentListQuery & PageParams) {
    return repo.listAdjustments(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  // ---- stock reads ----

  listMoves(organizationId: string, query: MoveListQuery & PageParams) {
    return repo.listMoves(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  listProductStock(organizationId: string, query: ProductStockQuery & PageParams) {
    return repo.listProductStock(this.db, organizationId, query)
  }

  /**
   * For the analytics module (stock valuation): every storable product priced
   * in `currency` with its non-zero quantity at the internal locations (of
   * `warehouseId`, when given) from the moves done up to the end of the UTC
   * day `asOf`, and its cost (cents, null when unset).
   */
  stockAsOf(organizationId: string, r: { asOf: string; currency: string; warehouseId?: string }) {
    return repo.stockAsOf(this.db, organizationId, r)
  }

  /** A warehouse named in a body or a report run's parameters: 422 unless it is one of this organization. */
  async referencedWarehouse(organizationId: string, id: string, field = 'warehouseId') {
    if (!(await locationsRepository.warehouseExists(this.db, organizationId, id))) throw new ValidationError(`${field} does not name a warehouse of this organization`)
  }

  /** Internal locations holding the product (non-zero); unknown product 404; a product that is not storable holds none ([]). */
  async productLocations(organizationId: string, productId: string) {
    const product = await this.products.get(organizationId, productId)
    if (product.type !== 'storable') return []
    return repo.productLocations(this.db, organizationId, productId)
  }

  /**
   * Locks, in the one fixed order, the quants of these (product, location)
   * pairs (made at zero when missing) and then the products' stock_levels
   * rows, for a caller that goes on to validate several transfers in one
   * transaction (manufacturing's produce): every lock it takes later is one
   * it holds, so it cannot wait on another writer while holding some of them
   * in another order. Unknown locations: ValidationError (422).
   */
  async lockStock(q: Queryable, organizationId: string, keys: Array<{ productId: string; locationId: string }>) {
    const types = await this.locations(q, organizationId, Object.fromEntries([...new Set(keys.map((k) => k.locationId))].map((l, i) => [`locations[${i}]`, l])))
    await repo.lockQuants(q, organizationId, keys.map((k) => ({ ...k, internal: types.get(k.locationId)!.type === INTERNAL })))
    await repo.lockLevels(q, organizationId, keys.map((k) => k.productId))
  }

  /** Whether the location's type may still change: not once it has quants or transfers. */
  locationUsed(q: Queryable, organizationId: string, locationId: string) {
    return repo.locationUsed(q, organizationId, locationId)
  }

  /**
   * The moves done (doneAt) within the UTC days of range, oldest first, read
   * in keyset batches: a caller may stream millions without holding them
   * (the `stock_moves` report run).
   */
  async *exportMoves(organizationId: string, range: DayRange): AsyncGenerator<StockMoveExportRow> {
    for await (const { key: _key, ...row } of keysetBatches<StockMoveExportRow>((after, limit) => repo.exportMovesBatch(this.db, organizationId, range, after, limit))) yield row
  }

}
