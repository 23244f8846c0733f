import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { pdfPages, pdfText, sampleLogo } from '../../../test/helpers/pdf.ts'
import { createContact, createProduct, createQuotation } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app, 'Quote Makers Inc')
})
after(() => t.close())

const year = new Date().getUTCFullYear()
const statusOf = async (id: string) => (await org.get(`/sales/quotations/${id}`)).body.status

describe('create and read', () => {
  test('201 draft QO/<year>/<seq> with discounted line totals, product names and salesperson', async () => {
    const contact = await createContact(org)
    const widget = await createProduct(org, { name: 'Widget', price: 2000 })
    const gadget = await createProduct(org, { name: 'Gadget', price: 999 })
    const employee = expectStatus(await org.post('/employees', { name: 'Sally Sales' }), 201)
    const res = await org.post('/sales/quotations', {
      contactId: contact.id,
      salespersonId: employee.id,
      validUntil: '2026-12-31',
      currency: 'usd',
      terms: 'Net 30',
      lineItems: [
        { productId: widget.id, quantity: 3, discount: 10 },
        { productId: gadget.id, quantity: 2, unitPrice: 1001, discount: 12.5, taxRate: 20 },
      ],
    })
    const q = expectStatus(res, 201)
    assert.match(q.reference, new RegExp(`^QO/${year}/\\d{5}$`))
    assert.equal(q.status, 'draft')
    assert.deepEqual(q.contact, { id: contact.id, name: contact.name, email: contact.email })
    assert.deepEqual(q.salesperson, { id: employee.id, name: 'Sally Sales' })
    assert.equal(q.validUntil, '2026-12-31T00:00:00.000Z')
    assert.deepEqual(q.lineItems, [
      { productId: widget.id, productName: 'Widget', quantity: 3, unitPrice: 2000, discount: 10, taxRate: null, total: 5400 },
      // 2 * 1001 * 87.5 / 100 = 1751.75 -> 1752
      { productId: gadget.id, productName: 'Gadget', quantity: 2, unitPrice: 1001, discount: 12.5, taxRate: 20, total: 1752 },
    ])
    assert.equal(q.subtotal, 7152)
    assert.equal(q.taxAmount, 350) // round(1752 * 0.2) = 350.4 -> 350
    assert.equal(q.total, 7502)
    assert.equal(q.terms, 'Net 30')
    assert.equal(q.orderId, null)
    assert.deepEqual(expectStatus(await org.get(`/sales/quotations/${q.id}`), 200), q)
  })

  test('references are consecutive per organization', async () => {
    const o = await createOrg(t.app)
    assert.equal((await createQuotation(o)).reference, `QO/${year}/00001`)
    assert.equal((await createQuotation(o)).reference, `QO/${year}/00002`)
  })

  test('422 for missing fields, bad values, unknown references and fields the caller may not set', async () => {
    const contact = await createContact(org)
    const product = await createProduct(org)
    const line = { productId: product.id, quantity: 1 }
    const cases: Array<[unknown, string]> = [
      [{ lineItems: [line] }, 'contactId is required'],
      [{ contactId: contact.id }, 'lineItems is required'],
      [{ contactId: contact.id, lineItems: [{ quantity: 1 }] }, 'productId is required'],
      [{ contactId: contact.id, lineItems: [{ ...line, discount: -1 }] }, 'discount'],
      [{ contactId: contact.id, lineItems: [{ ...line, quantity: -2 }] }, 'quantity'],
      [{ contactId: contact.id, lineItems: [line], salespersonId: '00000000-0000-4000-8000-000000000000' }, 'salespersonId does not name an employee'],
      [{ contactId: '00000000-0000-4000-8000-000000000000', lineItems: [line] }, 'contactId does not name a contact'],
      [{ contactId: contact.id, lineItems: [{ ...line, productId: '00000000-0000-4000-8000-000000000000' }] }, 'does not name a product'],
      [{ contactId: contact.id, lineItems: [line], validUntil: 'soon' }, 'validUntil'],
      [{ contactId: contact.id, lineItems: [line], status: 'confirmed' }, 'status is not allowed'],
      [{ contactId: contact.id, lineItems: [line], reference: 'QO/1' }, 'reference is not allowed'],
      [{ contactId: contact.id, lineItems: [line], organizationId: org.id }, 'organizationId is not allowed'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post('/sales/quotations', body), 422, message)
  })

  test('401, 403, 404 of another organization', async () => {
    const q = await createQuotation(org)
    expectStatus(await call(t.app, 'GET', '/sales/quotations'), 401)
    expectStatus(await org.get('/sales/quotations', await org.as('customer')), 403)
    expectStatus(await org.post(`/sales/quotations/${q.id}/confirm`, undefined, await org.as('support')), 403)
    const other = await createOrg(t.app)
    for (const res of [
      await other.get(`/sales/quotations/${q.id}`),
      await other.patch(`/sales/quotations/${q.id}`, { terms: 'x' }),
      await other.del(`/sales/quotations/${q.id}`),
      await other.post(`/sales/quotations/${q.id}/confirm`),
      await other.post(`/sales/quotations/${q.id}/send`),
      await other.post(`/sales/quotations/${q.id}/cancel`),
      await other.get(`/sales/quotations/${q.id}/pdf`),
    ]) expectStatus(res, 404, 'Quotation not found')
    expectStatus(await org.get('/sales/quotations/00000000-0000-4000-8000-000000000000'), 404, 'Quotation not found')
  })
})

describe('transitions', () => {
  test('update while draft: lines recomputed, salesperson cleared; sent 400, confirmed 409', async () => {
    const q = await createQuotation(org)
    const product = await createProduct(org, { price: 700 })
    const updated = expectStatus(await org.patch(`/sales/quotations/${q.id}`, { lineItems: [{ productId: product.id, quantity: 2 }], salespersonId: null, terms: 'New terms' }), 200)
    assert.deepEqual([updated.subtotal, updated.total, updated.terms, updated.salesperson, updated.reference], [1400, 1400, 'New terms', null, q.reference])
    expectStatus(await org.patch(`/sales/quotations/${q.id}`, {}), 422)
    expectStatus(await org.patch(`/sales/quotations/${q.id}`, { total: 1 }), 422, 'total is not allowed')
    expectStatus(await org.post(`/sales/quotations/${q.id}/send`), 200)
    expectStatus(await org.patch(`/sales/quotations/${q.id}`, { terms: 'x' }), 400, 'Only draft quotations can be updated')
    expectStatus(await org.post(`/sales/quotations/${q.id}/confirm`), 201)
    expectStatus(await org.patch(`/sales/quotations/${q.id}`, { terms: 'x' }), 409, 'Quotation already confirmed')
  })

  test('delete: draft 204; sent 400; confirmed or cancelled 409', async () => {
    const draft = await createQuotation(org)
    assert.equal((await org.del(`/sales/quotations/${draft.id}`)).status, 204)
    expectStatus(await org.get(`/sales/quotations/${draft.id}`), 404)
    const sent = await createQuotation(org)
    expectStatus(await org.post(`/sales/quotations/${sent.id}/send`), 200)
    expectStatus(await org.del(`/sales/quotations/${sent.id}`), 400, 'Only draft quotations can be deleted')
    const cancelled = await createQuotation(org)
    expectStatus(await org.post(`/sales/quotations/${cancelled.id}/cancel`), 200)
    expectStatus(await org.del(`/sales/quotations/${cancelled.id}`), 409, 'Quotation already cancelled')
  })

  test('send: draft to sent, answering {sent, to, sentAt}; again allowed; the PDF is queued for the contact', async () => {
    const contact = await createContact(org, { email: `buyer.${Date.now()}@example.com` })
    const q = await createQuotation(org, { contactId: contact.id })
    const sent = expectStatus(await org.post(`/sales/quotations/${q.id}/send`, { subject: 'Our offer', message: 'Attached' }), 200)
    assert.deepEqual([sent.sent, sent.to], [true, contact.email])
    const after = (await org.get(`/sales/quotations/${q.id}`)).body
    assert.deepEqual([after.status, after.sentAt], ['sent', sent.sentAt])
    expectStatus(await org.post(`/sales/quotations/${q.id}/send`), 200)
    assert.equal(await statusOf(q.id), 'sent')
    const outbox = expectStatus(await org.get(`/admin/outbox?to=${encodeURIComponent(contact.email)}`), 200)
    assert.equal(outbox.meta.total, 2)
    const mail = outbox.data.find((m: any) => m.subject === 'Our offer')
    assert.ok(mail, JSON.stringify(outbox.data))
    assert.deepEqual(mail.attachments.map((a: any) => [a.filename, a.contentType]), [[`${q.reference.replaceAll('/', '-')}.pdf`, 'application/pdf']])
    assert.ok(mail.attachments[0].size > 1000)
  })

  test('send without a contact e-mail is 422; on confirmed or cancelled 409', async () => {
    const noEmail = await createQuotation(org, { contactId: (await createContact(org, { email: null })).id })
    expectStatus(await org.post(`/sales/quotations/${noEmail.id}/send`), 422, 'no e-mail address')
    assert.equal(await statusOf(noEmail.id), 'draft')
    const withTo = expectStatus(await org.post(`/sales/quotations/${noEmail.id}/send`, { to: 'someone@example.com' }), 200)
    assert.equal(withTo.to, 'someone@example.com')
    expectStatus(await org.post(`/sales/quotations/${noEmail.id}/cancel`), 200)
    expectStatus(await org.post(`/sales/quotations/${noEmail.id}/send`), 409, 'Quotation already cancelled')
  })

  test('confirm: draft or sent to confirmed with an order; again 409; cancelled 409', async () => {
    const draft = await createQuotation(org)
    const order = expectStatus(await org.post(`/sales/quotations/${draft.id}/confirm`), 201)
    assert.equal(order.quotationId, draft.id)
    const confirmed = (await org.get(`/sales/quotations/${draft.id}`)).body
    assert.deepEqual([confirmed.status, confirmed.orderId], ['confirmed', order.id])
    assert.ok(confirmed.confirmedAt)
    expectStatus(await org.post(`/sales/quotations/${draft.id}/confirm`), 409, 'Quotation already confirmed')
    expectStatus(await org.post(`/sales/quotations/${draft.id}/cancel`), 409, 'Quotation already confirmed')

    const sent = await createQuotation(org)
    expectStatus(await org.post(`/sales/quotations/${sent.id}/send`), 200)
    expectStatus(await org.post(`/sales/quotations/${sent.id}/confirm`), 201)

    const cancelled = await createQuotation(org)
    const c = expectStatus(await org.post(`/sales/quotations/${cancelled.id}/cancel`), 200)
    assert.deepEqual([c.status, typeof c.cancelledAt], ['cancelled', 'string'])
    expectStatus(await org.post(`/sales/quotations/${cancelled.id}/confirm`), 409, 'Quotation already cancelled')
    expectStatus(await org.post(`/sales/quotations/${cancelled.id}/cancel`), 409, 'Quotation already cancelled')
  })

  test('confirming one quotation twice in parallel: one order, one 201, one 409', async () => {
    const q = await createQuotation(org)
    const results = await Promise.all([org.post(`/sales/quotations/${q.id}/confirm`), org.post(`/sales/quotations/${q.id}/confirm`)])
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409])
    expectStatus(results.find((r) => r.status === 409)!, 409, 'Quotation already confirmed')
    const orders = (await org.get('/orders?limit=100')).body.data.filter((o: any) => o.quotationId === q.id)
    assert.equal(orders.length, 1)
    assert.equal((await org.get(`/sales/quotations/${q.id}`)).body.orderId, orders[0].id)
  })

  test('GET /sales/quotations/:id/pdf reads back with reference, contact, lines and total', async () => {
    const contact = await createContact(org, { name: 'Pat Prospect' })
    const product = await createProduct(org, { name: 'Consulting day', price: 80_000 })
    const q = expectStatus(await org.post('/sales/quotations', { contactId: contact.id, validUntil: '2026-06-30', terms: 'Valid 30 days', lineItems: [{ productId: product.id, quantity: 5, discount: 5 }] }), 201)
    const res = await org.get(`/sales/quotations/${q.id}/pdf`)
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-type'], 'application/pdf')
    const text = await pdfText(res.raw.rawPayload)
    for (const expected of ['Quote Makers Inc', `Quotation ${q.reference}`, 'Pat Prospect', 'Consulting day', '2026-06-30', '$3,800.00', 'Valid 30 days']) {
      assert.ok(text.includes(expected), `PDF text lacks "${expected}": ${text}`)
    }
  })

  test('the quotation PDF prints every script, seller profile and logo, the customer address, tax per rate, page numbers and its state', async () => {
    const o = await createOrg(t.app, 'Αθήνα Exports')
    expectStatus(await o.patch('/organization', {
      legalName: 'Αθήνα Exports Α.Ε.',
      address: { lines: ['Ερμού 10'], city: 'Αθήνα', postalCode: '105 63', country: 'GR' },
      taxId: 'EL123456789',
      logo: sampleLogo().toString('base64'),
    }), 200)
    const contact = await createContact(o, {
      name: 'ООО Москва Импорт',
      taxId: 'RU7701234567',
      address: { lines: ['ул. Тверская 1', 'Łódź liaison office'], city: 'Москва', postalCode: '125009', country: 'RU' },
    })
    const product = await createProduct(o, { name: '東京 consulting day', price: 80_000, currency: 'usd' })
    const q = expectStatus(await o.post('/sales/quotations', {
      contactId: contact.id, currency: 'usd', terms: 'Valid 30 days. Łódź, Αθήνα, Москва, 東京.',
      lineItems: [
        { productId: product.id, quantity: 2, taxRate: 24 },
        { productId: product.id, quantity: 1, unitPrice: 10_000, taxRate: 13 },
        { productId: product.id, quantity: 1, unitPrice: 5_000 },
      ],
    }), 201)
    const pdf = async () => pdfPages((await o.get(`/sales/quotations/${q.id}/pdf`)).raw.rawPayload)
    const [page] = await pdf()
    for (const expected of [
      'Łódź', 'Αθήνα', 'Москва', '東京',
      'Αθήνα Exports Α.Ε.', 'Ερμού 10', '105 63 Αθήνα', 'Greece', 'Tax ID: EL123456789',
      'ООО Москва Импорт', 'ул. Тверская 1', '125009 Москва', 'Russia', 'Tax ID: RU7701234567',
      // 24% of 160,000 = 38,400; 13% of 10,000 = 1,300.
      'Tax 24% on $1,600.00', '$384.00', 'Tax 13% on $100.00', '$13.00', '$2,147.00',
      `Quotation ${q.reference}`, 'Page 1 of 1', 'DRAFT',
    ]) assert.ok(page.text.includes(expected), `PDF text lacks "${expected}": ${page.text}`)
    assert.equal(page.images, 1, 'the logo is drawn')

    expectStatus(await o.post(`/sales/quotations/${q.id}/send`, { to: 'buyer@example.com' }), 200)
    assert.ok(!(await pdf())[0].text.includes('DRAFT'), 'a sent quotation carries no mark')
    expectStatus(await o.post(`/sales/quotations/${q.id}/cancel`), 200)
    assert.ok((await pdf())[0].text.includes('CANCELLED'))
  })
})

