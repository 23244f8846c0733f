import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CACHE_TTL_MS, MemoryStorage } from '../src/index.ts'
import { clientFor, createLicensedProduct, expiredLicense, issueLicense, recordingFetch, startService, TestClock, type Product, type Service } from './service.ts'

let s: Service
let product: Product
before(async () => {
  s = await startService()
  product = await createLicensedProduct(s, { activationsLimit: 3 })
})
after(() => s.stop())

test('validate answers from the service, signed, and records the last-known-good time', async () => {
  const license = await issueLicense(s, product)
  const clock = new TestClock()
  const storage = new MemoryStorage()
  const client = clientFor({ service: s, product, license, clock, storage })
  await client.activate()
  clock.advance(1000)
  const result = await client.validate()
  assert.equal(result.valid, true)
  assert.equal(result.code, 'VALID')
  assert.equal(result.source, 'service')
  assert.deepEqual(result.license, { key: license.key, status: 'active', expiresAt: license.expiresAt })
  assert.equal(result.checkedAt, clock.now())
  assert.equal(result.lastKnownGoodAt, clock.now())
  assert.equal((await storage.load()).lastKnownGoodAt, clock.now())
})

test('answers are cached for 5 minutes; fresh asks again', async () => {
  const license = await issueLicense(s, product)
  const clock = new TestClock()
  const wire = recordingFetch()
  const client = clientFor({ service: s, product, license, clock, overrides: { fetch: wire.fetch } })
  await client.activate()
  const validations = () => wire.sent.filter((r) => r.url.endsWith('/licenses/validate')).length

  const first = await client.validate()
  assert.equal(first.source, 'service')
  clock.advance(CACHE_TTL_MS - 1)
  const cached = await client.validate()
  assert.deepEqual({ ...cached, source: 'service' }, first)
  assert.equal(cached.source, 'cache')
  assert.equal(validations(), 1)

  clock.advance(1)
  assert.equal((await client.validate()).source, 'service')
  assert.equal(validations(), 2)
  assert.equal((await client.validate({ fresh: true })).source, 'service')
  assert.equal(validations(), 3)

  // A change on the service shows once the cached answer is older than 5 minutes.
  assert.equal((await s.org.post(`/admin/licenses/${(await adminId(license.key))}/suspend`)).status, 200)
  assert.equal((await client.validate()).valid, true)
  clock.advance(CACHE_TTL_MS)
  const suspended = await client.validate()
  assert.deepEqual([suspended.valid, suspended.code, suspended.source], [false, 'LICENSE_INACTIVE', 'service'])
})

const adminId = async (key: string) => (await s.org.get(`/admin/licenses?key=${key}`)).body.data[0].id

test('every refusal of validate is valid: false with its machine code, and remembered as a hard rejection', async () => {
  const activated = await issueLicense(s, product)
  await clientFor({ service: s, product, license: activated }).activate()
  const suspended = await issueLicense(s, product)
  await clientFor({ service: s, product, license: suspended }).activate()
  assert.equal((await s.org.post(`/admin/licenses/${suspended.id}/suspend`)).status, 200)
  const expired = await expiredLicense(s, product)
  const notActivated = await issueLicense(s, product)

  const cases = [
    { code: 'NOT_ACTIVATED_ON_DOMAIN', license: notActivated, overrides: {} },
    { code: 'MODULE_MISMATCH', license: activated, overrides: { moduleName: 'another_module' } },
    { code: 'VERSION_MISMATCH', license: activated, overrides: { erpVersion: '18.0' } },
    { code: 'NOT_ACTIVATED_ON_DOMAIN', license: activated, overrides: { publicUrl: 'https://elsewhere.example.com' } },
    { code: 'LICENSE_NOT_FOUND', license: { ...activated, key: 'BPL-QQQQ-WWWW-EEEE-RRRR' }, overrides: {} },
    { code: 'LICENSE_INACTIVE', license: suspended, overrides: {} },
    { code: 'LICENSE_EXPIRED', license: expired, overrides: {} },
  ] as const
  for (const c of cases) {
    const storage = new MemoryStorage()
    const result = await clientFor({ service: s, product, license: c.license, storage, overrides: c.overrides }).validate()
    assert.equal(result.valid, false, c.code)
    assert.equal(result.code, c.code)
    assert.equal(result.source, 'service')
    assert.equal(typeof result.message, 'string')
    assert.equal((await storage.load()).hardRejection?.code, c.code)
  }
})

test('an answer whose signature does not match its body is not trusted', async () => {
  const license = await issueLicense(s, product)
  await clientFor({ service: s, product, license }).activate()
  // Someone between client and service turns a refusal into a grant, keeping the signature.
  const elsewhere = clientFor({
    service: s, product, license,
    overrides: { publicUrl: 'https://not-activated.example.com', fetch: recordingFetch((res, body) => ({
      body: body.replace('"valid":false', '"valid":true').replace('"NOT_ACTIVATED_ON_DOMAIN"', '"VALID"'),
      headers: res.headers,
    })).fetch },
  })
  const tampered = await elsewhere.validate()
  assert.deepEqual([tampered.valid, tampered.code], [false, 'INVALID_RESPONSE_SIGNATURE'])

  // A genuine grant with its signature stripped is not trusted either.
  const stripped = recordingFetch((res, body) => {
    const headers = new Headers(res.headers)
    headers.delete('x-service-signature')
    return { body, headers }
  })
  const unsigned = await clientFor({ service: s, product, license, overrides: { fetch: stripped.fetch } }).validate()
  assert.deepEqual([unsigned.valid, unsigned.code], [false, 'INVALID_RESPONSE_SIGNATURE'])

  // A client with the wrong secret cannot check the service's signature: it trusts no grant.
  const wrongSecret = await clientFor({ service: s, product, license, overrides: { signingSecret: 'wrong' } }).validate()
  assert.deepEqual([wrongSecret.valid, wrongSecret.code], [false, 'INVALID_SIGNATURE'])

  // The genuine answer, passed through the same hands untouched, is trusted.
  const untouched = recordingFetch((res, body) => ({ body, headers: res.headers }))
  assert.equal((await clientFor({ service: s, product, license, overrides: { fetch: untouched.fetch } }).validate()).valid, true)
})
