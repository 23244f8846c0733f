import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Build, BuildListQuery } from './licenses.schemas.ts'

interface BuildRow {
  id: string
  product_id: string
  product_name: string
  erp_version: string
  version: string
  filename: string
  size: number
  sha256: string
  created_at: Date
}

const toBuild = (r: BuildRow): Build => ({
  id: r.id,
  productId: r.product_id,
  productName: r.product_name,
  erpVersion: r.erp_version,
  version: r.version,
  filename: r.filename,
  size: r.size,
  sha256: r.sha256,
  createdAt: iso(r.created_at),
})

const FROM = 'module_builds b JOIN products p ON p.organization_id = b.organization_id AND p.id = b.product_id'
const SELECT = 'b.id, b.product_id, p.name AS product_name, b.erp_version, b.version, b.filename, b.size, b.sha256, b.created_at'
// Version strings sort by their numeric parts (19.0.10.0.0 after 19.0.9.0.0).
const SORT = { createdAt: 'b.created_at', version: "string_to_array(b.version, '.')::int[]" }

/**
 * A build is downloadable by a user holding an active, unexpired license of
 * its product for the build's ERP major version (docs/licenses.md "ERP versions").
 */
const ENTITLED = `EXISTS (SELECT 1 FROM licenses l WHERE l.organization_id = b.organization_id AND l.user_id = ?
  AND l.product_id = b.product_id AND l.erp_version = b.erp_version
  AND l.status = 'active' AND (l.expires_at IS NULL OR l.expires_at > now()))`

export interface NewBuild {
  id: string
  organizationId: string
  productId: string
  version: string
  erpVersion: string
  filename: string
  content: Buffer
  sha256: string
}

export const buildsRepository = {
  async insert(q: Queryable, b: NewBuild) {
    await q.query(
      `INSERT INTO module_builds (id, organization_id, product_id, version, erp_version, filename, size, sha256, content)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [b.id, b.organizationId, b.productId, b.version, b.erpVersion, b.filename, b.content.length, b.sha256, b.content],
    )
    const { rows } = await q.query<BuildRow>(`SELECT ${SELECT} FROM ${FROM} WHERE b.organization_id = $2 AND b.id = $1`, [b.id, b.organizationId])
    return toBuild(rows[0])
  },

  listForProduct(q: Queryable, organizationId: string, productId: string, page: PageParams) {
    const where = new Where().add('b.organization_id = ?', organizationId).add('b.product_id = ?', productId)
    return paginate(q, page, { from: FROM, select: SELECT, where, sortColumns: SORT, defaultSort: 'createdAt', tieBreaker: 'b.id', map: toBuild })
  },

  listEntitled(q: Queryable, organizationId: string, userId: string, query: BuildListQuery & PageParams) {
    const where = new Where()
      .add('b.organization_id = ?', organizationId)
      .add(ENTITLED, userId)
      .maybe(query.productId, 'b.product_id = ?')
      .maybe(query.erpVersion, 'b.erp_version = ?')
    return paginate(q, query, { from: FROM, select: SELECT, where, sortColumns: SORT, defaultSort: 'createdAt', tieBreaker: 'b.id', map: toBuild })
  },

  async findEntitledFile(q: Queryable, organizationId: string, userId: string, id: string) {
    const where = new Where().add('b.organization_id = ?', organizationId).add('b.id = ?', id).add(ENTITLED, userId)
    const { rows } = await q.query<{ filename: string; content: Buffer | Uint8Array; sha256: string }>(
      `SELECT b.filename, b.content, b.sha256 FROM module_builds b WHERE ${where}`,
      where.params,
    )
    return rows[0] ? { filename: rows[0].filename, sha256: rows[0].sha256, content: Buffer.from(rows[0].content) } : undefined
  },

  async exists(q: Queryable, organizationId: string, id: string) {
    return (await q.query('SELECT 1 FROM module_builds WHERE organization_id = $1 AND id = $2', [organizationId, id])).rows.length > 0
  },
}
