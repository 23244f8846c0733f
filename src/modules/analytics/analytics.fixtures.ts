// Tenancy contract fixtures of the analytics module (see test/helpers/tenancy.ts).
// The reports answer to their defaults (asOf today, usd); /analytics/sales
// needs groupBy (422 without) and /analytics/overview is no list: their
// tenancy is checked in analytics.test.ts.
import type { TestOrg } from '../../../test/helpers/app.ts'
import { stockUp } from '../../../test/helpers/manufacturing.ts'
import { createVendorBill } from '../../../test/helpers/purchase.ts'
import { createContact, createInvoice, createProduct } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

/** A sent invoice of a new contact: one row of the receivables aging. */
async function receivable(o: TestOrg) {
  const contact = await createContact(o)
  const invoice = await createInvoice(o, { contactId: contact.id, currency: 'usd' })
  await o.post(`/invoices/${invoice.id}/send`, {})
  return [contact.id, contact.name]
}

async function payable(o: TestOrg) {
  const bill = await createVendorBill(o)
  return [bill.vendor.id as string, bill.vendor.name as string]
}

async function stock(o: TestOrg) {
  const product = await createProduct(o, { type: 'storable', cost: 100, currency: 'usd' })
  await stockUp(o, product.id, 2)
  return [product.id, product.name]
}

export default defineTenancyFixtures({
  lists: {
    '/analytics/receivables/aging': { make: receivable, count: (body) => body.totals.invoices },
    '/analytics/payables/aging': { make: payable, count: (body) => body.totals.invoices },
    '/analytics/stock/valuation': { make: stock, count: (body) => body.data.length },
  },
})
