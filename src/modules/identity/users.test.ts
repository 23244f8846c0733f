import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { afterTimestamp, expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const ROLES = ['admin', 'support', 'agent', 'member', 'customer'] as const
const PASSWORD = 'a long enough password'
const email = (label = 'user') => `${unique(label)}@example.com`

async function createUser(org: TestOrg, overrides: Record<string, unknown> = {}) {
  return expectStatus(await org.post('/users', { name: unique('User '), email: email(), password: PASSWORD, role: 'member', ...overrides }), 201)
}
async function login(address: string, password = PASSWORD) {
  return call(t.app, 'POST', '/auth/login', { body: { email: address, password } })
}
const me = async (org: TestOrg) => expectStatus(await org.get('/auth/me'), 200).user

test('create users of every role; the record never shows the password', async () => {
  const org = await createOrg(t.app)
  for (const role of ROLES) {
    const address = email(role)
    const u = expectStatus(await org.post('/users', { name: `A ${role}`, email: address, password: PASSWORD, role }), 201)
    assert.deepEqual(Object.keys(u).sort(), ['createdAt', 'email', 'id', 'name', 'organizationId', 'role', 'updatedAt'])
    assert.deepEqual([u.name, u.email, u.role, u.organizationId], [`A ${role}`, address, role, org.id])
    assert.deepEqual(expectStatus(await org.get(`/users/${u.id}`), 200), u)
  }
  expectPage(await org.get('/users'), { total: 6, page: 1, limit: 20 })
})

test('a created user logs in, and its token carries its role', async () => {
  const org = await createOrg(t.app)
  const member = await createUser(org, { role: 'member' })
  const tokens = expectStatus(await login(member.email.toUpperCase()), 200)
  assert.ok(tokens.accessToken && tokens.refreshToken && tokens.expiresIn > 0)
  const whoami = expectStatus(await org.get('/auth/me', tokens.accessToken), 200)
  assert.deepEqual([whoami.user.id, whoami.user.role, whoami.organization.id], [member.id, 'member', org.id])
  expectStatus(await org.get('/users', tokens.accessToken), 403)
  expectStatus(await org.post('/users', { name: 'X', email: email(), password: PASSWORD, role: 'admin' }, tokens.accessToken), 403)
  expectStatus(await org.get('/contacts', tokens.accessToken), 200)

  const customer = await createUser(org, { role: 'customer' })
  const customerToken = expectStatus(await login(customer.email), 200).accessToken
  expectStatus(await org.get('/contacts', customerToken), 403)
  expectStatus(await org.get('/users', customerToken), 403)

  const admin = await createUser(org, { role: 'admin' })
  const adminToken = expectStatus(await login(admin.email), 200).accessToken
  expectStatus(await org.get('/users', adminToken), 200)
  expectStatus(await login(member.email, 'wrong password!'), 401)
})

test('users are admin-only: every other role gets 403, no credential 401', async () => {
  const org = await createOrg(t.app)
  const u = await createUser(org)
  const routes = [['GET', '/users'], ['POST', '/users'], ['GET', `/users/${u.id}`], ['PATCH', `/users/${u.id}`], ['DELETE', `/users/${u.id}`]] as const
  for (const [method, path] of routes) {
    const body = method === 'POST' ? { name: 'X', email: email(), password: PASSWORD, role: 'member' } : method === 'PATCH' ? { name: 'X' } : undefined
    expectStatus(await call(t.app, method, path, { body }), 401)
    for (const role of ['support', 'agent', 'member', 'customer'] as const) {
      expectStatus(await call(t.app, method, path, { body, token: await org.as(role) }), 403)
    }
  }
  assert.equal(expectStatus(await org.get(`/users/${u.id}`), 200).name, u.name)
})

test('duplicate e-mail is 409 whatever its case, also across organizations (e-mail is the login)', async () => {
  const org = await createOrg(t.app)
  const u = await createUser(org)
  expectStatus(await org.post('/users', { name: 'Again', email: u.email.toUpperCase(), password: PASSWORD, role: 'member' }), 409, 'A user with this email already exists')
  expectStatus(await org.post('/users', { name: 'Admin twin', email: org.adminEmail, password: PASSWORD, role: 'member' }), 409)
  const other = await createOrg(t.app)
  expectStatus(await other.post('/users', { name: 'Elsewhere', email: u.email, password: PASSWORD, role: 'member' }), 409)
  const second = await createUser(org)
  expectStatus(await org.patch(`/users/${second.id}`, { email: u.email }), 409)
  const results = await Promise.all(Array.from({ length: 10 }, () => org.post('/users', { name: 'Race', email: 'race@example.com', password: PASSWORD, role: 'member' })))
  assert.deepEqual(results.map((r) => r.status).sort(), [201, ...Array(9).fill(409)])
})

test('bad bodies: 422 with every failed rule; password at least 10 characters', async () => {
  const org = await createOrg(t.app)
  const res = expectStatus(await org.post('/users', { name: 'Short', email: 'not-an-email', password: '123456789', role: 'owner' }), 422)
  assert.equal(res.message.length, 3, JSON.stringify(res.message))
  expectStatus(await org.post('/users', { name: 'X', email: email(), password: '123456789', role: 'member' }), 422, 'password')
  assert.equal((await createUser(org, { password: '1234567890' })).role, 'member')
  for (const [body, field] of [
    [{ name: 'X', email: email(), password: PASSWORD }, 'role'],
    [{ name: 'X', email: email(), password: PASSWORD, role: 'member', organizationId: org.id }, 'organizationId'],
    [{ name: 'X', email: email(), password: PASSWORD, role: 'member', passwordHash: 'x' }, 'passwordHash'],
    [{ name: '', email: email(), password: PASSWORD, role: 'member' }, 'name'],
  ] as const) {
    expectStatus(await org.post('/users', body), 422, field)
  }
  const u = await createUser(org)
  for (const body of [{}, { password: 'short' }, { role: 'owner' }, { organizationId: org.id }]) expectStatus(await org.patch(`/users/${u.id}`, body), 422)
  expectStatus(await call(t.app, 'POST', '/users', { token: org.token, body: '{"name":', headers: { 'content-type': 'application/json' } }), 400, 'Malformed JSON')
})

test('patch: name, e-mail, role and password; the new password is the one that works', async () => {
  const org = await createOrg(t.app)
  const u = await createUser(org)
  const newEmail = email('renamed')
  const patched = expectStatus(await org.patch(`/users/${u.id}`, { name: 'Renamed', email: newEmail, role: 'support' }), 200)
  assert.deepEqual({ ...patched, updatedAt: u.updatedAt }, { ...u, name: 'Renamed', email: newEmail, role: 'support' })
  assert.deepEqual(expectStatus(await org.get(`/users/${u.id}`), 200), patched)
  expectStatus(await login(u.email), 401)
  const token = expectStatus(await login(newEmail), 200).accessToken
  assert.equal(expectStatus(await org.get('/auth/me', token), 200).user.role, 'support')

  expectStatus(await org.patch(`/users/${u.id}`, { password: 'another long password' }), 200)
  expectStatus(await login(newEmail), 401)
  expectStatus(await login(newEmail, 'another long password'), 200)
  expectStatus(await org.patch('/users/00000000-0000-4000-8000-000000000000', { name: 'X' }), 404)
})

test('an admin cannot delete itself or change its own role (400); deleting a user ends its access', async () => {
  const org = await createOrg(t.app)
  const self = await me(org)
  expectStatus(await org.del(`/users/${self.id}`), 400, 'You cannot delete yourself')
  expectStatus(await org.patch(`/users/${self.id}`, { role: 'member' }), 400, 'You cannot change your own role')
  assert.equal(expectStatus(await org.patch(`/users/${self.id}`, { name: 'Still admin' }), 200).role, 'admin')

  const u = await createUser(org)
  const tokens = expectStatus(await login(u.email), 200)
  expectStatus(await org.del(`/users/${u.id}`), 204)
  expectStatus(await org.get(`/users/${u.id}`), 404, 'User not found')
  expectStatus(await org.del(`/users/${u.id}`), 404)
  expectStatus(await login(u.email), 401)
  expectStatus(await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: tokens.refreshToken } }), 401)
  expectStatus(await org.get('/auth/me', tokens.accessToken), 401)
})

