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

const LICENSE_FIELDS = ['moduleName', 'erpVersion', 'billing', 'interval', 'activationsLimit', 'signingSecret']

async function createProduct(org: TestOrg, overrides: Record<string, unknown> = {}, token?: string) {
  return expectStatus(await org.post('/products', { name: unique('Product '), sku: unique('SKU-'), ...overrides }, token), 201)
}
const connector = (overrides: Record<string, unknown> = {}) => ({ moduleName: unique('conn_').toLowerCase(), erpVersion: '18.0', ...overrides })

test('create with every field, defaults for the rest; get, patch and delete', async () => {
  const org = await createOrg(t.app)
  const body = { name: 'Steel bolt', sku: 'BOLT-1', description: 'M8', price: 1250, currency: 'eur', type: 'consumable', uom: 'box', reorderPoint: 10, cost: 800 }
  const p = expectStatus(await org.post('/products', body), 201)
  assert.equal(p.organizationId, org.id)
  assert.deepEqual({ ...p, id: undefined, organizationId: undefined, createdAt: undefined, updatedAt: undefined }, { ...body, licensed: false, id: undefined, organizationId: undefined, createdAt: undefined, updatedAt: undefined })
  for (const f of LICENSE_FIELDS) assert.ok(!(f in p), `${f} on an unlicensed product`)

  const minimal = expectStatus(await org.post('/products', { name: 'Minimal' }), 201)
  assert.deepEqual(
    [minimal.sku, minimal.description, minimal.price, minimal.currency, minimal.type, minimal.uom, minimal.reorderPoint, minimal.cost],
    [null, null, 0, 'usd', 'storable', 'unit', 0, null],
  )
  assert.deepEqual(expectStatus(await org.get(`/products/${p.id}`), 200), p)
  const patched = expectStatus(await org.patch(`/products/${p.id}`, { price: 1300, cost: null }), 200)
  assert.deepEqual({ ...patched, updatedAt: p.updatedAt }, { ...p, price: 1300, cost: null })
  assert.deepEqual(expectStatus(await org.get(`/products/${p.id}`), 200), patched)

  expectStatus(await org.del(`/products/${p.id}`), 204)
  expectStatus(await org.get(`/products/${p.id}`), 404, 'Product not found')
  expectStatus(await org.patch(`/products/${p.id}`, { name: 'x' }), 404)
  expectStatus(await org.del(`/products/${p.id}`), 404)
})

test('sku is unique in the organization (409 on create and patch), free in another organization', async () => {
  const org = await createOrg(t.app)
  const first = await createProduct(org, { sku: 'DUP-1' })
  expectStatus(await org.post('/products', { name: 'Again', sku: 'DUP-1' }), 409, 'A product with this sku already exists')
  const second = await createProduct(org)
  expectStatus(await org.patch(`/products/${second.id}`, { sku: 'DUP-1' }), 409)
  assert.equal(expectStatus(await org.get(`/products/${second.id}`), 200).sku, second.sku)
  // Products without a sku never collide.
  await createProduct(org, { sku: null })
  await createProduct(org, { sku: null })
  const elsewhere = await createOrg(t.app)
  assert.notEqual((await createProduct(elsewhere, { sku: 'DUP-1' })).id, first.id)
  const results = await Promise.all(Array.from({ length: 10 }, () => org.post('/products', { name: 'Race', sku: 'RACE-1' })))
  assert.deepEqual(results.map((r) => r.status).sort(), [201, ...Array(9).fill(409)])
})

