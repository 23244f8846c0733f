import { iso, type Queryable } from '../../core/db.ts'
import { findDocument } from '../../core/documents/index.ts'
import { Where, paginate, type Page, type PageParams } from '../../core/pagination.ts'
import type { PurchaseOrder, PurchaseOrderListQuery, PurchaseStatus, ReceiptStatus, RfqListQuery } from './purchase.schemas.ts'

export interface PurchaseOrderRow {
  id: string
  organization_id: string
  reference: string
  status: PurchaseStatus
  vendor_id: string
  vendor_name: string
  vendor_email: string | null
  buyer_id: string | null
  buyer_name: string | null
  expected_arrival: Date | null
  total: number
  currency: string
  notes: string | null
  receipt_status: ReceiptStatus | null
  pending_receipt_id: string | null
  bill_id: string | null
  sent_at: Date | null
  confirmed_at: Date | null
  cancelled_at: Date | null
  created_at: Date
  updated_at: Date
}

export interface LineRow {
  purchase_order_id: string
  position: number
  product_id: string
  product_name: string
  quantity: number
  unit_price: number
  total: number
  received_qty: number
}

interface ReceiptRow {
  id: string
  purchase_order_id: string
  transfer_reference: string
  receipt_date: Date
  lines: Array<{ productId: string; receivedQty: number; notes: string | null }>
  created_at: Date
}

/** A priced line as the service hands it to the repository. */
export interface PurchaseLine {
  productId: string
  productName: string
  quantity: number
  unitPrice: number
  total: number
}

export interface PurchaseValues {
  vendor: { id: string; name: string; email: string | null }
  expectedArrival: Date | null
  currency: string
  notes: string | null
  lines: PurchaseLine[]
  total: number
}

/** A purchase order with its lines and receipts, as the API shows it. */
export interface LoadedOrder {
  row: PurchaseOrderRow
  lines: LineRow[]
  receipts: ReceiptRow[]
}

