import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import type { PageParams } from '../../core/pagination.ts'
import { normalizeCurrency } from '../../core/money.ts'
import { vendorsRepository as repo } from './vendors.repository.ts'
import type { CreatePricelist, CreateVendor, PricelistListQuery, Vendor, VendorListQuery } from './purchase.schemas.ts'

registerUniqueMessage('vendor_pricelists_tier_key', 'This vendor already has a price for this product, currency and minQty')

type Deps = Pick<Services, 'contacts' | 'products'>
type Contact = Awaited<ReturnType<Services['contacts']['get']>>

/** A pricelist price: it applies to a line of at least minQty. */
export interface PriceTier { minQty: number; price: number }

/** The price of a line of this quantity: the tier with the highest minQty not above it; undefined when none applies. */
export function tierPrice(quantity: number, tiers: readonly PriceTier[]) {
  let best: PriceTier | undefined
  for (const t of tiers) if (t.minQty <= quantity && (!best || t.minQty > best.minQty)) best = t
  return best?.price
}

/** A contact that is a vendor, with its vendor terms (present on every vendor contact). */
const asVendor = (c: Contact): Vendor => ({
  id: c.id,
  name: c.name,
  email: c.email,
  phone: c.phone,
  type: c.type,
  vendor: true,
  paymentTerms: c.paymentTerms ?? null,
  currency: c.currency ?? null,
  leadTimeDays: c.leadTimeDays ?? null,
  minOrderQty: c.minOrderQty ?? null,
  address: c.address,
  taxId: c.taxId,
  organizationId: c.organizationId,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
})

/**
 * Vendors are contacts with vendor = true: they are made and listed through
 * the contacts service (one table, one e-mail uniqueness, one contact.created
 * event). Their pricelists belong to this module.
 */
export class VendorsService {
  constructor(
    private readonly db: Db,
    private readonly deps: Deps,
  ) {}

  async create(organizationId: string, input: CreateVendor) {
    return asVendor(await this.deps.contacts.create(organizationId, { ...input, vendor: true }))
  }

  async list(organizationId: string, query: VendorListQuery & PageParams) {
    const page = await this.deps.contacts.list(organizationId, { ...query, vendor: true })
    return { data: page.data.map(asVendor), meta: page.meta }
  }

  /** The vendor, or 404 (`Vendor not found`) when the id names no contact of the organization or one that is not a vendor. */
  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const contact = await this.deps.contacts.get(organizationId, id, q).catch((err) => {
      throw err instanceof NotFoundError ? new NotFoundError('Vendor') : err
    })
    if (!contact.vendor) throw new NotFoundError('Vendor')
    return asVendor(contact)
  }

  /** The vendor named in a body: 422 when it is not one (a bad reference, not a missing resource). */
  async referenced(organizationId: string, id: string, q: Queryable, field = 'vendorId') {
    try {
      return await this.get(organizationId, id, q)
    } catch (err) {
      if (err instanceof NotFoundError) throw new ValidationError(`${field} does not name a vendor of this organization`)
      throw err
    }
  }

  createPricelist(organizationId: string, vendorId: string, input: CreatePricelist) {
    return this.db.tx(async (q) => {
      const vendor = await this.get(organizationId, vendorId, q)
      const [product] = await this.deps.products.findMany(organizationId, [input.productId], q)
      if (!product) throw new ValidationError('productId does not name a product of this organization')
      return repo.insertPricelist(q, organizationId, randomUUID(), {
        vendorId,
        productId: product.id,
        price: input.price,
        currency: input.currency ? normalizeCurrency(input.currency) : (vendor.currency ?? 'usd'),
        minQty: input.minQty ?? 0,
        leadTimeDays: input.leadTimeDays !== undefined ? input.leadTimeDays : vendor.leadTimeDays,
      })
    })
  }

  async listPricelists(organizationId: string, vendorId: string, query: PricelistListQuery & PageParams) {
    await this.get(organizationId, vendorId)
    return repo.listPricelists(this.db, organizationId, vendorId, query)
  }

  /** Pricelist prices (tierPrice) by index in `wanted`, for the lines of an RFQ that give no unitPrice; lines without one are absent. */
  async prices(q: Queryable, organizationId: string, vendorId: string, currency: string, wanted: Array<{ productId: string; quantity: number }>) {
    const prices = new Map<number, number>()
    if (!wanted.length) return prices
    const tiers = await repo.priceTiers(q, organizationId, vendorId, currency, [...new Set(wanted.map((w) => w.productId))])
    wanted.forEach((w, i) => {
      const price = tierPrice(w.quantity, tiers.filter((t) => t.productId === w.productId))
      if (price !== undefined) prices.set(i, price)
    })
    return prices
  }
}
