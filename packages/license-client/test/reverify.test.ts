import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { after, before, test } from 'node:test'
import { MemoryStorage, REVERIFY_INTERVAL_MS } from '../src/index.ts'
import { clientFor, createLicensedProduct, issueLicense, recordingFetch, startService, TestClock, type Product, type Service } from './service.ts'

let s: Service
let product: Product
before(async () => {
  s = await startService()
  product = await createLicensedProduct(s)
})
after(() => s.stop())

test('the daily re-verification is due at once, then 24 hours after each success', async () => {
  const license = await issueLicense(s, product)
  const clock = new TestClock()
  const storage = new MemoryStorage()
  const wire = recordingFetch()
  const client = clientFor({ service: s, product, license, clock, storage, overrides: { fetch: wire.fetch } })
  assert.equal(await client.isReverificationDue(), true)
  assert.equal(await client.nextReverificationAt(), clock.now())
  await client.activate()
  clock.advance(3600_000)

  const run = await client.reverify()
  assert.equal(run.refreshed, true)
  assert.deepEqual([run.result.valid, run.result.source], [true, 'service'])
  assert.equal(run.offlineToken?.claims.key, license.key)
  assert.equal(run.nextReverificationAt, clock.now() + REVERIFY_INTERVAL_MS)
  const state = await storage.load()
  assert.equal(state.offlineToken, run.offlineToken?.token)
  assert.equal(state.lastKnownGoodAt, clock.now())
  assert.equal(state.lastReverifiedAt, clock.now())

  const ranAt = clock.now()
  clock.advance(REVERIFY_INTERVAL_MS - 1)
  assert.equal(await client.isReverificationDue(), false)
  clock.advance(1)
  assert.equal(await client.isReverificationDue(), true)

  // The next run asks the service again even though a validation is cached, and refreshes both.
  await client.validate()
  const requests = wire.sent.length
  const again = await client.reverify()
  assert.equal(again.refreshed, true)
  assert.deepEqual(wire.sent.slice(requests).map((r) => r.url.slice(s.baseUrl.length)), ['/licenses/validate', '/licenses/issue-token'])
  assert.equal((await storage.load()).lastKnownGoodAt, ranAt + REVERIFY_INTERVAL_MS)
  assert.equal(await client.nextReverificationAt(), ranAt + 2 * REVERIFY_INTERVAL_MS)
})

test('a re-verification the service refuses drops the offline token and stays due', async () => {
  const license = await issueLicense(s, product)
  const clock = new TestClock()
  const storage = new MemoryStorage()
  const client = clientFor({ service: s, product, license, clock, storage })
  await client.activate()
  assert.equal((await client.reverify()).refreshed, true)
  assert.equal((await s.org.post(`/admin/licenses/${license.id}/suspend`)).status, 200)
  clock.advance(REVERIFY_INTERVAL_MS)

  const run = await client.reverify()
  assert.equal(run.refreshed, false)
  assert.deepEqual([run.result.valid, run.result.code], [false, 'LICENSE_INACTIVE'])
  assert.equal(run.offlineToken, null)
  const state = await storage.load()
  assert.equal(state.offlineToken, undefined)
  assert.equal(state.hardRejection?.code, 'LICENSE_INACTIVE')
  assert.equal(await client.isReverificationDue(), true)

  // Reinstated, the next run clears the rejection and brings a token back.
  assert.equal((await s.org.post(`/admin/licenses/${license.id}/reinstate`)).status, 200)
  const back = await client.reverify()
  assert.equal(back.refreshed, true)
  assert.equal((await storage.load()).hardRejection, undefined)
})

test('published keys are fetched again when a token names a kid the stored set lacks (key rotation)', async () => {
  const license = await issueLicense(s, product)
  const clock = new TestClock()
  const storage = new MemoryStorage()
  const wire = recordingFetch()
  const client = clientFor({ service: s, product, license, clock, storage, overrides: { fetch: wire.fetch } })
  await client.activate()
  // The stored set predates a rotation: it holds only a key the service no longer signs with.
  const retired = { ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'retired-key', alg: 'EdDSA', use: 'sig' }
  await storage.save({ ...(await storage.load()), jwks: { keys: [retired as any] } })
  const paths = (from: number) => wire.sent.slice(from).map((r) => r.url.slice(s.baseUrl.length))

  let from = wire.sent.length
  const run = await client.reverify()
  assert.equal(run.refreshed, true)
  assert.deepEqual(paths(from), ['/licenses/validate', '/licenses/issue-token', '/.well-known/jwks.json'])
  const kid = JSON.parse(Buffer.from(run.offlineToken!.token.split('.')[0]!, 'base64url').toString()).kid
  assert.ok((await storage.load()).jwks?.keys.some((k) => k.kid === kid))

  // A set that knows the kid is not fetched again.
  clock.advance(REVERIFY_INTERVAL_MS)
  from = wire.sent.length
  assert.equal((await client.reverify()).refreshed, true)
  assert.deepEqual(paths(from), ['/licenses/validate', '/licenses/issue-token'])
})
