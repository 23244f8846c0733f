import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { PricelistListQuery, VendorPricelist } from './purchase.schemas.ts'

interface PricelistRow {
  id: string
  organization_id: string
  vendor_id: string
  product_id: string
  product_name: string
  price: number
  currency: string
  min_qty: number
  lead_time_days: number | null
  created_at: Date
}

const toPricelist = (r: PricelistRow): VendorPricelist => ({
  id: r.id,
  vendorId: r.vendor_id,
  productId: r.product_id,
  productName: r.product_name,
  price: r.price,
  currency: r.currency,
  minQty: r.min_qty,
  leadTimeDays: r.lead_time_days,
  createdAt: iso(r.created_at),
})

// The product's current name is joined, not copied: a renamed product shows its new name.
const FROM = 'vendor_pricelists v JOIN products p ON p.id = v.product_id'
const SELECT = 'v.*, p.name AS product_name'

export const vendorsRepository = {
  async insertPricelist(
    q: Queryable,
    organizationId: string,
    id: string,
    v: { vendorId: string; productId: string; price: number; currency: string; minQty: number; leadTimeDays: number | null },
  ) {
    await q.query(
      `INSERT INTO vendor_pricelists (id, organization_id, vendor_id, product_id, price, currency, min_qty, lead_time_days)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, organizationId, v.vendorId, v.productId, v.price, v.currency, v.minQty, v.leadTimeDays],
    )
    const { rows } = await q.query<PricelistRow>(`SELECT ${SELECT} FROM ${FROM} WHERE v.id = $1`, [id])
    return toPricelist(rows[0])
  },

  listPricelists(q: Queryable, organizationId: string, vendorId: string, query: PricelistListQuery & PageParams) {
    const where = new Where()
      .scope('v.organization_id', organizationId)
      .add('v.vendor_id = ?', vendorId)
      .maybe(query.productId, 'v.product_id = ?')
    return paginate(q, query, {
      from: FROM,
      select: SELECT,
      where,
      sortColumns: { createdAt: 'v.created_at', price: 'v.price', minQty: 'v.min_qty' },
      defaultSort: 'createdAt',
      tieBreaker: 'v.id',
      map: toPricelist,
    })
  },

  /**
   * The vendor's price of each product for a line of that quantity in that
   * currency: the row with the highest min_qty not above the quantity.
   */
  async prices(q: Queryable, organizationId: string, vendorId: string, currency: string, wanted: Array<{ productId: string; quantity: number }>) {
    if (!wanted.length) return new Map<number, number>()
    const { rows } = await q.query<{ i: number; price: number }>(
      `SELECT w.i::int AS i, best.price
       FROM unnest($4::uuid[], $5::numeric[]) WITH ORDINALITY AS w(product_id, quantity, i)
       CROSS JOIN LATERAL (
         SELECT price FROM vendor_pricelists
         WHERE organization_id = $1 AND vendor_id = $2 AND currency = $3 AND product_id = w.product_id AND min_qty <= w.quantity
         ORDER BY min_qty DESC LIMIT 1
       ) best`,
      [organizationId, vendorId, currency, wanted.map((w) => w.productId), wanted.map((w) => w.quantity)],
    )
    // Ordinality is 1-based; the map is by the line's 0-based index.
    return new Map(rows.map((r) => [r.i - 1, r.price]))
  },
}
