import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { LICENSE_KEY_PATTERN } from './license-keys.lib.ts'
import { adminUserId, createCustomer, createLicensedProduct, issueLicense, type Customer, type LicensedProduct } from '../../../test/helpers/licenses.ts'

let t: TestApp
let org: TestOrg
let product: LicensedProduct
let customer: Customer
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  product = await createLicensedProduct(org, { activationsLimit: 4 })
  customer = await createCustomer(t.app, org)
})
after(() => t.close())

const sleepUntil = async (iso: string) => {
  while (Date.now() <= Date.parse(iso)) await new Promise((r) => setTimeout(r, 50))
}

describe('issue', () => {
  test('defaults from the product: limit, no expiry for one-time, one interval for recurring', async () => {
    const res = await org.post('/admin/licenses', { productId: product.id, userId: customer.id })
    expectStatus(res, 201)
    const l = res.body
    assert.match(l.key, LICENSE_KEY_PATTERN)
    assert.match(l.key, /^BPL(-[A-Z]{4}){4}$/)
    assert.deepEqual(
      [l.status, l.activationsCount, l.activationsLimit, l.expiresAt, l.moduleName, l.erpVersion, l.userId, l.productId, l.product.name, l.domains, l.subscriptionId],
      ['active', 0, 4, null, product.moduleName, '19.0', customer.id, product.id, product.name, [], null],
    )
    const yearly = await createLicensedProduct(org, { billing: 'recurring', interval: 'year' })
    const y = (await org.post('/admin/licenses', { productId: yearly.id, userId: customer.id, activationsLimit: 7 })).body
    const days = (Date.parse(y.expiresAt) - Date.now()) / 86400_000
    assert.ok(days > 364 && days < 367, String(days))
    assert.equal(y.activationsLimit, 7)
    const until = new Date(Date.now() + 10 * 86400_000).toISOString()
    assert.equal((await org.post('/admin/licenses', { productId: yearly.id, userId: customer.id, expiresAt: until })).body.expiresAt, until)
    assert.equal((await org.post('/admin/licenses', { productId: yearly.id, userId: customer.id, expiresAt: null })).body.expiresAt, null)
  })

  test('keys are unique', async () => {
    const keys = await Promise.all(Array.from({ length: 20 }, () => issueLicense(org, { productId: product.id, userId: customer.id })))
    assert.equal(new Set(keys.map((k) => k.key)).size, 20)
  })

  test('422 for a product that is not licensed or not ours, a user of another organization, a past expiry, unknown fields', async () => {
    const plain = (await org.post('/products', { name: 'Plain' })).body
    const other = await createOrg(t.app)
    const foreignProduct = await createLicensedProduct(other)
    const cases: Array<[unknown, string]> = [
      [{ productId: plain.id, userId: customer.id }, 'not name a licensed product'],
      [{ productId: foreignProduct.id, userId: customer.id }, 'productId does not name a product'],
      [{ productId: product.id, userId: await adminUserId(other) }, 'userId does not name a user'],
      [{ productId: product.id, userId: customer.id, expiresAt: new Date(Date.now() - 1000).toISOString() }, 'expiresAt must be in the future'],
      [{ productId: product.id, userId: customer.id, status: 'revoked' }, 'status is not allowed'],
      [{ productId: product.id }, 'userId is required'],
      [{ productId: product.id, userId: customer.id, activationsLimit: 0 }, 'activationsLimit'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post('/admin/licenses', body), 422, message)
  })

  test('admin and support only', async () => {
    expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: customer.id }, await org.as('support')), 201)
    for (const role of ['member', 'agent', 'customer'] as const) {
      expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: customer.id }, await org.as(role)), 403)
      expectStatus(await org.get('/admin/licenses', await org.as(role)), 403)
    }
    expectStatus(await call(t.app, 'GET', '/admin/licenses'), 401)
  })
})