test('licensed products: erpVersion required, billing and activationsLimit defaults, interval only with recurring', async () => {
  const org = await createOrg(t.app)
  const p = await createProduct(org, connector())
  assert.equal(p.licensed, true)
  assert.deepEqual([p.erpVersion, p.billing, p.interval, p.activationsLimit], ['18.0', 'one_time', null, 1])
  assert.match(p.signingSecret, /^[0-9a-f]{64}$/)
  const yearly = await createProduct(org, connector({ billing: 'recurring', interval: 'year', activationsLimit: 5 }))
  assert.deepEqual([yearly.billing, yearly.interval, yearly.activationsLimit], ['recurring', 'year', 5])
  assert.notEqual(yearly.signingSecret, p.signingSecret)

  expectStatus(await org.post('/products', { name: 'X', moduleName: 'my_mod' }), 422, 'erpVersion is required for licensed products')
  expectStatus(await org.post('/products', { name: 'X', ...connector({ billing: 'recurring' }) }), 422, 'interval is required for recurring billing')
  expectStatus(await org.post('/products', { name: 'X', ...connector({ interval: 'month' }) }), 422, 'interval is only allowed for recurring billing')
  expectStatus(await org.post('/products', { name: 'X', erpVersion: '18.0' }), 422, 'only allowed on licensed products')
  const both = expectStatus(await org.post('/products', { name: 'X', moduleName: 'my_mod', billing: 'recurring' }), 422)
  assert.equal(both.message.length, 2)
  for (const bad of [{ moduleName: 'Bad Name' }, { erpVersion: '18' }, { activationsLimit: 0 }, { billing: 'weekly' }, { interval: 'week' }]) {
    expectStatus(await org.post('/products', { name: 'X', ...connector(), ...bad }), 422, Object.keys(bad)[0])
  }

  // An unlicensed product becomes licensed through patch, and gets its secret then.
  const plain = await createProduct(org)
  const upgraded = expectStatus(await org.patch(`/products/${plain.id}`, connector()), 200)
  assert.deepEqual([upgraded.licensed, upgraded.billing, upgraded.activationsLimit], [true, 'one_time', 1])
  assert.match(upgraded.signingSecret, /^[0-9a-f]{64}$/)
  // Unrelated patches keep the secret; the rules hold on the merged record.
  const renamed = expectStatus(await org.patch(`/products/${upgraded.id}`, { name: 'Renamed connector' }), 200)
  assert.equal(renamed.signingSecret, upgraded.signingSecret)
  expectStatus(await org.patch(`/products/${upgraded.id}`, { billing: 'recurring' }), 422, 'interval is required')
  const monthly = expectStatus(await org.patch(`/products/${upgraded.id}`, { billing: 'recurring', interval: 'month' }), 200)
  assert.deepEqual([monthly.billing, monthly.interval], ['recurring', 'month'])
  expectStatus(await org.patch(`/products/${plain.id}`, { signingSecret: 'mine' }), 422, 'signingSecret')
})

test('signingSecret is shown to admins only: never to other roles, in create, get, list or patch', async () => {
  const org = await createOrg(t.app)
  const p = await createProduct(org, connector())
  assert.ok(p.signingSecret)
  assert.equal(expectStatus(await org.get(`/products/${p.id}`), 200).signingSecret, p.signingSecret)
  assert.equal(expectStatus(await org.get('/products'), 200).data[0].signingSecret, p.signingSecret)

  const member = await org.as('member')
  const byMember = await createProduct(org, connector(), member)
  assert.equal(byMember.licensed, true)
  assert.ok(!('signingSecret' in byMember))
  assert.ok(!('signingSecret' in expectStatus(await org.patch(`/products/${p.id}`, { price: 5 }, member), 200)))
  for (const role of ['member', 'support', 'agent', 'customer'] as const) {
    const token = await org.as(role)
    const one = expectStatus(await org.get(`/products/${p.id}`, token), 200)
    assert.equal(one.moduleName, p.moduleName, `${role} sees the license fields`)
    assert.ok(!('signingSecret' in one), `${role} saw the secret in get`)
    const list = expectStatus(await org.get('/products?licensed=true', token), 200)
    assert.equal(list.data.length, 2)
    for (const item of list.data) assert.ok(!('signingSecret' in item), `${role} saw the secret in the list`)
    assert.ok(!JSON.stringify(list).includes(p.signingSecret))
  }
  // The admin still sees the secret of the product a member created.
  assert.match(expectStatus(await org.get(`/products/${byMember.id}`), 200).signingSecret, /^[0-9a-f]{64}$/)
})

