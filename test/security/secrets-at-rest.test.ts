// Finding 14 (issue 24): secrets at rest. Every secret the service keeps in
// its database is sealed (AES-256-GCM) with SECRET_KEY, a key that is not in
// the database: reading the database alone forges no access token, no licence
// token, no X-Service-Signature and no payment-processor event. Several apps
// are built on one database here, as several processes (or versions) of the
// service would be.
import assert from 'node:assert/strict'
import { generateKeyPairSync, randomBytes, createPrivateKey } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, afterEach, before, describe, test } from 'node:test'
import { SignJWT, calculateJwkThumbprint, createLocalJWKSet, decodeJwt, jwtVerify, type JWK } from 'jose'
import { Webhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { openDb, type Db } from '../../src/core/db.ts'
import type { App } from '../../src/core/module.ts'
import { call, createDatabase, createOrg, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'
import { clientCall, clientRequest, createCustomer, createLicensedProduct, issueLicense, type LicensedProduct } from '../helpers/licenses.ts'
import { startReceiver, type Receiver } from '../helpers/webhooks.ts'

/** What a sealed value looks like: a version prefix, a key id, then the IV, ciphertext and tag. */
const SEALED = /^enc:v1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/
const kidOf = (sealed: string) => sealed.split(':')[2]

const KEY_A = randomBytes(32).toString('base64')
const KEY_B = randomBytes(32).toString('base64')

/** A database that outlives the apps built on it (PGlite in memory, or a new database on DATABASE_URL's server). */
async function sharedDatabase() {
  const base = process.env.DATABASE_URL
  const created = base ? await createDatabase(base, 'bp_secrets') : undefined
  const db = await openDb({ databaseUrl: created?.url, dataDir: 'memory://' })
  return {
    db,
    url: created?.url,
    close: async () => {
      try {
        await db.close()
      } finally {
        await created?.drop()
      }
    },
  }
}

type Shared = Awaited<ReturnType<typeof sharedDatabase>>

/** An app (a process of the service) on the shared database; no JWT_SECRET, so the JWT key is the database's. */
function start(shared: Shared, env: Record<string, string> = {}): Promise<App> {
  const config = loadConfig({
    DATA_DIR: 'memory://',
    RATE_LIMIT: 'off',
    JOBS: 'off',
    LOG_LEVEL: 'silent',
    PASSWORD_HASH_COST: '14',
    ...(shared.url ? { DATABASE_URL: shared.url } : {}),
    ...env,
  })
  return buildApp(config, { db: shared.db, logger: false })
}

interface SecretRows {
  jwt: string
  billing: string
  product: string
  webhook: { secret: string; previous: string | null }
  signingKeys: Array<{ kid: string; private_jwk: string; current: boolean }>
}

async function readRows(db: Db, productId: string, endpointId: string): Promise<SecretRows> {
  const setting = async (key: string) => (await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])).rows[0]?.value
  const product = (await db.query<{ signing_secret: string }>('SELECT signing_secret FROM products WHERE id = $1', [productId])).rows[0].signing_secret
  const ep = (await db.query<{ secret: string; previous_secret: string | null }>('SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1', [endpointId])).rows[0]
  const keys = (await db.query<{ kid: string; private_jwk: string; current: boolean }>('SELECT kid, private_jwk, current FROM license_signing_keys ORDER BY created_at')).rows
  return { jwt: (await setting('jwt_secret'))!, billing: (await setting('billing_webhook_secret'))!, product, webhook: { secret: ep.secret, previous: ep.previous_secret }, signingKeys: keys }
}

const allSealed = (rows: SecretRows) => [rows.jwt, rows.billing, rows.product, rows.webhook.secret, rows.webhook.previous!, ...rows.signingKeys.map((k) => k.private_jwk)]

/** An access token with the claims of `real`, signed (HS256) with `key` as the JWT key. */
async function forgeAccessToken(real: string, key: string) {
  const claims = decodeJwt(real)
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key))
}

/** A Stripe-signed event of a type the receiver ignores, as the payment processor would send it. */
async function processorEvent(app: App, secret: string) {
  const payload = JSON.stringify({ id: `evt_${randomBytes(8).toString('hex')}`, type: 'ping.secrets', created: Math.floor(Date.now() / 1000), data: { object: { id: 'x' } } })
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: Math.floor(Date.now() / 1000) })
  const res = await app.inject({ method: 'POST', url: '/api/billing/webhooks', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, payload })
  return { status: res.statusCode, body: res.json(), headers: res.headers, raw: res }
}

