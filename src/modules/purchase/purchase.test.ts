import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { afterTimestamp, expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'
import { pdfPages, pdfText } from '../../../test/helpers/pdf.ts'
import { createPurchaseOrder, createRfq, createStorable, createVendor } from '../../../test/helpers/purchase.ts'
import { createContact, createProduct } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app, 'Buyer Works Ltd')
})
after(() => t.close())

const year = new Date().getUTCFullYear()
const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const statusOf = async (id: string) => (await org.get(`/purchase/rfqs/${id}`)).body.status

describe('create and read', () => {
  test('201 draft PO/<year>/<seq> with vendor, buyer, lines in integer cents and the total', async () => {
    const vendor = await createVendor(org, { name: 'Acme Metals', currency: 'eur' })
    const bolt = await createStorable(org, { name: 'Bolt' })
    const nut = await createStorable(org, { name: 'Nut' })
    const rfq = expectStatus(await org.post('/purchase/rfqs', {
      vendorId: vendor.id,
      expectedArrival: '2026-12-15',
      notes: 'Deliver to dock 3',
      lineItems: [{ productId: bolt.id, quantity: 3, unitPrice: 1999 }, { productId: nut.id, quantity: 2.5, unitPrice: 333 }],
    }), 201)
    assert.match(rfq.reference, new RegExp(`^PO/${year}/\\d{5}$`))
    assert.equal(rfq.status, 'draft')
    assert.deepEqual(rfq.vendor, { id: vendor.id, name: 'Acme Metals', email: vendor.email })
    const me = (await org.get('/auth/me')).body.user
    assert.deepEqual(rfq.buyer, { id: me.id, name: me.name })
    assert.equal(rfq.expectedArrival, '2026-12-15T00:00:00.000Z')
    assert.equal(rfq.currency, 'eur', "the vendor's currency by default")
    assert.deepEqual(rfq.lineItems, [
      { productId: bolt.id, productName: 'Bolt', quantity: 3, unitPrice: 1999, total: 5997, receivedQty: 0 },
      // 2.5 * 333 = 832.5 -> 833 (half away from zero)
      { productId: nut.id, productName: 'Nut', quantity: 2.5, unitPrice: 333, total: 833, receivedQty: 0 },
    ])
    assert.equal(rfq.total, 6830)
    assert.deepEqual([rfq.notes, rfq.receiptStatus, rfq.pendingReceiptId, rfq.billId, rfq.sentAt, rfq.confirmedAt, rfq.cancelledAt], ['Deliver to dock 3', null, null, null, null, null, null])
    assert.deepEqual(rfq.receipts, [])
    assert.equal(rfq.organizationId, org.id)
    assert.deepEqual(expectStatus(await org.get(`/purchase/rfqs/${rfq.id}`), 200), rfq)
    // usd without a vendor currency; the currency given wins.
    assert.equal((await createRfq(org)).currency, 'usd')
    assert.equal((await createRfq(org, { vendorId: vendor.id, currency: 'GBP' })).currency, 'gbp')
  })

  test('references are consecutive per organization; an API key acts for its user, so buyer is that user', async () => {
    const o = await createOrg(t.app)
    assert.equal((await createRfq(o)).reference, `PO/${year}/00001`)
    const member = await o.as('member')
    const vendor = await createVendor(o)
    const product = await createStorable(o)
    const rfq = expectStatus(await o.post('/purchase/rfqs', { vendorId: vendor.id, lineItems: [{ productId: product.id, quantity: 1, unitPrice: 1 }] }, member), 201)
    assert.equal(rfq.reference, `PO/${year}/00002`)
    assert.equal(rfq.buyer.name, 'Ada Admin', 'the key was made by the admin user')
  })

  test('422 for missing fields, bad values, unknown or foreign references, non-storable products, repeated products and fields the caller may not set', async () => {
    const vendor = await createVendor(org)
    const product = await createStorable(org)
    const service = await createProduct(org, { type: 'service', name: 'Consulting' })
    const consumable = await createProduct(org, { type: 'consumable' })
    const customer = await createContact(org)
    const other = await createOrg(t.app)
    const line = { productId: product.id, quantity: 1, unitPrice: 100 }
    const cases: Array<[unknown, string]> = [
      [{ lineItems: [line] }, 'vendorId is required'],
      [{ vendorId: vendor.id }, 'lineItems is required'],
      [{ vendorId: vendor.id, lineItems: [] }, 'lineItems'],
      [{ vendorId: vendor.id, lineItems: [{ quantity: 1 }] }, 'productId is required'],
      [{ vendorId: vendor.id, lineItems: [{ ...line, quantity: 0 }] }, 'quantity'],
      [{ vendorId: vendor.id, lineItems: [{ ...line, quantity: -2 }] }, 'quantity'],
      [{ vendorId: vendor.id, lineItems: [{ ...line, unitPrice: -1 }] }, 'unitPrice'],
      [{ vendorId: vendor.id, lineItems: [{ ...line, unitPrice: 1.5 }] }, 'unitPrice'],
      [{ vendorId: vendor.id, lineItems: [{ ...line, discount: 5 }] }, 'discount is not allowed'],
      [{ vendorId: vendor.id, lineItems: [line], expectedArrival: 'soon' }, 'expectedArrival'],
      [{ vendorId: vendor.id, lineItems: [line], expectedArrival: '2026-02-30' }, 'expectedArrival is not a valid date'],
      [{ vendorId: vendor.id, lineItems: [line], currency: 'euro' }, 'currency'],
      [{ vendorId: UNKNOWN, lineItems: [line] }, 'vendorId does not name a vendor of this organization'],
      [{ vendorId: customer.id, lineItems: [line] }, 'vendorId does not name a vendor of this organization'],
      [{ vendorId: (await createVendor(other)).id, lineItems: [line] }, 'vendorId does not name a vendor'],
      [{ vendorId: vendor.id, lineItems: [{ ...line, productId: UNKNOWN }] }, 'lineItems.0.productId does not name a product of this organization'],
      [{ vendorId: vendor.id, lineItems: [{ ...line, productId: (await createStorable(other)).id }] }, 'does not name a product'],
      [{ vendorId: vendor.id, lineItems: [line, { ...line, productId: service.id }] }, 'lineItems.1.productId names a service product; only storable products can be purchased'],
      [{ vendorId: vendor.id, lineItems: [{ ...line, productId: consumable.id }] }, 'names a consumable product'],
      [{ vendorId: vendor.id, lineItems: [line, { ...line, quantity: 2 }] }, 'lineItems.1.productId repeats a product'],
      [{ vendorId: vendor.id, lineItems: [line], status: 'confirmed' }, 'status is not allowed'],
      [{ vendorId: vendor.id, lineItems: [line], reference: 'PO/1' }, 'reference is not allowed'],
      [{ vendorId: vendor.id, lineItems: [line], total: 1 }, 'total is not allowed'],
      [{ vendorId: vendor.id, lineItems: [line], buyerId: UNKNOWN }, 'buyerId is not allowed'],
    ]
    const before = (await org.get('/purchase/rfqs')).body.meta.total
    for (const [body, message] of cases) {
      const res = expectStatus(await org.post('/purchase/rfqs', body), 422, message)
      assert.ok(Array.isArray(res.message), JSON.stringify(body))
    }
    // Several problems at once, one message each.
    const many = expectStatus(await org.post('/purchase/rfqs', { vendorId: vendor.id, lineItems: [{ productId: UNKNOWN, quantity: 1, unitPrice: 1 }, { productId: service.id, quantity: 1, unitPrice: 1 }] }), 422)
    assert.equal(many.message.length, 2, JSON.stringify(many.message))
    assert.equal((await org.get('/purchase/rfqs')).body.meta.total, before, 'nothing was created')
    expectStatus(await call(t.app, 'POST', '/purchase/rfqs', { token: org.token, body: '{"vendorId":', headers: { 'content-type': 'application/json' } }), 400)
  })

  test('401 without a credential, 403 for roles outside admin and member, 404 of another organization', async () => {
    const rfq = await createRfq(org)
    const po = await createPurchaseOrder(org)
    const routes = [
      ['GET', '/purchase/rfqs'], ['POST', '/purchase/rfqs'], ['GET', `/purchase/rfqs/${rfq.id}`], ['PATCH', `/purchase/rfqs/${rfq.id}`],
      ['DELETE', `/purchase/rfqs/${rfq.id}`], ['POST', `/purchase/rfqs/${rfq.id}/send`], ['POST', `/purchase/rfqs/${rfq.id}/confirm`],
      ['POST', `/purchase/rfqs/${rfq.id}/cancel`], ['GET', `/purchase/rfqs/${rfq.id}/pdf`], ['GET', '/purchase/orders'], ['GET', `/purchase/orders/${po.id}`],
      ['POST', `/purchase/orders/${po.id}/receive`], ['POST', `/purchase/orders/${po.id}/bill`], ['GET', '/purchase/bills'], ['GET', `/purchase/bills/${UNKNOWN}`],
    ] as const
    for (const [method, path] of routes) {
      const body = method === 'POST' || method === 'PATCH' ? {} : undefined
      expectStatus(await call(t.app, method, path, { body }), 401)
      for (const role of ['customer', 'support', 'agent'] as const) expectStatus(await call(t.app, method, path, { body, token: await org.as(role) }), 403)
    }
    assert.equal(await statusOf(rfq.id), 'draft')
    const member = await org.as('member')
    expectStatus(await org.get(`/purchase/rfqs/${rfq.id}`, member), 200)
    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/cancel`, undefined, member), 200)

    const other = await createOrg(t.app)
    const draft = await createRfq(org)
    for (const res of [
      await other.get(`/purchase/rfqs/${draft.id}`),
      await other.patch(`/purchase/rfqs/${draft.id}`, { notes: 'x' }),
      await other.del(`/purchase/rfqs/${draft.id}`),
      await other.post(`/purchase/rfqs/${draft.id}/send`),
      await other.post(`/purchase/rfqs/${draft.id}/confirm`),
      await other.post(`/purchase/rfqs/${draft.id}/cancel`),
      await other.get(`/purchase/rfqs/${draft.id}/pdf`),
    ]) expectStatus(res, 404, 'RFQ not found')
    for (const res of [
      await other.get(`/purchase/orders/${po.id}`),
      await other.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: po.lineItems[0].productId, receivedQty: 1 }] }),
      await other.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: 'X' }),
    ]) expectStatus(res, 404, 'Purchase order not found')
    expectStatus(await org.get(`/purchase/rfqs/${UNKNOWN}`), 404, 'RFQ not found')
    expectStatus(await org.get('/purchase/rfqs/not-a-uuid'), 400)
    assert.equal(await statusOf(draft.id), 'draft')
  })
})

describe('transitions', () => {
  test('PATCH while draft: fields of create, lines re-priced, reference kept; sent, confirmed or cancelled: 400', async () => {
    const rfq = await createRfq(org)
    const vendor = await createVendor(org, { name: 'Second Vendor' })
    const p = await createStorable(org, { name: 'Washer' })
    expectStatus(await org.post(`/purchase/vendors/${vendor.id}/pricelists`, { productId: p.id, price: 40 }), 201)
    const updated = expectStatus(await org.patch(`/purchase/rfqs/${rfq.id}`, {
      vendorId: vendor.id, lineItems: [{ productId: p.id, quantity: 4 }], notes: 'Rush', expectedArrival: '2027-01-02T10:00:00Z',
    }), 200)
    assert.deepEqual(
      [updated.reference, updated.vendor.name, updated.lineItems, updated.total, updated.notes, updated.expectedArrival],
      [rfq.reference, 'Second Vendor', [{ productId: p.id, productName: 'Washer', quantity: 4, unitPrice: 40, total: 160, receivedQty: 0 }], 160, 'Rush', '2027-01-02T10:00:00.000Z'],
    )
    // Fields left out are kept; null clears the optional ones.
    const cleared = expectStatus(await org.patch(`/purchase/rfqs/${rfq.id}`, { notes: null, expectedArrival: null }), 200)
    assert.deepEqual([cleared.notes, cleared.expectedArrival, cleared.total, cleared.lineItems], [null, null, 160, updated.lineItems])
    assert.deepEqual(expectStatus(await org.get(`/purchase/rfqs/${rfq.id}`), 200), cleared)
    expectStatus(await org.patch(`/purchase/rfqs/${rfq.id}`, {}), 422)
    expectStatus(await org.patch(`/purchase/rfqs/${rfq.id}`, { status: 'sent' }), 422, 'status is not allowed')
    expectStatus(await org.patch(`/purchase/rfqs/${rfq.id}`, { currency: 'eur' }), 422, 'lineItems is required to change the currency')
    expectStatus(await org.patch(`/purchase/rfqs/${rfq.id}`, { vendorId: UNKNOWN }), 422, 'vendorId does not name a vendor')
    assert.deepEqual(expectStatus(await org.get(`/purchase/rfqs/${rfq.id}`), 200), cleared, 'refused patches change nothing')

    const sent = await createRfq(org, { vendorId: vendor.id })
    expectStatus(await org.post(`/purchase/rfqs/${sent.id}/send`), 200)
    expectStatus(await org.patch(`/purchase/rfqs/${sent.id}`, { notes: 'x' }), 400, 'Only draft RFQs can be updated; this one is sent')
    const confirmed = await createPurchaseOrder(org)
    expectStatus(await org.patch(`/purchase/rfqs/${confirmed.id}`, { notes: 'x' }), 400, 'this one is confirmed')
    const cancelled = await createRfq(org)
    expectStatus(await org.post(`/purchase/rfqs/${cancelled.id}/cancel`), 200)
    expectStatus(await org.patch(`/purchase/rfqs/${cancelled.id}`, { notes: 'x' }), 400, 'this one is cancelled')
  })

  test('DELETE: draft 204 and gone; sent, confirmed or cancelled 400', async () => {
    const draft = await createRfq(org)
    const del = await org.del(`/purchase/rfqs/${draft.id}`)
    expectStatus(del, 204)
    assert.equal(del.raw.body, '')
    expectStatus(await org.get(`/purchase/rfqs/${draft.id}`), 404, 'RFQ not found')
    expectStatus(await org.del(`/purchase/rfqs/${draft.id}`), 404)
    const sent = await createRfq(org)
    expectStatus(await org.post(`/purchase/rfqs/${sent.id}/send`), 200)
    expectStatus(await org.del(`/purchase/rfqs/${sent.id}`), 400, 'Only draft RFQs can be deleted; this one is sent')
    const confirmed = await createPurchaseOrder(org)
    expectStatus(await org.del(`/purchase/rfqs/${confirmed.id}`), 400, 'this one is confirmed')
    const cancelled = await createRfq(org)
    expectStatus(await org.post(`/purchase/rfqs/${cancelled.id}/cancel`), 200)
    expectStatus(await org.del(`/purchase/rfqs/${cancelled.id}`), 400, 'this one is cancelled')
    for (const id of [sent.id, confirmed.id, cancelled.id]) expectStatus(await org.get(`/purchase/rfqs/${id}`), 200)
  })

  test('send: draft to sent, answering the RFQ; the PDF is queued for the vendor; again allowed; confirmed or cancelled 409', async () => {
    const vendor = await createVendor(org, { email: `${unique('vendor')}@example.com` })
    const rfq = await createRfq(org, { vendorId: vendor.id })
    const sent = expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/send`, { subject: 'Our request', message: 'Please quote' }), 200)
    assert.equal(sent.status, 'sent')
    assert.ok(sent.sentAt)
    assert.deepEqual(expectStatus(await org.get(`/purchase/rfqs/${rfq.id}`), 200), sent)
    await afterTimestamp(sent.sentAt)
    // No body at all is an empty one.
    const again = expectStatus(await call(t.app, 'POST', `/purchase/rfqs/${rfq.id}/send`, { token: org.token }), 200)
    assert.equal(again.status, 'sent')
    assert.ok(again.sentAt > sent.sentAt, 'sentAt is the last sending')
    const outbox = expectStatus(await org.get(`/admin/outbox?to=${encodeURIComponent(vendor.email)}`), 200)
    assert.equal(outbox.meta.total, 2)
    const mail = outbox.data.find((m: any) => m.subject === 'Our request')
    assert.ok(mail, JSON.stringify(outbox.data))
    assert.ok(outbox.data.some((m: any) => m.subject === `Request for Quotation ${rfq.reference} from Buyer Works Ltd`), 'default subject')
    assert.deepEqual(mail.attachments.map((a: any) => [a.filename, a.contentType]), [[`${rfq.reference.replaceAll('/', '-')}.pdf`, 'application/pdf']])
    assert.ok(mail.attachments[0].size > 1000)

    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/confirm`), 200)
    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/send`), 409, 'Purchase order already confirmed')
    const cancelled = await createRfq(org)
    expectStatus(await org.post(`/purchase/rfqs/${cancelled.id}/cancel`), 200)
    expectStatus(await org.post(`/purchase/rfqs/${cancelled.id}/send`), 409, 'RFQ already cancelled')
    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/send`, { to: 'not-an-email' }), 422)
    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/send`, { cc: 'x@example.com' }), 422, 'cc is not allowed')
    assert.equal(expectStatus(await org.get(`/admin/outbox?to=${encodeURIComponent(vendor.email)}`), 200).meta.total, 2, 'no mail for refused sends')
  })

  test('send to a vendor without e-mail: 422 and still draft; `to` sends it', async () => {
    const rfq = await createRfq(org, { vendorId: (await createVendor(org, { email: null })).id })
    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/send`), 422, 'no e-mail address')
    assert.equal(await statusOf(rfq.id), 'draft')
    const to = `${unique('quotes')}@example.com`
    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/send`, { to }), 200)
    assert.equal(expectStatus(await org.get(`/admin/outbox?to=${encodeURIComponent(to)}`), 200).meta.total, 1)
  })

  test('the RFQ PDF reads back with issuer, vendor, reference, lines, total, expected arrival and notes; its title and mark follow the status', async () => {
    const vendor = await createVendor(org, { name: 'Łódź Steel Sp. z o.o.', address: { lines: ['ul. Piotrkowska 1'], city: 'Łódź', postalCode: '90-001', country: 'PL' } })
    const p = await createStorable(org, { name: 'Steel sheet 2mm' })
    const rfq = expectStatus(await org.post('/purchase/rfqs', {
      vendorId: vendor.id, expectedArrival: '2026-12-20', notes: 'Pallets only', lineItems: [{ productId: p.id, quantity: 12, unitPrice: 4_550 }],
    }), 201)
    const pdf = async () => {
      const res = await org.get(`/purchase/rfqs/${rfq.id}/pdf`)
      assert.equal(res.status, 200)
      assert.equal(res.headers['content-type'], 'application/pdf')
      return pdfText(res.raw.rawPayload)
    }
    const text = await pdf()
    for (const expected of ['Buyer Works Ltd', `Request for Quotation ${rfq.reference}`, 'Łódź Steel Sp. z o.o.', 'ul. Piotrkowska 1', '90-001 Łódź', 'Poland',
      'Steel sheet 2mm', '$45.50', '$546.00', '2026-12-20', 'Pallets only', 'DRAFT']) {
      assert.ok(text.includes(expected), `PDF text lacks "${expected}": ${text}`)
    }
    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/send`, { to: 'buyer@example.com' }), 200)
    assert.ok(!(await pdf()).includes('DRAFT'), 'a sent RFQ carries no mark')
    expectStatus(await org.post(`/purchase/rfqs/${rfq.id}/confirm`), 200)
    const [page] = await pdfPages((await org.get(`/purchase/rfqs/${rfq.id}/pdf`)).raw.rawPayload)
    assert.ok(page.text.includes(`Purchase Order ${rfq.reference}`), page.text)
    const cancelled = await createRfq(org)
    expectStatus(await org.post(`/purchase/rfqs/${cancelled.id}/cancel`), 200)
    assert.ok((await pdfText((await org.get(`/purchase/rfqs/${cancelled.id}/pdf`)).raw.rawPayload)).includes('CANCELLED'))
  })

  test('confirm: draft or sent to confirmed with its ready receipt and the purchase_order.confirmed event; again or cancelled 409', async () => {
    const draft = await createRfq(org)
    const po = expectStatus(await org.post(`/purchase/rfqs/${draft.id}/confirm`), 200)
    assert.deepEqual([po.id, po.reference, po.status, po.receiptStatus, po.billId], [draft.id, draft.reference, 'confirmed', 'pending', null])
    assert.ok(po.confirmedAt)
    assert.ok(po.pendingReceiptId)
    assert.deepEqual(expectStatus(await org.get(`/purchase/orders/${po.id}`), 200), po)
    expectStatus(await org.post(`/purchase/rfqs/${draft.id}/confirm`), 409, 'Purchase order already confirmed')
    expectStatus(await org.post(`/purchase/rfqs/${draft.id}/cancel`), 409, 'Purchase order already confirmed')

    const sent = await createRfq(org)
    expectStatus(await org.post(`/purchase/rfqs/${sent.id}/send`, { to: 'x@example.com' }), 200)
    assert.equal(expectStatus(await org.post(`/purchase/rfqs/${sent.id}/confirm`), 200).status, 'confirmed')

    const sentThenCancelled = await createRfq(org)
    expectStatus(await org.post(`/purchase/rfqs/${sentThenCancelled.id}/send`, { to: 'x@example.com' }), 200)
    assert.equal(expectStatus(await org.post(`/purchase/rfqs/${sentThenCancelled.id}/cancel`), 200).status, 'cancelled', 'sent can be cancelled')

    const cancelled = await createRfq(org)
    const c = expectStatus(await org.post(`/purchase/rfqs/${cancelled.id}/cancel`), 200)
    assert.deepEqual([c.status, typeof c.cancelledAt], ['cancelled', 'string'])
    expectStatus(await org.post(`/purchase/rfqs/${cancelled.id}/confirm`), 409, 'RFQ already cancelled')
    expectStatus(await org.post(`/purchase/rfqs/${cancelled.id}/cancel`), 409, 'RFQ already cancelled')

    const events = t.app.ctx.db
    const { rows } = await events.query<{ type: string; data: any }>(`SELECT type, data FROM domain_events WHERE resource_id = $1 ORDER BY seq`, [po.id])
    assert.deepEqual(rows.map((r) => r.type), ['purchase_order.confirmed'])
    assert.deepEqual(rows[0].data.object, po)
  })

  test('a draft and an unconfirmed RFQ are no purchase orders: GET /purchase/orders/:id 404', async () => {
    const rfq = await createRfq(org)
    expectStatus(await org.get(`/purchase/orders/${rfq.id}`), 404, 'Purchase order not found')
    expectStatus(await org.get(`/purchase/orders/${UNKNOWN}`), 404, 'Purchase order not found')
  })

  test('confirming one RFQ twice in parallel: one 200, one 409, one receipt transfer', async () => {
    const rfq = await createRfq(org)
    const results = await Promise.all([org.post(`/purchase/rfqs/${rfq.id}/confirm`), org.post(`/purchase/rfqs/${rfq.id}/confirm`)])
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409])
    expectStatus(results.find((r) => r.status === 409)!, 409, 'Purchase order already confirmed')
    const transfers = (await org.get(`/inventory/transfers?type=receipt&limit=100`)).body.data.filter((x: any) => x.origin === rfq.reference)
    assert.equal(transfers.length, 1)
    assert.equal(transfers[0].id, (await org.get(`/purchase/orders/${rfq.id}`)).body.pendingReceiptId)
  })
})

describe('lists', () => {
  test('GET /purchase/rfqs: envelope, filters status, vendorId, from/to, search; every sort; bad values 400', async () => {
    const o = await createOrg(t.app)
    const alice = await createVendor(o, { name: 'Alice Supplies' })
    const a = await createRfq(o, { vendorId: alice.id, expectedArrival: '2026-12-01', lineItems: [{ productId: (await createStorable(o)).id, quantity: 1, unitPrice: 300 }] })
    await afterTimestamp(a.createdAt)
    const b = await createRfq(o, { expectedArrival: '2026-11-01', lineItems: [{ productId: (await createStorable(o)).id, quantity: 1, unitPrice: 100 }] })
    await afterTimestamp(b.createdAt)
    const c = await createRfq(o, { vendorId: alice.id, expectedArrival: '2027-01-01', lineItems: [{ productId: (await createStorable(o)).id, quantity: 1, unitPrice: 200 }] })
    await afterTimestamp(c.createdAt)
    expectStatus(await o.post(`/purchase/rfqs/${b.id}/send`, { to: 'q@example.com' }), 200)
    expectStatus(await o.post(`/purchase/rfqs/${c.id}/confirm`), 200)
    const ids = (res: any) => res.body.data.map((x: any) => x.id)
    assert.deepEqual(ids(await o.get('/purchase/rfqs')), [c.id, b.id, a.id])
    expectPage(await o.get('/purchase/rfqs?limit=2&page=2'), { total: 3, page: 2, limit: 2 })
    assert.deepEqual(ids(await o.get('/purchase/rfqs?status=sent')), [b.id])
    assert.deepEqual(ids(await o.get('/purchase/rfqs?status=confirmed')), [c.id])
    assert.equal((await o.get('/purchase/rfqs?status=draft')).body.meta.total, 1)
    assert.equal((await o.get('/purchase/rfqs?status=cancelled')).body.meta.total, 0)
    assert.deepEqual(ids(await o.get(`/purchase/rfqs?vendorId=${alice.id}`)), [c.id, a.id])
    assert.deepEqual(ids(await o.get(`/purchase/rfqs?vendorId=${alice.id}&status=draft`)), [a.id])
    assert.deepEqual(ids(await o.get('/purchase/rfqs?search=alice%20supp&sortOrder=asc')), [a.id, c.id])
    assert.deepEqual(ids(await o.get(`/purchase/rfqs?search=${encodeURIComponent(b.reference)}`)), [b.id])
    const today = new Date().toISOString().slice(0, 10)
    assert.equal((await o.get(`/purchase/rfqs?from=${today}&to=${today}`)).body.meta.total, 3)
    assert.equal((await o.get('/purchase/rfqs?from=2999-01-01')).body.meta.total, 0)
    assert.equal((await o.get('/purchase/rfqs?to=2000-01-01')).body.meta.total, 0)
    assert.deepEqual(ids(await o.get(`/purchase/rfqs?from=${encodeURIComponent(b.createdAt)}&sortOrder=asc`)), [b.id, c.id])
    expectStatus(await o.get('/purchase/rfqs?from=2026-02-01&to=2026-01-01'), 422, 'from must not be after to')
    for (const field of ['createdAt', 'updatedAt', 'reference', 'total', 'expectedArrival', 'status']) await expectSortable((p) => o.get(p), '/purchase/rfqs', field)
    assert.deepEqual((await o.get('/purchase/rfqs?sortBy=total&sortOrder=asc')).body.data.map((x: any) => x.total), [100, 200, 300])
    await expectListQueryRules((p) => o.get(p), '/purchase/rfqs', 'notes')
    expectStatus(await o.get('/purchase/rfqs?status=won'), 400)
    expectStatus(await o.get('/purchase/rfqs?vendorId=bob'), 400)
    expectStatus(await o.get('/purchase/rfqs?from=yesterday'), 400)
  })

  test('GET /purchase/orders: confirmed ones only, with receiptStatus, receivedQty and billId; filters vendorId, from/to, receiptStatus; sorts', async () => {
    const o = await createOrg(t.app)
    const v = await createVendor(o)
    await createRfq(o, { vendorId: v.id })
    const first = await createPurchaseOrder(o, { vendorId: v.id, lineItems: [{ productId: (await createStorable(o)).id, quantity: 4, unitPrice: 500 }] })
    await afterTimestamp(first.confirmedAt)
    const second = await createPurchaseOrder(o, { expectedArrival: '2026-12-24', lineItems: [{ productId: (await createStorable(o)).id, quantity: 1, unitPrice: 100 }] })
    await afterTimestamp(second.confirmedAt)
    const third = await createPurchaseOrder(o, { vendorId: v.id, expectedArrival: '2027-03-01', lineItems: [{ productId: (await createStorable(o)).id, quantity: 2, unitPrice: 700 }] })
    expectStatus(await o.post(`/purchase/orders/${first.id}/receive`, { lines: [{ productId: first.lineItems[0].productId, receivedQty: 1 }] }), 201)
    expectStatus(await o.post(`/purchase/orders/${second.id}/receive`, { lines: [{ productId: second.lineItems[0].productId, receivedQty: 1 }] }), 201)
    const bill = expectStatus(await o.post(`/purchase/orders/${third.id}/bill`, { vendorInvoiceNumber: 'V-1' }), 201)
    const ids = (res: any) => res.body.data.map((x: any) => x.id)
    const all = expectPage(await o.get('/purchase/orders'), { total: 3, page: 1, limit: 20 })
    assert.deepEqual(all.map((x) => x.id), [third.id, second.id, first.id], 'newest confirmation first')
    const byId = new Map(all.map((x) => [x.id, x]))
    assert.deepEqual([byId.get(first.id).receiptStatus, byId.get(first.id).lineItems[0].receivedQty], ['partial', 1])
    assert.deepEqual([byId.get(second.id).receiptStatus, byId.get(second.id).pendingReceiptId], ['received', null])
    assert.deepEqual([byId.get(third.id).receiptStatus, byId.get(third.id).billId], ['pending', bill.id])
    assert.equal(byId.get(first.id).billId, null)
    assert.deepEqual(ids(await o.get(`/purchase/orders?vendorId=${v.id}`)), [third.id, first.id])
    assert.deepEqual(ids(await o.get('/purchase/orders?receiptStatus=partial')), [first.id])
    assert.deepEqual(ids(await o.get('/purchase/orders?receiptStatus=received')), [second.id])
    assert.deepEqual(ids(await o.get('/purchase/orders?receiptStatus=pending')), [third.id])
    assert.equal((await o.get(`/purchase/orders?receiptStatus=pending&vendorId=${v.id}`)).body.meta.total, 1)
    assert.deepEqual(ids(await o.get(`/purchase/orders?from=${encodeURIComponent(second.confirmedAt)}&sortOrder=asc`)), [second.id, third.id])
    assert.equal((await o.get('/purchase/orders?to=2000-01-01')).body.meta.total, 0)
    assert.deepEqual(ids(await o.get(`/purchase/orders?search=${encodeURIComponent(first.reference)}`)), [first.id])
    for (const field of ['confirmedAt', 'createdAt', 'reference', 'total']) await expectSortable((p) => o.get(p), '/purchase/orders', field)
    await expectSortable((p) => o.get(p), '/purchase/orders', 'expectedArrival', (x) => x.expectedArrival !== null)
    await expectListQueryRules((p) => o.get(p), '/purchase/orders', 'status')
    expectStatus(await o.get('/purchase/orders?receiptStatus=done'), 400)
    assert.deepEqual(idsOf(await (await createOrg(t.app)).get('/purchase/orders')), [])
  })
})