test('list envelope, query rules, and sortBy name, price, sku and createdAt', async () => {
  const org = await createOrg(t.app)
  const specs = [['Delta', 300, 'SKU-C'], ['Alpha', 100, 'SKU-D'], ['Charlie', 400, 'SKU-A'], ['Bravo', 200, 'SKU-B']] as const
  const made = []
  for (const [name, price, sku] of specs) {
    if (made.length) await afterTimestamp(made.at(-1).createdAt)
    made.push(await createProduct(org, { name, price, sku }))
  }
  for (const field of ['name', 'price', 'sku', 'createdAt']) await expectSortable((p) => org.get(p), '/products', field)
  const names = async (q: string) => (await org.get(`/products?${q}`)).body.data.map((p: { name: string }) => p.name)
  assert.deepEqual(await names('sortBy=price&sortOrder=asc'), ['Alpha', 'Bravo', 'Delta', 'Charlie'])
  assert.deepEqual(await names('sortBy=sku&sortOrder=desc'), ['Alpha', 'Delta', 'Bravo', 'Charlie'])
  assert.deepEqual(await names('sortBy=name&sortOrder=asc'), ['Alpha', 'Bravo', 'Charlie', 'Delta'])
  assert.deepEqual(await names(''), ['Bravo', 'Charlie', 'Alpha', 'Delta'])
  expectPage(await org.get('/products?limit=3&page=2'), { total: 4, page: 2, limit: 3 })
  expectPage(await org.get('/products?limit=3'), { total: 4, page: 1, limit: 3 })
  await expectListQueryRules((p) => org.get(p), '/products', 'cost')
  expectStatus(await org.get('/products?sortBy=updatedAt'), 400)
})

test('filters: type, licensed, moduleName, erpVersion and search over name and sku', async () => {
  const org = await createOrg(t.app)
  const bolt = await createProduct(org, { name: 'Steel Bolt', sku: 'HW-100', type: 'consumable' })
  const service = await createProduct(org, { name: 'Installation', sku: 'SRV-1', type: 'service' })
  const v17 = await createProduct(org, { name: 'Connector 17', type: 'service', ...connector({ moduleName: 'shop_sync', erpVersion: '17.0' }) })
  const v18 = await createProduct(org, { name: 'Connector 18', type: 'service', ...connector({ moduleName: 'shop_sync' }) })
  const other = await createProduct(org, { name: '50% off_label', sku: 'PCT_1', ...connector({ moduleName: 'crm_sync' }) })
  const list = async (q: string) => idsOf(await org.get(`/products?${q}`))
  assert.deepEqual(await list('type=consumable'), [bolt.id])
  assert.deepEqual(await list('type=service'), [service.id, v17.id, v18.id].sort())
  assert.deepEqual(await list('licensed=true'), [v17.id, v18.id, other.id].sort())
  assert.deepEqual(await list('licensed=false'), [bolt.id, service.id].sort())
  assert.deepEqual(await list('moduleName=shop_sync'), [v17.id, v18.id].sort())
  assert.deepEqual(await list('moduleName=shop_sync&erpVersion=18.0'), [v18.id])
  assert.deepEqual(await list('erpVersion=17.0'), [v17.id])
  assert.deepEqual(await list('search=bolt'), [bolt.id])
  assert.deepEqual(await list('search=hw-1'), [bolt.id])
  assert.deepEqual(await list('search=connector&type=service'), [v17.id, v18.id].sort())
  assert.deepEqual(await list(`search=${encodeURIComponent('50%')}`), [other.id])
  assert.deepEqual(await list('search=pct_'), [other.id])
  assert.deepEqual(await list('search=f_l'), [other.id])
  assert.equal(expectStatus(await org.get('/products?licensed=true&limit=1'), 200).meta.total, 3)
  for (const bad of ['type=digital', 'licensed=maybe', 'erpVersion=18']) expectStatus(await org.get(`/products?${bad}`), 400)
})

