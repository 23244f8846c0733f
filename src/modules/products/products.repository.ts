import { bulkInsert, bulkPatch, type BulkColumn } from '../../core/bulk.ts'
import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, setClause, type PageParams } from '../../core/pagination.ts'
import type { Product, ProductListQuery, UpdateProduct } from './products.schemas.ts'

export interface ProductRow {
  id: string
  organization_id: string
  name: string
  sku: string | null
  description: string | null
  price: number
  currency: string
  type: Product['type']
  uom: string
  reorder_point: number
  cost: number | null
  module_name: string | null
  erp_version: string | null
  billing: 'one_time' | 'recurring' | null
  billing_interval: 'month' | 'year' | null
  activations_limit: number | null
  signing_secret: string | null
  created_at: Date
  updated_at: Date
}

/** The full record; the service removes signingSecret for callers who may not see it. */
export function toProduct(r: ProductRow): Product {
  const p: Product = {
    id: r.id,
    name: r.name,
    sku: r.sku,
    description: r.description,
    price: r.price,
    currency: r.currency,
    type: r.type,
    uom: r.uom,
    reorderPoint: r.reorder_point,
    cost: r.cost,
    licensed: r.module_name !== null,
    organizationId: r.organization_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }
  if (r.module_name !== null) {
    Object.assign(p, {
      moduleName: r.module_name,
      erpVersion: r.erp_version,
      billing: r.billing,
      interval: r.billing_interval,
      activationsLimit: r.activations_limit,
      signingSecret: r.signing_secret,
    })
  }
  return p
}

export const PRODUCT_COLUMNS: Record<string, string> = {
  name: 'name',
  sku: 'sku',
  description: 'description',
  price: 'price',
  currency: 'currency',
  type: 'type',
  uom: 'uom',
  reorderPoint: 'reorder_point',
  cost: 'cost',
  moduleName: 'module_name',
  erpVersion: 'erp_version',
  billing: 'billing',
  interval: 'billing_interval',
  activationsLimit: 'activations_limit',
  signingSecret: 'signing_secret',
}

/** The written columns with their SQL types, for the set-based writes of imports. */
const TYPES: Record<string, string> = {
  name: 'text', sku: 'text', description: 'text', price: 'bigint', currency: 'text', type: 'text', uom: 'text', reorder_point: 'numeric', cost: 'bigint',
  module_name: 'text', erp_version: 'text', billing: 'text', billing_interval: 'text', activations_limit: 'integer', signing_secret: 'text',
}
const bulkColumns: BulkColumn[] = [{ column: 'id', type: 'uuid' }, { column: 'organization_id', type: 'uuid' }, ...Object.entries(TYPES).map(([column, type]) => ({ column, type }))]
const bulkFields: Record<string, BulkColumn> = Object.fromEntries(Object.entries(PRODUCT_COLUMNS).map(([field, column]) => [field, { column, type: TYPES[column] }]))

export const productsRepository = {
  /** New products in one statement; a field left out takes the column's default, as insert does. */
  async insertMany(q: Queryable, organizationId: string, rows: ReadonlyArray<{ id: string; values: Record<string, unknown> }>) {
    const stored = rows.map(({ id, values }) => ({
      id, organization_id: organizationId, ...Object.fromEntries(Object.entries(PRODUCT_COLUMNS).map(([field, column]) => [column, values[field] ?? null])),
    }))
    return (await bulkInsert<ProductRow>(q, 'products', bulkColumns, stored)).map(toProduct)
  },

  /** Partial updates of many products in one statement. */
  async updateMany(q: Queryable, organizationId: string, patches: ReadonlyArray<{ id: string; patch: Record<string, unknown> }>) {
    return (await bulkPatch<ProductRow>(q, 'products', organizationId, bulkFields, patches)).map(toProduct)
  },

  /** The ids of the products with these skus, by sku. */
  async idsBySku(q: Queryable, organizationId: string, skus: string[]) {
    const { rows } = await q.query<{ sku: string; id: string }>('SELECT sku, id FROM products WHERE organization_id = $1 AND sku = ANY($2::text[])', [organizationId, skus])
    return new Map(rows.map((r) => [r.sku, r.id]))
  },

  /** Products among ids, their rows locked in id order (as lock does, for many). */
  async lockMany(q: Queryable, organizationId: string, ids: string[]) {
    const { rows } = await q.query<ProductRow>('SELECT * FROM products WHERE organization_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR NO KEY UPDATE', [organizationId, ids])
    return rows.map(toProduct)
  },

  async insert(q: Queryable, organizationId: string, id: string, values: Record<string, unknown>) {
    const fields = Object.keys(PRODUCT_COLUMNS).filter((f) => values[f] !== undefined)
    const cols = ['id', 'organization_id', ...fields.map((f) => PRODUCT_COLUMNS[f])]
    const params = [id, organizationId, ...fields.map((f) => values[f])]
    const { rows } = await q.query<ProductRow>(
      `INSERT INTO products (${cols.join(', ')}) VALUES (${params.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *`,
      params,
    )
    return toProduct(rows[0])
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<ProductRow>('SELECT * FROM products WHERE organization_id = $1 AND id = $2', [organizationId, id])
    return rows[0] ? toProduct(rows[0]) : undefined
  },

  /**
   * The product, its row locked for the rest of the transaction (FOR NO KEY
   * UPDATE, as an UPDATE of its cost takes: rows that reference the product,
   * as a stock move being validated, still take their key share); undefined
   * when missing.
   */
  async lock(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<ProductRow>('SELECT * FROM products WHERE organization_id = $1 AND id = $2 FOR NO KEY UPDATE', [organizationId, id])
    return rows[0] ? toProduct(rows[0]) : undefined
  },

  /** Products of the organization among ids, in one query (line items, carts). */
  async findMany(q: Queryable, organizationId: string, ids: string[]) {
    const { rows } = await q.query<ProductRow>('SELECT * FROM products WHERE organization_id = $1 AND id = ANY($2::uuid[])', [organizationId, ids])
    return rows.map(toProduct)
  },

  list(q: Queryable, organizationId: string, query: ProductListQuery & PageParams) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('type', query.type)
      .maybe(query.moduleName, 'module_name = ?')
      .maybe(query.erpVersion, 'erp_version = ?')
      .search(query.search, ['name', 'sku'])
    if (query.licensed !== undefined) where.add(query.licensed ? 'module_name IS NOT NULL' : 'module_name IS NULL')
    return paginate(q, query, {
      from: 'products',
      select: '*',
      where,
      sortColumns: { name: 'name', price: 'price', sku: 'sku', createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toProduct,
      counter: 'products',
    })
  },

  async update(q: Queryable, organizationId: string, id: string, patch: UpdateProduct & { signingSecret?: string }) {
    const set = setClause(patch, PRODUCT_COLUMNS, 2)
    const { rows } = await q.query<ProductRow>(
      `UPDATE products SET ${set.sql}, updated_at = now() WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, ...set.params],
    )
    return rows[0] ? toProduct(rows[0]) : undefined
  },

  async delete(q: Queryable, organizationId: string, id: string) {
    return (await q.query('DELETE FROM products WHERE organization_id = $1 AND id = $2', [organizationId, id])).rowCount > 0
  },
}
