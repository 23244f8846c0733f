// Tenancy contract fixtures of the sales module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createContact, createOrder, createProduct, createQuotation } from '../../../test/helpers/sales-fixtures.ts'
import { createEmployee, defineTenancyFixtures, foreignContact, foreignEmployee, foreignProduct } from '../../../test/helpers/tenancy.ts'

const quotation = async (o: TestOrg) => ({ id: (await createQuotation(o)).id as string })
/** A valid quotation body naming the owner's own contact, salesperson and product. */
const body = async (o: TestOrg) => ({
  contactId: (await createContact(o)).id,
  salespersonId: (await createEmployee(o)).id,
  lineItems: [{ productId: (await createProduct(o)).id, quantity: 1 }],
})
const fields = {
  contactId: { status: 422, foreign: foreignContact },
  salespersonId: { status: 422, foreign: foreignEmployee },
  'lineItems[].productId': { status: 422, foreign: foreignProduct },
} as const
/** A confirmed order sold by a salesperson of the owner. */
const soldOrder = async (o: TestOrg) => {
  const salesperson = await createEmployee(o)
  const order = await createOrder(o, { salespersonId: salesperson.id })
  return { order: order.id as string, salesperson: salesperson.id }
}

export default defineTenancyFixtures({
  paths: {
    '/sales/quotations/:id': quotation,
    '/sales/quotations/:id/send': quotation,
    '/sales/quotations/:id/confirm': quotation,
    '/sales/quotations/:id/cancel': quotation,
    '/sales/quotations/:id/pdf': quotation,
  },
  bodies: {
    'PATCH /sales/quotations/:id': { terms: 'Updated' },
  },
  references: {
    'POST /sales/quotations': { body, unchanged: '/sales/quotations', fields },
    'PATCH /sales/quotations/:id': { params: quotation, body, unchanged: '/sales/quotations/:id', fields },
  },
  lists: {
    '/sales/quotations': async (o) => [(await quotation(o)).id],
    '/sales/orders': async (o) => [(await soldOrder(o)).order],
    '/sales/team': async (o) => [(await soldOrder(o)).salesperson],
    // Reports: no ids, so what they count.
    '/sales/revenue': { make: async (o) => (await soldOrder(o), []), count: (b) => b.total.orders },
    '/sales/pipeline': {
      make: async (o) => (await quotation(o), []),
      count: (b) => b.stages.reduce((n: number, s: { count: number }) => n + s.count, 0),
    },
  },
})
