import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { afterTimestamp, expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'
import { createMilestone, createProject, createTask } from '../../../test/helpers/projects.ts'
import { createContact } from '../../../test/helpers/sales-fixtures.ts'
import { createEmployee } from '../../../test/helpers/tenancy.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const PROJECT_STATES = ['active', 'on_hold', 'done', 'cancelled'] as const
const TASK_STATES = ['todo', 'in_progress', 'in_review', 'done', 'blocked'] as const

describe('projects', () => {
  test('POST /projects: 201 active with references {id, name}, defaults and derived figures at 0; GET returns the same', async () => {
    const contact = await createContact(org, { name: 'Acme Corp' })
    const manager = await createEmployee(org, { name: 'Mia Manager' })
    const p = expectStatus(await org.post('/projects', {
      name: 'Website', contactId: contact.id, managerId: manager.id, startDate: '2026-03-01', endDate: '2026-06-30', hoursBudget: 120.5, billable: true,
    }), 201)
    assert.deepEqual({ ...p, id: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined, name: 'Website', status: 'active', contact: { id: contact.id, name: 'Acme Corp', email: contact.email },
      manager: { id: manager.id, name: 'Mia Manager' }, startDate: '2026-03-01', endDate: '2026-06-30', progress: 0, tasksTotal: 0, tasksDone: 0,
      hoursLogged: 0, hoursBudget: 120.5, billable: true, archived: false, organizationId: org.id, createdAt: undefined, updatedAt: undefined,
    })
    assert.deepEqual(expectStatus(await org.get(`/projects/${p.id}`), 200), p)
    const bare = expectStatus(await org.post('/projects', { name: 'Internal' }), 201)
    assert.deepEqual([bare.contact, bare.manager, bare.startDate, bare.endDate, bare.hoursBudget, bare.billable], [null, null, null, null, null, false])
    // A renamed contact or manager shows its new name.
    expectStatus(await org.patch(`/employees/${manager.id}`, { name: 'Mia M.' }), 200)
    assert.equal(expectStatus(await org.get(`/projects/${p.id}`), 200).manager.name, 'Mia M.')
    // Referenced records cannot be deleted under the project (409).
    expectStatus(await org.del(`/employees/${manager.id}`), 409)
    expectStatus(await org.del(`/contacts/${contact.id}`), 409)
  })

  test('POST /projects: 422 for every bad body, one message per rule; nothing is created', async () => {
    const other = await createOrg(t.app)
    const foreignContact = await createContact(other)
    const foreignEmployee = await createEmployee(other)
    const contact = await createContact(org)
    const before = (await org.get('/projects?limit=1')).body.meta.total
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'X', status: 'done' }, 'status'],
      [{ name: 'X', tasksTotal: 3 }, 'tasksTotal'],
      [{ name: 'X', contactId: foreignContact.id }, 'contactId does not name a contact'],
      [{ name: 'X', contactId: UNKNOWN }, 'contactId does not name a contact'],
      [{ name: 'X', managerId: foreignEmployee.id }, 'managerId does not name an employee'],
      [{ name: 'X', managerId: contact.id }, 'managerId does not name an employee'],
      [{ name: 'X', startDate: '2026-05-02', endDate: '2026-05-01' }, 'endDate (2026-05-01) must not be before startDate'],
      [{ name: 'X', startDate: '2026-02-30' }, 'startDate'],
      [{ name: 'X', endDate: '1800-01-01' }, 'endDate'],
      [{ name: 'X', startDate: '2026-05-02T10:00:00Z' }, 'startDate'],
      [{ name: 'X', hoursBudget: 0 }, 'hoursBudget'],
      [{ name: 'X', hoursBudget: -5 }, 'hoursBudget'],
      [{ name: 'X', hoursBudget: 10.005 }, 'hoursBudget must have at most 2 decimals'],
      [{ name: 'X', billable: 'yes' }, 'billable'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post('/projects', body), 422, message)
    const many = expectStatus(await org.post('/projects', { name: 'X', contactId: UNKNOWN, managerId: UNKNOWN, hoursBudget: 1.001 }), 422)
    assert.equal(many.message.length, 3, JSON.stringify(many.message))
    assert.equal((await org.get('/projects?limit=1')).body.meta.total, before)
    // An equal start and end date is a one-day project.
    expectStatus(await org.post('/projects', { name: 'One day', startDate: '2026-05-01', endDate: '2026-05-01' }), 201)
  })

  test('PATCH /projects/:id: every status to every status (the four, freely), an unknown status 422', async () => {
    for (const from of PROJECT_STATES) {
      for (const to of PROJECT_STATES) {
        const p = await createProject(org)
        if (from !== 'active') expectStatus(await org.patch(`/projects/${p.id}`, { status: from }), 200)
        const res = expectStatus(await org.patch(`/projects/${p.id}`, { status: to }), 200)
        assert.equal(res.status, to, `${from} -> ${to}`)
        assert.equal(expectStatus(await org.get(`/projects/${p.id}`), 200).status, to)
      }
    }
    const p = await createProject(org)
    for (const status of ['archived', 'closed', '', null]) expectStatus(await org.patch(`/projects/${p.id}`, { status }), 422, 'status')
    assert.equal((await org.get(`/projects/${p.id}`)).body.status, 'active')
  })

  test('PATCH /projects/:id: fields, null clears, dates against the stored values (422), references (422), 404', async () => {
    const contact = await createContact(org)
    const manager = await createEmployee(org)
    const p = await createProject(org, { startDate: '2026-04-01', endDate: '2026-04-30', contactId: contact.id, managerId: manager.id, hoursBudget: 10 })
    await afterTimestamp(p.updatedAt)
    const renamed = expectStatus(await org.patch(`/projects/${p.id}`, { name: 'Renamed', billable: true, hoursBudget: 12.25 }), 200)
    assert.deepEqual([renamed.name, renamed.billable, renamed.hoursBudget, renamed.startDate, renamed.contact.id, renamed.manager.id], ['Renamed', true, 12.25, '2026-04-01', contact.id, manager.id])
    assert.ok(renamed.updatedAt > p.updatedAt)
    expectStatus(await org.patch(`/projects/${p.id}`, { endDate: '2026-03-31' }), 422, 'endDate (2026-03-31) must not be before startDate (2026-04-01)')
    expectStatus(await org.patch(`/projects/${p.id}`, { startDate: '2026-05-01' }), 422, 'must not be before startDate (2026-05-01)')
    expectStatus(await org.patch(`/projects/${p.id}`, { startDate: '2026-05-01', endDate: '2026-04-30' }), 422, 'endDate')
    expectStatus(await org.patch(`/projects/${p.id}`, { managerId: UNKNOWN }), 422, 'managerId does not name an employee')
    expectStatus(await org.patch(`/projects/${p.id}`, { contactId: manager.id }), 422, 'contactId does not name a contact')
    expectStatus(await org.patch(`/projects/${p.id}`, {}), 422)
    expectStatus(await org.patch(`/projects/${p.id}`, { hoursLogged: 3 }), 422, 'hoursLogged')
    // Moving both dates at once, and clearing.
    const moved = expectStatus(await org.patch(`/projects/${p.id}`, { startDate: '2026-05-01', endDate: '2026-05-31' }), 200)
    assert.deepEqual([moved.startDate, moved.endDate], ['2026-05-01', '2026-05-31'])
    const cleared = expectStatus(await org.patch(`/projects/${p.id}`, { startDate: null, contactId: null, managerId: null, hoursBudget: null }), 200)
    assert.deepEqual([cleared.startDate, cleared.endDate, cleared.contact, cleared.manager, cleared.hoursBudget], [null, '2026-05-31', null, null, null])
    // With no start date, any end date goes.
    expectStatus(await org.patch(`/projects/${p.id}`, { endDate: '2020-01-01' }), 200)
    expectStatus(await org.patch(`/projects/${UNKNOWN}`, { name: 'X' }), 404, 'Project not found')
    expectStatus(await org.get(`/projects/${UNKNOWN}`), 404, 'Project not found')
    expectStatus(await org.get('/projects/not-a-uuid'), 400)
  })

  test('DELETE /projects/:id archives: kept and readable (archived: true), out of the default list, listed with archived=true, restorable', async () => {
    const p = await createProject(org)
    const task = await createTask(org, p.id)
    expectStatus(await org.del(`/projects/${p.id}`), 204)
    const archived = expectStatus(await org.get(`/projects/${p.id}`), 200)
    assert.equal(archived.archived, true)
    assert.equal(archived.tasksTotal, 1)
    expectStatus(await org.get(`/projects/${p.id}/tasks/${task.id}`), 200)
    assert.ok(!idsOf(await org.get('/projects?limit=100')).includes(p.id))
    const onlyArchived = await org.get('/projects?archived=true&limit=100')
    assert.ok(idsOf(onlyArchived).includes(p.id))
    assert.ok(onlyArchived.body.data.every((r: any) => r.archived === true))
    expectStatus(await org.del(`/projects/${p.id}`), 204)
    expectStatus(await org.del(`/projects/${UNKNOWN}`), 404, 'Project not found')
    const restored = expectStatus(await org.patch(`/projects/${p.id}`, { archived: false }), 200)
    assert.equal(restored.archived, false)
    assert.ok(idsOf(await org.get('/projects?limit=100')).includes(p.id))
    assert.equal(expectStatus(await org.patch(`/projects/${p.id}`, { archived: true }), 200).archived, true)
  })

  test('GET /projects: every filter and sort, exact totals, the pagination rules', async () => {
    const o = await createOrg(t.app)
    const [c1, c2] = [await createContact(o), await createContact(o)]
    const [m1, m2] = [await createEmployee(o), await createEmployee(o)]
    const a = await createProject(o, { name: 'Alpha website', contactId: c1.id, managerId: m1.id, startDate: '2026-01-10', endDate: '2026-02-01' })
    await afterTimestamp(a.createdAt)
    const b = await createProject(o, { name: 'Beta app', contactId: c1.id, managerId: m2.id, startDate: '2026-03-10', endDate: '2026-03-20' })
    const c = await createProject(o, { name: 'Gamma website', contactId: c2.id, startDate: '2026-02-10', endDate: '2026-12-01' })
    const d = await createProject(o, { name: 'Delta archive', contactId: c1.id, managerId: m1.id })
    expectStatus(await o.patch(`/projects/${b.id}`, { status: 'on_hold' }), 200)
    expectStatus(await o.patch(`/projects/${c.id}`, { status: 'done' }), 200)
    expectStatus(await o.del(`/projects/${d.id}`), 204)
    const ids = (q: string) => o.get(`/projects?${q}&limit=100`).then(idsOf)
    const sorted = (...xs: Array<{ id: string }>) => xs.map((x) => x.id).sort()
    assert.deepEqual(expectPage(await o.get('/projects'), { total: 3, page: 1, limit: 20 }).map((r) => r.id), [c.id, b.id, a.id])
    assert.deepEqual(await ids('status=active'), sorted(a))
    assert.deepEqual(await ids('status=on_hold'), sorted(b))
    assert.deepEqual(await ids('status=done'), sorted(c))
    assert.deepEqual(await ids('status=cancelled'), [])
    assert.deepEqual(await ids(`contactId=${c1.id}`), sorted(a, b))
    assert.deepEqual(await ids(`managerId=${m1.id}`), sorted(a))
    assert.deepEqual(await ids(`managerId=${m1.id}&archived=true`), sorted(d))
    assert.deepEqual(await ids('archived=false'), sorted(a, b, c))
    assert.deepEqual(await ids('archived=true'), sorted(d))
    assert.deepEqual(await ids('search=WEBSITE'), sorted(a, c))
    assert.deepEqual(await ids('search=website&status=done'), sorted(c))
    assert.deepEqual(await ids('search=Delta'), [])
    assert.deepEqual(await ids('search=Delta&archived=true'), sorted(d))
    expectPage(await o.get(`/projects?contactId=${c1.id}&limit=1&page=2`), { total: 2, page: 2, limit: 1 })
    expectPage(await o.get('/projects?status=active'), { total: 1, page: 1, limit: 20 })
    // Totals (counters where they answer) follow status changes, archiving and restoring.
    const totals = async () => Promise.all(['', ...PROJECT_STATES.map((s) => `status=${s}`), 'archived=true', 'archived=true&status=active']
      .map(async (q) => expectStatus(await o.get(`/projects?${q}&limit=1`), 200).meta.total))
    assert.deepEqual(await totals(), [3, 1, 1, 1, 0, 1, 1])
    expectStatus(await o.patch(`/projects/${d.id}`, { archived: false }), 200)
    assert.deepEqual(await totals(), [4, 2, 1, 1, 0, 0, 0])
    expectStatus(await o.patch(`/projects/${d.id}`, { status: 'cancelled' }), 200)
    assert.deepEqual(await totals(), [4, 1, 1, 1, 1, 0, 0])
    expectStatus(await o.del(`/projects/${d.id}`), 204)
    assert.deepEqual(await totals(), [3, 1, 1, 1, 0, 1, 0])
    expectStatus(await o.patch(`/projects/${d.id}`, { status: 'active' }), 200)
    assert.deepEqual(await totals(), [3, 1, 1, 1, 0, 1, 1])
    for (const field of ['name', 'startDate', 'endDate', 'createdAt', 'updatedAt']) await expectSortable((p) => o.get(p), '/projects', field)
    for (const bad of ['status=archived', 'archived=maybe', 'contactId=x', 'managerId=1']) expectStatus(await o.get(`/projects?${bad}`), 400)
    await expectListQueryRules((p) => o.get(p), '/projects', 'progress')
  })
})

