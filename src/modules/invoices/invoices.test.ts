import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { createContact, createInvoice, createProduct } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const year = new Date().getUTCFullYear()

describe('create', () => {
  test('a draft with INV/<year>/<seq>, line totals with discount, per-line tax and totals in cents', async () => {
    const contact = await createContact(org)
    const res = await org.post('/invoices', {
      contactId: contact.id,
      currency: 'EUR',
      notes: 'Thanks',
      lineItems: [
        { description: 'Work', quantity: 3, unitPrice: 1999, discount: 10, taxRate: 20 },
        { description: 'Half unit', quantity: 0.5, unitPrice: 1 },
        { description: 'Travel', quantity: 1, unitPrice: 12345, taxRate: 7.5 },
      ],
    })
    const inv = expectStatus(res, 201)
    assert.match(inv.number, new RegExp(`^INV/${year}/\\d{5}$`))
    assert.equal(inv.status, 'draft')
    assert.deepEqual(inv.contact, { id: contact.id, name: contact.name, email: contact.email })
    assert.deepEqual(inv.lineItems.map((l: any) => l.total), [5397, 1, 12345])
    assert.equal(inv.subtotal, 5397 + 1 + 12345)
    // round(5397 * 20 / 100) = 1079, round(12345 * 7.5 / 100) = 926 (925.875)
    assert.equal(inv.taxAmount, 1079 + 926)
    assert.equal(inv.total, inv.subtotal + inv.taxAmount)
    assert.equal(inv.amountPaid, 0)
    assert.equal(inv.amountDue, inv.total)
    assert.equal(inv.currency, 'eur')
    assert.equal(inv.notes, 'Thanks')
    assert.equal(inv.orderId, undefined, 'standalone invoices have no orderId')
    assert.equal(inv.organizationId, org.id)
    assert.equal(Date.parse(inv.dueDate) - Date.parse(inv.invoiceDate), 30 * 24 * 3600 * 1000, 'due 30 days after the invoice date by default')
    assert.deepEqual(expectStatus(await org.get(`/invoices/${inv.id}`), 200), inv)
  })

  test('numbers are consecutive per organization, and each organization starts at 1', async () => {
    const other = await createOrg(t.app)
    const a = await createInvoice(other)
    const b = await createInvoice(other)
    assert.equal(a.number, `INV/${year}/00001`)
    assert.equal(b.number, `INV/${year}/00002`)
  })

  test('a line naming a product takes its name and price unless given', async () => {
    const product = await createProduct(org, { name: 'Widget', price: 1250 })
    const contact = await createContact(org)
    const inv = expectStatus(await org.post('/invoices', { contactId: contact.id, lineItems: [{ productId: product.id, quantity: 2 }, { productId: product.id, quantity: 1, unitPrice: 100, description: 'Spare' }] }), 201)
    assert.deepEqual(inv.lineItems.map((l: any) => [l.productId, l.description, l.unitPrice, l.total]), [[product.id, 'Widget', 1250, 2500], [product.id, 'Spare', 100, 100]])
  })

  test('dates: a date is midnight UTC, an explicit due date is kept', async () => {
    const inv = await createInvoice(org, { invoiceDate: '2026-03-01', dueDate: '2026-03-15T12:00:00+02:00' })
    assert.equal(inv.invoiceDate, '2026-03-01T00:00:00.000Z')
    assert.equal(inv.dueDate, '2026-03-15T10:00:00.000Z')
  })

  test('422 with one message per failed rule', async () => {
    const contact = await createContact(org)
    const cases: Array<[unknown, string]> = [
      [{ lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }] }, 'contactId is required'],
      [{ contactId: contact.id }, 'lineItems is required'],
      [{ contactId: contact.id, lineItems: [] }, 'lineItems'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 0, unitPrice: 1 }] }, 'quantity'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1.5 }] }, 'unitPrice'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1, discount: 101 }] }, 'discount'],
      [{ contactId: contact.id, lineItems: [{ quantity: 1, unitPrice: 1 }] }, 'lineItems.0.description is required without productId'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1 }] }, 'lineItems.0.unitPrice is required without productId'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: '1', unitPrice: 1 }] }, 'quantity'],
      [{ contactId: '00000000-0000-4000-8000-000000000000', lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }] }, 'contactId does not name a contact'],
      [{ contactId: contact.id, lineItems: [{ productId: '00000000-0000-4000-8000-000000000000', quantity: 1 }] }, 'lineItems.0.productId does not name a product'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }], invoiceDate: '2026-03-10', dueDate: '2026-03-01' }, 'dueDate must not be before invoiceDate'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }], invoiceDate: '2026-02-30' }, 'invoiceDate is not a valid date'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }], currency: 'euro' }, 'currency'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }], status: 'paid' }, 'status is not allowed'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }], number: 'INV/1' }, 'number is not allowed'],
      [{ contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }], total: 5 }, 'total is not allowed'],
    ]
    for (const [body, message] of cases) {
      const res = await org.post('/invoices', body)
      expectStatus(res, 422, message)
      assert.ok(Array.isArray(res.body.message), JSON.stringify(res.body))
    }
    const two = await org.post('/invoices', {})
    assert.deepEqual(two.body.message.length, 2, 'both missing fields are reported')
  })

  test('a product priced in another currency needs an explicit unitPrice', async () => {
    const product = await createProduct(org, { price: 900, currency: 'gbp' })
    const contact = await createContact(org)
    expectStatus(await org.post('/invoices', { contactId: contact.id, currency: 'usd', lineItems: [{ productId: product.id, quantity: 1 }] }), 422, 'priced in gbp')
  })

  test('malformed JSON is 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/invoices', headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' }, payload: '{"contactId": ' })
    assert.equal(res.statusCode, 400)
  })
})

