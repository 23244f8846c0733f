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
const FROM = 'vendor_pricelists v JOIN products p ON p.organization_id = v.organization_id AND p.id = v.product_id'
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
    const { rows } = await q.query<PricelistRow>(`SELECT ${SELECT} FROM ${FROM} WHERE v.organization_id = $2 AND v.id = $1`, [id, organizationId])
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

  /** The vendor's price tiers (minQty, price) of these products in that currency. */
  async priceTiers(q: Queryable, organizationId: string, vendorId: string, currency: string, productIds: string[]) {
    const { rows } = await q.query<{ product_id: string; min_qty: number; price: number }>(
      `SELECT product_id, min_qty, price FROM vendor_pricelists
       WHERE organization_id = $1 AND vendor_id = $2 AND currency = $3 AND product_id = ANY($4::uuid[])`,
      [organizationId, vendorId, currency, productIds],
    )
    return rows.map((r) => ({ productId: r.product_id, minQty: r.min_qty, price: r.price }))
  },
}
