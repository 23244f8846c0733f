import { toSalesLine } from '../../core/documents/index.ts'
import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Order, OrderListQuery, OrderSource, OrderStatus } from './orders.schemas.ts'
import { inDays } from '../../core/dates.ts'
import { findDocument, type PricedDocument, type PricedLine } from '../../core/documents/index.ts'

export interface OrderRow {
  id: string
  organization_id: string
  reference: string
  source: OrderSource
  status: OrderStatus
  quotation_id: string | null
  contact_id: string | null
  contact_name: string | null
  contact_email: string | null
  salesperson_id: string | null
  salesperson_name: string | null
  line_items: PricedLine[]
  subtotal: number
  tax_amount: number
  total: number
  currency: string
  invoice_id: string | null
  confirmed_at: Date
  created_at: Date
  updated_at: Date
}

/** A stored line as sales documents (quotations, orders) show it. */
export const toOrder = (r: OrderRow): Order => ({
  id: r.id,
  reference: r.reference,
  status: r.status,
  source: r.source,
  quotationId: r.quotation_id,
  contact: r.contact_id ? { id: r.contact_id, name: r.contact_name ?? '', email: r.contact_email } : null,
  salesperson: r.salesperson_id ? { id: r.salesperson_id, name: r.salesperson_name ?? '' } : null,
  lineItems: r.line_items.map(toSalesLine),
  subtotal: r.subtotal,
  taxAmount: r.tax_amount,
  total: r.total,
  currency: r.currency,
  invoiceId: r.invoice_id,
  confirmedAt: iso(r.confirmed_at),
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

/** What a new order is made of (a confirmed quotation, a checkout). */
export interface NewOrder extends PricedDocument {
  source: OrderSource
  quotationId: string | null
  contact: { id: string; name: string; email: string | null } | null
  salesperson: { id: string; name: string } | null
  currency: string
}

/** Orders that count as sales (not cancelled or refunded). */
export const COUNTED = `status NOT IN ('cancelled', 'refunded')`


export const ordersRepository = {
  async insert(q: Queryable, organizationId: string, id: string, reference: string, o: NewOrder) {
    const { rows } = await q.query<OrderRow>(
      `INSERT INTO orders (id, organization_id, reference, source, quotation_id, contact_id, contact_name, contact_email,
         salesperson_id, salesperson_name, line_items, subtotal, tax_amount, total, currency)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
      [id, organizationId, reference, o.source, o.quotationId, o.contact?.id ?? null, o.contact?.name ?? null, o.contact?.email ?? null,
        o.salesperson?.id ?? null, o.salesperson?.name ?? null, JSON.stringify(o.lines), o.subtotal, o.taxAmount, o.total, o.currency],
    )
    return rows[0]
  },

  find: (q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) => findDocument<OrderRow>(q, 'orders', organizationId, id, opts),

  list(q: Queryable, organizationId: string, query: OrderListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('status', query.status)
      .counted('source', query.source)
      .maybe(query.contactId, 'contact_id = ?')
      .maybe(query.salespersonId, 'salesperson_id = ?')
      .maybe(range.from, 'confirmed_at >= ?')
      .maybe(range.to, 'confirmed_at <= ?')
      .search(query.search, ['reference', 'contact_name', 'contact_email'])
    return paginate(q, query, {
      from: 'orders',
      select: '*',
      where,
      sortColumns: { total: 'total', status: 'status', createdAt: 'created_at', updatedAt: 'updated_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toOrder,
      counter: 'orders',
    })
  },

  /** A new status (with the invoice when it becomes invoiced); undefined when the order is missing. */
  async setStatus(q: Queryable, organizationId: string, id: string, status: OrderStatus, invoiceId: string | null = null) {
    const { rows } = await q.query<OrderRow>(
      `UPDATE orders SET status = $3, invoice_id = COALESCE($4, invoice_id), updated_at = now()
       WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, status, invoiceId],
    )
    return rows[0]
  },

  /** Unlinks the order of this invoice, which takes `status`; undefined when no order has it. */
  async releaseInvoice(q: Queryable, organizationId: string, invoiceId: string, status: OrderStatus) {
    const { rows } = await q.query<OrderRow>(
      `UPDATE orders SET status = $3, invoice_id = NULL, updated_at = now() WHERE organization_id = $1 AND invoice_id = $2 RETURNING *`, [organizationId, invoiceId, status])
    return rows[0] as OrderRow | undefined
  },

  /** The currency most of the organization's counted orders in the range use. */
  async mainCurrency(q: Queryable, organizationId: string, from: string, to: string) {
    const { rows } = await q.query<{ currency: string }>(
      `SELECT currency FROM orders WHERE organization_id = $1 AND ${COUNTED} AND ${inDays('confirmed_at', '$2', '$3')}
       GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 1`,
      [organizationId, from, to],
    )
    return rows[0]?.currency
  },

  /** Revenue and order count per period (day, week from Monday, month), every period of the range present. */
  async revenue(q: Queryable, organizationId: string, r: { from: string; to: string; unit: 'day' | 'week' | 'month'; currency: string }) {
    const label = r.unit === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD'
    const { rows } = await q.query<{ period: string; revenue: number; orders: number }>(
      `WITH agg AS (
         SELECT date_trunc($2::text, confirmed_at AT TIME ZONE 'UTC') AS p, sum(total) AS revenue, count(*) AS orders
         FROM orders
         WHERE organization_id = $1 AND currency = $5 AND ${COUNTED} AND ${inDays('confirmed_at', '$3', '$4')}
         GROUP BY 1)
       SELECT to_char(s.p, '${label}') AS period, COALESCE(agg.revenue, 0)::bigint AS revenue, COALESCE(agg.orders, 0)::int AS orders
       FROM generate_series(date_trunc($2::text, $3::date::timestamp), date_trunc($2::text, $4::date::timestamp), ('1 ' || $2::text)::interval) AS s(p)
       LEFT JOIN agg ON agg.p = s.p
       ORDER BY s.p`,
      [organizationId, r.unit, r.from, r.to, r.currency],
    )
    return rows
  },

  /**
   * The orders GET /sales/revenue counts (not cancelled or refunded, confirmed
   * in the range, in the currency), grouped by the product of each line, the
   * customer or the salesperson: revenue net of tax (line totals after
   * discount; subtotal), distinct orders, and for products the quantity.
   * A group's name is the one on its newest order; lines without a product,
   * orders without a customer or a salesperson form a group whose id is null.
   * Sorted by revenue descending, then name; at most `limit` groups, and the
   * totals over all of them.
   */
  async salesBreakdown(q: Queryable, organizationId: string, r: { from: string; to: string; currency: string; groupBy: 'product' | 'customer' | 'salesperson'; limit: number }) {
    const where = `o.organization_id = $1 AND o.currency = $4 AND o.${COUNTED} AND ${inDays('o.confirmed_at', '$2', '$3')}`
    const source = {
      product: `SELECT l->>'productId' AS id, l->>'productName' AS name, (l->>'total')::bigint AS revenue, (l->>'quantity')::numeric AS quantity, o.id AS order_id, o.confirmed_at
                FROM orders o CROSS JOIN jsonb_array_elements(o.line_items) l WHERE ${where}`,
      customer: `SELECT o.contact_id::text AS id, o.contact_name AS name, o.subtotal AS revenue, NULL::numeric AS quantity, o.id AS order_id, o.confirmed_at FROM orders o WHERE ${where}`,
      salesperson: `SELECT o.salesperson_id::text AS id, o.salesperson_name AS name, o.subtotal AS revenue, NULL::numeric AS quantity, o.id AS order_id, o.confirmed_at FROM orders o WHERE ${where}`,
    }[r.groupBy]
    const [groups, totals] = await Promise.all([
      q.query<{ id: string | null; name: string | null; revenue: number; orders: number; quantity: number | null }>(
        `WITH s AS (${source})
         SELECT id, (array_agg(name ORDER BY confirmed_at DESC, order_id DESC))[1] AS name, sum(revenue)::bigint AS revenue,
                count(DISTINCT order_id)::int AS orders, sum(quantity) AS quantity
         FROM s GROUP BY id ORDER BY revenue DESC, name, id LIMIT $5`,
        [organizationId, r.from, r.to, r.currency, r.limit],
      ),
      q.query<{ revenue: number; orders: number }>(
        `SELECT coalesce(sum(o.subtotal), 0)::bigint AS revenue, count(*)::int AS orders FROM orders o WHERE ${where}`,
        [organizationId, r.from, r.to, r.currency],
      ),
    ])
    return { groups: groups.rows, totals: totals.rows[0] }
  },

  /** Counted orders and their value per salesperson in the range. */
  async bySalesperson(q: Queryable, organizationId: string, r: { from: string; to: string; currency: string }) {
    const { rows } = await q.query<{ salesperson_id: string; orders: number; revenue: number }>(
      `SELECT salesperson_id, count(*)::int AS orders, sum(total)::bigint AS revenue FROM orders
       WHERE organization_id = $1 AND salesperson_id IS NOT NULL AND currency = $4 AND ${COUNTED}
         AND ${inDays('confirmed_at', '$2', '$3')}
       GROUP BY salesperson_id`,
      [organizationId, r.from, r.to, r.currency],
    )
    return rows
  },
}
