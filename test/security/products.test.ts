// Security review, issue 24, finding 11: customers read products' `cost` and
// `reorderPoint`. docs/products.md "Who reads what": customers see
// the catalogue fields only (cost and reorderPoint absent from their answers);
// admins and members still see them; signingSecret stays admin-only.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Role } from '../../src/core/auth.ts'
import { buildTestApp, createOrg, unique, type TestApp, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'
import { createCustomer, createLicensedProduct } from '../helpers/licenses.ts'

let t: TestApp
let o: TestOrg
let plain: any
let licensed: any
const tokens = new Map<Role, string>()

before(async () => {
  t = await buildTestApp()
  o = await createOrg(t.app)
  plain = expectStatus(await o.post('/products', { name: unique('Widget '), sku: unique('W-'), price: 1500, currency: 'usd', type: 'storable', cost: 700, reorderPoint: 12 }), 201)
  licensed = await createLicensedProduct(o, { cost: 2500, reorderPoint: 3 })
  tokens.set('admin', o.token)
  for (const role of ['support', 'agent', 'member'] as const) tokens.set(role, await o.as(role))
  // A customer account as the finding used it (a logged-in user), and a customer API key.
  tokens.set('customer', (await createCustomer(t.app, o)).token)
})
after(() => t?.close())

const INTERNAL = ['cost', 'reorderPoint'] as const

/** What `role` must read of a product the admin reads as `full`. */
function expected(full: any, role: Role) {
  const { signingSecret, cost, reorderPoint, ...catalogue } = full
  if (role === 'customer') return catalogue
  return role === 'admin' || signingSecret === undefined ? full : { ...catalogue, cost, reorderPoint }
}

test('GET /products/:id per role: customers never read cost nor reorderPoint; only admins read signingSecret', async () => {
  for (const product of [plain, licensed]) {
    const full = expectStatus(await o.get(`/products/${product.id}`), 200)
    for (const [role, token] of tokens) {
      const got = expectStatus(await o.get(`/products/${product.id}`, token), 200)
      assert.deepEqual(got, expected(full, role), `${role} ${product.name}`)
    }
  }
  const customer = expectStatus(await o.get(`/products/${licensed.id}`, tokens.get('customer')), 200)
  for (const field of [...INTERNAL, 'signingSecret']) assert.equal(field in customer, false, field)
  const member = expectStatus(await o.get(`/products/${licensed.id}`, tokens.get('member')), 200)
  assert.deepEqual([member.cost, member.reorderPoint, 'signingSecret' in member], [2500, 3, false])
})

test('GET /products per role, with filters and cursor pages: customers never read cost nor reorderPoint', async () => {
  const admin = expectStatus(await o.get('/products?limit=100'), 200).data
  assert.equal(admin.length, 2)
  for (const [role, token] of tokens) {
    const list = expectStatus(await o.get('/products?limit=100', token), 200)
    assert.deepEqual(list.data, admin.map((p: any) => expected(p, role)), role)
    for (const query of ['licensed=true', 'licensed=false', 'type=storable', `search=${encodeURIComponent(plain.name)}`, 'sortBy=price&sortOrder=desc']) {
      const filtered = expectStatus(await o.get(`/products?${query}`, token), 200).data
      for (const p of filtered) assert.deepEqual(p, expected(admin.find((a: any) => a.id === p.id), role), `${role} ${query}`)
    }
    // Cursor pages.
    let page = expectStatus(await o.get('/products?limit=1', token), 200)
    const seen: any[] = []
    for (;;) {
      seen.push(...page.data)
      if (!page.meta.nextCursor) break
      page = expectStatus(await o.get(`/products?limit=1&cursor=${encodeURIComponent(page.meta.nextCursor)}`, token), 200)
    }
    assert.deepEqual(seen, admin.map((p: any) => expected(p, role)), `${role} cursor`)
  }
})

test('a customer API key reads the catalogue fields only, too', async () => {
  const key = await o.as('customer')
  const got = expectStatus(await o.get(`/products/${plain.id}`, key), 200)
  assert.deepEqual(Object.keys(got).sort(), ['createdAt', 'currency', 'description', 'id', 'licensed', 'name', 'organizationId', 'price', 'sku', 'type', 'uom', 'updatedAt'])
  for (const p of expectStatus(await o.get('/products', key), 200).data) for (const field of INTERNAL) assert.equal(field in p, false, field)
})

test('customers may not write products (403), so no write answer shows them cost either', async () => {
  const customer = tokens.get('customer')!
  expectStatus(await o.post('/products', { name: 'Nope' }, customer), 403)
  expectStatus(await o.patch(`/products/${plain.id}`, { price: 1 }, customer), 403)
})
