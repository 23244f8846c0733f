import { randomUUID } from 'node:crypto'
import { parseRange, parseTimestamp } from '../../core/dates.ts'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, StateConflictError, ValidationError } from '../../core/errors.ts'
import type { DomainEvents } from '../../core/events.ts'
import type { Services } from '../../core/module.ts'
import type { PageParams } from '../../core/pagination.ts'
import { nextNumber, nextSequence } from '../../core/sequences.ts'
import { add, sub } from '../inventory/index.ts'
import { manufacturingRepository as boms, productionRepository as repo, type OrderRow } from './manufacturing.repository.ts'
import { TERMINAL, type Bom, type CreateProductionOrder, type Produce, type ProductionOrder, type ProductionOrderListQuery, type WorkOrderDone, type WorkOrderListQuery } from './manufacturing.schemas.ts'
import { MAX_PHANTOM_DEPTH } from './manufacturing.service.ts'
import { fraction, over, plus, round, share, times, type Fraction } from './quantities.lib.ts'

type Deps = Pick<Services, 'products' | 'inventory'>

/** The largest component need of one order: the largest quantity a request may carry (core Quantity). */
const MAX_NEED = 1_000_000_000
const STOCK = 'LOC-STOCK'
const PRODUCTION = 'LOC-PRODUCTION'

/** The BOM a production order uses when it names none: the product's first (oldest; ids in the order they were created). */
export const defaultBomOf = (bomIds: readonly string[]): string | undefined => bomIds[0]

/**
 * Production and work orders (docs/manufacturing.md "States",
 * docs/manufacturing.md "Work orders"). Stock moves through the inventory module's
 * transfers, in the caller's transaction: confirm makes a ready transfer
 * LOC-STOCK -> LOC-PRODUCTION of the component needs (reserving them), each
 * produce validates it for the components of `qty` (its backorder keeps the
 * rest reserved) and validates a transfer LOC-PRODUCTION -> LOC-STOCK of the
 * finished quantity, close cancels what is left of it. Every transition locks
 * the order row first.
 */
