import { bucketAmounts, bucketColumns } from '../../core/aging.ts'
import { iso, type Queryable } from '../../core/db.ts'
import { findDocument } from '../../core/documents/index.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { BillListQuery, BillStatus, VendorBill } from './purchase.schemas.ts'
import type { PurchaseLine } from './purchase.repository.ts'

export interface BillRow {
  id: string
  organization_id: string
  number: string
  purchase_order_id: string
  vendor_id: string
  vendor_name: string
  vendor_email: string | null
  vendor_invoice_number: string
  line_items: PurchaseLine[]
  subtotal: number
  total: number
  amount_paid: number
  currency: string
  status: BillStatus
  invoice_date: Date
  due_date: Date
  created_at: Date
  updated_at: Date
}

export const toBill = (r: BillRow): VendorBill => ({
  id: r.id,
  number: r.number,
  purchaseOrderId: r.purchase_order_id,
  vendor: { id: r.vendor_id, name: r.vendor_name, email: r.vendor_email },
  vendorInvoiceNumber: r.vendor_invoice_number,
  lineItems: r.line_items.map((l) => ({ productId: l.productId, productName: l.productName, quantity: l.quantity, unitPrice: l.unitPrice, total: l.total })),
  subtotal: r.subtotal,
  total: r.total,
  amountPaid: r.amount_paid,
  amountDue: r.total - r.amount_paid,
  currency: r.currency,
  status: r.status,
  invoiceDate: iso(r.invoice_date),
  dueDate: iso(r.due_date),
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

export const billsRepository = {
  async insert(
    q: Queryable,
    organizationId: string,
    b: {
      id: string; number: string; purchaseOrderId: string; vendor: { id: string; name: string; email: string | null }; vendorInvoiceNumber: string
      lines: PurchaseLine[]; total: number; currency: string; invoiceDate: Date; dueDate: Date
    },
  ) {
    const { rows } = await q.query<BillRow>(
      `INSERT INTO vendor_bills (id, organization_id, number, purchase_order_id, vendor_id, vendor_name, vendor_email, vendor_invoice_number,
         line_items, subtotal, total, currency, invoice_date, due_date)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12, $13) RETURNING *`,
      [b.id, organizationId, b.number, b.purchaseOrderId, b.vendor.id, b.vendor.name, b.vendor.email, b.vendorInvoiceNumber,
        JSON.stringify(b.lines), b.total, b.currency, b.invoiceDate, b.dueDate],
    )
    return toBill(rows[0])
  },

  /**
   * Amounts due as of the end of the UTC day asOf, per vendor, in the age
   * buckets the due-date cutoffs make (as InvoicesRepository.openAmounts):
   * bills dated on or before asOf, open for their total minus the payments
   * dated on or before asOf (= total - amount_paid + the payments dated after
   * asOf). Bills with nothing open then are left out.
   */
  async openAmounts(q: Queryable, organizationId: string, r: { asOf: string; currency: string; vendorId?: string; cutoffs: Date[] }) {
    const params = r.cutoffs.map((_, k) => `$${k + 5}`)
    const sums = Array.from({ length: r.cutoffs.length + 1 }, (_, k) => `sum(b${k})::bigint AS b${k}`).join(', ')
    const scope = (i: string) => `${i}organization_id = $1 AND ${i}currency = $3 AND ${i}invoice_date < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
           AND ($4::uuid IS NULL OR ${i}vendor_id = $4)`
    const { rows } = await q.query<{ vendor_id: string; vendor_name: string; vendor_email: string | null; bills: number } & Record<string, unknown>>(
      `WITH later AS (
         SELECT bill_id, sum(amount) AS amount FROM bill_payments
         WHERE organization_id = $1 AND payment_date >= ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
         GROUP BY bill_id),
       parts AS (
         SELECT vendor_id, ${bucketColumns('due_date', 'total - amount_paid', params)}, count(*) AS n
         FROM vendor_bills WHERE amount_paid < total AND ${scope('')}
         GROUP BY vendor_id
         UNION ALL
         SELECT b.vendor_id, ${bucketColumns('b.due_date', 'l.amount', params)}, count(*) FILTER (WHERE b.amount_paid = b.total)
         FROM later l JOIN vendor_bills b ON b.id = l.bill_id
         WHERE ${scope('b.')}
         GROUP BY b.vendor_id),
       agg AS (SELECT vendor_id, ${sums}, sum(n)::int AS bills FROM parts GROUP BY vendor_id)
       SELECT a.*, c.name AS vendor_name, c.email AS vendor_email
       FROM agg a JOIN contacts c ON c.organization_id = $1 AND c.id = a.vendor_id`,
      [organizationId, r.asOf, r.currency, r.vendorId ?? null, ...r.cutoffs],
    )
    return rows.map((row) => ({ vendor_id: row.vendor_id, vendor_name: row.vendor_name, vendor_email: row.vendor_email, amounts: bucketAmounts(row, r.cutoffs.length), bills: row.bills }))
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const row = await findDocument<BillRow>(q, 'vendor_bills', organizationId, id)
    return row ? toBill(row) : undefined
  },

  /** The stored row, locked with forUpdate (a payment decides on it). */
  row: (q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) => findDocument<BillRow>(q, 'vendor_bills', organizationId, id, opts),

  /**
   * Writes what a payment leaves (amount paid, status), as the service
   * decided on the row it locked. The guard re-checks that the amount paid is
   * the one the decision started from (a race guard for a caller that did not
   * lock); undefined when it is not.
   */
  async recordPayment(q: Queryable, organizationId: string, id: string, from: { amountPaid: number }, to: { amountPaid: number; status: BillStatus }) {
    const { rows } = await q.query<BillRow>(
      `UPDATE vendor_bills SET amount_paid = $4, status = $5, updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND amount_paid = $3 RETURNING *`,
      [organizationId, id, from.amountPaid, to.amountPaid, to.status],
    )
    return rows[0]
  },

  async insertPayment(q: Queryable, organizationId: string, billId: string, p: { id: string; amount: number; currency: string; paymentDate: Date; method: string | null; reference: string | null }) {
    await q.query(
      `INSERT INTO bill_payments (id, organization_id, bill_id, amount, currency, payment_date, method, reference)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [p.id, organizationId, billId, p.amount, p.currency, p.paymentDate, p.method, p.reference],
    )
  },

  /** Every bill of the organization, oldest first (the ledger's history). */
  async all(q: Queryable, organizationId: string) {
    const { rows } = await q.query<BillRow>('SELECT * FROM vendor_bills WHERE organization_id = $1 ORDER BY invoice_date, id', [organizationId])
    return rows
  },

  /** Every bill payment of the organization, oldest first (the ledger's history). */
  async allPayments(q: Queryable, organizationId: string) {
    const { rows } = await q.query<{ id: string; bill_id: string; amount: number; payment_date: Date }>(
      'SELECT id, bill_id, amount, payment_date FROM bill_payments WHERE organization_id = $1 ORDER BY payment_date, created_at, id', [organizationId])
    return rows
  },

  list(q: Queryable, organizationId: string, query: BillListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('status', query.status)
      .maybe(query.vendorId, 'vendor_id = ?')
      .maybe(query.purchaseOrderId, 'purchase_order_id = ?')
      .maybe(range.from, 'invoice_date >= ?')
      .maybe(range.to, 'invoice_date <= ?')
      .search(query.search, ['number', 'vendor_name', 'vendor_invoice_number'])
    return paginate(q, query, {
      from: 'vendor_bills',
      select: '*',
      where,
      sortColumns: { createdAt: 'created_at', number: 'number', invoiceDate: 'invoice_date', dueDate: 'due_date', total: 'total' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toBill,
      counter: 'vendor_bills',
    })
  },
}