describe('list', () => {
  test('filters status, contactId, salesperson, from/to, search; sortable; bad values 400', async () => {
    const o = await createOrg(t.app)
    const alice = await createContact(o, { name: 'Alice Quote' })
    const employee = (await o.post('/employees', { name: 'E' })).body.id
    const a = await createQuotation(o, { contactId: alice.id, salespersonId: employee })
    const b = await createQuotation(o)
    const c = await createQuotation(o, { contactId: alice.id })
    expectStatus(await o.post(`/sales/quotations/${b.id}/send`), 200)
    const ids = (res: any) => res.body.data.map((q: any) => q.id)
    assert.deepEqual(ids(await o.get('/sales/quotations')), [c.id, b.id, a.id])
    const { nextCursor, ...meta } = (await o.get('/sales/quotations?limit=2')).body.meta
    assert.deepEqual(meta, { total: 3, page: 1, limit: 2, totalPages: 2 })
    assert.equal(typeof nextCursor, 'string')
    assert.deepEqual(ids(await o.get('/sales/quotations?status=sent')), [b.id])
    assert.deepEqual(ids(await o.get(`/sales/quotations?contactId=${alice.id}`)), [c.id, a.id])
    assert.deepEqual(ids(await o.get(`/sales/quotations?salesperson=${employee}`)), [a.id])
    assert.deepEqual(ids(await o.get('/sales/quotations?search=alice%20quote&sortOrder=asc')), [a.id, c.id])
    assert.deepEqual(ids(await o.get(`/sales/quotations?search=${encodeURIComponent(b.reference)}`)), [b.id])
    const today = new Date().toISOString().slice(0, 10)
    assert.equal((await o.get(`/sales/quotations?from=${today}`)).body.meta.total, 3)
    assert.equal((await o.get('/sales/quotations?from=2999-01-01')).body.meta.total, 0)
    assert.deepEqual(ids(await o.get('/sales/quotations?sortBy=status&sortOrder=desc&limit=1')), [b.id])
    assert.equal((await o.get('/sales/quotations?sortBy=total')).status, 200)
    expectStatus(await o.get('/sales/quotations?sortBy=contact'), 400)
    expectStatus(await o.get('/sales/quotations?status=won'), 400)
    expectStatus(await o.get('/sales/quotations?salesperson=bob'), 400)
  })
})
