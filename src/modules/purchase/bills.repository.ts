import { bucketAmounts, bucketColumns } from '../../core/aging.ts'
import { iso, type Queryable } from '../../core/db.ts'
import { findDocument } from '../../core/documents/index.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { BillListQuery, BillStatus, VendorBill } from './purchase.schemas.ts'
import type { PurchaseLine } from './purchase.repository.ts'

interface BillRow {
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

const toBill = (r: BillRow): VendorBill => ({
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
   * bills dated on or before asOf, open for their amountDue (bills carry no
   * dated payments).
   */
  async openAmounts(q: Queryable, organizationId: string, r: { asOf: string; currency: string; vendorId?: string; cutoffs: Date[] }) {
    const params = r.cutoffs.map((_, k) => `$${k + 5}`)
    const { rows } = await q.query<{ vendor_id: string; vendor_name: string; vendor_email: string | null; bills: number } & Record<string, unknown>>(
      `WITH agg AS (
         SELECT vendor_id, ${bucketColumns('due_date', 'total - amount_paid', params)}, count(*)::int AS bills
         FROM vendor_bills
         WHERE organization_id = $1 AND currency = $3 AND invoice_date < ($2::date + 1)::timestamp AT TIME ZONE 'UTC'
           AND ($4::uuid IS NULL OR vendor_id = $4) AND amount_paid < total
         GROUP BY vendor_id)
       SELECT a.*, c.name AS vendor_name, c.email AS vendor_email
       FROM agg a JOIN contacts c ON c.id = a.vendor_id`,
      [organizationId, r.asOf, r.currency, r.vendorId ?? null, ...r.cutoffs],
    )
    return rows.map((row) => ({ vendor_id: row.vendor_id, vendor_name: row.vendor_name, vendor_email: row.vendor_email, amounts: bucketAmounts(row, r.cutoffs.length), bills: row.bills }))
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const row = await findDocument<BillRow>(q, 'vendor_bills', organizationId, id)
    return row ? toBill(row) : undefined
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
