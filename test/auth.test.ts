import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { SignJWT } from 'jose'
import { buildApp } from '../src/app.ts'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const login = (email: string, password: string) => call(t.app, 'POST', '/auth/login', { body: { email, password } })

test('register creates an organization and its admin user', async () => {
  const email = `${unique('reg')}@example.com`
  const res = await call(t.app, 'POST', '/auth/register', { body: { organizationName: 'Acme', name: 'Ann', email, password: 'long enough pw' } })
  const body = expectStatus(res, 201)
  assert.equal(body.user.role, 'admin')
  assert.equal(body.user.email, email)
  assert.equal(body.user.organizationId, body.organization.id)
  assert.equal(body.organization.name, 'Acme')
  assert.equal(body.expiresIn, 900)
  assert.ok(body.accessToken && body.refreshToken)
  assert.equal(body.user.passwordHash, undefined)
  const me = expectStatus(await call(t.app, 'GET', '/auth/me', { token: body.accessToken }), 200)
  assert.equal(me.user.id, body.user.id)
  assert.equal(me.organization.id, body.organization.id)
})

test('register: validation, duplicate e-mail, sign-up switch', async () => {
  const short = await call(t.app, 'POST', '/auth/register', { body: { organizationName: 'A', name: 'B', email: 'x@example.com', password: 'short' } })
  expectStatus(short, 422, 'password must NOT have fewer than 10 characters')
  const dup = await call(t.app, 'POST', '/auth/register', { body: { organizationName: 'A', name: 'B', email: org.adminEmail.toUpperCase(), password: 'long enough pw' } })
  expectStatus(dup, 409, 'A user with this email already exists')
  const closed = await buildTestApp({ ALLOW_SIGNUP: 'false' })
  const res = await call(closed.app, 'POST', '/auth/register', { body: { organizationName: 'A', name: 'B', email: 'y@example.com', password: 'long enough pw' } })
  expectStatus(res, 403, 'Sign-up is turned off')
  await closed.close()
})

test('login: right and wrong credentials', async () => {
  const ok = expectStatus(await login(org.adminEmail, org.password), 200)
  assert.ok(ok.accessToken && ok.refreshToken && ok.expiresIn)
  expectStatus(await login(org.adminEmail, 'wrong password'), 401, 'Invalid e-mail or password')
  expectStatus(await login('nobody@example.com', org.password), 401, 'Invalid e-mail or password')
})

test('refresh rotates the pair; a spent refresh token revokes its whole family', async () => {
  const first = expectStatus(await login(org.adminEmail, org.password), 200)
  const second = expectStatus(await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } }), 200)
  assert.notEqual(second.refreshToken, first.refreshToken)
  expectStatus(await call(t.app, 'GET', '/auth/me', { token: second.accessToken }), 200)
  // Reuse of the spent token: refused, and the newer token of the family dies too.
  expectStatus(await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } }), 401)
  expectStatus(await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: second.refreshToken } }), 401)
  // Another family (another login) is untouched.
  const other = expectStatus(await login(org.adminEmail, org.password), 200)
  expectStatus(await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: other.refreshToken } }), 200)
})

test('parallel refreshes of one token: exactly one wins', async () => {
  const pair = expectStatus(await login(org.adminEmail, org.password), 200)
  const results = await Promise.all(Array.from({ length: 10 }, () => call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: pair.refreshToken } })))
  assert.equal(results.filter((r) => r.status === 200).length, 1)
  assert.equal(results.filter((r) => r.status === 401).length, 9)
})

test('logout revokes the refresh token', async () => {
  const pair = expectStatus(await login(org.adminEmail, org.password), 200)
  expectStatus(await call(t.app, 'POST', '/auth/logout', { body: { refreshToken: pair.refreshToken } }), 204)
  expectStatus(await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: pair.refreshToken } }), 401)
})

