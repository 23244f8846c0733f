import { iso, type Queryable } from '../../core/db.ts'
import { inDays, type DayRange } from '../../core/dates.ts'
import { add, sub } from './decimal.lib.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type {
  Adjustment, AdjustmentListQuery, MoveListQuery, ProductStock, ProductStockQuery, StockMove, Transfer, TransferListQuery, TransferStatus, TransferType,
} from './inventory.schemas.ts'

/** A done stock move as its export reads it (report runs): quantity as exact decimal text, doneAt ISO 8601 UTC. */
export interface StockMoveExportRow {
  id: string
  reference: string
  doneAt: string
  productId: string
  productName: string
  productSku: string | null
  quantity: string
  sourceLocationId: string
  destinationLocationId: string
  transferId: string | null
  adjustmentId: string | null
  /** The exact done_at, to continue after this row (not exported). */
  key?: string
}

export interface TransferRow {
  id: string
  organization_id: string
  reference: string
  type: TransferType
  status: TransferStatus
  source_location_id: string
  destination_location_id: string
  source_name: string
  destination_name: string
  scheduled_date: Date | null
  origin: string | null
  backorder_of: string | null
  backorder_of_reference: string | null
  backorder_id: string | null
  backorder_reference: string | null
  done_at: Date | null
  created_at: Date
  updated_at: Date
  moves: Array<{ product_id: string; product_name: string; demand_qty: number; done_qty: number; reserved_qty: number }>
}

export interface MoveLine {
  productId: string
  demandQty: number
  doneQty: number
  reservedQty: number
}

/** A quant key and how it changes: quantity and reserved deltas. */
export interface QuantChange {
  productId: string
  locationId: string
  internal: boolean
  quantity: number
  reserved: number
}

/** Code-point order of (product, location): the order every transaction locks quants in (SQL: COLLATE "C"). */
export const byQuantKey = (a: { productId: string; locationId: string }, b: { productId: string; locationId: string }) =>
  a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : a.locationId < b.locationId ? -1 : a.locationId > b.locationId ? 1 : 0

const num = (v: unknown) => Number(v)

