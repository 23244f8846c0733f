import assert from 'node:assert/strict'
import { createHash, createHmac } from 'node:crypto'
import { after, before, test } from 'node:test'
import { LicenseError, MemoryStorage } from '../src/index.ts'
import { clientFor, createLicensedProduct, expiredLicense, issueLicense, recordingFetch, startService, TestClock, type Product, type Service } from './service.ts'

let s: Service
let product: Product
before(async () => {
  s = await startService()
  product = await createLicensedProduct(s, { activationsLimit: 2 })
})
after(() => s.stop())

const refusal = async (promise: Promise<unknown>): Promise<LicenseError> => {
  const err = await promise.then(() => assert.fail('expected a LicenseError'), (e: unknown) => e)
  assert.ok(err instanceof LicenseError, String(err))
  return err
}

const adminView = async (key: string) => {
  const res = await s.org.get(`/admin/licenses?key=${key}`)
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data[0]
}

test('activate sends the five-field request, signed with the product secret, with the license key as bearer', async () => {
  const license = await issueLicense(s, product)
  const wire = recordingFetch()
  const client = clientFor({
    service: s, product, license,
    overrides: { fetch: wire.fetch, publicUrl: 'https://Shop.Example.COM.:8069/web/login?db=x', installationId: 'machine-42', erpVersion: '19.0+e' },
  })
  assert.deepEqual(await client.activate(), { activated: true, activationsCount: 1, activationsLimit: 2 })

  const request = wire.sent[0]!
  assert.equal(request.url, `${s.baseUrl}/licenses/activate`)
  assert.equal(request.method, 'POST')
  assert.deepEqual(JSON.parse(request.body), {
    key: license.key, // the client was given the key in lower case
    module_name: product.moduleName,
    domain: 'shop.example.com',
    hw_fingerprint: createHash('sha256').update('machine-42').digest('hex'),
    erp_version: '19.0',
  })
  assert.equal(request.headers.get('authorization'), `Bearer ${license.key}`)
  assert.equal(request.headers.get('content-type'), 'application/json')
  assert.equal(request.headers.get('x-service-signature'), `sha256=${createHmac('sha256', product.signingSecret).update(request.body).digest('hex')}`)
  // Right after activating, the client fetched its offline token and the keys that sign it.
  assert.deepEqual(wire.sent.map((r) => `${r.method} ${r.url.slice(s.baseUrl.length)} ${r.status}`), [
    'POST /licenses/activate 200',
    'POST /licenses/issue-token 200',
    'GET /.well-known/jwks.json 200',
  ])
  const view = await adminView(license.key)
  assert.deepEqual(view.domains, ['shop.example.com'])
  assert.equal(view.activationsCount, 1)
})

test('re-activating the bound domain is a no-op that uses no slot; the limit refuses a third domain', async () => {
  const license = await issueLicense(s, product)
  const on = (publicUrl: string) => clientFor({ service: s, product, license, overrides: { publicUrl } })
  assert.equal((await on('https://a.example.com').activate()).activationsCount, 1)
  assert.equal((await on('http://A.example.com:8080/').activate()).activationsCount, 1)
  assert.equal((await on('b.example.com').activate()).activationsCount, 2)
  const err = await refusal(on('https://c.example.com').activate())
  assert.equal(err.code, 'ACTIVATION_LIMIT_REACHED')
  assert.equal(err.status, 409)
  assert.equal(err.message, 'Activation limit reached')
  assert.deepEqual((await adminView(license.key)).domains.sort(), ['a.example.com', 'b.example.com'])
})

test('each hard rejection of the service arrives with its machine code and status', async () => {
  const license = await issueLicense(s, product)
  const cases: Array<[string, Parameters<typeof clientFor>[0]['overrides'], number, string]> = [
    ['MODULE_MISMATCH', { moduleName: 'another_module' }, 403, ''],
    ['VERSION_MISMATCH', { erpVersion: '18.0' }, 403, ''],
    ['LICENSE_NOT_FOUND', { key: 'BPL-AAAA-BBBB-CCCC-DDDD' }, 404, 'License not found'],
  ]
  for (const [code, overrides, status, message] of cases) {
    const err = await refusal(clientFor({ service: s, product, license, overrides }).activate())
    assert.equal(err.code, code)
    assert.equal(err.status, status)
    if (message) assert.equal(err.message, message)
  }
  assert.equal((await adminView(license.key)).activationsCount, 0)
})