describe('access', () => {
  test('401 without a credential, 403 for customer and support roles, members allowed', async () => {
    expectStatus(await call(t.app, 'GET', '/invoices'), 401)
    expectStatus(await org.get('/invoices', await org.as('customer')), 403)
    expectStatus(await org.post('/invoices', {}, await org.as('support')), 403)
    expectStatus(await org.get('/invoices', await org.as('member')), 200)
  })

  test("another organization's invoice is 404 on every route", async () => {
    const inv = await createInvoice(org)
    const other = await createOrg(t.app)
    expectStatus(await other.get(`/invoices/${inv.id}`), 404, 'Invoice not found')
    expectStatus(await other.patch(`/invoices/${inv.id}`, { notes: 'x' }), 404)
    expectStatus(await other.del(`/invoices/${inv.id}`), 404)
    expectStatus(await other.post(`/invoices/${inv.id}/send`, {}), 404)
    expectStatus(await other.post(`/invoices/${inv.id}/pay`, { amount: 1 }), 404)
    expectStatus(await other.get(`/invoices/${inv.id}/pdf`), 404)
    assert.equal((await other.get('/invoices')).body.meta.total, 0)
  })

  test('404 for an unknown id, 400 for a malformed one', async () => {
    expectStatus(await org.get('/invoices/00000000-0000-4000-8000-000000000000'), 404, 'Invoice not found')
    expectStatus(await org.get('/invoices/not-a-uuid'), 400)
  })
})

