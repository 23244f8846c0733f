import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Bom, BomComponent, BomListQuery, BomOperation, BomType } from './manufacturing.schemas.ts'

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
const FROM = 'boms b JOIN products p ON p.id = b.product_id'
const SELECT = 'b.*, p.name AS product_name'

async function componentsOf(q: Queryable, bomIds: string[]) {
  const byBom = new Map<string, BomComponent[]>(bomIds.map((id) => [id, []]))
  if (!bomIds.length) return byBom
  const { rows } = await q.query<ComponentRow>(
    `SELECT c.bom_id, c.product_id, p.name, c.quantity, c.uom
     FROM bom_components c JOIN products p ON p.id = c.product_id
     WHERE c.bom_id = ANY($1::uuid[]) ORDER BY c.bom_id, c.position`,
    [bomIds],
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
    return toBom(rows[0], (await componentsOf(q, [id])).get(id)!)
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
      await q.query('DELETE FROM bom_components WHERE bom_id = $1', [id])
      await insertComponents(q, organizationId, id, v.components)
    }
  },

  async deleteBom(q: Queryable, organizationId: string, id: string) {
    await q.query('DELETE FROM boms WHERE organization_id = $1 AND id = $2', [organizationId, id])
  },

  /**
   * Whether a production order that is neither done nor cancelled uses the BOM.
   * Production orders are not built yet (docs/manufacturing.md): until their
   * migration exists no order can use a BOM, and this answers false without
   * asking the database. The query is the one to run then.
   */
  async usedByOpenOrder(q: Queryable, organizationId: string, bomId: string, ordersExist = false): Promise<boolean> {
    if (!ordersExist) return false
    const { rows } = await q.query(
      `SELECT 1 FROM production_orders
       WHERE organization_id = $1 AND bom_id = $2 AND status NOT IN ('done', 'cancelled') LIMIT 1`,
      [organizationId, bomId],
    )
    return rows.length > 0
  },

  /**
   * The components of every phantom BOM of these products, other than the BOM
   * `exceptBomId` (the one being saved, whose new components the caller has).
   */
  async phantomComponents(q: Queryable, organizationId: string, productIds: string[], exceptBomId: string) {
    const { rows } = await q.query<{ bom_product_id: string; product_id: string }>(
      `SELECT b.product_id AS bom_product_id, c.product_id
       FROM boms b JOIN bom_components c ON c.bom_id = b.id
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
    const components = await componentsOf(q, page.data.map((r) => r.id))
    return { data: page.data.map((r) => toBom(r, components.get(r.id)!)), meta: page.meta }
  },
}