test('a suspended, revoked or expired license does not activate', async () => {
  const suspended = await issueLicense(s, product)
  assert.equal((await s.org.post(`/admin/licenses/${suspended.id}/suspend`)).status, 200)
  const inactive = await refusal(clientFor({ service: s, product, license: suspended }).activate())
  assert.deepEqual([inactive.code, inactive.status, inactive.message], ['LICENSE_INACTIVE', 403, 'License suspended'])

  const revoked = await issueLicense(s, product)
  assert.equal((await s.org.post(`/admin/licenses/${revoked.id}/revoke`)).status, 200)
  const gone = await refusal(clientFor({ service: s, product, license: revoked }).activate())
  assert.deepEqual([gone.code, gone.status, gone.message], ['LICENSE_INACTIVE', 403, 'License revoked'])

  const expired = await expiredLicense(s, product)
  const late = await refusal(clientFor({ service: s, product, license: expired }).activate())
  assert.deepEqual([late.code, late.status, late.message], ['LICENSE_EXPIRED', 403, 'License expired'])
})

test('a wrong signing secret is refused by the service with INVALID_SIGNATURE', async () => {
  const license = await issueLicense(s, product)
  const err = await refusal(clientFor({ service: s, product, license, overrides: { signingSecret: 'not-the-secret' } }).activate())
  assert.deepEqual([err.code, err.status, err.message], ['INVALID_SIGNATURE', 401, 'Invalid signature'])
  assert.equal((await adminView(license.key)).activationsCount, 0)
})

test('an empty instance domain refuses activation without asking the service', async () => {
  const license = await issueLicense(s, product)
  for (const publicUrl of ['', '   ', 'https://', 'https://:8069/web']) {
    const wire = recordingFetch()
    const client = clientFor({ service: s, product, license, overrides: { publicUrl, fetch: wire.fetch } })
    const err = await refusal(client.activate())
    assert.equal(err.code, 'DOMAIN_UNDETERMINED')
    assert.equal(err.message, 'Could not determine the instance domain')
    assert.equal(wire.sent.length, 0, publicUrl)
    const validation = await client.validate()
    assert.deepEqual([validation.valid, validation.code, validation.source], [false, 'DOMAIN_UNDETERMINED', 'client'])
  }
})

test('the activation limiter trips after 10 failed attempts within an hour and says how long to wait', async () => {
  const license = await issueLicense(s, product)
  const clock = new TestClock()
  const wire = recordingFetch()
  const client = clientFor({ service: s, product, license, clock, overrides: { moduleName: 'another_module', fetch: wire.fetch } })
  const start = clock.now()
  for (let i = 0; i < 10; i++) {
    assert.equal(await client.activationWaitMs(), 0)
    assert.equal((await refusal(client.activate())).code, 'MODULE_MISMATCH')
    clock.advance(60_000)
  }
  // Ten failures at minutes 0..9; it is now minute 10: wait until the first is an hour old.
  const tripped = await refusal(client.activate())
  assert.equal(tripped.code, 'ACTIVATION_THROTTLED')
  assert.equal(tripped.retryAfterMs, 50 * 60_000)
  assert.equal(tripped.message, 'Too many failed activation attempts; try again in 50 minutes')
  assert.equal(wire.sent.length, 10, 'a tripped limiter sends nothing')

  clock.t = start + 60 * 60_000 - 1
  assert.equal((await refusal(client.activate())).retryAfterMs, 1)
  clock.t = start + 60 * 60_000
  assert.equal((await refusal(client.activate())).code, 'MODULE_MISMATCH', 'the first failure left the window')
  assert.equal(wire.sent.length, 11)
  assert.equal((await refusal(client.activate())).retryAfterMs, 60_000, 'the failure of minute 1 is next to leave')
})