/** Tries to sign an offline token with a license_signing_keys row as it is stored; answers the token, or undefined when the row is no key. */
async function signWithRow(row: { kid: string; private_jwk: string }, claims: Record<string, unknown>) {
  let key
  try {
    key = createPrivateKey({ key: JSON.parse(row.private_jwk), format: 'jwk' })
  } catch {
    return undefined
  }
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: row.kid, typ: 'JWT' }).setIssuedAt().setExpirationTime('1h').sign(key)
}

const working = new WeakSet<App>()

/** The webhook-signature of one ping to the endpoint, once the worker of `app` (the only one running) delivered it. */
async function pingSignature(app: App, token: string, endpointId: string, receiver: Receiver) {
  const before = receiver.received.length
  if (!working.has(app)) {
    working.add(app)
    await app.services.webhooks!.worker!.start()
  }
  expectStatus(await call(app, 'POST', `/webhook-endpoints/${endpointId}/test`, { token, body: {} }), 202)
  const got = await receiver.waitFor(before + 1)
  return got[before]
}

const verifyWebhook = (secret: string, r: { id: string; timestamp: string; signature: string; body: string }) =>
  new Webhook(secret).verify(r.body, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature })

describe('secrets at rest', () => {
  let shared: Shared
  let receiver: Receiver
  const apps: App[] = []
  const open = async (env: Record<string, string> = {}) => {
    const app = await start(shared, env)
    apps.push(app)
    return app
  }
  // What the first app made, and what its answers showed once.
  let org: TestOrg
  let product: LicensedProduct
  let endpoint: { id: string; secret: string }
  let rotatedSecret: string
  let licenseKey: string
  let offlineToken: string

  before(async () => {
    shared = await sharedDatabase()
    receiver = await startReceiver()
  })
  // Each test's apps stop with it, so that the only delivery worker running is the test's.
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close()
  })
  after(async () => {
    await receiver.close()
    await shared.close()
  })

  test('JWT_SECRET from the environment is never written to the database; API_ENV=live needs SECRET_KEY', async () => {
    await open({ SECRET_KEY: KEY_A, JWT_SECRET: 'an-environment-jwt-secret-of-32-characters' })
    assert.equal((await shared.db.query("SELECT 1 FROM settings WHERE key = 'jwt_secret'")).rows.length, 0)
    const stripe = { PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_unused', STRIPE_WEBHOOK_SECRET: 'whsec_unused' }
    assert.throws(() => loadConfig({ API_ENV: 'live', ...stripe }), /API_ENV=live needs SECRET_KEY/)
    assert.throws(() => loadConfig({ API_ENV: 'live', ...stripe, SECRET_KEY: 'too short' }), /SECRET_KEY/)
    assert.doesNotThrow(() => loadConfig({ API_ENV: 'live', ...stripe, SECRET_KEY: KEY_A }))
  })

  test('every secret column is sealed and holds no plaintext; what the rows hold forges nothing; the service still works', async () => {
    const app = await open({ SECRET_KEY: KEY_A })
    org = await createOrg(app)
    product = await createLicensedProduct(org)
    endpoint = expectStatus(await org.post('/webhook-endpoints', { url: receiver.url, enabledEvents: ['*'] }), 201)
    rotatedSecret = expectStatus(await org.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`), 200).secret
    const customer = await createCustomer(app, org)
    const license = await issueLicense(org, { productId: product.id, userId: customer.id })
    licenseKey = license.key
    const req = clientRequest(licenseKey, product, 'secrets.example.com')
    expectStatus(await clientCall(app, 'activate', req, { secret: product.signingSecret }), 200)
    const issued = expectStatus(await clientCall(app, 'issue-token', req, { secret: product.signingSecret }), 200)
    offlineToken = issued.token

    const rows = await readRows(shared.db, product.id, endpoint.id)
    for (const value of allSealed(rows)) assert.match(value, SEALED)
    assert.equal(rows.signingKeys.length, 1)
    for (const value of allSealed(rows)) {
      for (const plain of [product.signingSecret, endpoint.secret, rotatedSecret]) assert.equal(value.includes(plain), false)
    }
    // The settings row does not sign access tokens.
    const forged = await forgeAccessToken(org.token, rows.jwt)
    expectStatus(await call(app, 'GET', '/auth/me', { token: forged }), 401)
    expectStatus(await call(app, 'GET', '/auth/me', { token: org.token }), 200)
    // The product row does not sign licence client requests; the secret admins see does.
    expectStatus(await clientCall(app, 'validate', req, { secret: rows.product }), 401, 'Invalid signature')
    const valid = expectStatus(await clientCall(app, 'validate', req, { secret: product.signingSecret }), 200)
    assert.equal(valid.code, 'VALID')
    assert.equal(expectStatus(await org.get(`/products/${product.id}`), 200).signingSecret, product.signingSecret)
    // The licence signing key row signs no token that the JWKS verifies; the service's tokens verify.
    const jwks = createLocalJWKSet(expectStatus(await call(app, 'GET', '/.well-known/jwks.json'), 200))
    const claims = { key: licenseKey, module: product.moduleName, domain: 'secrets.example.com', erp_version: '19.0', hw_fingerprint: 'a'.repeat(64), status: 'active' }
    const rowToken = await signWithRow(rows.signingKeys[0], claims)
    if (rowToken) await assert.rejects(jwtVerify(rowToken, jwks))
    await jwtVerify(offlineToken, jwks)
    // The billing row does not sign payment-processor events.
    expectStatus(await processorEvent(app, rows.billing), 401, 'Invalid signature')
    // Deliveries are signed by the new and the previous webhook secret.
    const got = await pingSignature(app, org.token, endpoint.id, receiver)
    verifyWebhook(rotatedSecret, got)
    verifyWebhook(endpoint.secret, got)
  })

  test('another process with the same SECRET_KEY reads every secret', async () => {
    const app = await open({ SECRET_KEY: KEY_A })
    expectStatus(await call(app, 'GET', '/auth/me', { token: org.token }), 200)
    const req = clientRequest(licenseKey, product, 'secrets.example.com')
    expectStatus(await clientCall(app, 'validate', req, { secret: product.signingSecret }), 200)
    const issued = expectStatus(await clientCall(app, 'issue-token', req, { secret: product.signingSecret }), 200)
    await jwtVerify(issued.token, createLocalJWKSet(expectStatus(await call(app, 'GET', '/.well-known/jwks.json'), 200)))
    const got = await pingSignature(app, org.token, endpoint.id, receiver)
    verifyWebhook(rotatedSecret, got)
  })

  test("a sealed value copied to another row opens nowhere: another organization's own secret forges no X-Service-Signature", async () => {
    const app = await open({ SECRET_KEY: KEY_A })
    const other = await createOrg(app)
    const otherProduct = await createLicensedProduct(other)
    const { rows } = await shared.db.query<{ id: string; signing_secret: string }>('SELECT id, signing_secret FROM products WHERE id = ANY($1::uuid[])', [[product.id, otherProduct.id]])
    const sealed = Object.fromEntries(rows.map((r) => [r.id, r.signing_secret]))
    await shared.db.query('UPDATE products SET signing_secret = $1 WHERE id = $2', [sealed[otherProduct.id], product.id])
    try {
      const req = clientRequest(licenseKey, product, 'secrets.example.com')
      // The value does not open for this product: an internal fault, never an accepted signature.
      expectStatus(await clientCall(app, 'validate', req, { secret: otherProduct.signingSecret }), 500)
      expectStatus(await call(app, 'GET', `/products/${product.id}`, { token: org.token }), 500)
    } finally {
      await shared.db.query('UPDATE products SET signing_secret = $1 WHERE id = $2', [sealed[product.id], product.id])
    }
    expectStatus(await clientCall(app, 'validate', clientRequest(licenseKey, product, 'secrets.example.com'), { secret: product.signingSecret }), 200)
  })

  test('with another SECRET_KEY (or none) the app refuses to start, naming SECRET_KEY, and changes nothing', async () => {
    const before = await readRows(shared.db, product.id, endpoint.id)
    await assert.rejects(start(shared, { SECRET_KEY: KEY_B }), (err: Error) => {
      assert.match(err.message, /SECRET_KEY/)
      assert.match(err.message, /SECRET_KEY_PREVIOUS/)
      return true
    })
    await assert.rejects(start(shared), /SECRET_KEY/)
    assert.deepEqual(await readRows(shared.db, product.id, endpoint.id), before)
  })

  test('rotation: SECRET_KEY new and SECRET_KEY_PREVIOUS old re-seals every value at start (idempotent, several processes at once); then the old key is not needed', async () => {
    const before = await readRows(shared.db, product.id, endpoint.id)
    const oldKid = kidOf(before.jwt)
    for (const value of allSealed(before)) assert.equal(kidOf(value), oldKid)
    // Two processes start together with the rotation settings.
    const [app] = await Promise.all([open({ SECRET_KEY: KEY_B, SECRET_KEY_PREVIOUS: KEY_A }), open({ SECRET_KEY: KEY_B, SECRET_KEY_PREVIOUS: KEY_A })])
    const rows = await readRows(shared.db, product.id, endpoint.id)
    const newKid = kidOf(rows.jwt)
    assert.notEqual(newKid, oldKid)
    for (const value of allSealed(rows)) {
      assert.match(value, SEALED)
      assert.equal(kidOf(value), newKid)
    }
    // A third start changes nothing.
    await open({ SECRET_KEY: KEY_B, SECRET_KEY_PREVIOUS: KEY_A })
    assert.deepEqual(await readRows(shared.db, product.id, endpoint.id), rows)

    // Without the previous key, and with the new key alone, everything works as before the rotation.
    const next = await open({ SECRET_KEY: KEY_B })
    for (const a of [app, next]) {
      expectStatus(await call(a, 'GET', '/auth/me', { token: org.token }), 200)
      const req = clientRequest(licenseKey, product, 'secrets.example.com')
      expectStatus(await clientCall(a, 'validate', req, { secret: product.signingSecret }), 200)
      const issued = expectStatus(await clientCall(a, 'issue-token', req, { secret: product.signingSecret }), 200)
      const jwks = createLocalJWKSet(expectStatus(await call(a, 'GET', '/.well-known/jwks.json'), 200))
      await jwtVerify(issued.token, jwks)
      await jwtVerify(offlineToken, jwks)
    }
    const got = await pingSignature(next, org.token, endpoint.id, receiver)
    verifyWebhook(rotatedSecret, got)
    verifyWebhook(endpoint.secret, got)
    expectStatus(await processorEvent(next, rows.billing), 401)
    // The old key alone no longer opens them.
    await assert.rejects(start(shared, { SECRET_KEY: KEY_A }), /SECRET_KEY/)
  })

  test('plaintext rows of an older version are sealed at start, and keep working', async () => {
    const legacy = {
      jwt: `legacy-jwt-${randomBytes(24).toString('base64url')}`,
      billing: `whsec_${randomBytes(32).toString('base64url')}`,
      product: randomBytes(32).toString('hex'),
      webhook: `whsec_${randomBytes(24).toString('base64')}`,
      previous: `whsec_${randomBytes(24).toString('base64')}`,
    }
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK
    const kid = await calculateJwkThumbprint(publicJwk)
    const privateJwk = JSON.stringify(privateKey.export({ format: 'jwk' }))
    const db = shared.db
    await db.query("UPDATE settings SET value = $1 WHERE key = 'jwt_secret'", [legacy.jwt])
    await db.query("UPDATE settings SET value = $1 WHERE key = 'billing_webhook_secret'", [legacy.billing])
    await db.query('UPDATE products SET signing_secret = $1 WHERE id = $2', [legacy.product, product.id])
    await db.query(`UPDATE webhook_endpoints SET secret = $1, previous_secret = $2, previous_secret_until = now() + interval '1 hour' WHERE id = $3`, [legacy.webhook, legacy.previous, endpoint.id])
    await db.query('UPDATE license_signing_keys SET current = false, superseded_at = now() WHERE current')
    await db.query('INSERT INTO license_signing_keys (kid, public_jwk, private_jwk) VALUES ($1, $2, $3)', [kid, JSON.stringify({ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }), privateJwk])

    const app = await open({ SECRET_KEY: KEY_B })
    const rows = await readRows(db, product.id, endpoint.id)
    for (const value of allSealed(rows)) assert.match(value, SEALED)
    for (const value of allSealed(rows)) {
      for (const plain of Object.values(legacy)) assert.equal(value.includes(plain), false)
      assert.equal(value.includes(JSON.parse(privateJwk).d), false)
    }
    // The legacy values are still the secrets in use (sealed, not replaced): the legacy JWT key signs access tokens.
    const token = await forgeAccessToken(org.token, legacy.jwt)
    expectStatus(await call(app, 'GET', '/auth/me', { token }), 200)
    expectStatus(await call(app, 'GET', '/auth/me', { token: org.token }), 401)
    const req = clientRequest(licenseKey, product, 'secrets.example.com')
    expectStatus(await clientCall(app, 'validate', req, { secret: legacy.product }), 200)
    assert.equal(expectStatus(await call(app, 'GET', `/products/${product.id}`, { token }), 200).signingSecret, legacy.product)
    const issued = expectStatus(await clientCall(app, 'issue-token', req, { secret: legacy.product }), 200)
    assert.equal(issued.kid, kid)
    await jwtVerify(issued.token, createLocalJWKSet(expectStatus(await call(app, 'GET', '/.well-known/jwks.json'), 200)))
    assert.equal(expectStatus(await processorEvent(app, legacy.billing), 200).received, true)
    const got = await pingSignature(app, token, endpoint.id, receiver)
    verifyWebhook(legacy.webhook, got)
    verifyWebhook(legacy.previous, got)
    // A second start finds nothing to seal.
    await open({ SECRET_KEY: KEY_B })
    assert.deepEqual(await readRows(db, product.id, endpoint.id), rows)
  })
})

describe('the key without SECRET_KEY (API_ENV=test)', () => {
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'bp-secrets-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('is generated once into DATA_DIR/secret.key (mode 0600), never into the database; a lost key stops the start', async () => {
    const shared = await sharedDatabase()
    try {
      const dataDir = join(dir, 'data')
      const first = await start(shared, { DATA_DIR: dataDir })
      const file = join(dataDir, 'secret.key')
      assert.equal(statSync(file).mode & 0o777, 0o600)
      const key = readFileSync(file, 'utf8').trim()
      assert.ok(key.length >= 32)
      const o = await createOrg(first)
      const p = await createLicensedProduct(o)
      const { rows } = await shared.db.query<{ value: string }>('SELECT value FROM settings')
      for (const r of rows) assert.equal(r.value.includes(key), false)
      await first.close()
      // The next start reads the same key.
      const second = await start(shared, { DATA_DIR: dataDir })
      assert.equal(readFileSync(file, 'utf8').trim(), key)
      expectStatus(await call(second, 'GET', '/auth/me', { token: o.token }), 200)
      const read = await call(second, 'GET', `/products/${p.id}`, { token: o.token })
      assert.equal(expectStatus(read, 200).signingSecret, p.signingSecret)
      await second.close()
      // The key is lost: the start stops and says so; nothing is regenerated in the database.
      rmSync(file)
      const before = (await shared.db.query("SELECT value FROM settings WHERE key = 'jwt_secret'")).rows
      await assert.rejects(start(shared, { DATA_DIR: dataDir }), /SECRET_KEY/)
      assert.deepEqual((await shared.db.query("SELECT value FROM settings WHERE key = 'jwt_secret'")).rows, before)
      // The lost key opens them again, given as SECRET_KEY.
      const again = await start(shared, { SECRET_KEY: key })
      expectStatus(await call(again, 'GET', '/auth/me', { token: o.token }), 200)
      await again.close()
    } finally {
      await shared.close()
    }
  })

  test('with DATA_DIR=memory:// every app of the process shares one key', async () => {
    const shared = await sharedDatabase()
    const a = await start(shared)
    const b = await start(shared).catch(async (err) => {
      await a.close()
      throw err
    })
    try {
      const o = await createOrg(a)
      const p = await createLicensedProduct(o)
      expectStatus(await call(b, 'GET', '/auth/me', { token: o.token }), 200)
      const res = await call(b, 'GET', `/products/${p.id}`, { token: o.token })
      assert.equal(expectStatus(res, 200).signingSecret, p.signingSecret)
      assert.match((await shared.db.query<{ value: string }>("SELECT value FROM settings WHERE key = 'jwt_secret'")).rows[0].value, SEALED)
    } finally {
      await a.close()
      await b.close()
      await shared.close()
    }
  })
})
