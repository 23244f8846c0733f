// Tenancy contract fixtures of the invoices module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createContact, createInvoice, createProduct } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures, foreignContact, foreignProduct } from '../../../test/helpers/tenancy.ts'

const invoice = async (o: TestOrg) => ({ id: (await createInvoice(o)).id as string })
const creditNote = async (o: TestOrg) => {
  const res = await o.post(`/invoices/${(await invoice(o)).id}/credit-note`, {})
  if (res.status !== 201) throw new Error(`credit note: ${res.status} ${JSON.stringify(res.body)}`)
  return { id: res.body.id as string }
}
/** A valid invoice body naming the owner's own contact and product. */
const body = async (o: TestOrg) => ({
  contactId: (await createContact(o)).id,
  lineItems: [{ productId: (await createProduct(o)).id, quantity: 1 }],
})
const fields = {
  contactId: { status: 422, foreign: foreignContact },
  'lineItems[].productId': { status: 422, foreign: foreignProduct },
} as const

export default defineTenancyFixtures({
  paths: {
    '/invoices/:id': invoice,
    '/invoices/:id/send': invoice,
    '/invoices/:id/pay': invoice,
    '/invoices/:id/payments': invoice,
    '/invoices/:id/cancel': invoice,
    '/invoices/:id/credit-note': invoice,
    '/invoices/:id/pdf': invoice,
    '/credit-notes/:id': creditNote,
  },
  bodies: {
    'PATCH /invoices/:id': { notes: 'Updated' },
    'POST /invoices/:id/pay': { amount: 1 },
  },
  references: {
    'POST /invoices': { body, unchanged: '/invoices', fields },
    'PATCH /invoices/:id': { params: invoice, body, unchanged: '/invoices/:id', fields },
  },
  lists: {
    '/invoices': async (o) => [(await invoice(o)).id],
    '/credit-notes': async (o) => [(await creditNote(o)).id],
  },
})