export class ProductionService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly deps: Deps,
  ) {}

  list(organizationId: string, query: ProductionOrderListQuery & PageParams) {
    return repo.list(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  async get(organizationId: string, id: string, q: Queryable = this.db): Promise<ProductionOrder> {
    const order = await repo.find(q, organizationId, id)
    if (!order) throw new NotFoundError('Production order')
    return order
  }

  /**
   * A draft order numbered MO/<year>/<seq>: the BOM (bomId, else the
   * product's first) is read once, here: its components, exploded through
   * phantom kits, become the order's needs, and its operations the work
   * orders. The product and every needed component must be storable (422).
   */
  create(organizationId: string, input: CreateProductionOrder) {
    return this.db.tx(async (q) => {
      const scheduledDate = input.scheduledDate === undefined ? new Date() : parseTimestamp(input.scheduledDate, 'scheduledDate')
      const [product] = await this.deps.products.findMany(organizationId, [input.productId], q)
      if (!product) throw new ValidationError('productId does not name a product of this organization')
      const bomId = input.bomId ?? defaultBomOf(await boms.bomIdsOf(q, organizationId, product.id))
      if (!bomId) throw new ValidationError(`productId: ${product.name} has no BOM (create one, or send bomId)`)
      const bom = await boms.shareBom(q, organizationId, bomId)
      if (!bom) throw new ValidationError('bomId does not name a BOM of this organization')
      if (bom.product.id !== product.id) throw new ValidationError(`bomId: BOM ${bom.name} makes ${bom.product.name}, not ${product.name}`)
      const needs = await this.explode(q, organizationId, bom, input.quantity)
      const found = new Map((await this.deps.products.findMany(organizationId, [product.id, ...needs.map((n) => n.productId)], q)).map((p) => [p.id, p]))
      const problems = [product.id, ...needs.map((n) => n.productId)]
        .map((pid) => found.get(pid)!)
        .filter((p) => p.type !== 'storable')
        .map((p) => `${p.id === product.id ? 'productId' : 'components'}: ${p.name} is a ${p.type} product; only storable products move through stock`)
      for (const n of needs) if (!(n.quantity <= MAX_NEED)) problems.push(`components: ${found.get(n.productId)!.name} would need ${n.quantity}, above the limit of ${MAX_NEED} per order`)
      if (problems.length) throw new ValidationError(problems)

      const id = randomUUID()
      const reference = await nextNumber(q, organizationId, 'MO')
      const workOrders = []
      for (const op of bom.operations) {
        workOrders.push({ id: `wo_${await nextSequence(q, organizationId, 'WO', 0)}`, name: op.name, workcenter: op.workcenter, expectedDurationMinutes: op.durationMinutes })
      }
      await repo.insert(q, {
        id, organizationId, reference, productId: product.id, bomId: bom.id, quantity: input.quantity, uom: bom.uom, scheduledDate, components: needs, workOrders,
      })
      return this.get(organizationId, id, q)
    })
  }

  /**
   * What `quantity` of the BOM's product consumes: component quantity x
   * quantity / BOM quantity, each component that has a phantom BOM (its
   * first) replaced by that BOM's components scaled the same way, down to
   * products without one; one need per product, in order of first
   * appearance, each rounded once to 6 decimals (a need that rounds to 0 is
   * left out). A product met again on its own path is a cycle: 422 naming it.
   */
  private async explode(q: Queryable, organizationId: string, bom: Bom, quantity: number) {
    const totals = new Map<string, Fraction>()
    const factor = over(fraction(quantity), fraction(bom.quantity))
    let frontier = bom.components.map((c) => ({ productId: c.productId, qty: times(fraction(c.quantity), factor), path: [bom.product.id] }))
    for (let depth = 0; frontier.length; depth++) {
      if (depth > MAX_PHANTOM_DEPTH) throw new ValidationError(`bomId: phantom BOMs nest deeper than ${MAX_PHANTOM_DEPTH} levels`)
      const kits = await boms.firstPhantomBoms(q, organizationId, [...new Set(frontier.map((i) => i.productId))])
      const next: typeof frontier = []
      for (const item of frontier) {
        const path = [...item.path, item.productId]
        if (item.path.includes(item.productId)) throw new ValidationError(`bomId: phantom BOM cycle ${path.join(' -> ')} (the explosion of BOM ${bom.name} comes back to a product it started from)`)
        const kit = kits.get(item.productId)
        if (!kit) totals.set(item.productId, totals.has(item.productId) ? plus(totals.get(item.productId)!, item.qty) : item.qty)
        else for (const c of kit.components) next.push({ productId: c.productId, qty: over(times(item.qty, fraction(c.quantity)), fraction(kit.quantity)), path })
      }
      frontier = next
    }
    return [...totals].map(([productId, f]) => ({ productId, quantity: round(f) })).filter((n) => n.quantity > 0)
  }

  /** The order row, locked; 404 when unknown, 409 when done or cancelled. */
  private async lockOpen(q: Queryable, organizationId: string, id: string): Promise<OrderRow> {
    const row = await repo.row(q, organizationId, id, true)
    if (!row) throw new NotFoundError('Production order')
    if (TERMINAL.includes(row.status)) throw new StateConflictError(`Production order ${row.reference} is already ${row.status}`)
    return row
  }

  private async emit(q: Queryable, type: string, order: ProductionOrder) {
    await this.events.append(q, { organizationId: order.organizationId, type, resource: { type: 'production_order', id: order.id }, object: order })
    return order
  }

  /**
   * Draft to confirmed: a ready transfer LOC-STOCK -> LOC-PRODUCTION of the
   * component needs reserves them all or nothing (short stock: 400
   * INSUFFICIENT_STOCK naming every short product). Not a draft: 409.
   */
  confirm(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const row = await this.lockOpen(q, organizationId, id)
      if (row.status !== 'draft') throw new StateConflictError(`Production order ${row.reference} is already ${row.status}`)
      const components = await repo.components(q, organizationId, id)
      const transfer = components.length
        ? await this.deps.inventory.createTransfer(q, organizationId, {
          type: 'internal', sourceLocationId: STOCK, destinationLocationId: PRODUCTION, scheduledDate: row.scheduled_date.toISOString(),
          moves: components.map((c) => ({ productId: c.productId, demandQty: c.quantity })), origin: row.reference,
        }, { status: 'ready' })
        : null
      await repo.update(q, organizationId, id, { status: 'confirmed', confirmed_at: new Date(), component_transfer_id: transfer?.id ?? null, component_transfer_reference: transfer?.reference ?? null })
      return this.emit(q, 'production_order.confirmed', await this.get(organizationId, id, q))
    })
  }

  /**
   * Produces `qty` (confirmed or in_progress; draft 409, terminal 409; above
   * the open quantity 422): validates the component transfer for the
   * components of the produced total so far (cumulative shares of each need,
   * so the last produce consumes exactly what is left), whose backorder keeps
   * the rest reserved, and validates a transfer of `qty` of the product
   * LOC-PRODUCTION -> LOC-STOCK. Done when producedQty reaches quantity
   * (production_order.done), else in_progress.
   */
  produce(organizationId: string, id: string, input: Produce) {
    return this.db.tx(async (q) => {
      const row = await this.lockOpen(q, organizationId, id)
      if (row.status === 'draft') throw new StateConflictError(`Production order ${row.reference} is a draft; confirm it first`)
      const quantity = Number(row.quantity)
      const produced = Number(row.produced_qty)
      const total = add(produced, input.qty)
      if (total > quantity) {
        throw new ValidationError(`qty ${input.qty} exceeds the open quantity ${sub(quantity, produced)} of ${row.reference} (quantity ${quantity}, produced ${produced})`)
      }
      const components = await repo.components(q, organizationId, id)
      const consumption = new Map(components.map((c) => [c.productId, sub(share(c.quantity, total, quantity), c.consumedQty)]))
      const { inventory } = this.deps
      const producedAt = new Date()
      // The finished transfer draws its number first: every sequence before any quant lock.
      const finished = await inventory.createTransfer(q, organizationId, {
        type: 'internal', sourceLocationId: PRODUCTION, destinationLocationId: STOCK, scheduledDate: row.scheduled_date.toISOString(),
        moves: [{ productId: row.product_id, demandQty: input.qty }], origin: row.reference,
      })
      const consuming = [...consumption.values()].some((c) => c > 0)
      await inventory.lockStock(q, organizationId, [
        ...(consuming ? components.flatMap((c) => [{ productId: c.productId, locationId: STOCK }, { productId: c.productId, locationId: PRODUCTION }]) : []),
        { productId: row.product_id, locationId: PRODUCTION }, { productId: row.product_id, locationId: STOCK },
      ])
      let pending = row.component_transfer_id ? { id: row.component_transfer_id, reference: row.component_transfer_reference! } : null
      let consumptionTransferId: string | null = null
      if (consuming) {
        const open = pending && (await inventory.getTransfer(organizationId, pending.id, q))
        if (!open || (open.status !== 'ready' && open.status !== 'draft')) {
          const what = open ? `was ${open.status === 'done' ? 'validated' : 'cancelled'} in inventory` : 'is missing'
          throw new StateConflictError(`The component transfer ${pending?.reference ?? ''} of ${row.reference} ${what}; close the order`)
        }
        const done = await inventory.validateTransfer(q, organizationId, open.id, {
          moves: open.moves.map((m) => ({ productId: m.productId, doneQty: consumption.get(m.productId) ?? 0 })),
          doneAt: producedAt,
        })
        consumptionTransferId = done.id
        pending = done.backorder
      }
      await inventory.validateTransfer(q, organizationId, finished.id, { doneAt: producedAt })
      await repo.addConsumed(q, organizationId, id, [...consumption].map(([productId, qty]) => ({ productId, qty })))
      await repo.insertOutput(q, organizationId, id, { quantity: input.qty, lotNumber: input.lotNumber ?? null, consumptionTransferId, finishedTransferId: finished.id, producedAt })
      const isDone = total === quantity
      await repo.update(q, organizationId, id, {
        status: isDone ? 'done' : 'in_progress', produced_qty: total,
        component_transfer_id: pending?.id ?? null, component_transfer_reference: pending?.reference ?? null,
        ...(isDone ? { closed_at: producedAt } : {}),
      })
      const order = await this.get(organizationId, id, q)
      return isDone ? this.emit(q, 'production_order.done', order) : order
    })
  }

  /**
   * Closes a non-terminal order: done when something was produced
   * (production_order.done), else cancelled (production_order.cancelled);
   * what the component transfer still reserves is released (the transfer is
   * cancelled). Terminal: 409.
   */
  close(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const row = await this.lockOpen(q, organizationId, id)
      if (row.component_transfer_id) {
        const t = await this.deps.inventory.getTransfer(organizationId, row.component_transfer_id, q)
        if (t.status === 'ready' || t.status === 'draft') await this.deps.inventory.cancelTransfer(q, organizationId, t.id)
      }
      const status = Number(row.produced_qty) > 0 ? 'done' : 'cancelled'
      await repo.update(q, organizationId, id, { status, closed_at: new Date(), component_transfer_id: null, component_transfer_reference: null })
      return this.emit(q, `production_order.${status}`, await this.get(organizationId, id, q))
    })
  }

  // ---------------------------------------------------------------- work orders

  async listWorkOrders(organizationId: string, id: string, page: WorkOrderListQuery) {
    await this.get(organizationId, id)
    return repo.workOrders(this.db, organizationId, id, page)
  }

  /** The order (locked, not terminal: 409) and its work order (404). */
  private async lockWorkOrder(q: Queryable, organizationId: string, id: string, woId: string) {
    const row = await this.lockOpen(q, organizationId, id)
    const wo = await repo.lockWorkOrder(q, organizationId, id, woId)
    if (!wo) throw new NotFoundError('Work order')
    return { row, wo }
  }

  /** pending -> in_progress, recording startedAt; the first start moves a confirmed order to in_progress. A draft order: 409. */
  startWorkOrder(organizationId: string, id: string, woId: string) {
    return this.db.tx(async (q) => {
      const { row, wo } = await this.lockWorkOrder(q, organizationId, id, woId)
      if (row.status === 'draft') throw new StateConflictError(`Production order ${row.reference} is a draft; confirm it before starting its work orders`)
      if (wo.status !== 'pending') throw new StateConflictError(`Work order ${wo.id} is already ${wo.status}`)
      const started = await repo.startWorkOrder(q, organizationId, woId)
      if (row.status === 'confirmed') await repo.update(q, organizationId, id, { status: 'in_progress' })
      return started
    })
  }

  /** in_progress -> done, recording finishedAt, durationMinutes (default: the minutes since the start) and notes. */
  finishWorkOrder(organizationId: string, id: string, woId: string, input: WorkOrderDone) {
    return this.db.tx(async (q) => {
      const { wo } = await this.lockWorkOrder(q, organizationId, id, woId)
      if (wo.status !== 'in_progress') throw new StateConflictError(`Work order ${wo.id} is ${wo.status === 'done' ? 'already done' : 'not started'}`)
      return repo.finishWorkOrder(q, organizationId, woId, input.durationMinutes ?? null, input.notes ?? null)
    })
  }
}
