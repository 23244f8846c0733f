import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { LicenseError, MemoryStorage, type LicenseClient, type LicenseState } from '../src/index.ts'
import { clientFor, createLicensedProduct, issueLicense, startService, TestClock, type License, type Product, type Service } from './service.ts'

/**
 * Grace needs the service gone: every installation is prepared while the
 * service runs, then the service is stopped and each one is asked again.
 */
let s: Service
let product: Product
let license: License
const clock = new TestClock()
const granted = new MemoryStorage()
let expiresAt: number
let rejected: LicenseClient
let rejectedStorage: MemoryStorage

before(async () => {
  s = await startService()
  product = await createLicensedProduct(s, { activationsLimit: 5 })
  license = await issueLicense(s, product)
  const client = clientFor({ service: s, product, license, clock, storage: granted })
  await client.activate()
  const { claims } = await client.issueToken()
  expiresAt = claims.exp * 1000

  // An installation the service refused after it had a token: no grace for it.
  const revoked = await issueLicense(s, product)
  rejectedStorage = new MemoryStorage()
  rejected = clientFor({ service: s, product, license: revoked, clock, storage: rejectedStorage })
  await rejected.activate()
  assert.equal(typeof (await rejectedStorage.load()).offlineToken, 'string')
  assert.equal((await s.org.post(`/admin/licenses/${revoked.id}/revoke`)).status, 200)
  assert.equal((await rejected.validate({ fresh: true })).code, 'LICENSE_INACTIVE')

  await s.stop()
})

/** A client on a copy of the granted installation's state, changed by `edit`. */
async function installation(overrides: Parameters<typeof clientFor>[0]['overrides'] = {}, edit: (state: LicenseState) => void = () => {}) {
  const storage = new MemoryStorage()
  const state = await granted.load()
  edit(state)
  await storage.save(state)
  const own = new TestClock(clock.now())
  return { client: clientFor({ service: s, product, license, clock: own, storage, overrides }), clock: own, storage }
}

test('with the service stopped, validate answers from the offline token after the backoff retries', async () => {
  const { client, clock: own } = await installation()
  const result = await client.validate()
  assert.equal(result.valid, true)
  assert.equal(result.code, 'VALID')
  assert.equal(result.source, 'grace')
  assert.equal(result.graceUntil, expiresAt)
  assert.equal(result.license?.key, license.key)
  assert.equal(result.lastKnownGoodAt, (await granted.load()).lastKnownGoodAt)
  assert.deepEqual(own.sleeps, [1000, 2000, 4000], 'delay = min(1000 * 2^attempt, 30000)')

  // The grace answer is cached like any other for 5 minutes: no new attempts.
  assert.equal((await client.validate()).source, 'cache')
  assert.equal(own.sleeps.length, 3)
})

test('the backoff doubles up to 30 seconds', async () => {
  const { client, clock: own } = await installation({ retries: 7 })
  assert.equal((await client.validate()).source, 'grace')
  assert.deepEqual(own.sleeps, [1000, 2000, 4000, 8000, 16000, 30000, 30000])
})

test('no grace once the offline token has expired', async () => {
  const { client, clock: own } = await installation()
  own.t = expiresAt - 1
  assert.equal((await client.validate({ fresh: true })).source, 'grace')
  own.t = expiresAt
  const result = await client.validate({ fresh: true })
  assert.deepEqual([result.valid, result.code, result.source], [false, 'SERVICE_UNAVAILABLE', 'client'])
  assert.match(result.message, /offline token has expired/)
})

test('no grace when the token is for another domain, module, ERP version or installation', async () => {
  const cases = [
    [{ publicUrl: 'https://other.example.com' }, /another domain/],
    [{ moduleName: 'another_module' }, /another module/],
    [{ erpVersion: '18.0' }, /another ERP version/],
    [{ installationId: 'another-machine' }, /another installation/],
    [{ key: 'BPL-ZZZZ-ZZZZ-ZZZZ-ZZZZ' }, /another license/],
  ] as const
  for (const [overrides, why] of cases) {
    const { client } = await installation(overrides)
    const result = await client.validate()
    assert.deepEqual([result.valid, result.code], [false, 'SERVICE_UNAVAILABLE'], JSON.stringify(overrides))
    assert.match(result.message, why)
  }
})

test('no grace when the token signature does not hold against the cached published keys', async () => {
  const flip = (c: string) => (c === 'A' ? 'B' : 'A')
  const forged = await installation({}, (state) => {
    const [h, p, sig] = state.offlineToken!.split('.')
    // Same signature, claims changed: a token stretched by a year.
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString())
    claims.exp += 365 * 24 * 3600
    state.offlineToken = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`
  })
  assert.match((await forged.client.validate()).message, /valid signature/)
  const badSignature = await installation({}, (state) => {
    state.offlineToken = state.offlineToken!.slice(0, -2) + flip(state.offlineToken!.at(-2)!) + state.offlineToken!.at(-1)
  })
  assert.equal((await badSignature.client.validate()).valid, false)
  const noKeys = await installation({}, (state) => delete state.jwks)
  assert.match((await noKeys.client.validate()).message, /valid signature/)
  const noToken = await installation({}, (state) => delete state.offlineToken)
  const result = await noToken.client.validate()
  assert.deepEqual([result.valid, result.code], [false, 'SERVICE_UNAVAILABLE'])
  assert.match(result.message, /no offline token/)
})

test('no grace after a hard rejection', async () => {
  const state = await rejectedStorage.load()
  assert.equal(state.hardRejection?.code, 'LICENSE_INACTIVE')
  assert.equal(state.offlineToken, undefined, 'the token was dropped with the rejection')
  clock.advance(10 * 60_000)
  const result = await rejected.validate()
  assert.deepEqual([result.valid, result.code, result.source], [false, 'LICENSE_INACTIVE', 'client'])
  assert.match(result.message, /no grace/)

  // Even with a token put back, the remembered rejection keeps grace off.
  const { client } = await installation({}, (s) => (s.hardRejection = { code: 'LICENSE_EXPIRED', message: 'License expired', at: clock.now() }))
  assert.deepEqual([(await client.validate()).valid, (await client.validate()).code], [false, 'LICENSE_EXPIRED'])
})

test('an unreachable service is not a failed activation: the limiter does not count it', async () => {
  const { client } = await installation({ retries: 0 })
  for (let i = 0; i < 12; i++) {
    const err = await client.activate().then(() => assert.fail('activated'), (e: unknown) => e)
    assert.ok(err instanceof LicenseError)
    assert.equal(err.code, 'SERVICE_UNAVAILABLE')
    assert.equal(err.transient, true)
  }
  assert.equal(await client.activationWaitMs(), 0)
})

test('the daily re-verification does not count as done while the service is unreachable', async () => {
  const { client, clock: own, storage } = await installation({ retries: 0 })
  const before = await storage.load()
  own.advance(24 * 3600_000)
  assert.equal(await client.isReverificationDue(), true)
  const run = await client.reverify()
  assert.equal(run.refreshed, false)
  assert.equal(run.result.source, 'grace')
  assert.equal(await client.isReverificationDue(), true)
  const after = await storage.load()
  assert.equal(after.offlineToken, before.offlineToken)
  assert.equal(after.lastKnownGoodAt, before.lastKnownGoodAt)
})