export const toTransfer = (r: TransferRow): Transfer => ({
  id: r.id,
  reference: r.reference,
  type: r.type,
  status: r.status,
  sourceLocationId: r.source_location_id,
  destinationLocationId: r.destination_location_id,
  sourceLocation: r.source_name,
  destinationLocation: r.destination_name,
  scheduledDate: r.scheduled_date ? iso(r.scheduled_date) : null,
  origin: r.origin,
  moves: (r.moves ?? []).map((m) => ({ productId: m.product_id, productName: m.product_name, demandQty: num(m.demand_qty), doneQty: num(m.done_qty), reservedQty: num(m.reserved_qty) })),
  backorder: r.backorder_id ? { id: r.backorder_id, reference: r.backorder_reference ?? '' } : null,
  backorderOf: r.backorder_of ? { id: r.backorder_of, reference: r.backorder_of_reference ?? '' } : null,
  doneAt: r.done_at ? iso(r.done_at) : null,
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

/** The columns of a transfer as the API shows it: location names, backorder references and the moves with product names. */
const TRANSFER_SELECT = `t.*,
  src.name AS source_name, dst.name AS destination_name,
  (SELECT b.reference FROM transfers b WHERE b.organization_id = t.organization_id AND b.id = t.backorder_id) AS backorder_reference,
  (SELECT o.reference FROM transfers o WHERE o.organization_id = t.organization_id AND o.id = t.backorder_of) AS backorder_of_reference,
  (SELECT coalesce(json_agg(json_build_object('product_id', m.product_id, 'product_name', p.name, 'demand_qty', m.demand_qty,
            'done_qty', m.done_qty, 'reserved_qty', m.reserved_qty) ORDER BY m.line_no), '[]'::json)
   FROM transfer_moves m JOIN products p ON p.organization_id = m.organization_id AND p.id = m.product_id
   WHERE m.organization_id = t.organization_id AND m.transfer_id = t.id) AS moves`
const TRANSFER_FROM = `transfers t
  JOIN locations src ON src.organization_id = t.organization_id AND src.id = t.source_location_id
  JOIN locations dst ON dst.organization_id = t.organization_id AND dst.id = t.destination_location_id`

interface AdjustmentRow {
  id: string
  organization_id: string
  reference: string
  location_id: string
  date: Date
  reason: string | null
  created_at: Date
  lines: Array<{ product_id: string; product_name: string; theoretical_qty: number; real_qty: number }>
}

const toAdjustment = (r: AdjustmentRow): Adjustment => ({
  id: r.id,
  reference: r.reference,
  locationId: r.location_id,
  date: iso(r.date),
  reason: r.reason,
  lines: (r.lines ?? []).map((l) => ({
    productId: l.product_id,
    productName: l.product_name,
    theoreticalQty: num(l.theoretical_qty),
    realQty: num(l.real_qty),
    difference: sub(num(l.real_qty), num(l.theoretical_qty)),
  })),
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
})
const ADJUSTMENT_SELECT = `a.*,
  (SELECT coalesce(json_agg(json_build_object('product_id', l.product_id, 'product_name', p.name, 'theoretical_qty', l.theoretical_qty,
            'real_qty', l.real_qty) ORDER BY l.line_no), '[]'::json)
   FROM adjustment_lines l JOIN products p ON p.organization_id = l.organization_id AND p.id = l.product_id WHERE l.organization_id = a.organization_id AND l.adjustment_id = a.id) AS lines`

interface MoveRow {
  id: string
  reference: string
  product_id: string
  product_name: string
  quantity: number
  source_location_id: string
  destination_location_id: string
  transfer_id: string | null
  adjustment_id: string | null
  done_at: Date
}
const toMove = (r: MoveRow): StockMove => ({
  id: r.id,
  reference: r.reference,
  product: { id: r.product_id, name: r.product_name },
  quantity: num(r.quantity),
  sourceLocationId: r.source_location_id,
  destinationLocationId: r.destination_location_id,
  transferId: r.transfer_id,
  adjustmentId: r.adjustment_id,
  doneAt: iso(r.done_at),
})

interface ProductStockRow {
  id: string
  name: string
  sku: string | null
  on_hand: number
  reserved: number
  available: number
  reorder_point: number
  uom: string
}
const toProductStock = (r: ProductStockRow): ProductStock => ({
  productId: r.id, productName: r.name, sku: r.sku, onHand: num(r.on_hand), reserved: num(r.reserved), available: num(r.available), reorderPoint: num(r.reorder_point), uom: r.uom,
})

export const inventoryRepository = {
  // ---- locations and products as the inventory reads them ----

  /** Types of the given locations of the organization (unknown ids are absent). */
  async locationTypes(q: Queryable, organizationId: string, ids: string[]) {
    const { rows } = await q.query<{ id: string; name: string; type: string }>(
      'SELECT id, name, type FROM locations WHERE organization_id = $1 AND id = ANY($2::text[])',
      [organizationId, ids],
    )
    return new Map(rows.map((r) => [r.id, r]))
  },

  /** The ids of the organization's inventory-loss locations, in code-point order. */
  async lossLocations(q: Queryable, organizationId: string) {
    const { rows } = await q.query<{ id: string }>(
      `SELECT id FROM locations WHERE organization_id = $1 AND type = 'inventory_loss' ORDER BY id COLLATE "C"`,
      [organizationId],
    )
    return rows.map((r) => r.id)
  },

  // ---- quants and levels ----

  /**
   * Locks the quants of `keys` (made at zero when missing), in code-point
   * order of (product, location), and returns them. Every writer of quants
   * locks through here first, so two transactions never wait on each other in
   * opposite orders.
   */
  async lockQuants(q: Queryable, organizationId: string, keys: Array<{ productId: string; locationId: string; internal: boolean }>) {
    const unique = new Map(keys.map((k) => [`${k.productId}|${k.locationId}`, k]))
    const sorted = [...unique.values()].sort(byQuantKey)
    // One statement makes the missing quants at zero and locks every one, in the fixed order:
    // the no-op DO UPDATE takes the row lock of an existing quant and returns its committed values.
    const { rows } = await q.query<{ product_id: string; location_id: string; internal: boolean; quantity: number; reserved: number }>(
      `INSERT INTO stock_quants AS s (organization_id, product_id, location_id, internal)
       SELECT $1, v.p, v.l, v.i FROM unnest($2::uuid[], $3::text[], $4::boolean[]) WITH ORDINALITY AS v(p, l, i, n) ORDER BY v.n
       ON CONFLICT (organization_id, product_id, location_id) DO UPDATE SET quantity = s.quantity
       RETURNING product_id, location_id, internal, quantity, reserved`,
      [organizationId, sorted.map((k) => k.productId), sorted.map((k) => k.locationId), sorted.map((k) => k.internal)],
    )
    return new Map(rows.map((r) => [`${r.product_id}|${r.location_id}`, { internal: r.internal, quantity: num(r.quantity), reserved: num(r.reserved) }]))
  },

  /** The quants of these (product, location) pairs that exist, read without locks: product|location -> quantity and reserved. */
  async quants(q: Queryable, organizationId: string, keys: ReadonlyArray<{ productId: string; locationId: string }>) {
    const { rows } = await q.query<{ product_id: string; location_id: string; quantity: number; reserved: number }>(
      `SELECT s.product_id, s.location_id, s.quantity, s.reserved FROM stock_quants s
         JOIN unnest($2::uuid[], $3::text[]) AS v(p, l) ON s.product_id = v.p AND s.location_id = v.l
        WHERE s.organization_id = $1`,
      [organizationId, keys.map((k) => k.productId), keys.map((k) => k.locationId)],
    )
    return new Map(rows.map((r) => [`${r.product_id}|${r.location_id}`, { quantity: num(r.quantity), reserved: num(r.reserved) }]))
  },

  /** Locks the stock_levels rows of these products (those that exist), in product order: after lockQuants, as every writer does. */
  async lockLevels(q: Queryable, organizationId: string, productIds: string[]) {
    await q.query(
      `SELECT 1 FROM stock_levels WHERE organization_id = $1 AND product_id = ANY($2::uuid[]) ORDER BY product_id FOR UPDATE`,
      [organizationId, [...new Set(productIds)].sort()],
    )
  },

  /** Applies quant changes (rows locked by lockQuants) and the matching per-product totals over internal locations. */
  async applyQuantChanges(q: Queryable, organizationId: string, changes: QuantChange[]) {
    const live = changes.filter((c) => c.quantity !== 0 || c.reserved !== 0).sort(byQuantKey)
    if (!live.length) return
    await q.query(
      `UPDATE stock_quants s SET quantity = s.quantity + v.dq, reserved = s.reserved + v.dr
       FROM unnest($2::uuid[], $3::text[], $4::numeric[], $5::numeric[]) AS v(p, l, dq, dr)
       WHERE s.organization_id = $1 AND s.product_id = v.p AND s.location_id = v.l`,
      [organizationId, live.map((c) => c.productId), live.map((c) => c.locationId), live.map((c) => c.quantity), live.map((c) => c.reserved)],
    )
    const levels = new Map<string, { onHand: number; reserved: number }>()
    for (const c of live) {
      if (!c.internal) continue
      const l = levels.get(c.productId) ?? { onHand: 0, reserved: 0 }
      l.onHand = add(l.onHand, c.quantity)
      l.reserved = add(l.reserved, c.reserved)
      levels.set(c.productId, l)
    }
    const products = [...levels.keys()].filter((p) => levels.get(p)!.onHand !== 0 || levels.get(p)!.reserved !== 0).sort()
    if (!products.length) return
    const update = (ids: string[]) => q.query<{ product_id: string }>(
      `UPDATE stock_levels l SET on_hand = l.on_hand + v.dq, reserved = l.reserved + v.dr
       FROM unnest($2::uuid[], $3::numeric[], $4::numeric[]) AS v(p, dq, dr)
       WHERE l.organization_id = $1 AND l.product_id = v.p
       RETURNING l.product_id`,
      [organizationId, ids, ids.map((p) => levels.get(p)!.onHand), ids.map((p) => levels.get(p)!.reserved)],
    )
    const updated = new Set((await update(products)).rows.map((r) => r.product_id))
    const missing = products.filter((p) => !updated.has(p))
    if (!missing.length) return
    // A product's first stock: its row is made at zero, then changed (an upsert would check
    // the CHECKs on the delta itself, which may be negative for reserved).
    await q.query(
      `INSERT INTO stock_levels (organization_id, product_id)
       SELECT $1, v.p FROM unnest($2::uuid[]) WITH ORDINALITY AS v(p, n) ORDER BY v.n
       ON CONFLICT (organization_id, product_id) DO NOTHING`,
      [organizationId, missing],
    )
    await update(missing)
  },

  /** Appends done moves to the ledger. */
  async insertMoves(q: Queryable, organizationId: string, moves: Array<{ id: string; reference: string; transferId: string | null; adjustmentId: string | null; productId: string; source: string; destination: string; quantity: number; doneAt: Date }>) {
    if (!moves.length) return
    await q.query(
      `INSERT INTO stock_moves (id, organization_id, reference, transfer_id, adjustment_id, product_id, source_location_id, destination_location_id, quantity, done_at)
       SELECT v.id, $1, v.ref, v.tid, v.aid, v.p, v.s, v.d, v.q, v.at
       FROM unnest($2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[], $9::numeric[], $10::timestamptz[]) AS v(id, ref, tid, aid, p, s, d, q, at)`,
      [organizationId, moves.map((m) => m.id), moves.map((m) => m.reference), moves.map((m) => m.transferId), moves.map((m) => m.adjustmentId),
        moves.map((m) => m.productId), moves.map((m) => m.source), moves.map((m) => m.destination), moves.map((m) => m.quantity), moves.map((m) => m.doneAt.toISOString())],
    )
  },

  /** Whether a location has quants or ledger moves (its type is then fixed). */
  async locationUsed(q: Queryable, organizationId: string, locationId: string) {
    const { rows } = await q.query(
      `SELECT 1 FROM stock_quants WHERE organization_id = $1 AND location_id = $2
       UNION ALL SELECT 1 FROM transfers WHERE organization_id = $1 AND (source_location_id = $2 OR destination_location_id = $2)
       LIMIT 1`,
      [organizationId, locationId],
    )
    return rows.length > 0
  },

  // ---- transfers ----

  async insertTransfer(q: Queryable, t: { id: string; organizationId: string; reference: string; type: TransferType; status: TransferStatus; source: string; destination: string; scheduledDate: Date | null; origin: string | null; backorderOf: string | null; moves: MoveLine[] }) {
    await q.query(
      `INSERT INTO transfers (id, organization_id, reference, type, status, source_location_id, destination_location_id, scheduled_date, origin, backorder_of)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [t.id, t.organizationId, t.reference, t.type, t.status, t.source, t.destination, t.scheduledDate, t.origin, t.backorderOf],
    )
    await q.query(
      `INSERT INTO transfer_moves (transfer_id, organization_id, product_id, line_no, demand_qty, done_qty, reserved_qty)
       SELECT $1, $2, v.p, v.n, v.dq, v.done, v.r FROM unnest($3::uuid[], $4::numeric[], $5::numeric[], $6::numeric[]) WITH ORDINALITY AS v(p, dq, done, r, n)`,
      [t.id, t.organizationId, t.moves.map((m) => m.productId), t.moves.map((m) => m.demandQty), t.moves.map((m) => m.doneQty), t.moves.map((m) => m.reservedQty)],
    )
  },

  async findTransfer(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<TransferRow>(`SELECT ${TRANSFER_SELECT} FROM ${TRANSFER_FROM} WHERE t.organization_id = $1 AND t.id = $2`, [organizationId, id])
    return rows[0]
  },

  /** The transfer row, locked for the rest of the transaction; undefined when missing. */
  async lockTransfer(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<{ id: string; reference: string; type: TransferType; status: TransferStatus; source_location_id: string; destination_location_id: string; scheduled_date: Date | null; origin: string | null }>(
      'SELECT id, reference, type, status, source_location_id, destination_location_id, scheduled_date, origin FROM transfers WHERE organization_id = $1 AND id = $2 FOR UPDATE',
      [organizationId, id],
    )
    return rows[0]
  },

  async transferMoves(q: Queryable, organizationId: string, transferId: string) {
    const { rows } = await q.query<{ product_id: string; product_name: string; demand_qty: number; done_qty: number; reserved_qty: number }>(
      `SELECT m.product_id, p.name AS product_name, m.demand_qty, m.done_qty, m.reserved_qty
       FROM transfer_moves m JOIN products p ON p.organization_id = m.organization_id AND p.id = m.product_id
       WHERE m.organization_id = $2 AND m.transfer_id = $1 ORDER BY m.line_no`,
      [transferId, organizationId],
    )
    return rows.map((r) => ({ productId: r.product_id, productName: r.product_name, demandQty: num(r.demand_qty), doneQty: num(r.done_qty), reservedQty: num(r.reserved_qty) }))
  },

  /** Sets each move's done and reserved quantities. */
  async setMoveQuantities(q: Queryable, organizationId: string, transferId: string, moves: Array<{ productId: string; doneQty: number; reservedQty: number }>) {
    await q.query(
      `UPDATE transfer_moves m SET done_qty = v.done, reserved_qty = v.r
       FROM unnest($2::uuid[], $3::numeric[], $4::numeric[]) AS v(p, done, r)
       WHERE m.organization_id = $5 AND m.transfer_id = $1 AND m.product_id = v.p`,
      [transferId, moves.map((m) => m.productId), moves.map((m) => m.doneQty), moves.map((m) => m.reservedQty), organizationId],
    )
  },

  async setTransferStatus(q: Queryable, organizationId: string, id: string, status: TransferStatus, extra: { doneAt?: Date; backorderId?: string | null } = {}) {
    await q.query(
      `UPDATE transfers SET status = $2, done_at = coalesce($3, done_at), backorder_id = coalesce($4, backorder_id), updated_at = now() WHERE organization_id = $5 AND id = $1`,
      [id, status, extra.doneAt ?? null, extra.backorderId ?? null, organizationId],
    )
  },

  listTransfers(q: Queryable, organizationId: string, query: TransferListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('t.organization_id', organizationId)
      .counted('t.type', query.type)
      .counted('t.status', query.status)
      .maybe(range.from, 't.scheduled_date >= ?')
      .maybe(range.to, 't.scheduled_date <= ?')
      .search(query.search, ['t.reference', 't.origin'])
    return paginate(q, query, {
      from: TRANSFER_FROM,
      select: TRANSFER_SELECT,
      where,
      sortColumns: { reference: 't.reference', scheduledDate: 't.scheduled_date', createdAt: 't.created_at', updatedAt: 't.updated_at' },
      defaultSort: 'createdAt',
      tieBreaker: 't.id',
      map: toTransfer,
      counter: 'transfers',
    })
  },

  // ---- adjustments ----

  async insertAdjustment(q: Queryable, a: { id: string; organizationId: string; reference: string; locationId: string; date: Date; reason: string | null; lines: Array<{ productId: string; theoreticalQty: number; realQty: number }> }) {
    await q.query(
      'INSERT INTO adjustments (id, organization_id, reference, location_id, date, reason) VALUES ($1, $2, $3, $4, $5, $6)',
      [a.id, a.organizationId, a.reference, a.locationId, a.date, a.reason],
    )
    await q.query(
      `INSERT INTO adjustment_lines (organization_id, adjustment_id, line_no, product_id, theoretical_qty, real_qty)
       SELECT $5, $1, v.n, v.p, v.t, v.r FROM unnest($2::uuid[], $3::numeric[], $4::numeric[]) WITH ORDINALITY AS v(p, t, r, n)`,
      [a.id, a.lines.map((l) => l.productId), a.lines.map((l) => l.theoreticalQty), a.lines.map((l) => l.realQty), a.organizationId],
    )
  },

  async findAdjustment(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<AdjustmentRow>(`SELECT ${ADJUSTMENT_SELECT} FROM adjustments a WHERE a.organization_id = $1 AND a.id = $2`, [organizationId, id])
    return rows[0] ? toAdjustment(rows[0]) : undefined
  },

  listAdjustments(q: Queryable, organizationId: string, query: AdjustmentListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('a.organization_id', organizationId)
      .maybe(query.locationId, 'a.location_id = ?')
      .maybe(range.from, 'a.date >= ?')
      .maybe(range.to, 'a.date <= ?')
    return paginate(q, query, {
      from: 'adjustments a',
      select: ADJUSTMENT_SELECT,
      where,
      sortColumns: { date: 'a.date', createdAt: 'a.created_at', reference: 'a.reference' },
      defaultSort: 'createdAt',
      tieBreaker: 'a.id',
      map: toAdjustment,
      counter: 'adjustments',
    })
  },

  // ---- reads ----

  listMoves(q: Queryable, organizationId: string, query: MoveListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where().scope('m.organization_id', organizationId).maybe(query.productId, 'm.product_id = ?')
    if (query.locationId !== undefined) {
      const p = where.param(query.locationId)
      where.add(`(m.source_location_id = ${p} OR m.destination_location_id = ${p})`)
    }
    where
      .maybe(query.reference, 'm.reference = ?')
      .maybe(range.from, 'm.done_at >= ?')
      .maybe(range.to, 'm.done_at <= ?')
    return paginate(q, query, {
      from: 'stock_moves m JOIN products p ON p.organization_id = m.organization_id AND p.id = m.product_id',
      select: 'm.*, p.name AS product_name',
      where,
      sortColumns: { doneAt: 'm.done_at', quantity: 'm.quantity', reference: 'm.reference' },
      defaultSort: 'doneAt',
      tieBreaker: 'm.id',
      map: toMove,
      counter: 'stock_moves',
    })
  },

  /**
   * Storable products with their stock: the per-product totals (stock_levels),
   * or, for one warehouse, the sum of the quants of its internal locations.
   */
  listProductStock(q: Queryable, organizationId: string, query: ProductStockQuery & PageParams) {
    const where = new Where().scope('p.organization_id', organizationId).add(`p.type = 'storable'`)
    let levels = `LEFT JOIN stock_levels s ON s.organization_id = p.organization_id AND s.product_id = p.id`
    if (query.warehouseId !== undefined) {
      const org = where.param(organizationId)
      const wh = where.param(query.warehouseId)
      levels = `LEFT JOIN (
          SELECT sq.product_id, sum(sq.quantity) AS on_hand, sum(sq.reserved) AS reserved
          FROM stock_quants sq JOIN locations l ON l.organization_id = sq.organization_id AND l.id = sq.location_id
          WHERE sq.organization_id = ${org} AND sq.internal AND l.warehouse_id = ${wh}
          GROUP BY sq.product_id) s ON s.product_id = p.id`
    }
    if (query.belowReorder) where.add('p.reorder_point > 0 AND coalesce(s.on_hand - s.reserved, 0) <= p.reorder_point')
    where.search(query.search, ['p.name', 'p.sku'])
    return paginate(q, query, {
      from: `products p ${levels}`,
      select: 'p.id, p.name, p.sku, p.reorder_point, p.uom, coalesce(s.on_hand, 0) AS on_hand, coalesce(s.reserved, 0) AS reserved, coalesce(s.on_hand - s.reserved, 0) AS available',
      where,
      sortColumns: { name: 'p.name', sku: 'p.sku', onHand: 'coalesce(s.on_hand, 0)', available: 'coalesce(s.on_hand - s.reserved, 0)' },
      defaultSort: 'name',
      tieBreaker: 'p.id',
      map: toProductStock,
    })
  },

  /**
   * Storable products of one currency with their quantity at the internal
   * locations (of one warehouse, when given) at the end of the UTC day asOf:
   * what the quants hold now minus the net of the done moves into and out of
   * those locations dated after asOf (the ledger is append-only and the quants
   * are its running sums). Products whose quantity is 0 are left out.
   */
  async stockAsOf(q: Queryable, organizationId: string, r: { asOf: string; currency: string; warehouseId?: string }) {
    const { rows } = await q.query<{ id: string; name: string; sku: string | null; cost: number | null; quantity: number }>(
      `WITH scope AS (
         SELECT id FROM locations WHERE organization_id = $1 AND type = 'internal' AND ($4::uuid IS NULL OR warehouse_id = $4)),
       held AS (
         SELECT product_id, sum(quantity) AS q FROM stock_quants
         WHERE organization_id = $1 AND internal AND location_id IN (SELECT id FROM scope) GROUP BY 1),
       later AS (
         SELECT product_id,
                sum(CASE WHEN destination_location_id IN (SELECT id FROM scope) THEN quantity ELSE 0 END)
              - sum(CASE WHEN source_location_id IN (SELECT id FROM scope) THEN quantity ELSE 0 END) AS q
         FROM stock_moves
         WHERE organization_id = $1 AND done_at >= ($2::date + 1)::timestamp AT TIME ZONE 'UTC' GROUP BY 1),
       stock AS (
         SELECT coalesce(h.product_id, l.product_id) AS product_id, coalesce(h.q, 0) - coalesce(l.q, 0) AS quantity
         FROM held h FULL JOIN later l ON l.product_id = h.product_id)
       SELECT p.id, p.name, p.sku, p.cost, s.quantity
       FROM stock s JOIN products p ON p.organization_id = $1 AND p.id = s.product_id
       WHERE p.organization_id = $1 AND p.type = 'storable' AND p.currency = $3 AND s.quantity <> 0`,
      [organizationId, r.asOf, r.currency, r.warehouseId ?? null],
    )
    return rows
  },

  /** Internal locations where the product holds a non-zero quantity. */
  async productLocations(q: Queryable, organizationId: string, productId: string) {
    const { rows } = await q.query<{ location_id: string; name: string; quantity: number }>(
      `SELECT sq.location_id, l.name, sq.quantity FROM stock_quants sq
       JOIN locations l ON l.organization_id = sq.organization_id AND l.id = sq.location_id
       WHERE sq.organization_id = $1 AND sq.product_id = $2 AND sq.internal AND sq.quantity <> 0
       ORDER BY sq.location_id COLLATE "C"`,
      [organizationId, productId],
    )
    return rows.map((r) => ({ locationId: r.location_id, locationName: r.name, quantity: num(r.quantity) }))
  },

  /**
   * One keyset batch of the moves done within the UTC days of range, in
   * (done_at, id) order on stock_moves_org_done_idx; `after` is the last row
   * of the batch before.
   */
  async exportMovesBatch(q: Queryable, organizationId: string, range: DayRange, after: StockMoveExportRow | undefined, limit: number) {
    const { rows } = await q.query<StockMoveExportRow>(
      `SELECT m.id, m.reference, to_char(m.done_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "doneAt",
              m.product_id AS "productId", p.name AS "productName", p.sku AS "productSku", m.quantity::text AS quantity,
              m.source_location_id AS "sourceLocationId", m.destination_location_id AS "destinationLocationId",
              m.transfer_id AS "transferId", m.adjustment_id AS "adjustmentId", m.done_at::text AS key
         FROM stock_moves m JOIN products p ON p.organization_id = m.organization_id AND p.id = m.product_id
        WHERE m.organization_id = $1 AND ${inDays('m.done_at', '$2', '$3')}
          AND ($4::timestamptz IS NULL OR (m.done_at, m.id) > ($4::timestamptz, $5::uuid))
        ORDER BY m.done_at, m.id LIMIT $6`,
      [organizationId, range.from, range.to, after?.key ?? null, after?.id ?? null, limit],
    )
    return rows
  },
}