describe('tasks', () => {
  test('POST /projects/:id/tasks: 201 todo, medium, with assignee {id, name}; GET the same; 422 and 404', async () => {
    const p = await createProject(org)
    const e = await createEmployee(org, { name: 'Tom Tasker' })
    const task = expectStatus(await org.post(`/projects/${p.id}/tasks`, {
      title: 'Design', description: 'Mock-ups', assigneeId: e.id, priority: 'high', dueDate: '2026-04-01T12:30:00+02:00', hoursEstimate: 7.5, tags: ['ux', 'web', 'ux'],
    }), 201)
    assert.deepEqual({ ...task, id: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined, projectId: p.id, title: 'Design', description: 'Mock-ups', status: 'todo', assignee: { id: e.id, name: 'Tom Tasker' }, priority: 'high',
      dueDate: '2026-04-01T10:30:00.000Z', hoursLogged: 0, hoursEstimate: 7.5, tags: ['ux', 'web'], createdAt: undefined, updatedAt: undefined,
    })
    assert.deepEqual(expectStatus(await org.get(`/projects/${p.id}/tasks/${task.id}`), 200), task)
    const bare = expectStatus(await org.post(`/projects/${p.id}/tasks`, { title: 'Bare' }), 201)
    assert.deepEqual([bare.status, bare.priority, bare.assignee, bare.dueDate, bare.hoursEstimate, bare.tags, bare.description], ['todo', 'medium', null, null, null, [], null])
    const other = await createOrg(t.app)
    const cases: Array<[unknown, string]> = [
      [{}, 'title'], [{ title: '' }, 'title'], [{ title: 'X', status: 'done' }, 'status'], [{ title: 'X', priority: 'critical' }, 'priority'],
      [{ title: 'X', assigneeId: (await createEmployee(other)).id }, 'assigneeId does not name an employee'],
      [{ title: 'X', dueDate: '2026-13-01' }, 'dueDate'], [{ title: 'X', dueDate: 'soon' }, 'dueDate'],
      [{ title: 'X', hoursEstimate: -1 }, 'hoursEstimate'], [{ title: 'X', hoursEstimate: 1.234 }, 'hoursEstimate must have at most 2 decimals'],
      [{ title: 'X', tags: [''] }, 'tags'], [{ title: 'X', tags: 'a' }, 'tags'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post(`/projects/${p.id}/tasks`, body), 422, message)
    expectStatus(await org.post(`/projects/${UNKNOWN}/tasks`, { title: 'X' }), 404, 'Project not found')
    expectStatus(await org.get(`/projects/${p.id}/tasks/${UNKNOWN}`), 404, 'Task not found')
    expectStatus(await org.get(`/projects/${UNKNOWN}/tasks/${task.id}`), 404, 'Project not found')
    // A task is found only under its own project.
    const q = await createProject(org)
    expectStatus(await org.get(`/projects/${q.id}/tasks/${task.id}`), 404, 'Task not found')
    expectStatus(await org.patch(`/projects/${q.id}/tasks/${task.id}`, { title: 'X' }), 404, 'Task not found')
    assert.equal((await org.get(`/projects/${p.id}`)).body.tasksTotal, 2)
  })

  test('PATCH tasks: every status to every status (the five, freely); tasksTotal, tasksDone and progress follow exactly', async () => {
    for (const from of TASK_STATES) {
      for (const to of TASK_STATES) {
        const p = await createProject(org)
        const task = await createTask(org, p.id)
        if (from !== 'todo') expectStatus(await org.patch(`/projects/${p.id}/tasks/${task.id}`, { status: from }), 200)
        assert.equal(expectStatus(await org.patch(`/projects/${p.id}/tasks/${task.id}`, { status: to }), 200).status, to, `${from} -> ${to}`)
        const project = (await org.get(`/projects/${p.id}`)).body
        assert.deepEqual([project.tasksTotal, project.tasksDone, project.progress], [1, to === 'done' ? 1 : 0, to === 'done' ? 100 : 0], `${from} -> ${to}`)
      }
    }
    const p = await createProject(org)
    const [t1, t2, t3] = [await createTask(org, p.id), await createTask(org, p.id), await createTask(org, p.id)]
    const figures = async () => {
      const r = (await org.get(`/projects/${p.id}`)).body
      return [r.tasksTotal, r.tasksDone, r.progress]
    }
    assert.deepEqual(await figures(), [3, 0, 0])
    await org.patch(`/projects/${p.id}/tasks/${t1.id}`, { status: 'done' })
    assert.deepEqual(await figures(), [3, 1, 33.33])
    await org.patch(`/projects/${p.id}/tasks/${t2.id}`, { status: 'done' })
    assert.deepEqual(await figures(), [3, 2, 66.67])
    await org.patch(`/projects/${p.id}/tasks/${t2.id}`, { status: 'done' })
    assert.deepEqual(await figures(), [3, 2, 66.67], 'done again counts once')
    await org.patch(`/projects/${p.id}/tasks/${t3.id}`, { status: 'blocked' })
    await org.patch(`/projects/${p.id}/tasks/${t1.id}`, { status: 'in_review' })
    assert.deepEqual(await figures(), [3, 1, 33.33])
    await createTask(org, p.id)
    await createTask(org, p.id)
    await createTask(org, p.id)
    assert.deepEqual(await figures(), [6, 1, 16.67])
    // The list reads the same figures.
    const listed = (await org.get('/projects?limit=100')).body.data.find((r: any) => r.id === p.id)
    assert.deepEqual([listed.tasksTotal, listed.tasksDone, listed.progress], [6, 1, 16.67])
    for (const status of ['closed', '', 'DONE']) expectStatus(await org.patch(`/projects/${p.id}/tasks/${t1.id}`, { status }), 422, 'status')
  })

  test('PATCH tasks: fields, null clears, 422', async () => {
    const p = await createProject(org)
    const e = await createEmployee(org)
    const task = await createTask(org, p.id, { assigneeId: e.id, dueDate: '2026-05-01', hoursEstimate: 3, tags: ['a'], description: 'd' })
    const changed = expectStatus(await org.patch(`/projects/${p.id}/tasks/${task.id}`, { title: 'New', priority: 'urgent', tags: ['b', 'c'], dueDate: '2026-06-01' }), 200)
    assert.deepEqual([changed.title, changed.priority, changed.tags, changed.dueDate, changed.assignee.id, changed.status], ['New', 'urgent', ['b', 'c'], '2026-06-01T00:00:00.000Z', e.id, 'todo'])
    const cleared = expectStatus(await org.patch(`/projects/${p.id}/tasks/${task.id}`, { assigneeId: null, dueDate: null, hoursEstimate: null, description: null, tags: [] }), 200)
    assert.deepEqual([cleared.assignee, cleared.dueDate, cleared.hoursEstimate, cleared.description, cleared.tags], [null, null, null, null, []])
    expectStatus(await org.patch(`/projects/${p.id}/tasks/${task.id}`, { assigneeId: UNKNOWN }), 422, 'assigneeId does not name an employee')
    expectStatus(await org.patch(`/projects/${p.id}/tasks/${task.id}`, {}), 422)
    expectStatus(await org.patch(`/projects/${p.id}/tasks/${task.id}`, { hoursLogged: 1 }), 422, 'hoursLogged')
    expectStatus(await org.patch(`/projects/${p.id}/tasks/${task.id}`, { title: null }), 422, 'title')
  })

  test('GET /projects/:id/tasks: filters status and assigneeId, sorts, only the project\'s tasks, exact totals', async () => {
    const p = await createProject(org)
    const other = await createProject(org)
    const [e1, e2] = [await createEmployee(org), await createEmployee(org)]
    const a = await createTask(org, p.id, { title: 'a', assigneeId: e1.id, dueDate: '2026-01-01' })
    await afterTimestamp(a.createdAt)
    const b = await createTask(org, p.id, { title: 'b', assigneeId: e2.id, dueDate: '2026-03-01' })
    await afterTimestamp(b.createdAt)
    const c = await createTask(org, p.id, { title: 'c', assigneeId: e1.id, dueDate: '2026-02-01' })
    await createTask(org, other.id, { assigneeId: e1.id })
    await org.patch(`/projects/${p.id}/tasks/${b.id}`, { status: 'in_progress' })
    await org.patch(`/projects/${p.id}/tasks/${c.id}`, { status: 'done' })
    const path = `/projects/${p.id}/tasks`
    const ids = (q: string) => org.get(`${path}?${q}&limit=100`).then(idsOf)
    assert.deepEqual(expectPage(await org.get(path), { total: 3, page: 1, limit: 20 }).map((r) => r.id), [c.id, b.id, a.id])
    assert.deepEqual(await ids('status=todo'), [a.id])
    assert.deepEqual(await ids('status=in_progress'), [b.id])
    assert.deepEqual(await ids('status=done'), [c.id])
    assert.deepEqual(await ids('status=blocked'), [])
    assert.deepEqual(await ids('status=in_review'), [])
    assert.deepEqual(await ids(`assigneeId=${e1.id}`), [a.id, c.id].sort())
    assert.deepEqual(await ids(`assigneeId=${e1.id}&status=done`), [c.id])
    assert.deepEqual(await ids('search=b'), [b.id])
    expectPage(await org.get(`${path}?assigneeId=${e1.id}&limit=1`), { total: 2, page: 1, limit: 1 })
    for (const field of ['title', 'dueDate', 'createdAt', 'updatedAt']) await expectSortable((x) => org.get(x), path, field)
    expectStatus(await org.get(`${path}?status=closed`), 400)
    expectStatus(await org.get(`/projects/${UNKNOWN}/tasks`), 404, 'Project not found')
    await expectListQueryRules((x) => org.get(x), path, 'priority')
  })
})

describe('timesheets', () => {
  test('POST timesheets: 201 with the entry; billable defaults to the project\'s; hoursLogged of task and project exact', async () => {
    const p = await createProject(org, { billable: true })
    const task = await createTask(org, p.id)
    const task2 = await createTask(org, p.id)
    const e = await createEmployee(org, { name: 'Tim Sheet' })
    const path = `/projects/${p.id}/tasks/${task.id}/timesheets`
    const entry = expectStatus(await org.post(path, { employeeId: e.id, date: '2026-03-02', hours: 2.25, description: 'Kick-off' }), 201)
    assert.deepEqual({ ...entry, id: undefined, createdAt: undefined }, {
      id: undefined, projectId: p.id, taskId: task.id, employee: { id: e.id, name: 'Tim Sheet' }, date: '2026-03-02', hours: 2.25, description: 'Kick-off', billable: true, createdAt: undefined,
    })
    assert.match(entry.id, /^[0-9a-f-]{36}$/)
    const internal = expectStatus(await org.post(path, { employeeId: e.id, date: '2026-03-02', hours: 0.1, billable: false }), 201)
    assert.deepEqual([internal.billable, internal.description], [false, null])
    expectStatus(await org.post(`/projects/${p.id}/tasks/${task2.id}/timesheets`, { employeeId: e.id, date: '2026-03-03', hours: 0.2 }), 201)
    // 2.25 + 0.1 + 0.2: exact decimals, not 2.5500000000000003.
    assert.equal((await org.get(`/projects/${p.id}`)).body.hoursLogged, 2.55)
    assert.equal((await org.get(`/projects/${p.id}/tasks/${task.id}`)).body.hoursLogged, 2.35)
    assert.equal((await org.get(`/projects/${p.id}/tasks/${task2.id}`)).body.hoursLogged, 0.2)
    assert.equal((await org.get(`/projects/${p.id}/tasks?limit=100`)).body.data.find((r: any) => r.id === task.id).hoursLogged, 2.35)
    const np = await createProject(org)
    const nt = await createTask(org, np.id)
    assert.equal(expectStatus(await org.post(`/projects/${np.id}/tasks/${nt.id}/timesheets`, { employeeId: e.id, date: '2026-03-02', hours: 1 }), 201).billable, false)
    assert.equal(expectStatus(await org.post(`/projects/${np.id}/tasks/${nt.id}/timesheets`, { employeeId: e.id, date: '2026-03-02', hours: 1, billable: true }), 201).billable, true)
    // An employee who logged time cannot be deleted (409).
    expectStatus(await org.del(`/employees/${e.id}`), 409)
  })

  test('POST timesheets: 422 for bad bodies, 404 for unknown project or task; nothing is logged', async () => {
    const p = await createProject(org)
    const task = await createTask(org, p.id)
    const e = await createEmployee(org)
    const other = await createOrg(t.app)
    const path = `/projects/${p.id}/tasks/${task.id}/timesheets`
    const cases: Array<[unknown, string]> = [
      [{ date: '2026-03-02', hours: 1 }, 'employeeId'],
      [{ employeeId: e.id, hours: 1 }, 'date'],
      [{ employeeId: e.id, date: '2026-03-02' }, 'hours'],
      [{ employeeId: e.id, date: '2026-03-02', hours: 0 }, 'hours'],
      [{ employeeId: e.id, date: '2026-03-02', hours: -2 }, 'hours'],
      [{ employeeId: e.id, date: '2026-03-02', hours: '2' }, 'hours'],
      [{ employeeId: e.id, date: '2026-03-02', hours: 1.125 }, 'hours must have at most 2 decimals'],
      [{ employeeId: e.id, date: '2026-02-30', hours: 1 }, 'date'],
      [{ employeeId: e.id, date: '1850-01-01', hours: 1 }, 'date'],
      [{ employeeId: e.id, date: '2026-03-02T08:00:00Z', hours: 1 }, 'date'],
      [{ employeeId: UNKNOWN, date: '2026-03-02', hours: 1 }, 'employeeId does not name an employee'],
      [{ employeeId: (await createEmployee(other)).id, date: '2026-03-02', hours: 1 }, 'employeeId does not name an employee'],
      [{ employeeId: e.id, date: '2026-03-02', hours: 1, projectId: p.id }, 'projectId'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post(path, body), 422, message)
    const body = { employeeId: e.id, date: '2026-03-02', hours: 1 }
    expectStatus(await org.post(`/projects/${UNKNOWN}/tasks/${task.id}/timesheets`, body), 404, 'Project not found')
    expectStatus(await org.post(`/projects/${p.id}/tasks/${UNKNOWN}/timesheets`, body), 404, 'Task not found')
    const q = await createProject(org)
    expectStatus(await org.post(`/projects/${q.id}/tasks/${task.id}/timesheets`, body), 404, 'Task not found')
    assert.equal((await org.get(`/projects/${p.id}`)).body.hoursLogged, 0)
    assert.equal((await org.get(`/projects/${p.id}/timesheets`)).body.totalHours, 0)
  })

  test('the 24-hour day of one employee across the organization: 400 above, per employee and per date', async () => {
    const [p1, p2] = [await createProject(org), await createProject(org)]
    const [t1, t2] = [await createTask(org, p1.id), await createTask(org, p2.id)]
    const [e1, e2] = [await createEmployee(org), await createEmployee(org)]
    const log = (p: any, task: any, employeeId: string, date: string, hours: number) =>
      org.post(`/projects/${p.id}/tasks/${task.id}/timesheets`, { employeeId, date, hours })
    expectStatus(await log(p1, t1, e1.id, '2026-04-01', 10), 201)
    expectStatus(await log(p2, t2, e1.id, '2026-04-01', 13.99), 201)
    const over = expectStatus(await log(p2, t2, e1.id, '2026-04-01', 0.02), 400, 'Hours logged exceed the daily limit of 24 hours')
    assert.equal(over.code, 'LIMIT_EXCEEDED')
    expectStatus(await log(p1, t1, e1.id, '2026-04-01', 0.01), 201)
    expectStatus(await log(p1, t1, e1.id, '2026-04-01', 0.01), 400)
    // Other dates and other employees have their own day.
    expectStatus(await log(p1, t1, e1.id, '2026-04-02', 24), 201)
    expectStatus(await log(p1, t1, e2.id, '2026-04-01', 24), 201)
    // One entry above 24 on an empty day is the same limit (400), not a validation failure.
    expectStatus(await log(p1, t1, e2.id, '2026-04-03', 24.01), 400, 'daily limit')
    assert.equal((await org.get(`/projects/${p1.id}`)).body.hoursLogged, 10 + 0.01 + 24 + 24)
    assert.equal((await org.get(`/projects/${p2.id}`)).body.hoursLogged, 13.99)
    // Another organization's employee days are its own.
    const o2 = await createOrg(t.app)
    const p3 = await createProject(o2)
    const t3 = await createTask(o2, p3.id)
    const e3 = await createEmployee(o2)
    expectStatus(await o2.post(`/projects/${p3.id}/tasks/${t3.id}/timesheets`, { employeeId: e3.id, date: '2026-04-01', hours: 24 }), 201)
  })

  test('the 24-hour day under concurrency: 20 parallel entries on different projects and tasks, exactly those that fit get 201', async () => {
    const o = await createOrg(t.app)
    const e = await createEmployee(o)
    const targets: Array<{ p: any; task: any }> = []
    for (let i = 0; i < 20; i++) {
      const p = await createProject(o)
      targets.push({ p, task: await createTask(o, p.id) })
    }
    const day = async (date: string) => (await Promise.all(targets.map(({ p }) => o.get(`/projects/${p.id}/timesheets?from=${date}&to=${date}`))))
      .reduce((s, r) => s + Math.round(r.body.totalHours * 100), 0) / 100
    // Equal entries: 24 / 1.5 = 16 fit, whatever the order.
    const equal = await Promise.all(targets.map(({ p, task }) => o.post(`/projects/${p.id}/tasks/${task.id}/timesheets`, { employeeId: e.id, date: '2026-05-04', hours: 1.5 })))
    assert.deepEqual(equal.map((r) => r.status).sort(), [...Array(16).fill(201), ...Array(4).fill(400)])
    for (const r of equal.filter((x) => x.status === 400)) expectStatus(r, 400, 'daily limit')
    assert.equal(await day('2026-05-04'), 24)
    // Mixed entries: the accepted ones sum to at most 24, and each refused one would not fit on top of them.
    const hours = [5, 3.25, 7, 2.5, 0.75, 4, 6.5, 1, 8, 2, 3, 0.5, 9.75, 1.25, 2.25, 4.5, 0.25, 5.5, 3.75, 1.5]
    const mixed = await Promise.all(targets.map(({ p, task }, i) => o.post(`/projects/${p.id}/tasks/${task.id}/timesheets`, { employeeId: e.id, date: '2026-05-05', hours: hours[i] })))
    assert.ok(mixed.every((r) => r.status === 201 || r.status === 400), mixed.map((r) => r.status).join())
    const accepted = mixed.reduce((s, r, i) => s + (r.status === 201 ? Math.round(hours[i] * 100) : 0), 0)
    assert.ok(accepted <= 2400, `accepted ${accepted / 100} hours`)
    mixed.forEach((r, i) => r.status === 400 && assert.ok(accepted + Math.round(hours[i] * 100) > 2400, `entry of ${hours[i]} h was refused but fits`))
    assert.ok(mixed.some((r) => r.status === 400))
    assert.equal(await day('2026-05-05'), accepted / 100)
    // The projects' hoursLogged agree with the entries.
    const logged = (await Promise.all(targets.map(({ p }) => o.get(`/projects/${p.id}`)))).reduce((s, r) => s + Math.round(r.body.hoursLogged * 100), 0)
    assert.equal(logged, 2400 + accepted)
  })

  test('GET /projects/:id/timesheets: the summary of a hand-computed fixture, for ranges', async () => {
    const p = await createProject(org, { billable: true, hoursBudget: 40 })
    const [t1, t2] = [await createTask(org, p.id), await createTask(org, p.id)]
    const alice = await createEmployee(org, { name: 'Alice' })
    const bob = await createEmployee(org, { name: 'Bob' })
    const carol = await createEmployee(org, { name: 'Carol' })
    const log = async (task: any, employeeId: string, date: string, hours: number, billable?: boolean) =>
      expectStatus(await org.post(`/projects/${p.id}/tasks/${task.id}/timesheets`, { employeeId, date, hours, ...(billable === undefined ? {} : { billable }) }), 201)
    await log(t1, alice.id, '2026-03-02', 8)
    await log(t2, alice.id, '2026-03-03', 7.5)
    await log(t1, bob.id, '2026-03-02', 6.25, false)
    await log(t2, bob.id, '2026-03-05', 4)
    await log(t1, carol.id, '2026-03-10', 3)
    // Another project's entries stay out.
    const q = await createProject(org, { billable: true })
    const qt = await createTask(org, q.id)
    expectStatus(await org.post(`/projects/${q.id}/tasks/${qt.id}/timesheets`, { employeeId: carol.id, date: '2026-03-02', hours: 5 }), 201)
    const summary = (qs = '') => org.get(`/projects/${p.id}/timesheets${qs}`).then((r) => expectStatus(r, 200))
    // All: 8 + 7.5 + 6.25 + 4 + 3 = 28.75; billable 28.75 - 6.25 = 22.5; 100 x 28.75 / 40 = 71.875 -> 71.88.
    assert.deepEqual(await summary(), {
      projectId: p.id, from: null, to: null, totalHours: 28.75, billableHours: 22.5, budget: 40, utilizationPercent: 71.88,
      byEmployee: [{ employeeId: alice.id, name: 'Alice', hours: 15.5 }, { employeeId: bob.id, name: 'Bob', hours: 10.25 }, { employeeId: carol.id, name: 'Carol', hours: 3 }],
    })
    // 03-02..03-05: 8 + 7.5 + 6.25 + 4 = 25.75; billable 19.5; 64.375 -> 64.38.
    assert.deepEqual(await summary('?from=2026-03-02&to=2026-03-05'), {
      projectId: p.id, from: '2026-03-02', to: '2026-03-05', totalHours: 25.75, billableHours: 19.5, budget: 40, utilizationPercent: 64.38,
      byEmployee: [{ employeeId: alice.id, name: 'Alice', hours: 15.5 }, { employeeId: bob.id, name: 'Bob', hours: 10.25 }],
    })
    // One day, inclusive: 03-03 is Alice's 7.5; 18.75 %.
    const one = await summary('?from=2026-03-03&to=2026-03-03')
    assert.deepEqual([one.totalHours, one.billableHours, one.utilizationPercent, one.byEmployee], [7.5, 7.5, 18.75, [{ employeeId: alice.id, name: 'Alice', hours: 7.5 }]])
    // Open-ended: from 03-05 is Bob's 4 and Carol's 3 (17.5 %); to 03-02 is Alice's 8 and Bob's 6.25 (35.63 %, from 35.625).
    const from = await summary('?from=2026-03-05')
    assert.deepEqual([from.totalHours, from.billableHours, from.utilizationPercent, from.byEmployee.map((r: any) => [r.name, r.hours])], [7, 7, 17.5, [['Bob', 4], ['Carol', 3]]])
    const to = await summary('?to=2026-03-02')
    assert.deepEqual([to.totalHours, to.billableHours, to.utilizationPercent, to.byEmployee.map((r: any) => [r.name, r.hours])], [14.25, 8, 35.63, [['Alice', 8], ['Bob', 6.25]]])
    const none = await summary('?from=2027-01-01')
    assert.deepEqual([none.totalHours, none.billableHours, none.utilizationPercent, none.byEmployee], [0, 0, 0, []])
    // Without a budget: utilizationPercent null; equal hours sort by name.
    const nb = await createProject(org)
    const nt = await createTask(org, nb.id)
    for (const e of [carol, bob]) expectStatus(await org.post(`/projects/${nb.id}/tasks/${nt.id}/timesheets`, { employeeId: e.id, date: '2026-03-02', hours: 2 }), 201)
    const nbs = expectStatus(await org.get(`/projects/${nb.id}/timesheets`), 200)
    assert.deepEqual([nbs.budget, nbs.utilizationPercent, nbs.billableHours, nbs.byEmployee.map((r: any) => r.name)], [null, null, 0, ['Bob', 'Carol']])
    // The project's own figures agree.
    assert.equal((await org.get(`/projects/${p.id}`)).body.hoursLogged, 28.75)
    expectStatus(await org.get(`/projects/${p.id}/timesheets?from=2026-03-05&to=2026-03-04`), 422, 'from must not be after to')
    for (const bad of ['from=2026-02-30', 'to=yesterday', 'from=2026-03-02T00:00:00Z', 'employeeId=x']) {
      const res = await org.get(`/projects/${p.id}/timesheets?${bad}`)
      assert.ok(res.status === 400 || res.status === 422, `${bad}: ${res.status}`)
    }
    expectStatus(await org.get(`/projects/${UNKNOWN}/timesheets`), 404, 'Project not found')
  })
})

describe('milestones', () => {
  test('POST, GET list and PATCH reached / reachedDate', async () => {
    const p = await createProject(org)
    const m = expectStatus(await org.post(`/projects/${p.id}/milestones`, { name: 'Beta', targetDate: '2026-06-01T09:00:00Z' }), 201)
    assert.deepEqual({ ...m, id: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined, projectId: p.id, name: 'Beta', targetDate: '2026-06-01T09:00:00.000Z', reached: false, reachedDate: null, createdAt: undefined, updatedAt: undefined,
    })
    const m2 = expectStatus(await org.post(`/projects/${p.id}/milestones`, { name: 'Launch' }), 201)
    assert.equal(m2.targetDate, null)
    for (const [body, message] of [[{}, 'name'], [{ name: '' }, 'name'], [{ name: 'X', targetDate: 'soon' }, 'targetDate'], [{ name: 'X', reached: true }, 'reached']] as const) {
      expectStatus(await org.post(`/projects/${p.id}/milestones`, body), 422, message)
    }
    expectStatus(await org.post(`/projects/${UNKNOWN}/milestones`, { name: 'X' }), 404, 'Project not found')
    const list = expectPage(await org.get(`/projects/${p.id}/milestones`), { total: 2, page: 1, limit: 20 })
    assert.deepEqual(list.map((r) => r.id), [m2.id, m.id])
    assert.deepEqual(list[1], m)

    // reached=true without reachedDate: the current time.
    const t0 = Date.now()
    const reached = expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, { reached: true }), 200)
    assert.equal(reached.reached, true)
    assert.ok(Math.abs(Date.parse(reached.reachedDate) - t0) < 60_000, reached.reachedDate)
    // Again: keeps the recorded date.
    assert.equal(expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, { reached: true }), 200).reachedDate, reached.reachedDate)
    // With a reachedDate, and a reachedDate alone.
    const dated = expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, { reached: true, reachedDate: '2026-05-30T17:00:00+02:00' }), 200)
    assert.deepEqual([dated.reached, dated.reachedDate], [true, '2026-05-30T15:00:00.000Z'])
    const alone = expectStatus(await org.patch(`/projects/${p.id}/milestones/${m2.id}`, { reachedDate: '2026-07-01' }), 200)
    assert.deepEqual([alone.reached, alone.reachedDate], [true, '2026-07-01T00:00:00.000Z'])
    // reached=false clears the date.
    const undone = expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, { reached: false }), 200)
    assert.deepEqual([undone.reached, undone.reachedDate, undone.name, undone.targetDate], [false, null, 'Beta', m.targetDate])
    expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, { reached: false, reachedDate: '2026-05-30' }), 422, 'reachedDate may not be given with reached=false')
    expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, { reachedDate: '2026-02-30' }), 422, 'reachedDate')
    expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, { reached: 'yes' }), 422, 'reached')
    expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, {}), 422)
    const renamed = expectStatus(await org.patch(`/projects/${p.id}/milestones/${m.id}`, { name: 'Beta 2', targetDate: null }), 200)
    assert.deepEqual([renamed.name, renamed.targetDate, renamed.reached], ['Beta 2', null, false])
    // Filters and sorts of the list.
    assert.deepEqual(idsOf(await org.get(`/projects/${p.id}/milestones?reached=true`)), [m2.id])
    assert.deepEqual(idsOf(await org.get(`/projects/${p.id}/milestones?reached=false`)), [m.id])
    assert.deepEqual(idsOf(await org.get(`/projects/${p.id}/milestones?search=launch`)), [m2.id])
    await expectSortable((x) => org.get(x), `/projects/${p.id}/milestones`, 'name')
    expectStatus(await org.patch(`/projects/${p.id}/milestones/${UNKNOWN}`, { reached: true }), 404, 'Milestone not found')
    expectStatus(await org.patch(`/projects/${UNKNOWN}/milestones/${m.id}`, { reached: true }), 404, 'Project not found')
    const q = await createProject(org)
    expectStatus(await org.patch(`/projects/${q.id}/milestones/${m.id}`, { reached: true }), 404, 'Milestone not found')
    expectStatus(await org.get(`/projects/${UNKNOWN}/milestones`), 404, 'Project not found')
    const first = await createMilestone(org, q.id, { targetDate: '2026-01-01' })
    await afterTimestamp(first.createdAt)
    await createMilestone(org, q.id, { targetDate: '2026-02-01' })
    for (const field of ['targetDate', 'createdAt']) await expectSortable((x) => org.get(x), `/projects/${q.id}/milestones`, field)
    await expectListQueryRules((x) => org.get(x), `/projects/${q.id}/milestones`, 'reached')
  })
})