test("demoting a user revokes its API keys of other roles, so a key never outranks its user", async () => {
  const org = await createOrg(t.app)
  const u = await createUser(org, { role: 'admin' })
  const token = expectStatus(await login(u.email), 200).accessToken
  const adminKey = expectStatus(await org.post('/api-keys', { name: 'admin key', environment: t.config.apiEnv }, token), 201).key
  const memberKey = expectStatus(await org.post('/api-keys', { name: 'member key', environment: t.config.apiEnv, role: 'member' }, token), 201).key
  expectStatus(await org.get('/users', adminKey), 200)

  expectStatus(await org.patch(`/users/${u.id}`, { role: 'member' }), 200)
  expectStatus(await org.get('/users', adminKey), 401)
  expectStatus(await org.get('/contacts', memberKey), 200)
  // Its access token stops at once (docs/platform.md "Sessions"); signed in again, it mints keys of its new role only.
  expectStatus(await org.post('/api-keys', { name: 'sneaky', environment: t.config.apiEnv }, token), 401)
  const again = expectStatus(await login(u.email), 200).accessToken
  expectStatus(await org.post('/api-keys', { name: 'sneaky', environment: t.config.apiEnv, role: 'admin' }, again), 403)
  expectStatus(await org.post('/api-keys', { name: 'fine', environment: t.config.apiEnv, role: 'member' }, again), 201)
  expectStatus(await org.patch(`/users/${u.id}`, { role: 'customer' }), 200)
  expectStatus(await org.get('/contacts', memberKey), 401)
})

