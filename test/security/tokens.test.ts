// Issue 24, findings 2 and 8: an access token stops at once when its user is
// deleted, demoted, or has its password set or reset, and after logout of its
// session; a password change or reset ends sessions as
// docs/platform.md "Sessions" says. Checked per request against the user's
// current state, through the per-process cache that LISTEN/NOTIFY evicts in
// every process.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { SignJWT } from 'jose'
import { buildApp } from '../../src/app.ts'
import type { App } from '../../src/core/module.ts'
import { buildTestApp, call, createOrg, mailTexts, unique, type TestApp, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const PASSWORD = 'long enough pw'
const login = (email: string, password = PASSWORD, app: App = t.app) => call(app, 'POST', '/auth/login', { body: { email, password } })

/** A user of `role` made by the org's admin, signed in: its id, e-mail and a token pair. */
async function signedIn(role: string) {
  const email = `${unique(role)}@example.com`
  const user = expectStatus(await org.post('/users', { name: `A ${role}`, email, password: PASSWORD, role }), 201)
  const pair = expectStatus(await login(email), 200)
  return { id: user.id as string, email, access: pair.accessToken as string, refresh: pair.refreshToken as string }
}

const refresh = (refreshToken: string) => call(t.app, 'POST', '/auth/refresh', { body: { refreshToken } })

test("a deleted admin's access token stops at once: it can no longer create an admin", async () => {
  const admin = await signedIn('admin')
  expectStatus(await org.get('/users', admin.access), 200)
  expectStatus(await org.del(`/users/${admin.id}`), 204)
  const made = await org.post('/users', { name: 'Back door', email: `${unique('bd')}@example.com`, password: PASSWORD, role: 'admin' }, admin.access)
  expectStatus(made, 401)
  expectStatus(await org.get('/contacts', admin.access), 401)
  expectStatus(await refresh(admin.refresh), 401)
})

test('a demoted admin stops at once: no more user lists or creations, and its refresh tokens end', async () => {
  const admin = await signedIn('admin')
  expectStatus(await org.get('/users', admin.access), 200)
  expectStatus(await org.patch(`/users/${admin.id}`, { role: 'member' }), 200)
  expectStatus(await org.get('/users', admin.access), 401)
  expectStatus(await org.post('/users', { name: 'X', email: `${unique('x')}@example.com`, password: PASSWORD, role: 'member' }, admin.access), 401)
  expectStatus(await refresh(admin.refresh), 401)
  // Signing in again gives a token of the new role.
  const again = expectStatus(await login(admin.email), 200)
  expectStatus(await org.get('/users', again.accessToken), 403)
  expectStatus(await org.get('/contacts', again.accessToken), 200)
})

test('a deleted member can no longer write contacts', async () => {
  const member = await signedIn('member')
  expectStatus(await org.post('/contacts', { name: 'Before' }, member.access), 201)
  expectStatus(await org.del(`/users/${member.id}`), 204)
  expectStatus(await org.post('/contacts', { name: 'After' }, member.access), 401)
})

test('an admin setting the password ends every session of that user', async () => {
  const member = await signedIn('member')
  const second = expectStatus(await login(member.email), 200)
  expectStatus(await org.patch(`/users/${member.id}`, { password: 'a brand new password' }), 200)
  for (const access of [member.access, second.accessToken]) expectStatus(await org.get('/contacts', access), 401)
  for (const rt of [member.refresh, second.refreshToken]) expectStatus(await refresh(rt), 401)
  expectStatus(await login(member.email), 401)
  expectStatus(await login(member.email, 'a brand new password'), 200)
})

test('a name change ends nothing', async () => {
  const member = await signedIn('member')
  expectStatus(await org.patch(`/users/${member.id}`, { name: 'Renamed' }), 200)
  expectStatus(await org.get('/contacts', member.access), 200)
  expectStatus(await refresh(member.refresh), 200)
})

test("logout ends its session's access token at once, and only that session", async () => {
  const member = await signedIn('member')
  const other = expectStatus(await login(member.email), 200)
  expectStatus(await org.get('/contacts', member.access), 200)
  expectStatus(await call(t.app, 'POST', '/auth/logout', { body: { refreshToken: member.refresh } }), 204)
  expectStatus(await org.get('/contacts', member.access), 401)
  expectStatus(await refresh(member.refresh), 401)
  expectStatus(await org.get('/contacts', other.accessToken), 200)
  // A refreshed token belongs to the same session: logging out with the newest refresh token ends it too.
  const rotated = expectStatus(await refresh(other.refreshToken), 200)
  expectStatus(await call(t.app, 'POST', '/auth/logout', { body: { refreshToken: rotated.refreshToken } }), 204)
  expectStatus(await org.get('/contacts', rotated.accessToken), 401)
  expectStatus(await org.get('/contacts', other.accessToken), 401)
})

test('a token signed with the right key but naming no session, or another role than its user has, is refused', async () => {
  const member = await signedIn('member')
  const key = new TextEncoder().encode(t.config.jwtSecret)
  const noSession = await new SignJWT({ org: org.id, role: 'member' }).setProtectedHeader({ alg: 'HS256' }).setSubject(member.id).setIssuedAt().setExpirationTime('5m').sign(key)
  expectStatus(await org.get('/contacts', noSession), 401)
  const [, payload] = member.access.split('.')
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
  const raised = await new SignJWT({ org: org.id, role: 'admin', sid: claims.sid }).setProtectedHeader({ alg: 'HS256' }).setSubject(member.id).setIssuedAt().setExpirationTime('5m').sign(key)
  expectStatus(await org.get('/users', raised), 401)
})

test('POST /auth/password: wrong current password 401; success ends every other session and keeps the caller\'s', async () => {
  const member = await signedIn('member')
  const other = expectStatus(await login(member.email), 200)
  const path = '/auth/password'
  expectStatus(await org.post(path, { currentPassword: 'not the password', newPassword: 'another long password' }, member.access), 401)
  expectStatus(await org.post(path, { currentPassword: PASSWORD, newPassword: 'short' }, member.access), 422)
  expectStatus(await org.post(path, { currentPassword: PASSWORD, newPassword: 'another long password', extra: 1 }, member.access), 422)
  expectStatus(await call(t.app, 'POST', path, { body: { currentPassword: PASSWORD, newPassword: 'another long password' } }), 401)
  const done = await org.post(path, { currentPassword: PASSWORD, newPassword: 'another long password' }, member.access)
  assert.equal(done.status, 204, JSON.stringify(done.body))
  // The caller's session stays, access and refresh.
  expectStatus(await org.get('/contacts', member.access), 200)
  expectStatus(await refresh(member.refresh), 200)
  // Every other session ends.
  expectStatus(await org.get('/contacts', other.accessToken), 401)
  expectStatus(await refresh(other.refreshToken), 401)
  expectStatus(await login(member.email), 401)
  expectStatus(await login(member.email, 'another long password'), 200)
})

test('POST /auth/password with an API key: the key stays, every session ends', async () => {
  const member = await signedIn('member')
  const key = expectStatus(await org.post('/api-keys', { name: 'k', environment: 'test' }, member.access), 201).key
  expectStatus(await org.post('/auth/password', { currentPassword: PASSWORD, newPassword: 'yet another password' }, key), 204)
  expectStatus(await org.get('/contacts', key), 200)
  expectStatus(await org.get('/contacts', member.access), 401)
})

async function outboxTo(email: string) {
  const list = expectStatus(await org.get(`/admin/outbox?limit=100`), 200)
  return list.data.filter((m: { to: string }) => m.to === email)
}

async function resetToken(email: string) {
  const [text] = await mailTexts(t.app, 'to_address = $1', [email])
  assert.ok(text, `no mail to ${email}`)
  const match = /token=([A-Za-z0-9_-]+)/.exec(text)
  assert.ok(match, `no reset link in ${text}`)
  // The outbox keeps the body sealed: the link is not in the database in plaintext.
  const raw = await t.app.ctx.db.query(`SELECT 1 FROM outbox WHERE strpos(text_body, $1) > 0 OR strpos(coalesce(html_body, ''), $1) > 0`, [match[1]])
  assert.equal(raw.rows.length, 0)
  return match[1]
}

test('password reset: always 202; a single-use link for one hour; confirming ends every session', async () => {
  const member = await signedIn('member')
  const unknown = `${unique('nobody')}@example.com`
  const none = await call(t.app, 'POST', '/auth/password-reset', { body: { email: unknown } })
  assert.equal(none.status, 202)
  assert.equal((await outboxTo(unknown)).length, 0)
  expectStatus(await call(t.app, 'POST', '/auth/password-reset', { body: { email: 'not an e-mail' } }), 422)

  const asked = await call(t.app, 'POST', '/auth/password-reset', { body: { email: member.email.toUpperCase() } })
  assert.equal(asked.status, 202)
  assert.deepEqual(asked.body, none.body, 'the answer does not tell whether the e-mail is known')
  const mails = await outboxTo(member.email)
  assert.equal(mails.length, 1)
  const token = await resetToken(member.email)
  // Stored only as a hash.
  const stored = await t.app.ctx.db.query(`SELECT 1 FROM password_resets WHERE token_hash = $1 OR token_hash LIKE '%' || $1 || '%'`, [token])
  assert.equal(stored.rows.length, 0)

  const confirm = (body: unknown) => call(t.app, 'POST', '/auth/password-reset/confirm', { body })
  expectStatus(await confirm({ token: 'unknown-token-value-000000000000', password: 'a reset password' }), 400)
  expectStatus(await confirm({ token, password: 'short' }), 422)
  const ok = await confirm({ token, password: 'a reset password' })
  assert.equal(ok.status, 204, JSON.stringify(ok.body))
  expectStatus(await confirm({ token, password: 'a second reset password' }), 400)
  expectStatus(await org.get('/contacts', member.access), 401)
  expectStatus(await refresh(member.refresh), 401)
  expectStatus(await login(member.email), 401)
  expectStatus(await login(member.email, 'a reset password'), 200)

  // Expired after an hour.
  expectStatus(await call(t.app, 'POST', '/auth/password-reset', { body: { email: member.email } }), 202)
  const late = await resetToken(member.email)
  await t.app.ctx.db.query(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND used_at IS NULL`, [member.id])
  expectStatus(await confirm({ token: late, password: 'too late password' }), 400)

  // The housekeeping job deletes the links expired over a day ago, and only those.
  const links = async () => (await t.app.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM password_resets WHERE user_id = $1', [member.id])).rows[0].n
  expectStatus(await org.post('/admin/jobs/housekeeping/run', {}), 200)
  assert.equal(await links(), 1)
  await t.app.ctx.db.query(`UPDATE password_resets SET expires_at = now() - interval '25 hours' WHERE user_id = $1`, [member.id])
  const swept = expectStatus(await org.post('/admin/jobs/housekeeping/run', {}), 200)
  assert.ok(swept.result.passwordResets >= 1)
  assert.equal(await links(), 0)
})

test('a deletion reaches another process at once (its cache is evicted by NOTIFY)', async () => {
  const other = await buildApp(t.config, { db: t.app.ctx.db, logger: false })
  try {
    const member = await signedIn('member')
    expectStatus(await call(other, 'GET', '/contacts', { token: member.access }), 200)
    expectStatus(await call(t.app, 'GET', '/contacts', { token: member.access }), 200)
    expectStatus(await org.del(`/users/${member.id}`), 204)
    expectStatus(await call(t.app, 'GET', '/contacts', { token: member.access }), 401)
    let status = 200
    for (let i = 0; i < 50 && status === 200; i++) {
      status = (await call(other, 'GET', '/contacts', { token: member.access })).status
      if (status === 200) await new Promise((r) => setTimeout(r, 20))
    }
    assert.equal(status, 401)
    // A logout in one process ends the session in the other.
    const second = await signedIn('member')
    expectStatus(await call(other, 'GET', '/contacts', { token: second.access }), 200)
    expectStatus(await call(t.app, 'POST', '/auth/logout', { body: { refreshToken: second.refresh } }), 204)
    status = 200
    for (let i = 0; i < 50 && status === 200; i++) {
      status = (await call(other, 'GET', '/contacts', { token: second.access })).status
      if (status === 200) await new Promise((r) => setTimeout(r, 20))
    }
    assert.equal(status, 401)
  } finally {
    await other.close()
  }
})
