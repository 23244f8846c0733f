import { createSdk } from '../src/index.ts'

const api = createSdk({ baseUrl: process.env.BP_URL ?? 'http://localhost:3000', apiKey: process.env.BP_API_KEY })
const product = await api.post('/api/products', { body: { name: 'Consulting day', price: 90000, type: 'service' } })
const contact = await api.post('/api/contacts', { body: { name: 'Acme Ltd', email: 'billing@acme.example' } })
const quotation = await api.post('/api/sales/quotations', { body: { contactId: contact.id, lineItems: [{ productId: product.id, quantity: 5 }] } })
await api.post('/api/sales/quotations/{id}/send', { params: { path: { id: quotation.id } }, body: { subject: 'Your quotation' } })
const order = await api.post('/api/sales/quotations/{id}/confirm', { params: { path: { id: quotation.id } } })
const invoice = await api.post('/api/orders/{id}/invoice', { params: { path: { id: order.id } } })
await api.post('/api/invoices/{id}/pay', { params: { path: { id: invoice.id } }, body: { amount: invoice.amountDue } })
for await (const inv of api.list('/api/invoices', { status: 'paid' })) console.log(inv.number, inv.total, inv.status)
