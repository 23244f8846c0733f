import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

async function createEmployee(org: TestOrg, overrides: Record<string, unknown> = {}, token?: string) {
  return expectStatus(await org.post('/employees', { name: unique('Employee '), ...overrides }, token), 201)
}
async function createUser(org: TestOrg, role = 'member') {
  return expectStatus(await org.post('/users', { name: 'Linked', email: `${unique('u')}@example.com`, password: 'long enough password', role }), 201)
}

test('create with every field, get, patch and delete', async () => {
  const org = await createOrg(t.app)
  const user = await createUser(org)
  const body = { name: 'Grace Hopper', email: 'grace@example.com', department: 'Engineering', jobTitle: 'Rear Admiral', hireDate: '2021-03-15', userId: user.id }
  const e = expectStatus(await org.post('/employees', body), 201)
  assert.equal(e.organizationId, org.id)
  assert.deepEqual({ name: e.name, email: e.email, department: e.department, jobTitle: e.jobTitle, hireDate: e.hireDate, userId: e.userId }, body)
  assert.deepEqual(expectStatus(await org.get(`/employees/${e.id}`), 200), e)

  const minimal = await createEmployee(org)
  assert.deepEqual([minimal.email, minimal.department, minimal.jobTitle, minimal.hireDate, minimal.userId], [null, null, null, null, null])

  const patched = expectStatus(await org.patch(`/employees/${e.id}`, { jobTitle: 'Admiral', userId: null }), 200)
  assert.deepEqual({ ...patched, updatedAt: e.updatedAt }, { ...e, jobTitle: 'Admiral', userId: null })
  assert.deepEqual(expectStatus(await org.get(`/employees/${e.id}`), 200), patched)

  expectStatus(await org.del(`/employees/${e.id}`), 204)
  expectStatus(await org.get(`/employees/${e.id}`), 404, 'Employee not found')
  expectStatus(await org.patch(`/employees/${e.id}`, { name: 'Ghost' }), 404)
  expectStatus(await org.del(`/employees/${e.id}`), 404)
  expectStatus(await org.get('/employees/not-a-uuid'), 400)
})

test('userId must name a user of the same organization, linked to one employee at most', async () => {
  const org = await createOrg(t.app)
  const other = await createOrg(t.app)
  const foreignUser = await createUser(other)
  const user = await createUser(org)
  const msg = 'userId does not name a user of this organization'
  expectStatus(await org.post('/employees', { name: 'X', userId: foreignUser.id }), 422, msg)
  expectStatus(await org.post('/employees', { name: 'X', userId: '00000000-0000-4000-8000-000000000000' }), 422, msg)
  expectStatus(await org.post('/employees', { name: 'X', userId: 'nope' }), 422, 'userId')
  const e = await createEmployee(org)
  expectStatus(await org.patch(`/employees/${e.id}`, { userId: foreignUser.id }), 422, msg)
  assert.equal(expectStatus(await org.get(`/employees/${e.id}`), 200).userId, null)
  assert.equal(expectStatus(await org.patch(`/employees/${e.id}`, { userId: user.id }), 200).userId, user.id)
  expectStatus(await org.post('/employees', { name: 'Second', userId: user.id }), 409, 'Another employee is already linked to this user')
  // The organization's first user (the admin) may be linked too.
  const me = expectStatus(await org.get('/auth/me'), 200).user
  assert.equal((await createEmployee(org, { userId: me.id })).userId, me.id)
  // Deleting the user keeps the employee, unlinked.
  expectStatus(await org.del(`/users/${user.id}`), 204)
  assert.equal(expectStatus(await org.get(`/employees/${e.id}`), 200).userId, null)
})

test('hireDate is a calendar date (YYYY-MM-DD)', async () => {
  const org = await createOrg(t.app)
  assert.equal((await createEmployee(org, { hireDate: '2024-02-29' })).hireDate, '2024-02-29')
  for (const bad of ['2023-02-29', '2024-13-01', '2024-1-5', '15/03/2021', '2021-03-15T00:00:00Z', '', '0000-01-01']) {
    expectStatus(await org.post('/employees', { name: 'X', hireDate: bad }), 422)
  }
  expectStatus(await org.post('/employees', { name: 'X', hireDate: 20210315 }), 422, 'hireDate')
  const e = await createEmployee(org, { hireDate: '2020-01-01' })
  expectStatus(await org.patch(`/employees/${e.id}`, { hireDate: '2020-02-30' }), 422, 'hireDate')
  assert.equal(expectStatus(await org.patch(`/employees/${e.id}`, { hireDate: null }), 200).hireDate, null)
})

