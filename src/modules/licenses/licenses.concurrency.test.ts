import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { adminUserId, clientCall, clientRequest, createLicensedProduct, issueLicense, type LicensedProduct } from '../../../test/helpers/licenses.ts'

let t: TestApp
let org: TestOrg
let product: LicensedProduct
let userId: string
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  product = await createLicensedProduct(org, { activationsLimit: 3 })
  userId = await adminUserId(org)
})
after(() => t.close())

test('200 parallel activations of distinct domains on a license with limit 3: exactly 3 succeed', async () => {
  const l = await issueLicense(org, { productId: product.id, userId })
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => clientCall(t.app, 'activate', clientRequest(l.key, product, `shop${i}.example.com`))))
  const ok = results.filter((r) => r.status === 200)
  assert.equal(ok.length, 3)
  assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.code === 'ACTIVATION_LIMIT_REACHED'))
  assert.deepEqual(ok.map((r) => r.body.activationsCount).sort(), [1, 2, 3])
  const license = (await org.get(`/admin/licenses/${l.id}`)).body
  assert.equal(license.activationsCount, 3)
  assert.equal(license.domains.length, 3)
})

test('50 parallel activations of one domain in different spellings: one binding, one slot', async () => {
  const l = await issueLicense(org, { productId: product.id, userId })
  const spellings = ['Shop.Example.com', 'shop.example.com.', 'SHOP.EXAMPLE.COM', 'https://shop.example.com/', 'shop.example.com:8069']
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => clientCall(t.app, 'activate', clientRequest(l.key, product, spellings[i % spellings.length]))))
  assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.find((r) => r.status !== 200)?.body))
  assert.ok(results.every((r) => r.body.activationsCount === 1))
  const license = (await org.get(`/admin/licenses/${l.id}`)).body
  assert.deepEqual([license.activationsCount, license.domains], [1, ['shop.example.com']])
})

test('parallel activations and deactivations keep the count equal to the bindings', async () => {
  const l = await issueLicense(org, { productId: product.id, userId, activationsLimit: 5 })
  const calls = Array.from({ length: 60 }, (_, i) => clientCall(t.app, i % 3 === 2 ? 'deactivate' : 'activate', { key: l.key, domain: `d${i % 7}.example.com` }))
  await Promise.all(calls)
  const license = (await org.get(`/admin/licenses/${l.id}`)).body
  assert.equal(license.activationsCount, license.domains.length)
  assert.ok(license.activationsCount <= 5)
})