test('housekeeping deletes refresh tokens revoked or expired over a day ago', async () => {
  const pair = expectStatus(await login(org.adminEmail, org.password), 200)
  expectStatus(await call(t.app, 'POST', '/auth/logout', { body: { refreshToken: pair.refreshToken } }), 204)
  const live = expectStatus(await login(org.adminEmail, org.password), 200)
  await t.app.ctx.db.query(`UPDATE refresh_tokens SET revoked_at = now() - interval '2 days' WHERE revoked_at IS NOT NULL`)
  const run = expectStatus(await org.post('/admin/jobs/housekeeping/run', {}), 200)
  assert.ok(run.result.refreshTokens >= 1)
  const { rows } = await t.app.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM refresh_tokens WHERE revoked_at IS NOT NULL')
  assert.equal(rows[0].n, 0)
  expectStatus(await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: live.refreshToken } }), 200)
})

test('missing, malformed, forged and expired credentials: 401', async () => {
  expectStatus(await call(t.app, 'GET', '/contacts'), 401, 'Missing bearer credential')
  expectStatus(await call(t.app, 'GET', '/contacts', { headers: { authorization: 'Basic abc' } }), 401)
  expectStatus(await call(t.app, 'GET', '/contacts', { token: 'bp_test_notakey' }), 401, 'Invalid or revoked API key')
  const key = new TextEncoder().encode(t.config.jwtSecret)
  const expired = await new SignJWT({ org: org.id, role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setSubject('u').setIssuedAt(1000).setExpirationTime(2000).sign(key)
  expectStatus(await call(t.app, 'GET', '/contacts', { token: expired }), 401, 'Access token expired')
  const forged = await new SignJWT({ org: org.id, role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setSubject('u').setExpirationTime('1h').sign(new TextEncoder().encode('another secret of enough length 123456'))
  expectStatus(await call(t.app, 'GET', '/contacts', { token: forged }), 401, 'Invalid access token')
})

test('API keys: shown once, then only prefix and last4; work as bearer; revocation is immediate', async () => {
  const created = expectStatus(await org.post('/api-keys', { name: 'CI', environment: 'test' }), 201)
  assert.match(created.key, /^bp_test_[A-Za-z0-9_-]{32}$/)
  assert.equal(created.prefix, created.key.slice(0, 12))
  assert.equal(created.last4, created.key.slice(-4))
  assert.equal(created.role, 'admin')
  const list = expectStatus(await org.get('/api-keys'), 200)
  const listed = list.data.find((k: { id: string }) => k.id === created.id)
  assert.equal(listed.key, undefined)
  assert.equal(listed.last4, created.last4)
  expectStatus(await org.get('/contacts', created.key), 200)
  expectStatus(await org.del(`/api-keys/${created.id}`), 204)
  expectStatus(await org.get('/contacts', created.key), 401)
  expectStatus(await org.del(`/api-keys/${created.id}`), 404)
})

test('revocation reaches every process at once: a key cached by another app instance stops working', async () => {
  const other = await buildApp(t.config, { db: t.app.ctx.db, logger: false })
  try {
    const created = expectStatus(await org.post('/api-keys', { name: 'shared', environment: 'test' }), 201)
    // Both processes have resolved (and cached) the key.
    expectStatus(await call(other, 'GET', '/contacts', { token: created.key }), 200)
    expectStatus(await org.get('/contacts', created.key), 200)
    expectStatus(await org.del(`/api-keys/${created.id}`), 204)
    expectStatus(await org.get('/contacts', created.key), 401)
    // The other process hears of it through NOTIFY, delivered when the revocation commits.
    let status = 200
    for (let i = 0; i < 50 && status === 200; i++) {
      status = (await call(other, 'GET', '/contacts', { token: created.key })).status
      if (status === 200) await new Promise((r) => setTimeout(r, 20))
    }
    assert.equal(status, 401)

    // Deleting a user ends its cached keys too.
    const user = expectStatus(await org.post('/users', { name: 'Temp', email: `${unique('temp')}@example.com`, password: 'long enough pw', role: 'admin' }), 201)
    const login = expectStatus(await call(t.app, 'POST', '/auth/login', { body: { email: user.email, password: 'long enough pw' } }), 200)
    const key = expectStatus(await call(t.app, 'POST', '/api-keys', { token: login.accessToken, body: { name: 'temp', environment: 'test' } }), 201)
    expectStatus(await org.get('/contacts', key.key), 200)
    expectStatus(await org.del(`/users/${user.id}`), 204)
    expectStatus(await org.get('/contacts', key.key), 401)
  } finally {
    await other.close()
  }
})

test('a key of the other environment gets 403', async () => {
  const live = expectStatus(await org.post('/api-keys', { name: 'prod', environment: 'live' }), 201)
  assert.match(live.key, /^bp_live_/)
  expectStatus(await org.get('/contacts', live.key), 403, 'live key cannot be used on the test environment')
  const liveApp = await buildTestApp({ API_ENV: 'live' })
  const liveOrg = await createOrg(liveApp.app)
  const testKey = expectStatus(await liveOrg.post('/api-keys', { name: 'dev', environment: 'test' }), 201)
  expectStatus(await liveOrg.get('/contacts', testKey.key), 403)
  const liveKey = expectStatus(await liveOrg.post('/api-keys', { name: 'prod', environment: 'live' }), 201)
  expectStatus(await liveOrg.get('/contacts', liveKey.key), 200)
  await liveApp.close()
})

test('roles: keys carry a role; a role that may not gets 403', async () => {
  const member = await org.as('member')
  expectStatus(await org.get('/contacts', member), 200)
  expectStatus(await org.get('/users', member), 403, 'Role member may not use this route')
  const customer = await org.as('customer')
  expectStatus(await org.get('/contacts', customer), 403)
  expectStatus(await org.get('/products', customer), 200)
  // Only admins give a key another role than their own, and never a higher one.
  expectStatus(await org.post('/api-keys', { name: 'x', environment: 'test', role: 'admin' }, member), 403)
  const own = expectStatus(await org.post('/api-keys', { name: 'mine', environment: 'test' }, member), 201)
  assert.equal(own.role, 'member')
  // Non-admins see and revoke only their own keys.
  const seen = expectStatus(await org.get('/api-keys', member), 200)
  assert.ok(seen.data.every((k: { role: string }) => k.role === 'member'))
  const adminKey = expectStatus(await org.post('/api-keys', { name: 'admin only', environment: 'test' }), 201)
  expectStatus(await org.del(`/api-keys/${adminKey.id}`, member), 404)
  expectStatus(await org.get('/contacts', adminKey.key), 200)
})

test("passwords: scrypt at OWASP's cost (N=2^17, r=8, p=1) stored with its parameters; an older hash is replaced at the next good login", async () => {
  const strong = await buildTestApp({ PASSWORD_HASH_COST: '17' })
  try {
    const email = `${unique('pw')}@example.com`
    const reg = await call(strong.app, 'POST', '/auth/register', { body: { organizationName: 'Hashes', name: 'Hal', email, password: 'correct horse battery' } })
    assert.equal(reg.status, 201, JSON.stringify(reg.body))
    const stored = async () => (await strong.app.ctx.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE email = $1', [email])).rows[0].password_hash
    assert.match(await stored(), /^scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/)

    // The first format: Node's default parameters (N=2^14), no parameters stored.
    const { randomBytes, scryptSync } = await import('node:crypto')
    const salt = randomBytes(16)
    const legacy = `scrypt$${salt.toString('base64')}$${scryptSync('correct horse battery', salt, 32).toString('base64')}`
    await strong.app.ctx.db.query('UPDATE users SET password_hash = $2 WHERE email = $1', [email, legacy])
    const wrong = await call(strong.app, 'POST', '/auth/login', { body: { email, password: 'wrong horse battery' } })
    assert.equal(wrong.status, 401)
    assert.equal(await stored(), legacy, 'a failed login changes nothing')
    const ok = await call(strong.app, 'POST', '/auth/login', { body: { email, password: 'correct horse battery' } })
    assert.equal(ok.status, 200)
    assert.match(await stored(), /^scrypt\$ln=17,r=8,p=1\$/)
    assert.equal((await call(strong.app, 'POST', '/auth/login', { body: { email, password: 'correct horse battery' } })).status, 200, 'the new hash verifies')
  } finally {
    await strong.close()
  }
})
