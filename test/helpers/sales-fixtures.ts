import { unique, type TestOrg } from './app.ts'

/** Factories of the sales, orders, invoices and CRM modules, through the API. */
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