describe('events', () => {
  test('project.created, project.updated, project.archived (once), task.created, task.updated, each with the resource as GET answers it', async () => {
    const o = await createOrg(t.app)
    const events = async () => (await t.app.ctx.db.query<{ type: string; resource_id: string; data: { object: any } }>(
      'SELECT type, resource_id, data FROM domain_events WHERE organization_id = $1 ORDER BY seq', [o.id])).rows
      .map((e) => [e.type, e.resource_id, e.data.object])
    const p = await createProject(o, { name: 'Evented' })
    const updated = expectStatus(await o.patch(`/projects/${p.id}`, { status: 'on_hold' }), 200)
    expectStatus(await o.patch(`/projects/${p.id}`, { endDate: '2026-01-01', startDate: '2026-02-01' }), 422)
    const task = await createTask(o, p.id)
    const doneTask = expectStatus(await o.patch(`/projects/${p.id}/tasks/${task.id}`, { status: 'done' }), 200)
    expectStatus(await o.del(`/projects/${p.id}`), 204)
    expectStatus(await o.del(`/projects/${p.id}`), 204)
    const archived = expectStatus(await o.get(`/projects/${p.id}`), 200)
    assert.deepEqual(await events(), [
      ['project.created', p.id, p],
      ['project.updated', p.id, updated],
      ['task.created', task.id, task],
      ['task.updated', task.id, doneTask],
      ['project.archived', p.id, archived],
    ])
  })
})

