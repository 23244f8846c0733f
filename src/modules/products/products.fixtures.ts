// Tenancy contract fixtures of the products module (see test/helpers/tenancy.ts).
import { createProduct } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

export default defineTenancyFixtures({
  paths: {
    '/products/:id': async (o) => ({ id: (await createProduct(o)).id }),
  },
  bodies: {
    'PATCH /products/:id': { name: 'Renamed' },
  },
  lists: {
    '/products': async (o) => {
      const p = await createProduct(o)
      return [p.id, p.name]
    },
  },
})