test('list: role filter, search over name and e-mail, sortBy name, email, role and createdAt, query rules', async () => {
  const org = await createOrg(t.app)
  const admin = await me(org)
  await afterTimestamp(admin.createdAt)
  const ann = await createUser(org, { name: 'Ann', email: email('ann'), role: 'support' })
  const bob = await createUser(org, { name: 'Bob', email: `bob_${unique()}@example.com`, role: 'agent' })
  const cy = await createUser(org, { name: 'Cy', email: `cy${unique()}@Bob-mail.example`, role: 'customer' })
  const list = async (q: string) => idsOf(await org.get(`/users?${q}`))
  assert.deepEqual(await list('role=support'), [ann.id])
  assert.deepEqual(await list('role=admin'), [admin.id])
  assert.deepEqual(await list('search=BOB'), [bob.id, cy.id].sort())
  assert.deepEqual(await list('search=bob_'), [bob.id])
  assert.deepEqual(await list('search=bob&role=customer'), [cy.id])
  for (const field of ['name', 'email', 'role', 'createdAt']) await expectSortable((p) => org.get(p), '/users', field)
  const roles = (await org.get('/users?sortBy=role&sortOrder=asc')).body.data.map((u: { role: string }) => u.role)
  assert.deepEqual(roles, ['admin', 'agent', 'customer', 'support'])
  expectPage(await org.get('/users?limit=3&page=2'), { total: 4, page: 2, limit: 3 })
  await expectListQueryRules((p) => org.get(p), '/users', 'password')
  expectStatus(await org.get('/users?role=owner'), 400)
})

test("another organization's user is 404 on get, patch and delete, and never listed", async () => {
  const owner = await createOrg(t.app)
  const stranger = await createOrg(t.app)
  const u = await createUser(owner)
  expectStatus(await stranger.get(`/users/${u.id}`), 404)
  expectStatus(await stranger.patch(`/users/${u.id}`, { role: 'admin' }), 404)
  expectStatus(await stranger.del(`/users/${u.id}`), 404)
  expectPage(await stranger.get('/users'), { total: 1, page: 1, limit: 20 })
  assert.deepEqual(expectStatus(await owner.get(`/users/${u.id}`), 200), u)
  expectStatus(await login(u.email), 200)
})
