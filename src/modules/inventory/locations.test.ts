import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { afterTimestamp, expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const DEFAULTS = [
  ['LOC-CUSTOMER', 'customer'],
  ['LOC-LOSS', 'inventory_loss'],
  ['LOC-PRODUCTION', 'production'],
  ['LOC-STOCK', 'internal'],
  ['LOC-SUPPLIER', 'supplier'],
]

async function createLocation(org: TestOrg, body: Record<string, unknown>) {
  return expectStatus(await org.post('/inventory/locations', body), 201)
}
const warehouseOf = async (org: TestOrg) => expectStatus(await org.get('/inventory/locations/LOC-STOCK'), 200).warehouseId as string

test('a new organization has its main warehouse with the five default locations', async () => {
  const org = await createOrg(t.app)
  const list = expectPage(await org.get('/inventory/locations?sortBy=code&sortOrder=asc'), { total: 5, page: 1, limit: 20 })
  assert.deepEqual(list.map((l) => [l.id, l.type]), DEFAULTS)
  const warehouseId = list[0].warehouseId
  assert.match(warehouseId, UUID)
  for (const l of list) {
    assert.equal(l.id, `LOC-${l.code}`)
    assert.equal(l.warehouseId, warehouseId)
    assert.equal(l.organizationId, org.id)
    assert.ok(l.name.length > 0)
  }
  // Each organization has its own locations of the same ids, in its own warehouse.
  const other = await createOrg(t.app)
  const stock = expectStatus(await other.get('/inventory/locations/LOC-STOCK'), 200)
  assert.equal(stock.organizationId, other.id)
  assert.notEqual(stock.warehouseId, warehouseId)
})

test('create upper-cases the code, the id is LOC-<code>; get, patch and delete by that id', async () => {
  const org = await createOrg(t.app)
  const warehouseId = await warehouseOf(org)
  const loc = await createLocation(org, { code: 'aisle-1_b', name: 'Aisle 1 B', type: 'internal', warehouseId })
  assert.deepEqual([loc.id, loc.code, loc.name, loc.type, loc.warehouseId, loc.organizationId], ['LOC-AISLE-1_B', 'AISLE-1_B', 'Aisle 1 B', 'internal', warehouseId, org.id])
  assert.deepEqual(expectStatus(await org.get('/inventory/locations/LOC-AISLE-1_B'), 200), loc)

  const minimal = await createLocation(org, { code: 'Dock' })
  assert.deepEqual([minimal.id, minimal.name, minimal.type, minimal.warehouseId], ['LOC-DOCK', 'DOCK', 'internal', null])

  const patched = expectStatus(await org.patch(`/inventory/locations/${loc.id}`, { name: 'Aisle 1, bay B', type: 'inventory_loss', warehouseId: null }), 200)
  assert.deepEqual({ ...patched, updatedAt: loc.updatedAt }, { ...loc, name: 'Aisle 1, bay B', type: 'inventory_loss', warehouseId: null })
  assert.deepEqual(expectStatus(await org.get(`/inventory/locations/${loc.id}`), 200), patched)
  // The code is the identity: it cannot be changed.
  expectStatus(await org.patch(`/inventory/locations/${loc.id}`, { code: 'OTHER' }), 422, 'code')

  expectStatus(await org.del(`/inventory/locations/${loc.id}`), 204)
  expectStatus(await org.get(`/inventory/locations/${loc.id}`), 404, 'Location not found')
  expectStatus(await org.patch(`/inventory/locations/${loc.id}`, { name: 'Ghost' }), 404)
  expectStatus(await org.del(`/inventory/locations/${loc.id}`), 404)
  expectStatus(await org.get('/inventory/locations/LOC-NOPE'), 404)
  // A code that was deleted may be used again.
  assert.equal((await createLocation(org, { code: 'AISLE-1_B' })).id, 'LOC-AISLE-1_B')
})

test('a code already used is 409, whatever its case; another organization may use it', async () => {
  const org = await createOrg(t.app)
  await createLocation(org, { code: 'BIN-7' })
  expectStatus(await org.post('/inventory/locations', { code: 'bin-7' }), 409, 'Location LOC-BIN-7 already exists')
  expectStatus(await org.post('/inventory/locations', { code: 'stock' }), 409, 'LOC-STOCK')
  const other = await createOrg(t.app)
  assert.equal((await createLocation(other, { code: 'BIN-7' })).organizationId, other.id)
  const results = await Promise.all(Array.from({ length: 10 }, () => org.post('/inventory/locations', { code: 'RACE' })))
  assert.deepEqual(results.map((r) => r.status).sort(), [201, ...Array(9).fill(409)])
  expectPage(await org.get('/inventory/locations'), { total: 7, page: 1, limit: 20 })
})

test('warehouseId must name a warehouse of the organization (422)', async () => {
  const org = await createOrg(t.app)
  const other = await createOrg(t.app)
  const foreign = await warehouseOf(other)
  const msg = 'warehouseId does not name a warehouse of this organization'
  expectStatus(await org.post('/inventory/locations', { code: 'X1', warehouseId: foreign }), 422, msg)
  expectStatus(await org.post('/inventory/locations', { code: 'X1', warehouseId: '00000000-0000-4000-8000-000000000000' }), 422, msg)
  expectStatus(await org.patch('/inventory/locations/LOC-STOCK', { warehouseId: foreign }), 422, msg)
  assert.equal(expectStatus(await org.get('/inventory/locations/LOC-STOCK'), 200).warehouseId, await warehouseOf(org))
})

test('bad bodies are 422 with every failed rule; bad ids are 400; malformed JSON is 400', async () => {
  const org = await createOrg(t.app)
  const two = expectStatus(await org.post('/inventory/locations', { type: 'shelf' }), 422)
  assert.equal(two.message.length, 2, JSON.stringify(two.message))
  for (const [body, field] of [
    [{ code: '' }, 'code'],
    [{ code: 'has space' }, 'code'],
    [{ code: 'A'.repeat(31) }, 'code'],
    [{ code: 'OK', name: '' }, 'name'],
    [{ code: 'OK', id: 'LOC-OTHER' }, 'id'],
    [{ code: 'OK', organizationId: org.id }, 'organizationId'],
    [{ code: 'OK', warehouseId: 'nope' }, 'warehouseId'],
  ] as const) {
    expectStatus(await org.post('/inventory/locations', body), 422, field)
  }
  expectStatus(await org.patch('/inventory/locations/LOC-STOCK', {}), 422)
  expectStatus(await org.patch('/inventory/locations/LOC-STOCK', { type: 'shelf' }), 422, 'type')
  for (const id of ['STOCK', 'LOC-', 'LOC-has space']) expectStatus(await org.get(`/inventory/locations/${encodeURIComponent(id)}`), 400)
  const headers = { 'content-type': 'application/json' }
  expectStatus(await call(t.app, 'POST', '/inventory/locations', { token: org.token, body: '{"code":', headers }), 400, 'Malformed JSON')
  expectPage(await org.get('/inventory/locations'), { total: 5, page: 1, limit: 20 })
})

test('list: filters type and warehouseId, search, sortBy code, name and createdAt, query rules', async () => {
  const org = await createOrg(t.app)
  const warehouseId = await warehouseOf(org)
  await afterTimestamp(expectStatus(await org.get('/inventory/locations/LOC-STOCK'), 200).createdAt)
  const a = await createLocation(org, { code: 'A-SHELF', name: 'Aardvark shelf', warehouseId })
  const loose = await createLocation(org, { code: 'QUARANTINE', name: 'Quarantine', type: 'inventory_loss' })
  const list = async (q: string) => idsOf(await org.get(`/inventory/locations?${q}`))
  assert.deepEqual(await list('type=inventory_loss'), ['LOC-LOSS', loose.id].sort())
  assert.deepEqual(await list('type=internal'), ['LOC-STOCK', a.id].sort())
  assert.deepEqual(await list(`warehouseId=${warehouseId}`), [...DEFAULTS.map(([id]) => id), a.id].sort())
  assert.deepEqual(await list(`warehouseId=${warehouseId}&type=inventory_loss`), ['LOC-LOSS'])
  assert.deepEqual(await list('warehouseId=00000000-0000-4000-8000-000000000000'), [])
  assert.deepEqual(await list('search=quarant'), [loose.id])
  assert.deepEqual(await list('search=a-sh'), [a.id])
  for (const field of ['code', 'name', 'createdAt']) await expectSortable((p) => org.get(p), '/inventory/locations', field)
  const codes = async (q: string) => (await org.get(`/inventory/locations?${q}`)).body.data.map((l: { code: string }) => l.code)
  assert.deepEqual(await codes('sortBy=code&sortOrder=asc&limit=3'), ['A-SHELF', 'CUSTOMER', 'LOSS'])
  assert.deepEqual((await codes('sortBy=createdAt&sortOrder=desc')).slice(0, 2), ['QUARANTINE', 'A-SHELF'])
  expectPage(await org.get('/inventory/locations?limit=3&page=3'), { total: 7, page: 3, limit: 3 })
  await expectListQueryRules((p) => org.get(p), '/inventory/locations', 'type')
  for (const bad of ['type=shelf', 'warehouseId=nope']) expectStatus(await org.get(`/inventory/locations?${bad}`), 400)
})

test('roles: admin and member only; 401 without credential; 404 across organizations', async () => {
  const org = await createOrg(t.app)
  const loc = await createLocation(org, { code: 'PRIVATE' })
  const routes = [['GET', '/inventory/locations'], ['POST', '/inventory/locations'], ['GET', `/inventory/locations/${loc.id}`], ['PATCH', `/inventory/locations/${loc.id}`], ['DELETE', `/inventory/locations/${loc.id}`]] as const
  for (const [method, path] of routes) {
    const body = method === 'POST' ? { code: 'NEW' } : method === 'PATCH' ? { name: 'X' } : undefined
    expectStatus(await call(t.app, method, path, { body }), 401)
    for (const role of ['customer', 'support', 'agent'] as const) expectStatus(await call(t.app, method, path, { body, token: await org.as(role) }), 403)
  }
  const member = await org.as('member')
  expectStatus(await org.post('/inventory/locations', { code: 'BY-MEMBER' }, member), 201)
  expectStatus(await org.patch(`/inventory/locations/${loc.id}`, { name: 'Renamed' }, member), 200)

  const stranger = await createOrg(t.app)
  expectStatus(await stranger.get(`/inventory/locations/${loc.id}`), 404)
  expectStatus(await stranger.patch(`/inventory/locations/${loc.id}`, { name: 'Hijacked' }), 404)
  expectStatus(await stranger.del(`/inventory/locations/${loc.id}`), 404)
  assert.ok(!idsOf(await stranger.get('/inventory/locations')).includes(loc.id))
  // A stranger's write to its own LOC-STOCK leaves ours alone.
  expectStatus(await stranger.patch('/inventory/locations/LOC-STOCK', { name: 'Theirs' }), 200)
  assert.notEqual(expectStatus(await org.get('/inventory/locations/LOC-STOCK'), 200).name, 'Theirs')
  assert.equal(expectStatus(await org.get(`/inventory/locations/${loc.id}`), 200).name, 'Renamed')
})
