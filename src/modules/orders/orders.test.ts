import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { createContact, createOrder, createQuotation } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const year = new Date().getUTCFullYear()

describe('orders', () => {
  test('a confirmed quotation gives an order with its lines, contact and totals', async () => {
    const q = await createQuotation(org)
    const order = expectStatus(await org.post(`/sales/quotations/${q.id}/confirm`), 201)
    assert.match(order.reference, new RegExp(`^SO/${year}/\\d{5}$`))
    assert.deepEqual(
      [order.status, order.source, order.quotationId, order.contact, order.total, order.subtotal, order.currency, order.invoiceId],
      ['confirmed', 'sales', q.id, q.contact, q.total, q.subtotal, q.currency, null],
    )
    assert.deepEqual(order.lineItems, q.lineItems)
    assert.deepEqual(expectStatus(await org.get(`/orders/${order.id}`), 200), order)
  })

  test('401, 403 and 404 of another organization', async () => {
    const order = await createOrder(org)
    expectStatus(await call(t.app, 'GET', '/orders'), 401)
    expectStatus(await org.get('/orders', await org.as('customer')), 403)
    expectStatus(await org.post(`/orders/${order.id}/invoice`, {}, await org.as('agent')), 403)
    const other = await createOrg(t.app)
    expectStatus(await other.get(`/orders/${order.id}`), 404, 'Order not found')
    expectStatus(await other.post(`/orders/${order.id}/invoice`), 404, 'Order not found')
    assert.equal((await other.get('/orders')).body.meta.total, 0)
  })
})

describe('invoicing an order', () => {
  test('201 draft invoice with orderId and the order lines; twice is 409', async () => {
    const order = await createOrder(org)
    const inv = expectStatus(await org.post(`/orders/${order.id}/invoice`, { dueDate: '2099-12-31', notes: 'From order' }), 201)
    assert.equal(inv.status, 'draft')
    assert.equal(inv.orderId, order.id)
    assert.match(inv.number, new RegExp(`^INV/${year}/\\d{5}$`))
    assert.deepEqual([inv.subtotal, inv.taxAmount, inv.total, inv.currency, inv.contact], [order.subtotal, order.taxAmount, order.total, order.currency, order.contact])
    assert.deepEqual(
      inv.lineItems.map((l: any) => [l.productId, l.description, l.quantity, l.unitPrice, l.discount, l.total]),
      order.lineItems.map((l: any) => [l.productId, l.productName, l.quantity, l.unitPrice, l.discount, l.total]),
    )
    assert.equal(inv.notes, 'From order')
    assert.equal(inv.dueDate, '2099-12-31T00:00:00.000Z')
    const invoiced = (await org.get(`/orders/${order.id}`)).body
    assert.deepEqual([invoiced.status, invoiced.invoiceId], ['invoiced', inv.id])
    expectStatus(await org.post(`/orders/${order.id}/invoice`), 409, 'Order already invoiced')
    assert.deepEqual((await org.get(`/invoices?orderId=${order.id}`)).body.data.map((i: any) => i.id), [inv.id])
  })

  test('no body at all is accepted; unknown fields are 422', async () => {
    const order = await createOrder(org)
    expectStatus(await org.post(`/orders/${order.id}/invoice`, { discount: 5 }), 422, 'discount is not allowed')
    const res = await t.app.inject({ method: 'POST', url: `/api/orders/${order.id}/invoice`, headers: { authorization: `Bearer ${org.token}` } })
    assert.equal(res.statusCode, 201, res.body)
  })

  test('deleting the draft invoice makes the order invoiceable again', async () => {
    const order = await createOrder(org)
    const inv = expectStatus(await org.post(`/orders/${order.id}/invoice`), 201)
    assert.equal((await org.del(`/invoices/${inv.id}`)).status, 204)
    const freed = (await org.get(`/orders/${order.id}`)).body
    assert.deepEqual([freed.status, freed.invoiceId], ['confirmed', null])
    expectStatus(await org.post(`/orders/${order.id}/invoice`), 201)
  })

  test('two parallel invoice requests for one order: one 201, one 409', async () => {
    const order = await createOrder(org)
    const results = await Promise.all([1, 2, 3, 4].map(() => org.post(`/orders/${order.id}/invoice`)))
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409])
    assert.equal((await org.get(`/invoices?orderId=${order.id}`)).body.meta.total, 1)
  })
})