describe('update and delete (drafts only)', () => {
  test('PATCH recomputes totals from new lines and keeps the rest', async () => {
    const inv = await createInvoice(org, { notes: 'first' })
    const res = expectStatus(await org.patch(`/invoices/${inv.id}`, { lineItems: [{ description: 'New', quantity: 4, unitPrice: 250, taxRate: 10 }] }), 200)
    assert.equal(res.subtotal, 1000)
    assert.equal(res.taxAmount, 100)
    assert.equal(res.total, 1100)
    assert.equal(res.notes, 'first')
    assert.equal(res.number, inv.number)
    const dated = expectStatus(await org.patch(`/invoices/${inv.id}`, { notes: null, dueDate: '2099-01-01' }), 200)
    assert.equal(dated.notes, null)
    assert.equal(dated.total, 1100)
    assert.equal(dated.dueDate, '2099-01-01T00:00:00.000Z')
  })

  test('PATCH rejects unknown fields, an empty body and a due date before the invoice date', async () => {
    const inv = await createInvoice(org, { invoiceDate: '2026-01-10' })
    expectStatus(await org.patch(`/invoices/${inv.id}`, { status: 'paid' }), 422, 'status is not allowed')
    expectStatus(await org.patch(`/invoices/${inv.id}`, {}), 422)
    expectStatus(await org.patch(`/invoices/${inv.id}`, { dueDate: '2026-01-01' }), 422, 'dueDate must not be before invoiceDate')
  })

  test('a sent invoice may not be updated or deleted (400)', async () => {
    const inv = await createInvoice(org)
    expectStatus(await org.post(`/invoices/${inv.id}/send`), 200)
    expectStatus(await org.patch(`/invoices/${inv.id}`, { notes: 'x' }), 400, 'Only draft invoices can be updated')
    expectStatus(await org.del(`/invoices/${inv.id}`), 400, 'Only draft invoices can be deleted')
  })

  test('DELETE of a draft is 204, then 404', async () => {
    const inv = await createInvoice(org)
    assert.equal((await org.del(`/invoices/${inv.id}`)).status, 204)
    expectStatus(await org.get(`/invoices/${inv.id}`), 404)
    expectStatus(await org.del(`/invoices/${inv.id}`), 404)
  })
})

describe('send', () => {
  test('draft to sent, answering {sent, to, sentAt}; sending again is a reminder', async () => {
    const contact = await createContact(org)
    const inv = await createInvoice(org, { contactId: contact.id })
    const res = expectStatus(await org.post(`/invoices/${inv.id}/send`, { subject: 'Your invoice', message: 'Hello' }), 200)
    assert.deepEqual(Object.keys(res).sort(), ['sent', 'sentAt', 'to'])
    assert.equal(res.sent, true)
    assert.equal(res.to, contact.email)
    assert.ok(!Number.isNaN(Date.parse(res.sentAt)))
    const sent = (await org.get(`/invoices/${inv.id}`)).body
    assert.equal(sent.status, 'sent')
    assert.equal(sent.sentAt, res.sentAt)
    const again = expectStatus(await org.post(`/invoices/${inv.id}/send`, { to: 'accounts@example.com' }), 200)
    assert.equal(again.to, 'accounts@example.com')
    assert.equal((await org.get(`/invoices/${inv.id}`)).body.status, 'sent')
  })

  test('a contact without e-mail needs `to` (422); a cancelled invoice gives 400', async () => {
    const contact = await createContact(org, { email: null })
    const inv = await createInvoice(org, { contactId: contact.id })
    expectStatus(await org.post(`/invoices/${inv.id}/send`, {}), 422, 'no e-mail address')
    assert.equal((await org.get(`/invoices/${inv.id}`)).body.status, 'draft', 'nothing changed')
    expectStatus(await org.post(`/invoices/${inv.id}/send`, { cc: 'x' }), 422, 'cc is not allowed')
    expectStatus(await org.post(`/invoices/${inv.id}/cancel`), 200)
    expectStatus(await org.post(`/invoices/${inv.id}/send`, { to: 'x@example.com' }), 400, 'Cannot send a cancelled invoice')
  })
})

