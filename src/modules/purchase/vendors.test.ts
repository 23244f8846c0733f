import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { expectListQueryRules, expectPage, expectSortable, idsOf, afterTimestamp } from '../../../test/helpers/lists.ts'
import { createStorable, createVendor } from '../../../test/helpers/purchase.ts'
import { createContact, createProduct } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const UNKNOWN = '00000000-0000-4000-8000-000000000000'

describe('vendors', () => {
  test('POST /purchase/vendors: 201, a contact with vendor = true and its terms; also a contact', async () => {
    const body = { name: 'Acme Supplies', email: `${unique('acme')}@example.com`, phone: '+1 555 0101', paymentTerms: 'net 30', currency: 'eur', leadTimeDays: 7, minOrderQty: 5 }
    const v = expectStatus(await org.post('/purchase/vendors', body), 201)
    assert.deepEqual(
      { name: v.name, email: v.email, phone: v.phone, paymentTerms: v.paymentTerms, currency: v.currency, leadTimeDays: v.leadTimeDays, minOrderQty: v.minOrderQty, vendor: v.vendor, type: v.type },
      { ...body, vendor: true, type: 'company' },
    )
    assert.equal(v.organizationId, org.id)
    const contact = expectStatus(await org.get(`/contacts/${v.id}`), 200)
    assert.equal(contact.vendor, true)
    assert.deepEqual(expectStatus(await org.get(`/purchase/vendors/${v.id}`), 200), v)
    // Only a name: the terms are null.
    const minimal = expectStatus(await org.post('/purchase/vendors', { name: 'Minimal vendor' }), 201)
    assert.deepEqual([minimal.email, minimal.paymentTerms, minimal.currency, minimal.leadTimeDays, minimal.minOrderQty], [null, null, null, null, null])
  })

  test('422 for a bad body, 409 for a taken e-mail (any contact)', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'name is required'],
      [{ name: '' }, 'name'],
      [{ name: 'X', vendor: false }, 'vendor is not allowed'],
      [{ name: 'X', currency: 'EUR' }, 'currency'],
      [{ name: 'X', leadTimeDays: -1 }, 'leadTimeDays'],
      [{ name: 'X', email: 'nope' }, 'email'],
      [{ name: 'X', organizationId: org.id }, 'organizationId is not allowed'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post('/purchase/vendors', body), 422, message)
    const customer = await createContact(org)
    expectStatus(await org.post('/purchase/vendors', { name: 'Dup', email: customer.email.toUpperCase() }), 409, 'A contact with this email already exists')
  })

  test('GET /purchase/vendors lists vendors only: envelope, search, sorts, paging rules', async () => {
    const o = await createOrg(t.app)
    await createContact(o, { name: 'Not a vendor Zed' })
    const a = await createVendor(o, { name: 'Alpha Metals', email: 'sales@alpha-metals.example' })
    await afterTimestamp(new Date().toISOString())
    const b = await createVendor(o, { name: 'Bravo Plastics', email: 'orders@bravo.example' })
    await afterTimestamp(new Date().toISOString())
    const c = await createVendor(o, { name: 'Charlie Wood', email: null })
    await afterTimestamp(new Date().toISOString())
    // A contact made a vendor through /contacts is a vendor too.
    const promoted = await createContact(o, { name: 'Delta Glass' })
    expectStatus(await o.patch(`/contacts/${promoted.id}`, { vendor: true }), 200)
    const all = expectPage(await o.get('/purchase/vendors'), { total: 4, page: 1, limit: 20 })
    assert.deepEqual(all.map((v) => v.id), [promoted.id, c.id, b.id, a.id])
    assert.ok(all.every((v) => v.vendor === true && 'paymentTerms' in v))
    expectPage(await o.get('/purchase/vendors?limit=3&page=2'), { total: 4, page: 2, limit: 3 })
    assert.deepEqual(idsOf(await o.get('/purchase/vendors?search=METALS')), [a.id])
    assert.deepEqual(idsOf(await o.get('/purchase/vendors?search=bravo.example')), [b.id])
    assert.deepEqual(idsOf(await o.get('/purchase/vendors?search=zed')), [])
    for (const field of ['name', 'createdAt', 'updatedAt']) await expectSortable((p) => o.get(p), '/purchase/vendors', field)
    await expectSortable((p) => o.get(p), '/purchase/vendors', 'email', (v) => v.email !== null)
    const names = (await o.get('/purchase/vendors?sortBy=name&sortOrder=asc')).body.data.map((v: any) => v.name)
    assert.deepEqual(names, ['Alpha Metals', 'Bravo Plastics', 'Charlie Wood', 'Delta Glass'])
    await expectListQueryRules((p) => o.get(p), '/purchase/vendors', 'phone')
    expectStatus(await o.get('/purchase/vendors?vendor=false'), 400, 'vendor')
  })

  test('GET /purchase/vendors/:id: 404 for a contact that is not a vendor, an unknown id or another organization', async () => {
    const customer = await createContact(org)
    expectStatus(await org.get(`/purchase/vendors/${customer.id}`), 404, 'Vendor not found')
    expectStatus(await org.get(`/purchase/vendors/${UNKNOWN}`), 404, 'Vendor not found')
    expectStatus(await org.get('/purchase/vendors/nope'), 400)
    const v = await createVendor(org)
    const other = await createOrg(t.app)
    expectStatus(await other.get(`/purchase/vendors/${v.id}`), 404, 'Vendor not found')
  })
})

