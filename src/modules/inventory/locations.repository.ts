import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, setClause, type PageParams } from '../../core/pagination.ts'
import type { Location, LocationListQuery, UpdateLocation } from './locations.schemas.ts'

interface LocationRow {
  id: string
  organization_id: string
  code: string
  name: string
  type: Location['type']
  warehouse_id: string | null
  created_at: Date
  updated_at: Date
}

const toLocation = (r: LocationRow): Location => ({
  id: r.id,
  code: r.code,
  name: r.name,
  type: r.type,
  warehouseId: r.warehouse_id,
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

export const locationsRepository = {
  async insertWarehouse(q: Queryable, organizationId: string, id: string, code: string, name: string) {
    await q.query('INSERT INTO warehouses (id, organization_id, code, name) VALUES ($1, $2, $3, $4)', [id, organizationId, code, name])
  },

  async warehouseExists(q: Queryable, organizationId: string, id: string) {
    return (await q.query('SELECT 1 FROM warehouses WHERE organization_id = $1 AND id = $2', [organizationId, id])).rowCount > 0
  },

  async insert(q: Queryable, organizationId: string, l: { code: string; name: string; type: string; warehouseId: string | null }) {
    const { rows } = await q.query<LocationRow>(
      `INSERT INTO locations (organization_id, id, code, name, type, warehouse_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [organizationId, `LOC-${l.code}`, l.code, l.name, l.type, l.warehouseId],
    )
    return toLocation(rows[0])
  },

  async find(q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
    const { rows } = await q.query<LocationRow>(`SELECT * FROM locations WHERE organization_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`, [organizationId, id])
    return rows[0] ? toLocation(rows[0]) : undefined
  },

  list(q: Queryable, organizationId: string, query: LocationListQuery & PageParams) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('type', query.type)
      .maybe(query.warehouseId, 'warehouse_id = ?')
      .search(query.search, ['name', 'code'])
    return paginate(q, query, {
      from: 'locations',
      select: '*',
      where,
      sortColumns: { code: 'code', name: 'name', createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toLocation,
      counter: 'locations',
    })
  },

  async update(q: Queryable, organizationId: string, id: string, patch: UpdateLocation) {
    const set = setClause(patch, { name: 'name', type: 'type', warehouseId: 'warehouse_id' }, 2)
    const { rows } = await q.query<LocationRow>(
      `UPDATE locations SET ${set.sql}, updated_at = now() WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, ...set.params],
    )
    return rows[0] ? toLocation(rows[0]) : undefined
  },

  async delete(q: Queryable, organizationId: string, id: string) {
    return (await q.query('DELETE FROM locations WHERE organization_id = $1 AND id = $2', [organizationId, id])).rowCount > 0
  },
}