describe('list', () => {
  let lister: TestOrg
  const ids: Record<string, string> = {}
  before(async () => {
    lister = await createOrg(t.app)
    const alice = await createContact(lister, { name: 'Alice Buyer', email: 'alice@buyer.test' })
    const bob = await createContact(lister, { name: 'Bob', email: 'bob@other.test' })
    const mk = async (key: string, contactId: string, unitPrice: number, invoiceDate: string, dueDate: string) => {
      ids[key] = (await createInvoice(lister, { contactId, lineItems: [{ description: key, quantity: 1, unitPrice }], invoiceDate, dueDate })).id
    }
    await mk('a', alice.id, 3000, '2026-01-05', '2026-02-20')
    await mk('b', alice.id, 1000, '2026-01-20', '2026-02-01')
    await mk('c', bob.id, 2000, '2026-02-10', '2026-03-01')
    await lister.post(`/invoices/${ids.b}/send`)
    await lister.post(`/invoices/${ids.c}/pay`, { amount: 500 })
  })
  const list = async (qs: string) => {
    const res = await lister.get(`/invoices?${qs}`)
    expectStatus(res, 200)
    return res.body
  }
  const keys = (body: any) => body.data.map((i: any) => Object.entries(ids).find(([, id]) => id === i.id)![0]).join('')

  test('envelope with exact meta; default order is newest first', async () => {
    const body = await list('limit=2')
    const { nextCursor, ...meta } = body.meta
    assert.deepEqual(meta, { total: 3, page: 1, limit: 2, totalPages: 2 })
    assert.equal(typeof nextCursor, 'string')
    assert.equal(keys(body), 'cb')
    assert.equal(keys(await list('limit=2&page=2')), 'a')
  })

  test('sortBy amount orders by total; dueDate, status and createdAt too', async () => {
    assert.equal(keys(await list('sortBy=amount&sortOrder=asc')), 'bca')
    assert.equal(keys(await list('sortBy=amount')), 'acb')
    assert.equal(keys(await list('sortBy=dueDate&sortOrder=asc')), 'bac')
    // a draft, b sent, c partial_paid: alphabetical by status
    assert.equal(keys(await list('sortBy=status&sortOrder=asc')), 'acb')
    assert.equal(keys(await list('sortBy=createdAt&sortOrder=asc')), 'abc')
  })

  test('filters: status, contactId, orderId, from/to on the invoice date, search', async () => {
    assert.equal(keys(await list('status=sent')), 'b')
    assert.equal(keys(await list('status=partial_paid')), 'c')
    const alice = (await lister.get(`/invoices/${ids.a}`)).body.contact.id
    assert.equal(keys(await list(`contactId=${alice}&sortBy=createdAt&sortOrder=asc`)), 'ab')
    assert.equal((await list('orderId=00000000-0000-4000-8000-000000000000')).meta.total, 0)
    assert.equal(keys(await list('from=2026-01-06&to=2026-02-10')), 'cb', 'to as a date includes that day')
    assert.equal(keys(await list('to=2026-01-05')), 'a')
    assert.equal(keys(await list('search=ALICE&sortBy=createdAt&sortOrder=asc')), 'ab')
    assert.equal(keys(await list('search=other.test')), 'c')
    const number = (await lister.get(`/invoices/${ids.c}`)).body.number
    assert.equal(keys(await list(`search=${encodeURIComponent(number)}`)), 'c')
  })

  test('bad query values are 400; a reversed range is 422', async () => {
    expectStatus(await lister.get('/invoices?sortBy=total'), 400)
    expectStatus(await lister.get('/invoices?sortBy=number'), 400)
    expectStatus(await lister.get('/invoices?status=unpaid'), 400)
    expectStatus(await lister.get('/invoices?limit=101'), 400)
    expectStatus(await lister.get('/invoices?page=0'), 400)
    expectStatus(await lister.get('/invoices?from=yesterday'), 400)
    expectStatus(await lister.get('/invoices?colour=red'), 400)
    expectStatus(await lister.get('/invoices?from=2026-02-01&to=2026-01-01'), 422, 'from must not be after to')
  })
})