describe('pricelists', () => {
  test("201 {id, productId, productName, price, currency, minQty, leadTimeDays}; defaults from the vendor; listed per vendor", async () => {
    const v = await createVendor(org, { currency: 'eur', leadTimeDays: 12 })
    const p = await createStorable(org, { name: 'Steel bolt' })
    const row = expectStatus(await org.post(`/purchase/vendors/${v.id}/pricelists`, { productId: p.id, price: 125 }), 201)
    assert.deepEqual({ ...row, id: undefined, createdAt: undefined }, {
      id: undefined, createdAt: undefined, vendorId: v.id, productId: p.id, productName: 'Steel bolt', price: 125, currency: 'eur', minQty: 0, leadTimeDays: 12,
    })
    const tier = expectStatus(await org.post(`/purchase/vendors/${v.id}/pricelists`, { productId: p.id, price: 110, minQty: 100, currency: 'EUR', leadTimeDays: null }), 201)
    assert.deepEqual([tier.currency, tier.minQty, tier.leadTimeDays], ['eur', 100, null])
    const list = expectPage(await org.get(`/purchase/vendors/${v.id}/pricelists`), { total: 2, page: 1, limit: 20 })
    assert.deepEqual(list.map((r) => r.id), [tier.id, row.id])
    // Another vendor's rows are not listed; usd is the default without a vendor currency.
    const w = await createVendor(org)
    const usd = expectStatus(await org.post(`/purchase/vendors/${w.id}/pricelists`, { productId: p.id, price: 99 }), 201)
    assert.equal(usd.currency, 'usd')
    assert.deepEqual(idsOf(await org.get(`/purchase/vendors/${w.id}/pricelists`)), [usd.id])
    // Renaming the product shows its new name.
    expectStatus(await org.patch(`/products/${p.id}`, { name: 'Steel bolt M8' }), 200)
    assert.equal((await org.get(`/purchase/vendors/${w.id}/pricelists`)).body.data[0].productName, 'Steel bolt M8')
  })

  test('filter productId, sorts price, minQty, createdAt; list rules', async () => {
    const v = await createVendor(org)
    const [p, q] = [await createStorable(org), await createStorable(org)]
    const rows = []
    for (const [product, price, minQty] of [[p, 300, 0], [p, 200, 10], [q, 250, 5]] as const) {
      if (rows.length) await afterTimestamp(rows.at(-1).createdAt)
      rows.push(expectStatus(await org.post(`/purchase/vendors/${v.id}/pricelists`, { productId: product.id, price, minQty }), 201))
    }
    const path = `/purchase/vendors/${v.id}/pricelists`
    assert.deepEqual(idsOf(await org.get(`${path}?productId=${p.id}`)), [rows[0].id, rows[1].id].sort())
    for (const field of ['price', 'minQty', 'createdAt']) await expectSortable((x) => org.get(x), path, field)
    assert.deepEqual((await org.get(`${path}?sortBy=price&sortOrder=asc`)).body.data.map((r: any) => r.price), [200, 250, 300])
    await expectListQueryRules((x) => org.get(x), path, 'currency')
    expectStatus(await org.get(`${path}?productId=nope`), 400)
  })

  test('404 unless a vendor of the organization; 422 for a bad body or unknown product; 409 for the same tier twice', async () => {
    const customer = await createContact(org)
    const p = await createStorable(org)
    expectStatus(await org.post(`/purchase/vendors/${customer.id}/pricelists`, { productId: p.id, price: 1 }), 404, 'Vendor not found')
    expectStatus(await org.get(`/purchase/vendors/${customer.id}/pricelists`), 404, 'Vendor not found')
    expectStatus(await org.get(`/purchase/vendors/${UNKNOWN}/pricelists`), 404, 'Vendor not found')
    const v = await createVendor(org)
    const other = await createOrg(t.app)
    expectStatus(await other.get(`/purchase/vendors/${v.id}/pricelists`), 404)
    expectStatus(await other.post(`/purchase/vendors/${v.id}/pricelists`, { productId: p.id, price: 1 }), 404)
    const cases: Array<[unknown, string]> = [
      [{ price: 1 }, 'productId is required'],
      [{ productId: p.id }, 'price is required'],
      [{ productId: p.id, price: -1 }, 'price'],
      [{ productId: p.id, price: 1.5 }, 'price'],
      [{ productId: p.id, price: 1, minQty: -1 }, 'minQty'],
      [{ productId: p.id, price: 1, currency: 'euro' }, 'currency'],
      [{ productId: p.id, price: 1, vendorId: v.id }, 'vendorId is not allowed'],
      [{ productId: UNKNOWN, price: 1 }, 'productId does not name a product of this organization'],
      [{ productId: (await createProduct(other)).id, price: 1 }, 'productId does not name a product'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post(`/purchase/vendors/${v.id}/pricelists`, body), 422, message)
    expectStatus(await org.post(`/purchase/vendors/${v.id}/pricelists`, { productId: p.id, price: 10, minQty: 5 }), 201)
    expectStatus(await org.post(`/purchase/vendors/${v.id}/pricelists`, { productId: p.id, price: 12, minQty: 5 }), 409, 'already has a price')
    // Another currency or quantity break is another row.
    expectStatus(await org.post(`/purchase/vendors/${v.id}/pricelists`, { productId: p.id, price: 12, minQty: 5, currency: 'eur' }), 201)
    expectPage(await org.get(`/purchase/vendors/${v.id}/pricelists`), { total: 2, page: 1, limit: 20 })
  })

  test('an RFQ line without unitPrice takes the row with the highest minQty not above its quantity, in the RFQ currency', async () => {
    // Hand-made fixture: tiers 0 -> 500, 10 -> 450, 50 -> 400, 100.5 -> 350 (usd); 0 -> 9 (eur); another vendor 0 -> 1.
    const v = await createVendor(org)
    const cheap = await createVendor(org)
    const p = await createStorable(org)
    for (const [price, minQty, currency] of [[500, 0, 'usd'], [450, 10, 'usd'], [400, 50, 'usd'], [350, 100.5, 'usd'], [9, 0, 'eur']] as const) {
      expectStatus(await org.post(`/purchase/vendors/${v.id}/pricelists`, { productId: p.id, price, minQty, currency }), 201)
    }
    expectStatus(await org.post(`/purchase/vendors/${cheap.id}/pricelists`, { productId: p.id, price: 1 }), 201)
    const priceAt = async (quantity: number, currency?: string) => {
      const rfq = expectStatus(await org.post('/purchase/rfqs', { vendorId: v.id, ...(currency ? { currency } : {}), lineItems: [{ productId: p.id, quantity }] }), 201)
      return [rfq.lineItems[0].unitPrice, rfq.lineItems[0].total, rfq.total]
    }
    assert.deepEqual(await priceAt(1), [500, 500, 500])
    assert.deepEqual(await priceAt(9.99), [500, 4995, 4995])
    assert.deepEqual(await priceAt(10), [450, 4500, 4500])
    assert.deepEqual(await priceAt(49.5), [450, 22275, 22275])
    assert.deepEqual(await priceAt(50), [400, 20000, 20000])
    assert.deepEqual(await priceAt(100.4), [400, 40160, 40160])
    assert.deepEqual(await priceAt(100.5), [350, 35175, 35175])
    assert.deepEqual(await priceAt(3, 'eur'), [9, 27, 27])
    // A given unitPrice wins over the pricelist.
    const given = expectStatus(await org.post('/purchase/rfqs', { vendorId: v.id, lineItems: [{ productId: p.id, quantity: 2, unitPrice: 123 }] }), 201)
    assert.equal(given.lineItems[0].unitPrice, 123)
    // No row in that currency, or none at that quantity: 422.
    expectStatus(await org.post('/purchase/rfqs', { vendorId: v.id, currency: 'gbp', lineItems: [{ productId: p.id, quantity: 1 }] }), 422, 'the vendor has no gbp pricelist price')
    const tiered = await createVendor(org)
    expectStatus(await org.post(`/purchase/vendors/${tiered.id}/pricelists`, { productId: p.id, price: 100, minQty: 10 }), 201)
    expectStatus(await org.post('/purchase/rfqs', { vendorId: tiered.id, lineItems: [{ productId: p.id, quantity: 9 }] }), 422, 'lineItems.0.unitPrice is required')
    assert.equal(expectStatus(await org.post('/purchase/rfqs', { vendorId: tiered.id, lineItems: [{ productId: p.id, quantity: 10 }] }), 201).total, 1000)
  })

  test('401 without a credential; 403 for roles outside admin and member', async () => {
    const v = await createVendor(org)
    const routes = [['GET', '/purchase/vendors'], ['POST', '/purchase/vendors'], ['GET', `/purchase/vendors/${v.id}`], ['GET', `/purchase/vendors/${v.id}/pricelists`], ['POST', `/purchase/vendors/${v.id}/pricelists`]] as const
    for (const [method, path] of routes) {
      const body = method === 'POST' ? {} : undefined
      expectStatus(await call(t.app, method, path, { body }), 401)
      for (const role of ['customer', 'support', 'agent'] as const) expectStatus(await call(t.app, method, path, { body, token: await org.as(role) }), 403)
    }
    const member = await org.as('member')
    expectStatus(await org.post('/purchase/vendors', { name: 'By member' }, member), 201)
    expectStatus(await org.get('/purchase/vendors', member), 200)
  })
})
