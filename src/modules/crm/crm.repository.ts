import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { CaptureInput, Lead, LeadListQuery } from './crm.schemas.ts'

interface LeadRow {
  id: string
  organization_id: string
  status: Lead['status']
  name: string
  email: string
  phone: string | null
  company: string | null
  message: string | null
  source: string | null
  contact_id: string | null
  converted_at: Date | null
  created_at: Date
  updated_at: Date
}

const toLead = (r: LeadRow): Lead => ({
  id: r.id,
  status: r.status,
  name: r.name,
  email: r.email,
  phone: r.phone,
  company: r.company,
  message: r.message,
  source: r.source,
  contactId: r.contact_id,
  convertedAt: iso(r.converted_at),
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

export const crmRepository = {
  /** The organization's capture token, made on first use. */
  async captureToken(q: Queryable, organizationId: string, fresh: string) {
    await q.query(`INSERT INTO crm_capture_tokens (organization_id, token) VALUES ($1, $2) ON CONFLICT (organization_id) DO NOTHING`, [organizationId, fresh])
    const { rows } = await q.query<{ token: string; rotated_at: Date }>(`SELECT token, rotated_at FROM crm_capture_tokens WHERE organization_id = $1`, [organizationId])
    return rows[0]
  },

  async rotateToken(q: Queryable, organizationId: string, token: string) {
    const { rows } = await q.query<{ token: string; rotated_at: Date }>(
      `INSERT INTO crm_capture_tokens (organization_id, token) VALUES ($1, $2)
       ON CONFLICT (organization_id) DO UPDATE SET token = EXCLUDED.token, rotated_at = now() RETURNING token, rotated_at`,
      [organizationId, token],
    )
    return rows[0]
  },

  async organizationOfToken(q: Queryable, token: string) {
    const { rows } = await q.query<{ organization_id: string }>(`SELECT /* across organizations: a capture token names its organization before it is known */ organization_id FROM crm_capture_tokens WHERE token = $1`, [token])
    return rows[0]?.organization_id
  },

  async insertLead(q: Queryable, organizationId: string, id: string, lead: Omit<CaptureInput, 'captureToken'>, ip: string) {
    const { rows } = await q.query<{ created_at: Date }>(
      `INSERT INTO leads (id, organization_id, name, email, phone, company, message, source, ip) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING created_at`,
      [id, organizationId, lead.name, lead.email, lead.phone ?? null, lead.company ?? null, lead.message ?? null, lead.source ?? null, ip],
    )
    return rows[0].created_at
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<LeadRow>(`SELECT * FROM leads WHERE organization_id = $1 AND id = $2`, [organizationId, id])
    return rows[0] ? toLead(rows[0]) : undefined
  },

  list(q: Queryable, organizationId: string, query: LeadListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('status', query.status)
      .maybe(range.from, 'created_at >= ?')
      .maybe(range.to, 'created_at <= ?')
      .search(query.search, ['name', 'email', 'company'])
    return paginate(q, query, {
      from: 'leads',
      select: '*',
      where,
      sortColumns: { createdAt: 'created_at', name: 'name', email: 'email' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toLead,
      counter: 'leads',
    })
  },

  /** new becomes converted, linked to the contact; undefined when not new (or missing). */
  async markConverted(q: Queryable, organizationId: string, id: string, contactId: string) {
    const { rows } = await q.query<LeadRow>(
      `UPDATE leads SET status = 'converted', contact_id = $3, converted_at = now(), updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status = 'new' RETURNING *`,
      [organizationId, id, contactId],
    )
    return rows[0] ? toLead(rows[0]) : undefined
  },

  async delete(q: Queryable, organizationId: string, id: string) {
    return (await q.query(`DELETE FROM leads WHERE organization_id = $1 AND id = $2`, [organizationId, id])).rowCount > 0
  },
}
