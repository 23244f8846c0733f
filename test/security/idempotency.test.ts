// Issue 24, finding 4: Idempotency-Key records are scoped to the credential
// that sent them (an API key, or the user of an access token), and an answer
// that shows a secret once is never stored in plaintext.
// docs/platform.md "Idempotency".
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'
import { CANCEL_URL, SUCCESS_URL } from '../helpers/billing.ts'
import { adminUserId, createCustomer, createLicensedProduct, issueLicense } from '../helpers/licenses.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const withKey = (key: string) => ({ 'idempotency-key': key })

/** Every stored answer, as the database holds it. */
async function storedBodies() {
  const { rows } = await t.app.ctx.db.query<{ body: string | null; key: string }>('SELECT key, body FROM idempotency_keys')
  return rows
}

test("a customer replaying an admin's Idempotency-Key and body does not receive the admin's new API key", async () => {
  const key = unique('idem')
  const body = { name: 'deploy', environment: 'test' }
  const admin = expectStatus(await org.post('/api-keys', body, org.token, withKey(key)), 201)
  assert.equal(admin.role, 'admin')
  const customer = await org.as('customer')
  const theirs = await org.post('/api-keys', body, customer, withKey(key))
  expectStatus(theirs, 201)
  assert.equal(theirs.headers['idempotent-replayed'], undefined)
  assert.equal(theirs.body.role, 'customer')
  assert.notEqual(theirs.body.key, admin.key)
  // The admin's own retry is still replayed, with its key.
  const replay = await org.post('/api-keys', body, org.token, withKey(key))
  assert.equal(replay.headers['idempotent-replayed'], 'true')
  assert.equal(replay.body.key, admin.key)
})

test('another API key of the same user, or another user of the organization, never receives a stored answer', async () => {
  const key = unique('idem')
  const member = await org.as('member')
  const first = expectStatus(await org.post('/contacts', { name: 'Once' }, member, withKey(key)), 201)
  const sameUserOtherKey = expectStatus(await org.post('/api-keys', { name: 'second', environment: 'test', role: 'member' }), 201).key
  const other = await org.post('/contacts', { name: 'Once' }, sameUserOtherKey, withKey(key))
  expectStatus(other, 201)
  assert.equal(other.headers['idempotent-replayed'], undefined)
  assert.notEqual(other.body.id, first.id)
  // The same credential is replayed.
  const again = await org.post('/contacts', { name: 'Once' }, member, withKey(key))
  assert.equal(again.headers['idempotent-replayed'], 'true')
  assert.equal(again.body.id, first.id)
})

test('public routes are scoped per client IP', async () => {
  const key = unique('idem')
  const settings = expectStatus(await org.get('/crm/capture-settings'), 200)
  const send = (ip: string) => t.app.inject({ method: 'POST', url: '/api/crm/capture', remoteAddress: ip, headers: withKey(key), payload: { captureToken: settings.captureToken, name: 'Lead', email: 'lead@example.com' } })
  const a = await send('10.0.0.1')
  const b = await send('10.0.0.2')
  assert.equal(a.statusCode, 201)
  assert.equal(b.statusCode, 201)
  assert.equal(b.headers['idempotent-replayed'], undefined)
})

test('answers that show a secret once are replayed to their credential but never stored in plaintext', async () => {
  const apiKey = expectStatus(await org.post('/api-keys', { name: 'sealed', environment: 'test' }, org.token, withKey(unique('k'))), 201).key
  const endpoint = expectStatus(await org.post('/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', enabledEvents: ['*'] }, org.token, withKey(unique('w'))), 201)
  const rotateKey = unique('r')
  const rotated = expectStatus(await org.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`, {}, org.token, withKey(rotateKey)), 200)
  // A checkout link (its token pays the checkout) and an offline licence token.
  const product = await createLicensedProduct(org)
  const buyer = await createCustomer(t.app, org)
  const checkout = expectStatus(await org.post('/billing/checkout', { items: [{ productId: product.id, quantity: 1 }], successUrl: SUCCESS_URL, cancelUrl: CANCEL_URL }, buyer.token, withKey(unique('c'))), 201)
  const checkoutToken = new URL(checkout.url).searchParams.get('token')
  assert.ok(checkoutToken)
  const license = await issueLicense(org, { productId: product.id, userId: await adminUserId(org) })
  const req = { key: license.key, module_name: product.moduleName, domain: 'shop.example.com', hw_fingerprint: 'f'.repeat(64), erp_version: product.erpVersion }
  expectStatus(await org.post('/licenses/activate', req, license.key), 200)
  const offline = await org.post('/licenses/issue-token', req, license.key, withKey(unique('o')))
  assert.equal(offline.status, 200, JSON.stringify(offline.body))
  const offlineToken = JSON.stringify(offline.body).match(/ey[\w-]+\.[\w-]+\.[\w-]+/)?.[0]
  assert.ok(offlineToken, `a JWS in ${JSON.stringify(offline.body)}`)
  const secrets = [apiKey, endpoint.secret, rotated.secret, checkoutToken, offlineToken]
  const rows = await storedBodies()
  assert.ok(rows.length >= 5)
  for (const secret of secrets) {
    for (const row of rows) assert.ok(!(row.body ?? '').includes(secret), `a stored answer holds the secret ${secret.slice(0, 10)}...`)
  }
  const replay = await org.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`, {}, org.token, withKey(rotateKey))
  assert.equal(replay.headers['idempotent-replayed'], 'true')
  assert.equal(replay.body.secret, rotated.secret)
})

test('an unauthenticated request with a key does not consume anything of a credential', async () => {
  const key = unique('idem')
  expectStatus(await call(t.app, 'POST', '/contacts', { body: { name: 'x' }, headers: withKey(key) }), 401)
  expectStatus(await org.post('/contacts', { name: 'x' }, org.token, withKey(key)), 201)
})

test('a stored answer that no configured key opens counts as expired: the request runs again, once', async () => {
  const key = unique('idem')
  const first = expectStatus(await org.post('/contacts', { name: 'Sealed' }, org.token, withKey(key)), 201)
  const { rows } = await t.app.ctx.db.query<{ body: string }>('SELECT body FROM idempotency_keys WHERE key = $1', [key])
  assert.match(rows[0].body, /^enc:v1:/)
  // As after a rotation whose previous key was dropped too early: sealed for another place, it does not open.
  await t.app.ctx.db.query('UPDATE idempotency_keys SET body = $2 WHERE key = $1', [key, t.app.ctx.secrets.seal('{}', 'elsewhere')])
  const again = await org.post('/contacts', { name: 'Sealed' }, org.token, withKey(key))
  expectStatus(again, 201)
  assert.equal(again.headers['idempotent-replayed'], undefined)
  assert.notEqual(again.body.id, first.id)
  const replay = await org.post('/contacts', { name: 'Sealed' }, org.token, withKey(key))
  assert.equal(replay.headers['idempotent-replayed'], 'true')
  assert.equal(replay.body.id, again.body.id)
})