describe('access', () => {
  test('401 without a credential, 403 for roles outside admin and member (nothing changes), member may; 404 of another organization', async () => {
    const p = await createProject(org)
    const task = await createTask(org, p.id)
    const m = await createMilestone(org, p.id)
    const e = await createEmployee(org)
    const routes = [
      ['GET', '/projects'], ['POST', '/projects'], ['GET', `/projects/${p.id}`], ['PATCH', `/projects/${p.id}`], ['DELETE', `/projects/${p.id}`],
      ['GET', `/projects/${p.id}/tasks`], ['POST', `/projects/${p.id}/tasks`], ['GET', `/projects/${p.id}/tasks/${task.id}`], ['PATCH', `/projects/${p.id}/tasks/${task.id}`],
      ['POST', `/projects/${p.id}/tasks/${task.id}/timesheets`], ['GET', `/projects/${p.id}/timesheets`],
      ['GET', `/projects/${p.id}/milestones`], ['POST', `/projects/${p.id}/milestones`], ['PATCH', `/projects/${p.id}/milestones/${m.id}`],
    ] as const
    const bodies: Record<string, unknown> = {
      'POST /projects': { name: 'X' }, [`PATCH /projects/${p.id}`]: { status: 'done' }, [`POST /projects/${p.id}/tasks`]: { title: 'X' },
      [`PATCH /projects/${p.id}/tasks/${task.id}`]: { status: 'done' }, [`POST /projects/${p.id}/tasks/${task.id}/timesheets`]: { employeeId: e.id, date: '2026-01-01', hours: 1 },
      [`POST /projects/${p.id}/milestones`]: { name: 'X' }, [`PATCH /projects/${p.id}/milestones/${m.id}`]: { reached: true },
    }
    for (const [method, path] of routes) {
      const body = bodies[`${method} ${path}`]
      expectStatus(await call(t.app, method, path, { body }), 401)
      for (const role of ['customer', 'support', 'agent'] as const) expectStatus(await call(t.app, method, path, { body, token: await org.as(role) }), 403)
    }
    const after = (await org.get(`/projects/${p.id}`)).body
    assert.deepEqual([after.status, after.archived, after.tasksDone, after.hoursLogged], ['active', false, 0, 0])
    const member = await org.as('member')
    for (const [method, path] of routes) {
      const res = await call(t.app, method, path, { body: bodies[`${method} ${path}`], token: member })
      assert.ok(res.status < 300, `member ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
    }

    const other = await createOrg(t.app)
    for (const res of [
      await other.get(`/projects/${p.id}`), await other.patch(`/projects/${p.id}`, { name: 'X' }), await other.del(`/projects/${p.id}`),
      await other.get(`/projects/${p.id}/tasks`), await other.get(`/projects/${p.id}/tasks/${task.id}`), await other.post(`/projects/${p.id}/tasks`, { title: 'X' }),
      await other.patch(`/projects/${p.id}/tasks/${task.id}`, { title: 'X' }), await other.get(`/projects/${p.id}/timesheets`),
      await other.post(`/projects/${p.id}/tasks/${task.id}/timesheets`, { employeeId: (await createEmployee(other)).id, date: '2026-01-01', hours: 1 }),
      await other.get(`/projects/${p.id}/milestones`), await other.post(`/projects/${p.id}/milestones`, { name: 'X' }),
      await other.patch(`/projects/${p.id}/milestones/${m.id}`, { reached: false }),
    ]) expectStatus(res, 404, 'Project not found')
    assert.equal((await other.get('/projects?archived=true')).body.meta.total, 0)
  })
})