describe('lists', () => {
  test('GET /licenses is a bare array of the caller\'s own licenses', async () => {
    const own = await createCustomer(t.app, org)
    const a = await issueLicense(org, { productId: product.id, userId: own.id })
    const b = await issueLicense(org, { productId: product.id, userId: own.id })
    const res = await call(t.app, 'GET', '/licenses', { token: own.token })
    expectStatus(res, 200)
    assert.ok(Array.isArray(res.body))
    assert.deepEqual(res.body.map((l: any) => l.id), [b.id, a.id])
    assert.deepEqual((await call(t.app, 'GET', '/licenses', { token: (await createCustomer(t.app, org)).token })).body, [])
    const member = await createCustomer(t.app, org, 'member')
    expectStatus(await call(t.app, 'GET', '/licenses', { token: member.token }), 200)
  })

  test('GET /admin/licenses: envelope, filters, sorting', async () => {
    const other = await createLicensedProduct(org)
    const owner = await createCustomer(t.app, org)
    const x = await issueLicense(org, { productId: other.id, userId: owner.id })
    const y = await issueLicense(org, { productId: other.id, userId: owner.id })
    await org.post(`/admin/licenses/${y.id}/suspend`)
    let res = await org.get(`/admin/licenses?productId=${other.id}`)
    expectStatus(res, 200)
    assert.deepEqual(res.body.meta, { total: 2, page: 1, limit: 20, totalPages: 1, nextCursor: null })
    res = await org.get(`/admin/licenses?productId=${other.id}&status=suspended`)
    assert.deepEqual(res.body.data.map((l: any) => l.id), [y.id])
    res = await org.get(`/admin/licenses?key=${x.key.toLowerCase()}`)
    assert.deepEqual(res.body.data.map((l: any) => l.id), [x.id])
    res = await org.get(`/admin/licenses?userId=${owner.id}&sortBy=key&sortOrder=asc&limit=1`)
    assert.deepEqual([res.body.data[0].key, res.body.meta.totalPages], [[x.key, y.key].sort()[0], 2])
    expectStatus(await org.get('/admin/licenses?sortBy=nope'), 400)
    expectStatus(await org.get('/admin/licenses?status=nope'), 400)
    const stranger = await createOrg(t.app)
    assert.equal((await stranger.get(`/admin/licenses?productId=${other.id}`)).body.meta.total, 0)
  })
})

describe('transitions (docs/licenses.md "States and transitions")', () => {
  test('suspend, reinstate, revoke and every illegal move', async () => {
    const l = await issueLicense(org, { productId: product.id, userId: customer.id })
    const act = (action: string) => org.post(`/admin/licenses/${l.id}/${action}`)
    expectStatus(await act('reinstate'), 409, 'License is active and cannot be reinstated')
    assert.equal(expectStatus(await act('suspend'), 200).status, 'suspended')
    expectStatus(await act('suspend'), 409, 'License is suspended and cannot be suspended')
    assert.equal(expectStatus(await act('reinstate'), 200).status, 'active')
    assert.equal(expectStatus(await act('revoke'), 200).status, 'revoked')
    for (const action of ['suspend', 'reinstate', 'revoke']) expectStatus(await act(action), 409, 'License is revoked')
    expectStatus(await org.post(`/admin/licenses/${l.id}/suspend`, {}, await org.as('support')), 409)
  })

  test('another organization gets 404', async () => {
    const l = await issueLicense(org, { productId: product.id, userId: customer.id })
    const stranger = await createOrg(t.app)
    expectStatus(await stranger.get(`/admin/licenses/${l.id}`), 404, 'License not found')
    expectStatus(await stranger.post(`/admin/licenses/${l.id}/revoke`), 404)
    assert.equal((await org.get(`/admin/licenses/${l.id}`)).body.status, 'active')
  })

  test('the expiry job moves licenses past expiresAt to expired; expired may be revoked but not suspended', async () => {
    const l = await issueLicense(org, { productId: product.id, userId: customer.id, expiresAt: new Date(Date.now() + 300).toISOString() })
    const expiresAt = (await org.get(`/admin/licenses/${l.id}`)).body.expiresAt
    await sleepUntil(expiresAt)
    // Shown as expired at once, before the job writes it.
    assert.equal((await org.get(`/admin/licenses/${l.id}`)).body.status, 'expired')
    assert.ok((await org.get('/admin/licenses?status=expired')).body.data.some((x: any) => x.id === l.id))
    assert.ok(!(await org.get('/admin/licenses?status=active')).body.data.some((x: any) => x.id === l.id))
    const run = await org.post('/admin/jobs/license-expiry/run')
    expectStatus(run, 200)
    assert.ok(run.body.result.expired >= 1)
    assert.equal((await org.post('/admin/jobs/license-expiry/run')).body.result.expired, 0)
    expectStatus(await org.post(`/admin/licenses/${l.id}/suspend`), 409, 'License is expired')
    assert.equal(expectStatus(await org.post(`/admin/licenses/${l.id}/revoke`), 200).status, 'revoked')
  })
})
