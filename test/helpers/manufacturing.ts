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
