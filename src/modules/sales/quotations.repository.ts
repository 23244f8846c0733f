import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Quotation, QuotationListQuery, QuotationStatus } from './quotations.schemas.ts'
import { inDays } from '../../core/dates.ts'
import { findDocument, toSalesLine, type PricedDocument, type PricedLine } from '../../core/documents/index.ts'

export interface QuotationRow {
  id: string
  organization_id: string
  reference: string
  status: QuotationStatus
  contact_id: string
  contact_name: string
  contact_email: string | null
  salesperson_id: string | null
  salesperson_name: string | null
  valid_until: Date | null
  line_items: PricedLine[]
  subtotal: number
  tax_amount: number
  total: number
  currency: string
  terms: string | null
  order_id: string | null
  sent_at: Date | null
  confirmed_at: Date | null
  cancelled_at: Date | null
  created_at: Date
  updated_at: Date
}

export const toQuotation = (r: QuotationRow): Quotation => ({
  id: r.id,
  reference: r.reference,
  status: r.status,
  contact: { id: r.contact_id, name: r.contact_name, email: r.contact_email },
  salesperson: r.salesperson_id ? { id: r.salesperson_id, name: r.salesperson_name ?? '' } : null,
  validUntil: iso(r.valid_until),
  lineItems: r.line_items.map(toSalesLine),
  subtotal: r.subtotal,
  taxAmount: r.tax_amount,
  total: r.total,
  currency: r.currency,
  terms: r.terms,
  orderId: r.order_id,
  sentAt: iso(r.sent_at),
  confirmedAt: iso(r.confirmed_at),
  cancelledAt: iso(r.cancelled_at),
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

export interface QuotationValues extends PricedDocument {
  contact: { id: string; name: string; email: string | null }
  salesperson: { id: string; name: string } | null
  validUntil: Date | null
  currency: string
  terms: string | null
}

const valueParams = (v: QuotationValues) => [
  v.contact.id, v.contact.name, v.contact.email, v.salesperson?.id ?? null, v.salesperson?.name ?? null, v.validUntil,
  JSON.stringify(v.lines), v.subtotal, v.taxAmount, v.total, v.currency, v.terms,
]

export const quotationsRepository = {
  async insert(q: Queryable, organizationId: string, id: string, reference: string, v: QuotationValues) {
    const { rows } = await q.query<QuotationRow>(
      `INSERT INTO quotations (id, organization_id, reference, contact_id, contact_name, contact_email, salesperson_id, salesperson_name,
         valid_until, line_items, subtotal, tax_amount, total, currency, terms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
      [id, organizationId, reference, ...valueParams(v)],
    )
    return rows[0]
  },

  async updateDraft(q: Queryable, organizationId: string, id: string, v: QuotationValues) {
    const { rows } = await q.query<QuotationRow>(
      `UPDATE quotations SET contact_id = $3, contact_name = $4, contact_email = $5, salesperson_id = $6, salesperson_name = $7,
         valid_until = $8, line_items = $9, subtotal = $10, tax_amount = $11, total = $12, currency = $13, terms = $14, updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status = 'draft' RETURNING *`,
      [organizationId, id, ...valueParams(v)],
    )
    return rows[0]
  },

  find: (q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) => findDocument<QuotationRow>(q, 'quotations', organizationId, id, opts),

  list(q: Queryable, organizationId: string, query: QuotationListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('status', query.status)
      .maybe(query.contactId, 'contact_id = ?')
      .maybe(query.salesperson, 'salesperson_id = ?')
      .maybe(range.from, 'created_at >= ?')
      .maybe(range.to, 'created_at <= ?')
      .search(query.search, ['reference', 'contact_name', 'contact_email'])
    return paginate(q, query, {
      from: 'quotations',
      select: '*',
      where,
      sortColumns: { createdAt: 'created_at', updatedAt: 'updated_at', total: 'total', status: 'status', validUntil: 'valid_until' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toQuotation,
      counter: 'quotations',
    })
  },

  async deleteDraft(q: Queryable, organizationId: string, id: string) {
    await q.query(`DELETE FROM quotations WHERE organization_id = $1 AND id = $2 AND status = 'draft'`, [organizationId, id])
  },

  /** Moves to a new status with its timestamp; undefined when the quotation is not in one of `from`. */
  async transition(q: Queryable, organizationId: string, id: string, from: QuotationStatus[], to: 'sent' | 'confirmed' | 'cancelled', set: { orderId?: string } = {}) {
    const stamp = { sent: 'sent_at', confirmed: 'confirmed_at', cancelled: 'cancelled_at' }[to]
    const { rows } = await q.query<QuotationRow>(
      `UPDATE quotations SET status = $3, ${stamp} = now(), order_id = COALESCE($5, order_id), updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status = ANY($4::text[]) RETURNING *`,
      [organizationId, id, to, from, set.orderId ?? null],
    )
    return rows[0]
  },

  async mainCurrency(q: Queryable, organizationId: string, from: string, to: string) {
    const { rows } = await q.query<{ currency: string }>(
      `SELECT currency FROM quotations WHERE organization_id = $1 AND ${inDays('created_at', '$2', '$3')}
       GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 1`,
      [organizationId, from, to],
    )
    return rows[0]?.currency
  },

  /** Count and value of the quotations created in the range, per status. */
  async byStatus(q: Queryable, organizationId: string, r: { from: string; to: string; currency: string }) {
    const { rows } = await q.query<{ status: QuotationStatus; count: number; value: number }>(
      `SELECT status, count(*)::int AS count, sum(total)::bigint AS value FROM quotations
       WHERE organization_id = $1 AND currency = $4 AND ${inDays('created_at', '$2', '$3')} GROUP BY status`,
      [organizationId, r.from, r.to, r.currency],
    )
    return rows
  },

  /** Quotations created in the range per salesperson: count, value, how many confirmed. */
  async bySalesperson(q: Queryable, organizationId: string, r: { from: string; to: string; currency: string }) {
    const { rows } = await q.query<{ salesperson_id: string; quotations: number; value: number; confirmed: number }>(
      `SELECT salesperson_id, count(*)::int AS quotations, sum(total)::bigint AS value,
         (count(*) FILTER (WHERE status = 'confirmed'))::int AS confirmed
       FROM quotations
       WHERE organization_id = $1 AND salesperson_id IS NOT NULL AND currency = $4 AND ${inDays('created_at', '$2', '$3')}
       GROUP BY salesperson_id`,
      [organizationId, r.from, r.to, r.currency],
    )
    return rows
  },
}