test('bad bodies: 422 listing every failed rule; unknown and read-only fields rejected; malformed JSON 400', async () => {
  const org = await createOrg(t.app)
  const many = expectStatus(await org.post('/products', { price: -1, currency: 'USD' }), 422)
  assert.equal(many.message.length, 3, JSON.stringify(many.message))
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ price: 1.5 }, 'price'],
    [{ price: '100' }, 'price'],
    [{ price: 1e20 }, 'price'],
    [{ cost: 2 ** 53 }, 'cost'],
    [{ cost: -5 }, 'cost'],
    [{ type: 'digital' }, 'type'],
    [{ uom: '' }, 'uom'],
    [{ reorderPoint: -1 }, 'reorderPoint'],
    [{ licensed: true }, 'licensed'],
    [{ signingSecret: 'x' }, 'signingSecret'],
    [{ organizationId: org.id }, 'organizationId'],
    [{ colour: 'red' }, 'colour'],
  ]
  for (const [extra, field] of cases) expectStatus(await org.post('/products', { name: 'X', ...extra }), 422, field)
  const p = await createProduct(org)
  expectStatus(await org.patch(`/products/${p.id}`, {}), 422)
  expectStatus(await org.patch(`/products/${p.id}`, { createdAt: '2020-01-01T00:00:00.000Z' }), 422, 'createdAt')
  const headers = { 'content-type': 'application/json' }
  expectStatus(await call(t.app, 'POST', '/products', { token: org.token, body: '{"name":', headers }), 400, 'Malformed JSON')
  assert.deepEqual(idsOf(await org.get('/products')), [p.id])
})

test('roles: every role reads the catalogue, only admin and member write; 401 without credential', async () => {
  const org = await createOrg(t.app)
  const p = await createProduct(org)
  for (const role of ['customer', 'support', 'agent'] as const) {
    const token = await org.as(role)
    expectStatus(await org.get('/products', token), 200)
    expectStatus(await org.get(`/products/${p.id}`, token), 200)
    expectStatus(await org.post('/products', { name: 'Nope' }, token), 403)
    expectStatus(await org.patch(`/products/${p.id}`, { name: 'Nope' }, token), 403)
    expectStatus(await org.del(`/products/${p.id}`, token), 403)
  }
  const member = await org.as('member')
  expectStatus(await org.patch(`/products/${p.id}`, { name: 'By member' }, member), 200)
  for (const [method, path] of [['GET', '/products'], ['POST', '/products'], ['GET', `/products/${p.id}`], ['PATCH', `/products/${p.id}`], ['DELETE', `/products/${p.id}`]] as const) {
    expectStatus(await call(t.app, method, path, { body: method === 'POST' || method === 'PATCH' ? { name: 'X' } : undefined }), 401)
  }
  expectPage(await org.get('/products'), { total: 1, page: 1, limit: 20 })
  expectStatus(await org.del(`/products/${p.id}`, member), 204)
})

test("another organization's product is 404 on get, patch and delete, and never listed", async () => {
  const owner = await createOrg(t.app)
  const stranger = await createOrg(t.app)
  const p = await createProduct(owner, connector())
  expectStatus(await stranger.get(`/products/${p.id}`), 404)
  expectStatus(await stranger.get(`/products/${p.id}`, await stranger.as('customer')), 404)
  expectStatus(await stranger.patch(`/products/${p.id}`, { name: 'Hijacked' }), 404)
  expectStatus(await stranger.del(`/products/${p.id}`), 404)
  expectPage(await stranger.get('/products'), { total: 0, page: 1, limit: 20 })
  assert.deepEqual(expectStatus(await owner.get(`/products/${p.id}`), 200), p)
})