describe('lists', () => {
  let o: TestOrg
  const ids: Record<string, string> = {}
  before(async () => {
    o = await createOrg(t.app)
    const alice = await createContact(o, { name: 'Alice' })
    const product = (await o.post('/products', { name: 'P', price: 100 })).body.id
    const employee = (await o.post('/employees', { name: 'Sam Seller' })).body.id
    const mk = async (key: string, contactId: string, unitPrice: number, salespersonId?: string) => {
      ids[key] = (await createOrder(o, { contactId, salespersonId, lineItems: [{ productId: product, quantity: 1, unitPrice }] })).id
    }
    await mk('a', alice.id, 500, employee)
    await mk('b', (await createContact(o)).id, 1500)
    await mk('c', alice.id, 1000, employee)
    expectStatus(await o.post(`/orders/${ids.b}/invoice`), 201)
    ids.salesperson = employee
    ids.alice = alice.id
  })
  const keys = (body: any) => body.data.map((i: any) => Object.entries(ids).find(([, id]) => id === i.id)![0]).join('')

  test('GET /orders: filters status and contactId, sortable by total, status, createdAt, updatedAt', async () => {
    const all = expectStatus(await o.get('/orders'), 200)
    assert.deepEqual(all.meta, { total: 3, page: 1, limit: 20, totalPages: 1, nextCursor: null })
    assert.equal(keys(all), 'cba')
    assert.equal(keys(await o.get('/orders?sortBy=total&sortOrder=asc').then((r) => r.body)), 'acb')
    assert.equal(keys(await o.get('/orders?sortBy=status&sortOrder=desc&limit=1').then((r) => r.body)), 'b')
    assert.equal(keys(await o.get('/orders?sortBy=createdAt&sortOrder=asc').then((r) => r.body)), 'abc')
    assert.equal(keys(await o.get('/orders?sortBy=updatedAt&limit=1').then((r) => r.body)), 'b', 'invoicing updated it last')
    assert.equal(keys(await o.get('/orders?status=invoiced').then((r) => r.body)), 'b')
    assert.equal(keys(await o.get(`/orders?contactId=${ids.alice}&sortBy=total`).then((r) => r.body)), 'ca')
    assert.equal((await o.get('/orders?source=checkout')).body.meta.total, 0)
    assert.equal((await o.get('/orders?search=alice')).body.meta.total, 2)
    const today = new Date().toISOString().slice(0, 10)
    assert.equal((await o.get(`/orders?from=${today}&to=${today}`)).body.meta.total, 3)
    expectStatus(await o.get('/orders?sortBy=reference'), 400)
    expectStatus(await o.get('/orders?status=shipped'), 400)
    expectStatus(await o.get('/orders?page=1&limit=0'), 400)
  })

  test('GET /sales/orders: confirmed sales orders, filter salesperson', async () => {
    const res = expectStatus(await o.get('/sales/orders?sortBy=createdAt&sortOrder=asc'), 200)
    assert.equal(keys(res), 'abc')
    assert.ok(res.data.every((d: any) => d.source === 'sales' && d.quotationId))
    assert.equal(keys((await o.get(`/sales/orders?salesperson=${ids.salesperson}&sortBy=total`)).body), 'ca')
    assert.deepEqual((await o.get(`/sales/orders?salesperson=${ids.salesperson}&limit=1`)).body.data[0].salesperson, { id: ids.salesperson, name: 'Sam Seller' })
    assert.equal(keys((await o.get('/sales/orders?status=confirmed&sortBy=total')).body), 'ca')
    expectStatus(await o.get('/sales/orders?source=sales'), 400)
  })
})
