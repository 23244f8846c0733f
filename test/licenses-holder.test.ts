// Licenses' holders by name (issue 29, item 10; docs/licenses.md "Holders by name"): the admin
// license routes carry the holder as {id, name, email}, and GET /admin/license-holders lets
// support (who may not list users) find a customer account by name or e-mail. Through HTTP,
// with the OWASP API checks: never another organization's account (BOLA), never a staff
// account's details to support, nothing but id, name and e-mail (BOPLA), bounded pages.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'
import { adminUserId, createLicensedProduct, type LicensedProduct } from './helpers/licenses.ts'

let t: TestApp
let org: TestOrg
let other: TestOrg
let product: LicensedProduct
let support: string
/** A word in the names of this test's customers, so that searches find them and nothing else. */
const word = unique('Zed').toLowerCase()

interface Account {
  id: string
  name: string
  email: string
}

async function user(o: TestOrg, name: string, role: string): Promise<Account> {
  const res = await o.post('/users', { name, email: `${unique(role)}@example.com`, password: 'long enough password', role })
  expectStatus(res, 201)
  return { id: res.body.id, name: res.body.name, email: res.body.email }
}

let ann: Account
let bob: Account
let member: Account
let stranger: Account
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  other = await createOrg(t.app)
  product = await createLicensedProduct(org)
  support = await org.as('support')
  ann = await user(org, `Ann ${word} Archer`, 'customer')
  bob = await user(org, `Bob ${word} Baker`, 'customer')
  member = await user(org, `Mel ${word} Member`, 'member')
  // Same name word, another organization.
  stranger = await user(other, `Ann ${word} Archer`, 'customer')
})
after(() => t.close())

const keysOf = (o: object) => Object.keys(o).sort()

describe('the holder on the admin license routes', () => {
  test('issue, get, list and the transitions answer the holder as {id, name, email}, to admin and support', async () => {
    for (const token of [org.token, support]) {
      const issued = expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: ann.id }, token), 201)
      assert.deepEqual(issued.holder, ann)
      assert.equal(issued.userId, ann.id)
      assert.deepEqual(keysOf(issued.holder), ['email', 'id', 'name'])
      assert.deepEqual((await org.get(`/admin/licenses/${issued.id}`, token)).body.holder, ann)
      const listed = expectStatus(await org.get(`/admin/licenses?userId=${ann.id}&limit=100`, token), 200)
      assert.ok(listed.data.length >= 1)
      for (const l of listed.data) assert.deepEqual(l.holder, ann)
      assert.deepEqual(expectStatus(await org.post(`/admin/licenses/${issued.id}/suspend`, {}, token), 200).holder, ann)
      assert.deepEqual(expectStatus(await org.post(`/admin/licenses/${issued.id}/reinstate`, {}, token), 200).holder, ann)
      assert.deepEqual(expectStatus(await org.post(`/admin/licenses/${issued.id}/revoke`, {}, token), 200).holder, ann)
    }
  })

  test("a staff account's name and e-mail are shown to admins, not to support", async () => {
    const adminId = await adminUserId(org)
    const toStaff = expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: member.id }), 201)
    assert.deepEqual(toStaff.holder, member)
    const toAdmin = expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: adminId }), 201)
    assert.equal(toAdmin.holder.id, adminId)
    assert.equal(toAdmin.holder.email, org.adminEmail)
    for (const l of [toStaff, toAdmin]) {
      const seen = expectStatus(await org.get(`/admin/licenses/${l.id}`, support), 200)
      assert.equal(seen.holder, null)
      assert.equal(seen.userId, l.userId)
      const listed = expectStatus(await org.get(`/admin/licenses?userId=${l.userId}`, support), 200)
      assert.deepEqual(listed.data.map((x: { holder: unknown }) => x.holder), [null])
      assert.ok(!JSON.stringify(listed).includes(l.holder.email))
    }
  })

  test('a deleted holder leaves no holder; the customer portal and the events do not carry the holder', async () => {
    const gone = await user(org, `Gus ${word} Gone`, 'customer')
    const l = expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: bob.id }), 201)
    const g = expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: gone.id }), 201)
    expectStatus(await org.del(`/users/${gone.id}`), 204)
    const after = expectStatus(await org.get(`/admin/licenses/${g.id}`), 200)
    assert.equal(after.userId, null)
    assert.equal(after.holder, null)
    // GET /licenses is the caller's own: no holder there (it is the caller).
    const login = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: bob.email, password: 'long enough password' } })
    const mine = await org.get('/licenses', login.json().accessToken)
    expectStatus(mine, 200)
    const own = mine.body.find((x: { id: string }) => x.id === l.id)
    assert.ok(own)
    assert.equal('holder' in own, false)
    const events = expectStatus(await org.get('/events?type=license.created&limit=100'), 200)
    assert.ok(events.data.length > 0)
    for (const e of events.data) assert.equal('holder' in e.data.object, false)
  })
})