test('the limiter never asks for more than 60 minutes, and a success clears it', async () => {
  const license = await issueLicense(s, product)
  assert.equal((await s.org.post(`/admin/licenses/${license.id}/suspend`)).status, 200)
  const clock = new TestClock()
  const storage = new MemoryStorage()
  const client = clientFor({ service: s, product, license, clock, storage })
  for (let i = 0; i < 10; i++) assert.equal((await refusal(client.activate())).code, 'LICENSE_INACTIVE')
  const tripped = await refusal(client.activate())
  assert.equal(tripped.retryAfterMs, 60 * 60_000)
  assert.equal(tripped.message, 'Too many failed activation attempts; try again in 60 minutes')

  // The state is in the storage: another client instance on it (a restart) is held back too.
  assert.equal(await clientFor({ service: s, product, license, clock, storage }).activationWaitMs(), 60 * 60_000)

  assert.equal((await s.org.post(`/admin/licenses/${license.id}/reinstate`)).status, 200)
  clock.advance(60 * 60_000)
  assert.equal((await client.activate()).activated, true)
  assert.equal((await storage.load()).activationFailures, undefined)
})

test('deactivate releases this domain or another one, and frees the slot', async () => {
  const license = await issueLicense(s, product)
  const storage = new MemoryStorage()
  const here = clientFor({ service: s, product, license, storage, overrides: { publicUrl: 'https://here.example.com' } })
  const old = clientFor({ service: s, product, license, overrides: { publicUrl: 'https://old.example.com' } })
  await here.activate()
  await old.activate()
  assert.deepEqual(await here.deactivate('https://OLD.example.com/'), { deactivated: true, activationsCount: 1 })
  assert.equal((await old.validate({ fresh: true })).code, 'NOT_ACTIVATED_ON_DOMAIN')
  // A refusal about another domain leaves this installation's token and grace alone.
  assert.equal((await refusal(here.deactivate('never.example.com'))).code, 'NOT_ACTIVATED_ON_DOMAIN')
  assert.equal((await storage.load()).hardRejection, undefined)
  assert.equal(typeof (await storage.load()).offlineToken, 'string')
  assert.deepEqual(await here.deactivate(), { deactivated: true, activationsCount: 0 })
  const after = await here.validate({ fresh: true })
  assert.deepEqual([after.valid, after.code], [false, 'NOT_ACTIVATED_ON_DOMAIN'])
  assert.deepEqual((await adminView(license.key)).domains, [])
})

test('deactivateSelf releases this instance and forgets its offline token', async () => {
  const license = await issueLicense(s, product)
  const storage = new MemoryStorage()
  const client = clientFor({ service: s, product, license, storage })
  await client.activate()
  assert.equal(typeof (await storage.load()).offlineToken, 'string')
  const released = await client.deactivateSelf()
  assert.equal(released.deactivated, true)
  assert.equal(released.activationsCount, 0)
  assert.equal((await storage.load()).offlineToken, undefined)
  assert.equal((await adminView(license.key)).activationsCount, 0)
  const err = await refusal(client.deactivateSelf())
  assert.equal(err.code, 'NOT_ACTIVATED_ON_DOMAIN')
})

test('issueToken returns the offline token verified against the published keys, with the contract claims', async () => {
  const license = await issueLicense(s, product)
  const client = clientFor({ service: s, product, license, overrides: { installationId: 'db-7' } })
  await client.activate()
  const { token, claims } = await client.issueToken()
  assert.equal(token.split('.').length, 3)
  assert.deepEqual(Object.keys(claims).sort(), ['domain', 'erp_version', 'exp', 'hw_fingerprint', 'iat', 'key', 'module', 'status'])
  assert.equal(claims.key, license.key)
  assert.equal(claims.module, product.moduleName)
  assert.equal(claims.domain, 'shop.example.com')
  assert.equal(claims.erp_version, '19.0')
  assert.equal(claims.hw_fingerprint, createHash('sha256').update('db-7').digest('hex'))
  assert.equal(claims.status, 'active')
  assert.ok(claims.exp > claims.iat)
})
