import { iso, type Queryable } from '../../core/db.ts'
import { inDays, type DayRange } from '../../core/dates.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Invoice, InvoiceListQuery, InvoiceStatus, Payment } from './invoices.schemas.ts'
import { bucketAmounts, bucketColumns } from '../../core/aging.ts'
import { findDocument, type PricedDocument, type PricedLine } from '../../core/documents/index.ts'

/** An invoice as its export reads it (report runs): money in integer cents, dates YYYY-MM-DD (UTC). */
export interface InvoiceExportRow {
  id: string
  number: string
  status: InvoiceStatus
  contactId: string
  contactName: string
  contactEmail: string | null
  invoiceDate: string
  dueDate: string
  currency: string
  subtotal: number
  taxAmount: number
  total: number
  amountPaid: number
  amountDue: number
  /** The exact invoice_date, to continue after this row (not exported). */
  key?: string
}

export interface InvoiceRow {
  id: string
  organization_id: string
  number: string
  status: InvoiceStatus
  contact_id: string
  contact_name: string
  contact_email: string | null
  order_id: string | null
  line_items: PricedLine[]
  subtotal: number
  tax_amount: number
  total: number
  amount_paid: number
  currency: string
  invoice_date: Date
  due_date: Date
  notes: string | null
  sent_at: Date | null
  paid_at: Date | null
  cancelled_at: Date | null
  created_at: Date
  updated_at: Date
}

export function toInvoice(r: InvoiceRow): Invoice {
  const invoice: Invoice = {
    id: r.id,
    number: r.number,
    status: r.status,
    contact: { id: r.contact_id, name: r.contact_name, email: r.contact_email },
    lineItems: r.line_items.map((l) => ({
      productId: l.productId, description: l.description, quantity: l.quantity, unitPrice: l.unitPrice,
      discount: l.discount, taxRate: l.taxRate, total: l.total,
    })),
    subtotal: r.subtotal,
    taxAmount: r.tax_amount,
    total: r.total,
    amountPaid: r.amount_paid,
    amountDue: r.status === 'cancelled' ? 0 : r.total - r.amount_paid,
    currency: r.currency,
    invoiceDate: iso(r.invoice_date),
    dueDate: iso(r.due_date),
    notes: r.notes,
    sentAt: iso(r.sent_at),
    paidAt: iso(r.paid_at),
    cancelledAt: iso(r.cancelled_at),
    organizationId: r.organization_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }
  if (r.order_id) invoice.orderId = r.order_id
  return invoice
}

/** Everything an invoice is written with (create, or a draft's update). */
export interface InvoiceValues extends PricedDocument {
  contact: { id: string; name: string; email: string | null }
  orderId: string | null
  currency: string
  invoiceDate: Date
  dueDate: Date
  notes: string | null
}

export interface PaymentValues {
  amount: number
  currency: string
  paymentDate: Date
  method: string | null
  reference: string | null
}

const toPayment = (r: any): Payment => ({
  id: r.id, invoiceId: r.invoice_id, amount: r.amount, currency: r.currency, paymentDate: iso(r.payment_date),
  method: r.method, reference: r.reference, createdAt: iso(r.created_at),
})

const valueParams = (v: InvoiceValues) => [
  v.contact.id, v.contact.name, v.contact.email, v.orderId, JSON.stringify(v.lines), v.subtotal, v.taxAmount, v.total,
  v.currency, v.invoiceDate, v.dueDate, v.notes,
]

