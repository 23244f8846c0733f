import { unique, type TestOrg } from './app.ts'
import { createProduct } from './sales-fixtures.ts'

/** Factories of the purchase module, through the API. */
export async function createVendor(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await o.post('/purchase/vendors', { name: unique('Vendor '), email: `${unique('v')}@example.com`, ...overrides })
  if (res.status !== 201) throw new Error(`vendor: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string; email: string; currency: string | null }
}

/** A storable product (the only kind an RFQ line takes). */
export const createStorable = (o: TestOrg, overrides: Record<string, unknown> = {}) => createProduct(o, { type: 'storable', ...overrides })

/** A draft RFQ of one line (a new storable product, 10 at 250 cents) from a new vendor, unless overridden. */
export async function createRfq(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const vendorId = (overrides.vendorId as string) ?? (await createVendor(o)).id
  const lineItems = overrides.lineItems ?? [{ productId: (await createStorable(o)).id, quantity: 10, unitPrice: 250 }]
  const res = await o.post('/purchase/rfqs', { vendorId, ...overrides, lineItems })
  if (res.status !== 201) throw new Error(`rfq: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** A confirmed purchase order (its receipt transfer is ready). */
export async function createPurchaseOrder(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const rfq = await createRfq(o, overrides)
  const res = await o.post(`/purchase/rfqs/${rfq.id}/confirm`)
  if (res.status !== 200) throw new Error(`confirm: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** A vendor bill of a new purchase order. */
export async function createVendorBill(o: TestOrg) {
  const po = await createPurchaseOrder(o)
  const res = await o.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: unique('VINV-') })
  if (res.status !== 201) throw new Error(`bill: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}