export const toPurchaseOrder = ({ row: r, lines, receipts }: LoadedOrder): PurchaseOrder => ({
  id: r.id,
  reference: r.reference,
  status: r.status,
  vendor: { id: r.vendor_id, name: r.vendor_name, email: r.vendor_email },
  buyer: r.buyer_id ? { id: r.buyer_id, name: r.buyer_name ?? '' } : null,
  expectedArrival: iso(r.expected_arrival),
  lineItems: lines.map((l) => ({
    productId: l.product_id,
    productName: l.product_name,
    quantity: l.quantity,
    unitPrice: l.unit_price,
    total: l.total,
    receivedQty: l.received_qty,
  })),
  total: r.total,
  currency: r.currency,
  notes: r.notes,
  receiptStatus: r.receipt_status,
  pendingReceiptId: r.pending_receipt_id,
  receipts: receipts.map((x) => ({
    receiptId: x.id,
    transferReference: x.transfer_reference,
    receiptDate: iso(x.receipt_date),
    lines: x.lines,
    createdAt: iso(x.created_at),
  })),
  billId: r.bill_id,
  sentAt: iso(r.sent_at),
  confirmedAt: iso(r.confirmed_at),
  cancelledAt: iso(r.cancelled_at),
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

const SORT_COLUMNS = {
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  confirmedAt: 'confirmed_at',
  reference: 'reference',
  total: 'total',
  expectedArrival: 'expected_arrival',
  status: 'status',
}

async function insertLines(q: Queryable, organizationId: string, purchaseOrderId: string, lines: PurchaseLine[]) {
  await q.query(
    `INSERT INTO purchase_order_lines (purchase_order_id, position, organization_id, product_id, product_name, quantity, unit_price, total)
     SELECT $1, l.position - 1, $2, l.product_id, l.product_name, l.quantity, l.unit_price, l.total
     FROM unnest($3::uuid[], $4::text[], $5::numeric[], $6::bigint[], $7::bigint[]) WITH ORDINALITY
       AS l(product_id, product_name, quantity, unit_price, total, position)`,
    [
      purchaseOrderId, organizationId,
      lines.map((l) => l.productId), lines.map((l) => l.productName), lines.map((l) => l.quantity), lines.map((l) => l.unitPrice), lines.map((l) => l.total),
    ],
  )
}

export const purchaseRepository = {
  async insert(q: Queryable, organizationId: string, id: string, reference: string, buyer: { id: string; name: string } | null, v: PurchaseValues) {
    await q.query(
      `INSERT INTO purchase_orders (id, organization_id, reference, vendor_id, vendor_name, vendor_email, buyer_id, buyer_name,
         expected_arrival, total, currency, notes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [id, organizationId, reference, v.vendor.id, v.vendor.name, v.vendor.email, buyer?.id ?? null, buyer?.name ?? null,
        v.expectedArrival, v.total, v.currency, v.notes],
    )
    await insertLines(q, organizationId, id, v.lines)
  },

  /** Replaces a draft's values and lines; false when it is no longer a draft. */
  async updateDraft(q: Queryable, organizationId: string, id: string, v: PurchaseValues) {
    const { rowCount } = await q.query(
      `UPDATE purchase_orders SET vendor_id = $3, vendor_name = $4, vendor_email = $5, expected_arrival = $6, total = $7, currency = $8,
         notes = $9, updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status = 'draft'`,
      [organizationId, id, v.vendor.id, v.vendor.name, v.vendor.email, v.expectedArrival, v.total, v.currency, v.notes],
    )
    if (!rowCount) return false
    await q.query('DELETE FROM purchase_order_lines WHERE organization_id = $1 AND purchase_order_id = $2', [organizationId, id])
    await insertLines(q, organizationId, id, v.lines)
    return true
  },

  find: (q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) =>
    findDocument<PurchaseOrderRow>(q, 'purchase_orders', organizationId, id, opts),

  /** The confirmed purchase order whose pending receipt is this transfer, locked; undefined when none. */
  async findByPendingReceipt(q: Queryable, organizationId: string, transferId: string) {
    const { rows } = await q.query<PurchaseOrderRow>(
      `SELECT * FROM purchase_orders WHERE organization_id = $1 AND pending_receipt_id = $2 AND status = 'confirmed' FOR UPDATE`,
      [organizationId, transferId],
    )
    return rows[0]
  },
  /**
   * For each of these transfers that receives a purchase order (its pending
   * receipt, or a receipt booked on it), the PO's currency and its lines'
   * unit prices: what the inventory's receipt entries credit 2200 at.
   */
  async receiptPrices(q: Queryable, organizationId: string, transferIds: string[]) {
    const { rows } = await q.query<{ transfer_id: string; currency: string; product_id: string; unit_price: string }>(
      `SELECT t.id AS transfer_id, po.currency, l.product_id, l.unit_price::text AS unit_price
         FROM unnest($2::uuid[]) AS t(id)
         JOIN purchase_orders po ON po.organization_id = $1
          AND (po.pending_receipt_id = t.id OR po.id = (SELECT r.purchase_order_id FROM purchase_receipts r WHERE r.id = t.id AND r.organization_id = $1))
         JOIN purchase_order_lines l ON l.organization_id = po.organization_id AND l.purchase_order_id = po.id`,
      [organizationId, transferIds],
    )
    return rows
  },

  async lines(q: Queryable, organizationId: string, purchaseOrderId: string) {
    const { rows } = await q.query<LineRow>(
      'SELECT * FROM purchase_order_lines WHERE organization_id = $1 AND purchase_order_id = $2 ORDER BY position',
      [organizationId, purchaseOrderId],
    )
    return rows
  },

  /** Lines and receipts of the given rows (all of the organization), two statements whatever their number. */
  async attach(q: Queryable, organizationId: string, rows: PurchaseOrderRow[]): Promise<LoadedOrder[]> {
    if (!rows.length) return []
    const ids = rows.map((r) => r.id)
    const [lines, receipts] = await Promise.all([
      q.query<LineRow>(
        'SELECT * FROM purchase_order_lines WHERE organization_id = $2 AND purchase_order_id = ANY($1::uuid[]) ORDER BY purchase_order_id, position',
        [ids, organizationId],
      ),
      q.query<ReceiptRow>('SELECT * FROM purchase_receipts WHERE organization_id = $2 AND purchase_order_id = ANY($1::uuid[]) ORDER BY created_at, id', [ids, organizationId]),
    ])
    const group = <T extends { purchase_order_id: string }>(items: T[]) => {
      const m = new Map<string, T[]>()
      for (const x of items) m.set(x.purchase_order_id, [...(m.get(x.purchase_order_id) ?? []), x])
      return m
    }
    const byLines = group(lines.rows)
    const byReceipts = group(receipts.rows)
    return rows.map((row) => ({ row, lines: byLines.get(row.id) ?? [], receipts: byReceipts.get(row.id) ?? [] }))
  },

  async load(q: Queryable, row: PurchaseOrderRow): Promise<PurchaseOrder> {
    return toPurchaseOrder((await this.attach(q, row.organization_id, [row]))[0])
  },

  async list(
    q: Queryable,
    organizationId: string,
    query: (RfqListQuery | PurchaseOrderListQuery) & PageParams,
    filters: { status?: PurchaseStatus; receiptStatus?: ReceiptStatus; vendorId?: string; dateColumn: 'created_at' | 'confirmed_at'; from?: Date; to?: Date },
  ): Promise<Page<PurchaseOrder>> {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('status', filters.status)
      .counted('receipt_status', filters.receiptStatus)
      .maybe(filters.vendorId, 'vendor_id = ?')
      .maybe(filters.from, `${filters.dateColumn} >= ?`)
      .maybe(filters.to, `${filters.dateColumn} <= ?`)
      .search(query.search, ['reference', 'vendor_name', 'vendor_email'])
    const page = await paginate(q, query, {
      from: 'purchase_orders',
      select: '*',
      where,
      sortColumns: SORT_COLUMNS,
      defaultSort: filters.dateColumn === 'confirmed_at' ? 'confirmedAt' : 'createdAt',
      tieBreaker: 'id',
      map: (r: PurchaseOrderRow) => r,
      counter: 'purchase_orders',
    })
    return { data: (await this.attach(q, organizationId, page.data)).map(toPurchaseOrder), meta: page.meta }
  },

  async deleteDraft(q: Queryable, organizationId: string, id: string) {
    await q.query(`DELETE FROM purchase_orders WHERE organization_id = $1 AND id = $2 AND status = 'draft'`, [organizationId, id])
  },

  /** Moves to sent or cancelled with its timestamp; undefined when the order is not in one of `from`. */
  async transition(q: Queryable, organizationId: string, id: string, from: PurchaseStatus[], to: 'sent' | 'cancelled') {
    const stamp = { sent: 'sent_at', cancelled: 'cancelled_at' }[to]
    const { rows } = await q.query<PurchaseOrderRow>(
      `UPDATE purchase_orders SET status = $3, ${stamp} = now(), updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status = ANY($4::text[]) RETURNING *`,
      [organizationId, id, to, from],
    )
    return rows[0]
  },

  async confirm(q: Queryable, organizationId: string, id: string, receiptId: string) {
    const { rows } = await q.query<PurchaseOrderRow>(
      `UPDATE purchase_orders SET status = 'confirmed', confirmed_at = now(), receipt_status = 'pending', pending_receipt_id = $3, updated_at = now()
       WHERE organization_id = $1 AND id = $2 AND status IN ('draft', 'sent') RETURNING *`,
      [organizationId, id, receiptId],
    )
    return rows[0]
  },

  /** Adds a received quantity to a line, never beyond its ordered quantity; false when it would go beyond. */
  async addReceived(q: Queryable, organizationId: string, purchaseOrderId: string, productId: string, qty: number) {
    const { rowCount } = await q.query(
      `UPDATE purchase_order_lines SET received_qty = received_qty + $3
       WHERE organization_id = $4 AND purchase_order_id = $1 AND product_id = $2 AND received_qty + $3 <= quantity`,
      [purchaseOrderId, productId, qty, organizationId],
    )
    return rowCount === 1
  },

  async setReceipt(q: Queryable, organizationId: string, id: string, pendingReceiptId: string | null, receiptStatus: ReceiptStatus) {
    const { rows } = await q.query<PurchaseOrderRow>(
      `UPDATE purchase_orders SET pending_receipt_id = $3, receipt_status = $4, updated_at = now()
       WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, pendingReceiptId, receiptStatus],
    )
    return rows[0]
  },

  async insertReceipt(
    q: Queryable,
    organizationId: string,
    r: { id: string; purchaseOrderId: string; transferReference: string; receiptDate: Date; lines: Array<{ productId: string; receivedQty: number; notes: string | null }> },
  ) {
    await q.query(
      `INSERT INTO purchase_receipts (id, organization_id, purchase_order_id, transfer_reference, receipt_date, lines)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [r.id, organizationId, r.purchaseOrderId, r.transferReference, r.receiptDate, JSON.stringify(r.lines)],
    )
  },

  async setBill(q: Queryable, organizationId: string, id: string, billId: string) {
    await q.query('UPDATE purchase_orders SET bill_id = $3, updated_at = now() WHERE organization_id = $1 AND id = $2', [organizationId, id, billId])
  },
}