export const invoicesRepository = {
  async insert(q: Queryable, organizationId: string, id: string, number: string, v: InvoiceValues) {
    const { rows } = await q.query<InvoiceRow>(
      `INSERT INTO invoices (id, organization_id, number, contact_id, contact_name, contact_email, order_id, line_items,
         subtotal, tax_amount, total, currency, invoice_date, due_date, notes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
      [id, organizationId, number, ...valueParams(v)],
    )
    return rows[0]
  },

  /** Rewrites a draft; undefined when the invoice is missing or no longer a draft. */
  async updateDraft(q: Queryable, organizationId: string, id: string, v: InvoiceValues) {
    const { rows } = await q.query<InvoiceRow>(
      `UPDATE invoices SET contact_id = $3, contact_name = $4, contact_email = $5, order_id = $6, line_items = $7,
         subtotal = $8, tax_amount = $9, total = $10, currency = $11, invoice_date = $12, due_date = $13, notes = $14,
         updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status = 'draft' RETURNING *`,
      [organizationId, id, ...valueParams(v)],
    )
    return rows[0]
  },

  find: (q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) => findDocument<InvoiceRow>(q, 'invoices', organizationId, id, opts),

  list(q: Queryable, organizationId: string, query: InvoiceListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('status', query.status)
      .maybe(query.contactId, 'contact_id = ?')
      .maybe(query.orderId, 'order_id = ?')
      .maybe(range.from, 'invoice_date >= ?')
      .maybe(range.to, 'invoice_date <= ?')
      .search(query.search, ['number', 'contact_name', 'contact_email'])
    return paginate(q, query, {
      from: 'invoices',
      select: '*',
      where,
      sortColumns: { amount: 'total', dueDate: 'due_date', status: 'status', createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toInvoice,
      counter: 'invoices',
    })
  },

  async deleteDraft(q: Queryable, organizationId: string, id: string) {
    const { rowCount } = await q.query(`DELETE FROM invoices WHERE organization_id = $1 AND id = $2 AND status = 'draft'`, [organizationId, id])
    return rowCount > 0
  },

  /**
   * Records a sending with the status the service chose; undefined when the
   * invoice was cancelled meanwhile (a race guard: the service checked it).
   */
  async markSent(q: Queryable, organizationId: string, id: string, status: InvoiceStatus) {
    const { rows } = await q.query<InvoiceRow>(
      `UPDATE invoices SET status = $3, sent_at = now(), updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status <> 'cancelled' RETURNING *`,
      [organizationId, id, status],
    )
    return rows[0]
  },

  /**
   * Writes what a payment leaves (amount paid, status, paidAt), as the service
   * decided on the row it locked. The guard re-checks, for a caller that did
   * not lock, that the amount paid is the one the decision started from;
   * undefined when it is not.
   */
  async recordPayment(q: Queryable, organizationId: string, id: string, from: { amountPaid: number }, to: { amountPaid: number; status: InvoiceStatus; paidAt: Date | null }) {
    const { rows } = await q.query<InvoiceRow>(
      `UPDATE invoices SET amount_paid = $4, status = $5, paid_at = $6, updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND amount_paid = $3 AND status <> 'cancelled' RETURNING *`,
      [organizationId, id, from.amountPaid, to.amountPaid, to.status, to.paidAt],
    )
    return rows[0]
  },

  async insertPayment(q: Queryable, organizationId: string, invoiceId: string, id: string, p: PaymentValues) {
    await q.query(
      `INSERT INTO invoice_payments (id, organization_id, invoice_id, amount, currency, payment_date, method, reference)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, organizationId, invoiceId, p.amount, p.currency, p.paymentDate, p.method, p.reference],
    )
  },

  listPayments(q: Queryable, organizationId: string, invoiceId: string, page: PageParams) {
    return paginate(q, page, {
      from: 'invoice_payments',
      select: '*',
      where: new Where().add('organization_id = ?', organizationId).add('invoice_id = ?', invoiceId),
      sortColumns: { paymentDate: 'payment_date', createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toPayment,
    })
  },

  /**
   * The invoices that were issued (docs/accounting.md "History"): every one
   * out of draft but those cancelled as drafts (never sent, nothing paid: a
   * draft is issued only by its sending or its first payment).
   */
  async issued(q: Queryable, organizationId: string) {
    const { rows } = await q.query<InvoiceRow>(
      `SELECT * FROM invoices WHERE organization_id = $1 AND status <> 'draft'
         AND (status <> 'cancelled' OR sent_at IS NOT NULL OR amount_paid > 0)
       ORDER BY invoice_date, id`,
      [organizationId],
    )
    return rows
  },

  /** Every payment of the organization, oldest first. */
  async allPayments(q: Queryable, organizationId: string) {
    const { rows } = await q.query<{ id: string; invoice_id: string; amount: number; payment_date: Date }>(
      `SELECT id, invoice_id, amount, payment_date FROM invoice_payments WHERE organization_id = $1 ORDER BY payment_date, created_at, id`,
      [organizationId],
    )
    return rows
  },

  /** Cancels the invoice; undefined when it was cancelled already (a race guard: the service checked it). */
  async cancel(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<InvoiceRow>(
      `UPDATE invoices SET status = 'cancelled', cancelled_at = now(), updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status <> 'cancelled' RETURNING *`,
      [organizationId, id],
    )
    return rows[0]
  },

  /**
   * Open amounts as of the end of the UTC day asOf, per contact, in the age
   * buckets the cutoffs make: invoices dated on or before asOf whose status
   * now is neither draft nor cancelled, open for their total minus the
   * payments dated on or before asOf (= total - amount_paid + the payments
   * dated after asOf). amounts[0] sums those due on or after cutoffs[0],
   * amounts[k] those due before cutoffs[k-1] and on or after cutoffs[k], the
   * last those due before the last cutoff. Invoices with nothing open are left out.
   * `perContact: false` answers one row of totals (no contact_id), for the
   * overview, which needs no contact.
   */
  async openAmounts(q: Queryable, organizationId: string, r: { asOf: string; currency: string; contactId?: string; cutoffs: Date[]; perContact?: boolean }) {
    const perContact = r.perContact ?? true
    const params = r.cutoffs.map((_, k) => `$${k + 5}`)
    const scope = (i: string) => `${i}organization_id = $1 AND ${i}currency = $3 AND ${i}invoice_date < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
        AND ($4::uuid IS NULL OR ${i}contact_id = $4)`
    const sums = Array.from({ length: r.cutoffs.length + 1 }, (_, k) => `sum(b${k})::bigint AS b${k}`).join(', ')
    // Each part aggregates straight from its scan (the open invoices from
    // invoices_open_aging_idx alone); only their few rows per contact meet in the union.
    const parts = `
         SELECT ${perContact ? 'contact_id, ' : ''}${bucketColumns('due_date', 'total - amount_paid', params)}, count(*) AS n FROM invoices
         WHERE status IN ('sent', 'partial_paid', 'overdue') AND total > amount_paid AND ${scope('')}
         ${perContact ? 'GROUP BY contact_id' : ''}
         UNION ALL
         SELECT ${perContact ? 'i.contact_id, ' : ''}${bucketColumns('i.due_date', 'l.amount', params)}, count(*) FILTER (WHERE i.amount_paid = i.total)
         FROM later l JOIN invoices i ON i.organization_id = $1 AND i.id = l.invoice_id
         WHERE i.status IN ('sent', 'partial_paid', 'overdue', 'paid') AND ${scope('i.')}
         ${perContact ? 'GROUP BY i.contact_id' : ''}`
    const later = `later AS (
         SELECT invoice_id, sum(amount) AS amount FROM invoice_payments
         WHERE organization_id = $1 AND payment_date >= ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
         GROUP BY invoice_id)`
    const { rows } = await q.query<{ contact_id: string; contact_name: string; contact_email: string | null; invoices: number } & Record<string, unknown>>(
      perContact
        ? `WITH ${later},
           agg AS (SELECT contact_id, ${sums}, sum(n)::int AS invoices FROM (${parts}) p GROUP BY contact_id)
           SELECT a.*, c.name AS contact_name, c.email AS contact_email FROM agg a JOIN contacts c ON c.organization_id = $1 AND c.id = a.contact_id`
        : `WITH ${later} SELECT ${sums}, sum(n)::int AS invoices FROM (${parts}) p`,
      [organizationId, r.asOf, r.currency, r.contactId ?? null, ...r.cutoffs],
    )
    return rows.map((row) => ({ contact_id: row.contact_id, contact_name: row.contact_name, contact_email: row.contact_email, amounts: bucketAmounts(row, r.cutoffs.length), invoices: row.invoices }))
  },

  /**
   * One keyset batch of the invoices dated (invoiceDate) in the UTC days of
   * range, every status, in (invoice_date, id) order on invoices_org_date_idx;
   * `after` is the last row of the batch before.
   */
  async exportBatch(q: Queryable, organizationId: string, range: DayRange, after: InvoiceExportRow | undefined, limit: number) {
    const { rows } = await q.query<InvoiceExportRow & { key: string }>(
      `SELECT id, number, status, contact_id AS "contactId", contact_name AS "contactName", contact_email AS "contactEmail",
              to_char(invoice_date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "invoiceDate", to_char(due_date AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "dueDate",
              currency, subtotal, tax_amount AS "taxAmount", total, amount_paid AS "amountPaid", total - amount_paid AS "amountDue",
              invoice_date::text AS key
         FROM invoices
        WHERE organization_id = $1 AND ${inDays('invoice_date', '$2', '$3')}
          AND ($4::timestamptz IS NULL OR (invoice_date, id) > ($4::timestamptz, $5::uuid))
        ORDER BY invoice_date, id LIMIT $6`,
      [organizationId, range.from, range.to, after?.key ?? null, after?.id ?? null, limit],
    )
    return rows
  },

  /**
   * Moves a batch of the invoices in one of the states `from` whose due date
   * is before `dueBefore` to `to`, in one organization or (organizationId
   * undefined) in every one; the rows moved. The service names the states.
   */
  async moveDue(q: Queryable, r: { from: readonly InvoiceStatus[]; to: InvoiceStatus; dueBefore: Date; limit: number; organizationId?: string }) {
    // One organization pins both the claim and the update; the scheduled job (organizationId undefined) runs over every one.
    const sql = r.organizationId !== undefined
      ? `UPDATE invoices SET status = $4, updated_at = now()
          WHERE organization_id = $5 AND id IN (SELECT id FROM invoices WHERE organization_id = $5 AND status = ANY($3::text[]) AND due_date < $1
                         LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING *`
      : `UPDATE /* across organizations: the scheduled overdue job moves the due invoices of every organization */ invoices SET status = $4, updated_at = now()
          WHERE (organization_id, id) IN (SELECT organization_id, id FROM invoices WHERE status = ANY($3::text[]) AND due_date < $1
                         LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING *`
    const { rows } = await q.query<InvoiceRow>(sql, [r.dueBefore, r.limit, r.from, r.to, ...(r.organizationId !== undefined ? [r.organizationId] : [])])
    return rows
  },
}
