import { unique, type TestOrg } from './app.ts'

/**
 * Factories of the sales, orders, invoices and CRM modules, through the API,
 * plus their tenancy fixtures (spread into pathFixtures and routeBodies).
 */
export async function createContact(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await o.post('/contacts', { name: unique('Customer '), email: `${unique('c')}@example.com`, ...overrides })
  if (res.status !== 201) throw new Error(`contact: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string; email: string }
}

export async function createProduct(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await o.post('/products', { name: unique('Product '), price: 1000, currency: 'usd', ...overrides })
  if (res.status !== 201) throw new Error(`product: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string; price: number }
}

export async function createInvoice(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const contactId = (overrides.contactId as string) ?? (await createContact(o)).id
  const res = await o.post('/invoices', { contactId, lineItems: [{ description: 'Consulting', quantity: 2, unitPrice: 5000 }], ...overrides })
  if (res.status !== 201) throw new Error(`invoice: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

export async function createQuotation(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const contactId = (overrides.contactId as string) ?? (await createContact(o)).id
  const productId = (await createProduct(o)).id
  const res = await o.post('/sales/quotations', { contactId, lineItems: [{ productId, quantity: 3, unitPrice: 2500, discount: 10 }], ...overrides })
  if (res.status !== 201) throw new Error(`quotation: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** A confirmed order (from a new quotation). */
export async function createOrder(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const q = await createQuotation(o, overrides)
  const res = await o.post(`/sales/quotations/${q.id}/confirm`)
  if (res.status !== 201) throw new Error(`confirm: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

export async function captureLead(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const { captureToken } = (await o.get('/crm/capture-settings')).body
  const res = await o.post('/crm/capture', { captureToken, name: 'Lea Lead', email: `${unique('lead')}@example.com`, ...overrides })
  if (res.status !== 201) throw new Error(`capture: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string }
}

const byId = (make: (o: TestOrg) => Promise<{ id: string }>) => async (o: TestOrg) => ({ id: (await make(o)).id })
const invoice = byId(createInvoice)
const quotation = byId(createQuotation)
const order = byId(createOrder)

export const salesPathFixtures: Record<string, (owner: TestOrg) => Promise<Record<string, string>>> = {
  '/invoices/:id': invoice,
  '/invoices/:id/send': invoice,
  '/invoices/:id/pay': invoice,
  '/invoices/:id/payments': invoice,
  '/invoices/:id/cancel': invoice,
  '/invoices/:id/credit-note': invoice,
  '/invoices/:id/pdf': invoice,
  '/credit-notes/:id': byId(async (o) => (await o.post(`/invoices/${(await createInvoice(o)).id}/credit-note`, {})).body),
  '/orders/:id': order,
  '/orders/:id/invoice': order,
  '/sales/quotations/:id': quotation,
  '/sales/quotations/:id/send': quotation,
  '/sales/quotations/:id/confirm': quotation,
  '/sales/quotations/:id/cancel': quotation,
  '/sales/quotations/:id/pdf': quotation,
  '/crm/leads/:id': byId(captureLead),
  '/crm/leads/:id/convert': byId(captureLead),
}

export const salesRouteBodies: Record<string, unknown> = {
  'PATCH /invoices/:id': { notes: 'Updated' },
  'POST /invoices/:id/pay': { amount: 1 },
  'PATCH /sales/quotations/:id': { terms: 'Updated' },
}
