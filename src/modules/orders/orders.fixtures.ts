// Tenancy contract fixtures of the orders module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createOrder } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

const order = async (o: TestOrg) => ({ id: (await createOrder(o)).id as string })

export default defineTenancyFixtures({
  paths: {
    '/orders/:id': order,
    '/orders/:id/invoice': order,
  },
  lists: {
    '/orders': async (o) => [(await order(o)).id],
  },
})
