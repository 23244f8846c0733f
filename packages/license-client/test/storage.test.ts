import assert from 'node:assert/strict'
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { FileStorage, LicenseClient, defaultStatePath } from '../src/index.ts'
import { clientFor, createLicensedProduct, issueLicense, startService, TestClock, type Product, type Service } from './service.ts'

let s: Service
let product: Product
let dir: string
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'license-client-'))
  // The default store lives under the home directory: point it at a temporary one.
  process.env.HOME = dir
  s = await startService()
  product = await createLicensedProduct(s)
})
after(() => s.stop())

test('by default the state is a JSON file per module and domain under the home directory, readable by its owner only', async () => {
  const license = await issueLicense(s, product)
  const client = new LicenseClient({
    key: license.key, moduleName: product.moduleName, publicUrl: 'https://erp.example.com', installationId: 'id-1',
    erpVersion: product.erpVersion, signingSecret: product.signingSecret, baseUrl: s.baseUrl,
  })
  await client.activate()
  const path = defaultStatePath(product.moduleName, 'erp.example.com')
  assert.equal(path, join(dir, '.license-client', `${product.moduleName}@erp.example.com.json`))
  const state = JSON.parse(await readFile(path, 'utf8'))
  assert.equal(typeof state.offlineToken, 'string')
  assert.equal(state.jwks.keys.length >= 1, true)
  assert.equal(typeof state.lastKnownGoodAt, 'number')
  assert.equal((await stat(path)).mode & 0o777, 0o600)
})

test('a new client on the same file (a restart) keeps token, timestamps and limiter', async () => {
  const license = await issueLicense(s, product)
  const storage = new FileStorage(join(dir, 'restart', 'state.json'))
  const clock = new TestClock()
  const first = clientFor({ service: s, product, license, clock, storage })
  await first.activate()
  assert.equal((await first.reverify()).refreshed, true)
  // Refusals that are not hard rejections (a wrong secret), so the token stays.
  const wrong = clientFor({ service: s, product, license, clock, storage, overrides: { signingSecret: 'wrong' } })
  for (let i = 0; i < 10; i++) await wrong.activate().catch(() => undefined)

  const restarted = clientFor({ service: s, product, license, clock, storage: new FileStorage(join(dir, 'restart', 'state.json')) })
  const status = await restarted.localStatus()
  assert.equal(status.offlineToken?.signatureValid, true)
  assert.equal(status.offlineToken?.problem, null)
  assert.equal(status.lastReverifiedAt, clock.now())
  assert.equal(status.nextReverificationAt, clock.now() + 24 * 3600_000)
  assert.equal(status.activationWaitMs, 3600_000)
})

test('a missing or damaged state file is a fresh installation', async () => {
  assert.deepEqual(await new FileStorage(join(dir, 'nothing', 'here.json')).load(), {})
  const damaged = join(dir, 'damaged.json')
  await writeFile(damaged, '{"offlineToken": "abc", ')
  assert.deepEqual(await new FileStorage(damaged).load(), {})
})