test('bad bodies: 422 with every failed rule; unknown and read-only fields rejected', async () => {
  const org = await createOrg(t.app)
  const two = expectStatus(await org.post('/employees', { email: 'not-an-email' }), 422)
  assert.equal(two.message.length, 2, JSON.stringify(two.message))
  for (const [body, field] of [
    [{ name: '' }, 'name'],
    [{ name: 'X', salary: 100 }, 'salary'],
    [{ name: 'X', organizationId: org.id }, 'organizationId'],
    [{ name: 'X', createdAt: '2020-01-01T00:00:00.000Z' }, 'createdAt'],
    [{ name: 'X', department: 7 }, 'department'],
  ] as const) {
    expectStatus(await org.post('/employees', body), 422, field)
  }
  const e = await createEmployee(org)
  expectStatus(await org.patch(`/employees/${e.id}`, {}), 422)
  expectStatus(await org.patch(`/employees/${e.id}`, { id: '00000000-0000-4000-8000-000000000000' }), 422, 'id')
  const headers = { 'content-type': 'application/json' }
  expectStatus(await call(t.app, 'POST', '/employees', { token: org.token, body: '{"name":', headers }), 400, 'Malformed JSON')
  assert.deepEqual(idsOf(await org.get('/employees')), [e.id])
})

test('list: envelope, query rules, sortBy name, department and hireDate', async () => {
  const org = await createOrg(t.app)
  const rows = [['Dora', 'Sales', '2019-06-01'], ['Adam', 'Finance', '2022-01-10'], ['Cleo', 'Support', '2018-11-30'], ['Bert', 'Engineering', '2020-05-05']]
  for (const [name, department, hireDate] of rows) await createEmployee(org, { name, department, hireDate })
  for (const field of ['name', 'department', 'hireDate']) await expectSortable((p) => org.get(p), '/employees', field)
  const names = async (q: string) => (await org.get(`/employees?${q}`)).body.data.map((e: { name: string }) => e.name)
  assert.deepEqual(await names('sortBy=name&sortOrder=asc'), ['Adam', 'Bert', 'Cleo', 'Dora'])
  assert.deepEqual(await names('sortBy=department&sortOrder=asc'), ['Bert', 'Adam', 'Dora', 'Cleo'])
  assert.deepEqual(await names('sortBy=hireDate'), ['Adam', 'Bert', 'Dora', 'Cleo'])
  expectPage(await org.get('/employees?limit=3'), { total: 4, page: 1, limit: 3 })
  expectPage(await org.get('/employees?limit=3&page=2'), { total: 4, page: 2, limit: 3 })
  await expectListQueryRules((p) => org.get(p), '/employees', 'jobTitle')
  expectStatus(await org.get('/employees?sortBy=email'), 400)
})

test('filters: department (exact) and search across name and e-mail', async () => {
  const org = await createOrg(t.app)
  const ann = await createEmployee(org, { name: 'Ann Lovelace', email: 'ann@example.com', department: 'Engineering' })
  const bob = await createEmployee(org, { name: 'Bob', email: 'LOVELACE.fan@example.com', department: 'Engineering Ops' })
  const cat = await createEmployee(org, { name: 'Cat_Woman', department: 'Sales' })
  await createEmployee(org, { name: 'CatXWoman', department: 'Sales' })
  const list = async (q: string) => idsOf(await org.get(`/employees?${q}`))
  assert.deepEqual(await list('department=Engineering'), [ann.id])
  assert.deepEqual(await list(`department=${encodeURIComponent('Engineering Ops')}`), [bob.id])
  assert.deepEqual(await list('search=lovelace'), [ann.id, bob.id].sort())
  assert.deepEqual(await list('search=ANN@'), [ann.id])
  assert.deepEqual(await list('search=cat_'), [cat.id])
  assert.deepEqual(await list('search=lovelace&department=Engineering'), [ann.id])
  assert.equal(expectStatus(await org.get('/employees?department=Sales'), 200).meta.total, 2)
})

test('roles: admin and member only; 401 without credential; 404 across organizations', async () => {
  const org = await createOrg(t.app)
  const e = await createEmployee(org)
  const routes = [['GET', '/employees'], ['POST', '/employees'], ['GET', `/employees/${e.id}`], ['PATCH', `/employees/${e.id}`], ['DELETE', `/employees/${e.id}`]] as const
  for (const [method, path] of routes) {
    const body = method === 'POST' || method === 'PATCH' ? { name: 'X' } : undefined
    expectStatus(await call(t.app, method, path, { body }), 401)
    for (const role of ['customer', 'support', 'agent'] as const) expectStatus(await call(t.app, method, path, { body, token: await org.as(role) }), 403)
  }
  const member = await org.as('member')
  expectStatus(await org.post('/employees', { name: 'By member' }, member), 201)
  expectStatus(await org.patch(`/employees/${e.id}`, { department: 'Ops' }, member), 200)

  const stranger = await createOrg(t.app)
  expectStatus(await stranger.get(`/employees/${e.id}`), 404)
  expectStatus(await stranger.patch(`/employees/${e.id}`, { name: 'Hijacked' }), 404)
  expectStatus(await stranger.del(`/employees/${e.id}`), 404)
  expectPage(await stranger.get('/employees'), { total: 0, page: 1, limit: 20 })
  const own = expectStatus(await org.get(`/employees/${e.id}`), 200)
  assert.deepEqual([own.name, own.department], [e.name, 'Ops'])
})