describe('GET /admin/license-holders', () => {
  test('support finds customer accounts by name or e-mail: A to Z, {id, name, email} only, no staff', async () => {
    const found = expectStatus(await org.get(`/admin/license-holders?search=${word}`, support), 200)
    assert.deepEqual(found.data, [ann, bob])
    assert.equal(found.meta.total, 2)
    for (const h of found.data) assert.deepEqual(keysOf(h), ['email', 'id', 'name'])
    const text = JSON.stringify(found)
    for (const hidden of ['password', 'hash', 'role', 'organizationId', member.email]) assert.ok(!text.includes(hidden), hidden)
    const byMail = expectStatus(await org.get(`/admin/license-holders?search=${encodeURIComponent(bob.email)}`, support), 200)
    assert.deepEqual(byMail.data, [bob])
    // The staff member is not found, by name nor e-mail.
    assert.deepEqual(expectStatus(await org.get(`/admin/license-holders?search=${encodeURIComponent(member.email)}`, support), 200).data, [])
    assert.deepEqual(expectStatus(await org.get(`/admin/license-holders?search=${encodeURIComponent(org.adminEmail)}`, support), 200).data, [])
    // Admins get the same answer.
    assert.deepEqual(expectStatus(await org.get(`/admin/license-holders?search=${word}`), 200).data, [ann, bob])
  })

  test('the one found is the one a license is issued to, and the license names them', async () => {
    const [picked] = expectStatus(await org.get(`/admin/license-holders?search=${encodeURIComponent(`bob ${word}`)}`, support), 200).data
    assert.deepEqual(picked, bob)
    const l = expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: picked.id }, support), 201)
    assert.deepEqual(l.holder, bob)
  })

  test('never another organization: its customers are not found, not issued to, their licenses not seen', async () => {
    const found = expectStatus(await org.get(`/admin/license-holders?search=${word}&limit=20`, support), 200)
    assert.ok(!found.data.some((h: Account) => h.id === stranger.id))
    assert.deepEqual(expectStatus(await org.get(`/admin/license-holders?search=${encodeURIComponent(stranger.email)}`, support), 200).data, [])
    // The other organization's support sees its own customer only.
    const theirs = expectStatus(await other.get(`/admin/license-holders?search=${word}`, await other.as('support')), 200)
    assert.deepEqual(theirs.data, [stranger])
    assert.equal(theirs.meta.total, 1)
    // Issuing to the stranger is refused and makes nothing; a license of the other organization is 404 with no holder shown.
    const before = (await org.get('/admin/licenses?limit=1')).body.meta.total
    expectStatus(await org.post('/admin/licenses', { productId: product.id, userId: stranger.id }, support), 422, 'userId does not name a user')
    assert.equal((await org.get('/admin/licenses?limit=1')).body.meta.total, before)
    const foreignProduct = await createLicensedProduct(other)
    const foreign = expectStatus(await other.post('/admin/licenses', { productId: foreignProduct.id, userId: stranger.id }), 201)
    const res = await org.get(`/admin/licenses/${foreign.id}`, support)
    expectStatus(res, 404)
    assert.ok(!JSON.stringify(res.body).includes(stranger.email))
    assert.ok(!(await org.get(`/admin/licenses?userId=${stranger.id}`, support)).body.data.length)
  })

  test('bounded: at most 20 a page; the roles of the admin license routes only', async () => {
    for (let i = 0; i < 22; i++) await user(org, `Many ${word} ${String(i).padStart(2, '0')}`, 'customer')
    const first = expectStatus(await org.get(`/admin/license-holders?search=many%20${word}`, support), 200)
    assert.equal(first.data.length, 20)
    assert.equal(first.meta.total, 22)
    assert.deepEqual(first.data.map((h: Account) => h.name), [...first.data.map((h: Account) => h.name)].sort())
    const second = expectStatus(await org.get(`/admin/license-holders?search=many%20${word}&page=2`, support), 200)
    assert.equal(second.data.length, 2)
    expectStatus(await org.get('/admin/license-holders?limit=21', support), 400)
    expectStatus(await org.get(`/admin/license-holders?search=${'x'.repeat(201)}`, support), 400)
    expectStatus(await org.get('/admin/license-holders?role=admin', support), 400)
    for (const role of ['member', 'agent', 'customer'] as const) expectStatus(await org.get('/admin/license-holders', await org.as(role)), 403)
    expectStatus(await org.get('/admin/license-holders', ''), 401)
  })
})
