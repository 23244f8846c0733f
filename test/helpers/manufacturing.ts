import { unique, type TestOrg } from './app.ts'
import { createProduct } from './sales-fixtures.ts'

/** Factories of the manufacturing module, through the API. */

/** A storable product (what a BOM makes and consumes). */
export const createItem = (o: TestOrg, overrides: Record<string, unknown> = {}) => createProduct(o, { type: 'storable', ...overrides })

/** A BOM of a new product from two new components (2 and 3 per unit) and one operation, unless overridden. */
export async function createBom(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const productId = (overrides.productId as string) ?? (await createItem(o)).id
  const components = overrides.components ?? [
    { productId: (await createItem(o)).id, quantity: 2 },
    { productId: (await createItem(o)).id, quantity: 3 },
  ]
  const res = await o.post('/manufacturing/boms', {
    name: unique('BOM '),
    operations: [{ name: 'Assemble', workcenter: 'Bench 1', durationMinutes: 30 }],
    ...overrides,
    productId,
    components,
  })
  if (res.status !== 201) throw new Error(`bom: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** Puts `qty` of the product on hand in LOC-STOCK through a validated receipt. */
export async function stockUp(o: TestOrg, productId: string, qty: number) {
  const r = await o.post('/inventory/transfers', { type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK', moves: [{ productId, demandQty: qty }] })
  if (r.status !== 201) throw new Error(`receipt: ${r.status} ${JSON.stringify(r.body)}`)
  const v = await o.post(`/inventory/transfers/${r.body.id}/validate`)
  if (v.status !== 200) throw new Error(`validate: ${v.status} ${JSON.stringify(v.body)}`)
}

/** A draft production order of `quantity` (default 1) of a new BOM's product (createBom), unless bomId/productId are given. */
export async function createProductionOrder(o: TestOrg, overrides: Record<string, unknown> = {}) {
  let productId = overrides.productId as string | undefined
  let bomId = overrides.bomId as string | undefined
  if (!productId) {
    const bom = await createBom(o)
    productId = bom.product.id
    bomId = bom.id
  }
  const res = await o.post('/manufacturing/orders', { quantity: 1, ...overrides, productId, ...(bomId ? { bomId } : {}) })
  if (res.status !== 201) throw new Error(`production order: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}
