import { inDays } from '../../core/dates.ts'
import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type Page, type PageParams } from '../../core/pagination.ts'
import type {
  Bom, BomComponent, BomListQuery, BomOperation, BomType, ProductionComponent, ProductionOrder, ProductionOrderListQuery, ProductionStatus,
  WorkOrder, WorkOrderStatus,
  WorkOrderListQuery,
} from './manufacturing.schemas.ts'

interface BomRow {
  id: string
  organization_id: string
  name: string
  product_id: string
  product_name: string
  quantity: number | string
  uom: string
  type: BomType
  operations: BomOperation[]
  created_at: Date
  updated_at: Date
}

interface ComponentRow {
  bom_id: string
  product_id: string
  name: string
  quantity: number | string
  uom: string
}

export interface BomValues {
  name: string
  productId: string
  quantity: number
  uom: string
  type: BomType
  components: Array<{ productId: string; quantity: number; uom: string }>
  operations: BomOperation[]
}

const toBom = (r: BomRow, components: BomComponent[]): Bom => ({
  id: r.id,
  name: r.name,
  product: { id: r.product_id, name: r.product_name },
  quantity: Number(r.quantity),
  uom: r.uom,
  type: r.type,
  components,
  operations: r.operations,
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

// Product names are joined, not copied: a renamed product shows its new name.
const FROM = 'boms b JOIN products p ON p.organization_id = b.organization_id AND p.id = b.product_id'
const SELECT = 'b.*, p.name AS product_name'

async function componentsOf(q: Queryable, organizationId: string, bomIds: string[]) {
  const byBom = new Map<string, BomComponent[]>(bomIds.map((id) => [id, []]))
  if (!bomIds.length) return byBom
  const { rows } = await q.query<ComponentRow>(
    `SELECT c.bom_id, c.product_id, p.name, c.quantity, c.uom
     FROM bom_components c JOIN products p ON p.organization_id = c.organization_id AND p.id = c.product_id
     WHERE c.organization_id = $2 AND c.bom_id = ANY($1::uuid[]) ORDER BY c.bom_id, c.position`,
    [bomIds, organizationId],
  )
  for (const r of rows) byBom.get(r.bom_id)?.push({ productId: r.product_id, name: r.name, quantity: Number(r.quantity), uom: r.uom })
  return byBom
}

async function insertComponents(q: Queryable, organizationId: string, bomId: string, components: BomValues['components']) {
  if (!components.length) return
  await q.query(
    `INSERT INTO bom_components (bom_id, position, organization_id, product_id, quantity, uom)
     SELECT $1, c.i - 1, $2, c.product_id, c.quantity, c.uom
     FROM unnest($3::uuid[], $4::numeric[], $5::text[]) WITH ORDINALITY AS c(product_id, quantity, uom, i)`,
    [bomId, organizationId, components.map((c) => c.productId), components.map((c) => c.quantity), components.map((c) => c.uom)],
  )
}

export const manufacturingRepository = {
  async findBom(q: Queryable, organizationId: string, id: string, lock = false): Promise<Bom | undefined> {
    const { rows } = await q.query<BomRow>(
      `SELECT ${SELECT} FROM ${FROM} WHERE b.organization_id = $1 AND b.id = $2${lock ? ' FOR UPDATE OF b' : ''}`,
      [organizationId, id],
    )
    if (!rows[0]) return undefined
    return toBom(rows[0], (await componentsOf(q, organizationId, [id])).get(id)!)
  },

  async insertBom(q: Queryable, organizationId: string, id: string, v: BomValues) {
    await q.query(
      `INSERT INTO boms (id, organization_id, name, product_id, quantity, uom, type, operations)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, organizationId, v.name, v.productId, v.quantity, v.uom, v.type, JSON.stringify(v.operations)],
    )
    await insertComponents(q, organizationId, id, v.components)
  },

  async updateBom(q: Queryable, organizationId: string, id: string, v: BomValues, replaceComponents: boolean) {
    await q.query(
      `UPDATE boms SET name = $3, product_id = $4, quantity = $5, uom = $6, type = $7, operations = $8, updated_at = now()
       WHERE organization_id = $1 AND id = $2`,
      [organizationId, id, v.name, v.productId, v.quantity, v.uom, v.type, JSON.stringify(v.operations)],
    )
    if (replaceComponents) {
      await q.query('DELETE FROM bom_components WHERE organization_id = $1 AND bom_id = $2', [organizationId, id])
      await insertComponents(q, organizationId, id, v.components)
    }
  },

  async deleteBom(q: Queryable, organizationId: string, id: string) {
    await q.query('DELETE FROM boms WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },

  /** Whether a production order that is neither done nor cancelled uses the BOM. */
  async usedByOpenOrder(q: Queryable, organizationId: string, bomId: string): Promise<boolean> {
    const { rows } = await q.query(
      `SELECT 1 FROM production_orders
       WHERE organization_id = $1 AND bom_id = $2 AND status NOT IN ('done', 'cancelled') LIMIT 1`,
      [organizationId, bomId],
    )
    return rows.length > 0
  },

  /** The ids of the product's BOMs in the order they were created. */
  async bomIdsOf(q: Queryable, organizationId: string, productId: string): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(
      'SELECT id FROM boms WHERE organization_id = $1 AND product_id = $2 ORDER BY created_at, id',
      [organizationId, productId],
    )
    return rows.map((r) => r.id)
  },

  /** Takes a share lock on the BOM (a concurrent DELETE waits for the order being made from it), then reads it. */
  async shareBom(q: Queryable, organizationId: string, id: string): Promise<Bom | undefined> {
    const { rows } = await q.query('SELECT 1 FROM boms WHERE organization_id = $1 AND id = $2 FOR SHARE', [organizationId, id])
    return rows.length ? this.findBom(q, organizationId, id) : undefined
  },

  /** The first (oldest) phantom BOM of each of these products that has one, with its components. */
  async firstPhantomBoms(q: Queryable, organizationId: string, productIds: string[]) {
    const { rows } = await q.query<{ id: string; product_id: string; quantity: string | number }>(
      `SELECT DISTINCT ON (product_id) id, product_id, quantity FROM boms
       WHERE organization_id = $1 AND type = 'phantom' AND product_id = ANY($2::uuid[])
       ORDER BY product_id, created_at, id`,
      [organizationId, productIds],
    )
    const components = await componentsOf(q, organizationId, rows.map((r) => r.id))
    return new Map(rows.map((r) => [r.product_id, { id: r.id, quantity: Number(r.quantity), components: components.get(r.id)! }]))
  },

  /**
   * The components of every phantom BOM of these products, other than the BOM
   * `exceptBomId` (the one being saved, whose new components the caller has).
   */
  async phantomComponents(q: Queryable, organizationId: string, productIds: string[], exceptBomId: string) {
    const { rows } = await q.query<{ bom_product_id: string; product_id: string }>(
      `SELECT b.product_id AS bom_product_id, c.product_id
       FROM boms b JOIN bom_components c ON c.organization_id = b.organization_id AND c.bom_id = b.id
       WHERE b.organization_id = $1 AND b.type = 'phantom' AND b.product_id = ANY($2::uuid[]) AND b.id <> $3`,
      [organizationId, productIds, exceptBomId],
    )
    return rows
  },

  async listBoms(q: Queryable, organizationId: string, query: BomListQuery & PageParams) {
    const where = new Where()
      .scope('b.organization_id', organizationId)
      .counted('b.product_id', query.productId)
      .search(query.search, ['b.name'])
    const page = await paginate(q, query, {
      from: FROM,
      select: SELECT,
      where,
      counter: 'boms',
      sortColumns: { createdAt: 'b.created_at', updatedAt: 'b.updated_at', name: 'b.name' },
      defaultSort: 'createdAt',
      tieBreaker: 'b.id',
      map: (r: BomRow) => r,
    })
    const components = await componentsOf(q, organizationId, page.data.map((r) => r.id))
    return { data: page.data.map((r) => toBom(r, components.get(r.id)!)), meta: page.meta }
  },
}

// ---------------------------------------------------------------- production orders

export interface OrderRow {
  id: string
  organization_id: string
  reference: string
  product_id: string
  product_name: string
  bom_id: string | null
  quantity: number | string
  produced_qty: number | string
  uom: string
  status: ProductionStatus
  scheduled_date: Date
  component_transfer_id: string | null
  component_transfer_reference: string | null
  confirmed_at: Date | null
  closed_at: Date | null
  created_at: Date
  updated_at: Date
}

interface OutputRow {
  production_order_id: string
  quantity: number | string
  lot_number: string | null
  consumption_transfer_id: string | null
  finished_transfer_id: string
  produced_at: Date
}

interface WorkOrderRow {
  id: string
  production_order_id: string
  name: string
  workcenter: string
  expected_duration_minutes: number | string
  status: WorkOrderStatus
  started_at: Date | null
  finished_at: Date | null
  duration_minutes: number | string | null
  notes: string | null
}

export interface NewOrder {
  id: string
  organizationId: string
  reference: string
  productId: string
  bomId: string
  quantity: number
  uom: string
  scheduledDate: Date
  components: Array<{ productId: string; quantity: number }>
  workOrders: Array<{ id: string; name: string; workcenter: string; expectedDurationMinutes: number }>
}

const ORDER_FROM = 'production_orders o JOIN products p ON p.organization_id = o.organization_id AND p.id = o.product_id'
const ORDER_SELECT = 'o.*, p.name AS product_name'
const numOrNull = (v: number | string | null) => (v === null ? null : Number(v))

const toWorkOrder = (r: WorkOrderRow): WorkOrder => ({
  id: r.id,
  productionOrderId: r.production_order_id,
  name: r.name,
  workcenter: r.workcenter,
  expectedDurationMinutes: Number(r.expected_duration_minutes),
  status: r.status,
  startedAt: iso(r.started_at),
  finishedAt: iso(r.finished_at),
  durationMinutes: numOrNull(r.duration_minutes),
  notes: r.notes,
})

/** The orders of these rows with their components and productions, two queries for any number of rows. */
async function loadOrders(q: Queryable, organizationId: string, rows: OrderRow[]): Promise<ProductionOrder[]> {
  if (!rows.length) return []
  const ids = rows.map((r) => r.id)
  const [components, outputs] = await Promise.all([
    q.query<{ production_order_id: string; product_id: string; name: string; quantity: number | string; consumed_qty: number | string }>(
      `SELECT c.production_order_id, c.product_id, p.name, c.quantity, c.consumed_qty
       FROM production_order_components c JOIN products p ON p.organization_id = c.organization_id AND p.id = c.product_id
       WHERE c.organization_id = $2 AND c.production_order_id = ANY($1::uuid[]) ORDER BY c.production_order_id, c.position`,
      [ids, organizationId],
    ),
    q.query<OutputRow>(
      'SELECT * FROM production_order_outputs WHERE organization_id = $2 AND production_order_id = ANY($1::uuid[]) ORDER BY production_order_id, position',
      [ids, organizationId],
    ),
  ])
  const byOrder = new Map<string, ProductionComponent[]>(ids.map((id) => [id, []]))
  for (const c of components.rows) byOrder.get(c.production_order_id)!.push({ productId: c.product_id, name: c.name, quantity: Number(c.quantity), consumedQty: Number(c.consumed_qty) })
  const outputsOf = new Map<string, ProductionOrder['productions']>(ids.map((id) => [id, []]))
  for (const o of outputs.rows) {
    outputsOf.get(o.production_order_id)!.push({
      quantity: Number(o.quantity), lotNumber: o.lot_number, producedAt: iso(o.produced_at),
      consumptionTransferId: o.consumption_transfer_id, finishedTransferId: o.finished_transfer_id,
    })
  }
  return rows.map((r) => ({
    id: r.id,
    reference: r.reference,
    product: { id: r.product_id, name: r.product_name },
    bomId: r.bom_id,
    quantity: Number(r.quantity),
    producedQty: Number(r.produced_qty),
    uom: r.uom,
    status: r.status,
    scheduledDate: iso(r.scheduled_date),
    components: byOrder.get(r.id)!,
    componentTransfer: r.component_transfer_id ? { id: r.component_transfer_id, reference: r.component_transfer_reference! } : null,
    productions: outputsOf.get(r.id)!,
    confirmedAt: iso(r.confirmed_at),
    closedAt: iso(r.closed_at),
    organizationId: r.organization_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }))
}

export const productionRepository = {
  async insert(q: Queryable, o: NewOrder) {
    await q.query(
      `INSERT INTO production_orders (id, organization_id, reference, product_id, bom_id, quantity, uom, scheduled_date)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [o.id, o.organizationId, o.reference, o.productId, o.bomId, o.quantity, o.uom, o.scheduledDate],
    )
    if (o.components.length) {
      await q.query(
        `INSERT INTO production_order_components (production_order_id, position, organization_id, product_id, quantity)
         SELECT $1, c.i - 1, $2, c.p, c.q FROM unnest($3::uuid[], $4::numeric[]) WITH ORDINALITY AS c(p, q, i)`,
        [o.id, o.organizationId, o.components.map((c) => c.productId), o.components.map((c) => c.quantity)],
      )
    }
    if (o.workOrders.length) {
      await q.query(
        `INSERT INTO work_orders (organization_id, id, production_order_id, position, name, workcenter, expected_duration_minutes)
         SELECT $1, w.id, $2, w.i - 1, w.name, w.wc, w.d FROM unnest($3::text[], $4::text[], $5::text[], $6::numeric[]) WITH ORDINALITY AS w(id, name, wc, d, i)`,
        [o.organizationId, o.id, o.workOrders.map((w) => w.id), o.workOrders.map((w) => w.name), o.workOrders.map((w) => w.workcenter), o.workOrders.map((w) => w.expectedDurationMinutes)],
      )
    }
  },

  /** The order row, locked FOR UPDATE when `lock`: every transition takes it first, so transitions of one order run one after the other. */
  /** Production orders that became done in the range (whole UTC days) and the quantity produced in it (every produce posting). */
  async periodFigures(q: Queryable, organizationId: string, r: { from: string; to: string }) {
    const { rows } = await q.query<{ orders_done: number; units_produced: number }>(
      `SELECT (SELECT count(*) FROM production_orders
                WHERE organization_id = $1 AND status = 'done' AND ${inDays('closed_at', '$2', '$3')})::int AS orders_done,
              (SELECT coalesce(sum(quantity), 0) FROM production_order_outputs
                WHERE organization_id = $1 AND ${inDays('produced_at', '$2', '$3')}) AS units_produced`,
      [organizationId, r.from, r.to],
    )
    return { ordersDone: rows[0].orders_done, unitsProduced: Number(rows[0].units_produced) }
  },

  async row(q: Queryable, organizationId: string, id: string, lock = false): Promise<OrderRow | undefined> {
    const { rows } = await q.query<OrderRow>(
      `SELECT ${ORDER_SELECT} FROM ${ORDER_FROM} WHERE o.organization_id = $1 AND o.id = $2${lock ? ' FOR UPDATE OF o' : ''}`,
      [organizationId, id],
    )
    return rows[0]
  },

  async find(q: Queryable, organizationId: string, id: string): Promise<ProductionOrder | undefined> {
    const row = await this.row(q, organizationId, id)
    return row ? (await loadOrders(q, organizationId, [row]))[0] : undefined
  },

  async components(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<{ product_id: string; quantity: number | string; consumed_qty: number | string }>(
      'SELECT product_id, quantity, consumed_qty FROM production_order_components WHERE organization_id = $1 AND production_order_id = $2 ORDER BY position',
      [organizationId, id],
    )
    return rows.map((r) => ({ productId: r.product_id, quantity: Number(r.quantity), consumedQty: Number(r.consumed_qty) }))
  },

  async addConsumed(q: Queryable, organizationId: string, id: string, consumed: Array<{ productId: string; qty: number }>) {
    const live = consumed.filter((c) => c.qty !== 0)
    if (!live.length) return
    await q.query(
      `UPDATE production_order_components c SET consumed_qty = c.consumed_qty + v.q
       FROM unnest($2::uuid[], $3::numeric[]) AS v(p, q) WHERE c.organization_id = $4 AND c.production_order_id = $1 AND c.product_id = v.p`,
      [id, live.map((c) => c.productId), live.map((c) => c.qty), organizationId],
    )
  },

  async insertOutput(q: Queryable, organizationId: string, id: string, o: { quantity: number; lotNumber: string | null; consumptionTransferId: string | null; finishedTransferId: string; producedAt: Date }) {
    await q.query(
      `INSERT INTO production_order_outputs (production_order_id, position, organization_id, quantity, lot_number, consumption_transfer_id, finished_transfer_id, produced_at)
       SELECT $1::uuid, count(*), $2::uuid, $3::numeric, $4::text, $5::uuid, $6::uuid, $7::timestamptz FROM production_order_outputs WHERE organization_id = $2 AND production_order_id = $1`,
      [id, organizationId, o.quantity, o.lotNumber, o.consumptionTransferId, o.finishedTransferId, o.producedAt],
    )
  },

  /** Sets the given columns (status, produced_qty, component transfer, stamps) and updated_at. */
  async update(q: Queryable, organizationId: string, id: string, set: Partial<{ status: ProductionStatus; produced_qty: number; component_transfer_id: string | null; component_transfer_reference: string | null; confirmed_at: Date; closed_at: Date }>) {
    const columns = Object.keys(set)
    await q.query(
      `UPDATE production_orders SET ${columns.map((c, i) => `${c} = $${i + 3}`).join(', ')}, updated_at = now() WHERE organization_id = $1 AND id = $2`,
      [organizationId, id, ...Object.values(set)],
    )
  },

  async list(q: Queryable, organizationId: string, query: ProductionOrderListQuery & PageParams, range: { from?: Date; to?: Date }): Promise<Page<ProductionOrder>> {
    const where = new Where()
      .scope('o.organization_id', organizationId)
      .counted('o.status', query.status)
      .counted('o.product_id', query.productId)
      .maybe(range.from, 'o.scheduled_date >= ?')
      .maybe(range.to, 'o.scheduled_date <= ?')
      .search(query.search, ['o.reference'])
    const page = await paginate(q, query, {
      from: ORDER_FROM,
      select: ORDER_SELECT,
      where,
      counter: 'production_orders',
      sortColumns: { reference: 'o.reference', scheduledDate: 'o.scheduled_date', createdAt: 'o.created_at', updatedAt: 'o.updated_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'o.id',
      map: (r: OrderRow) => r,
    })
    return { data: await loadOrders(q, organizationId, page.data), meta: page.meta }
  },

  // ---- work orders

  workOrders(q: Queryable, organizationId: string, orderId: string, page: WorkOrderListQuery): Promise<Page<WorkOrder>> {
    return paginate(q, { ...page, sortOrder: 'asc' }, {
      from: 'work_orders',
      select: '*',
      where: new Where().scope('organization_id', organizationId).add('production_order_id = ?', orderId),
      sortColumns: { position: 'position' },
      defaultSort: 'position',
      tieBreaker: 'id',
      map: toWorkOrder,
    })
  },

  async lockWorkOrder(q: Queryable, organizationId: string, orderId: string, id: string): Promise<WorkOrder | undefined> {
    const { rows } = await q.query<WorkOrderRow>(
      'SELECT * FROM work_orders WHERE organization_id = $1 AND id = $2 AND production_order_id = $3 FOR UPDATE',
      [organizationId, id, orderId],
    )
    return rows[0] && toWorkOrder(rows[0])
  },

  async startWorkOrder(q: Queryable, organizationId: string, id: string): Promise<WorkOrder> {
    const { rows } = await q.query<WorkOrderRow>(
      `UPDATE work_orders SET status = 'in_progress', started_at = now() WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id],
    )
    return toWorkOrder(rows[0])
  },

  async finishWorkOrder(q: Queryable, organizationId: string, id: string, durationMinutes: number | null, notes: string | null): Promise<WorkOrder> {
    const { rows } = await q.query<WorkOrderRow>(
      `UPDATE work_orders SET status = 'done', finished_at = now(),
         duration_minutes = coalesce($3::numeric, round((extract(epoch FROM now() - started_at) / 60)::numeric, 2)), notes = $4
       WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, durationMinutes, notes],
    )
    return toWorkOrder(rows[0])
  },
}
