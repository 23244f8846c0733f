// In Chromium: the Projects and Employees pages (issue 29, item 4: from
// project to billable hours without the API). An admin creates an employee,
// a project for a customer picked by name, its tasks (assignee by name, an
// estimate and a status changed) and a milestone, logs hours typed as 1.5 and
// 1:30 (a day above 24 hours refused in the API's words, minutes the API
// cannot keep refused in the form), and the progress and the billable figures
// are checked through HTTP against numbers computed by hand; the project is
// archived and restored, an employee with hours cannot be deleted and one
// without can. axe-core on every state, the main pages at 390x844, the calls
// to the API counted.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, rows, shot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
let o: TestOrg
before(async () => {
  if (!SKIP_E2E) {
    e = await startE2E()
    o = await createOrg(e.t.app, 'Harbor Digital')
  }
})
after(async () => await e?.close())

/** Picks the employee `name` in a picker of `form`: searched by `search`, chosen once the search's answer shows it. */
async function pick(form: Locator, label: string, search: string, name: string) {
  await form.getByLabel(`Find ${label.toLowerCase()}`).fill(search)
  const select = form.getByLabel(label, { exact: true })
  let option = ''
  await expectSoon(async () => {
    option = (await select.locator('option').allInnerTexts()).find((o) => o.startsWith(name)) ?? ''
    return option !== ''
  }, true)
  await select.selectOption({ label: option })
}
/** Hides the toasts, so that a screenshot shows the page under them. */
async function hideToasts(page: Page) {
  const hide = page.getByRole('button', { name: 'Hide this message' })
  while ((await hide.count()) > 0) await hide.first().click()
}

test('projects: an admin creates an employee and a project for a customer, adds tasks and a milestone, logs hours, and the figures match', { timeout: 240_000 }, async (t) => {
  if (!needsBrowser(t)) return
  await ok(o.post('/contacts', { name: 'Harbor Logistics', email: 'ops@harbor.example' }))
  await ok(o.post('/contacts', { name: 'Alder Bakery', email: 'hello@alder.example' }))
  const customer = (await ok(o.get('/contacts?search=Harbor'), 200)).data[0]
  const bea = await ok(o.post('/employees', { name: 'Bea Builder', email: 'bea@harbor-digital.example', department: 'Engineering' }))
  const temp = await ok(o.post('/employees', { name: 'Tom Temp', email: 'tom@harbor-digital.example' }))

  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}`)
  })
  await signIn(page, o.adminEmail, o.password)
  const nav = page.getByRole('navigation', { name: 'Main' })
  // The home page's own calls are over before the Employees page's are counted.
  await page.waitForLoadState('networkidle')

  // Employees: A to Z; a new employee made in the page.
  calls.length = 0
  await nav.getByRole('link', { name: 'Employees', exact: true }).click()
  await page.getByRole('heading', { name: 'Employees', level: 1 }).waitFor()
  await expectSoon(async () => (await rows(page, 'Employees')).map((r) => r.slice(0, 3)), [
    ['Bea Builder', 'bea@harbor-digital.example', 'Engineering'],
    ['Tom Temp', 'tom@harbor-digital.example', '—'],
  ])
  assert.deepEqual(calls, ['GET /api/employees'])
  await expectAccessible(page, 'employees')
  await onPhone(page, 'employees', 'employees')
  await page.getByRole('link', { name: 'New employee' }).click()
  const newEmployee = page.getByRole('form', { name: 'New employee' })
  await newEmployee.getByLabel('Name').fill('Carl Coder')
  await newEmployee.getByLabel('E-mail').fill('carl@harbor-digital.example')
  await newEmployee.getByLabel('Department').fill('Engineering')
  await newEmployee.getByLabel('Job title').fill('Developer')
  await newEmployee.getByLabel('Hire date').fill('2026-03-01')
  await expectAccessible(page, 'new employee')
  await newEmployee.getByRole('button', { name: 'Create employee' }).click()
  await page.getByRole('status').filter({ hasText: 'Carl Coder created.' }).waitFor()
  const [carl] = (await ok(o.get('/employees?search=carl'), 200)).data
  assert.deepEqual([carl.name, carl.email, carl.department, carl.jobTitle, carl.hireDate], ['Carl Coder', 'carl@harbor-digital.example', 'Engineering', 'Developer', '2026-03-01'])
  // Edited: the job title changed, the e-mail emptied (null).
  await page.getByRole('link', { name: 'Carl Coder' }).click()
  const editEmployee = page.getByRole('form', { name: 'Edit employee' })
  await editEmployee.getByLabel('Job title').fill('Lead developer')
  await editEmployee.getByLabel('E-mail').fill('')
  await editEmployee.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('status').filter({ hasText: 'Changes saved.' }).waitFor()
  const edited = await ok(o.get(`/employees/${carl.id}`), 200)
  assert.deepEqual([edited.jobTitle, edited.email, edited.department], ['Lead developer', null, 'Engineering'])
  await expectAccessible(page, 'employee edited')

  // Projects: none yet; a new project for a customer picked by name, managed by Carl.
  calls.length = 0
  await nav.getByRole('link', { name: 'Projects', exact: true }).click()
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor()
  await page.getByText('No projects yet.').waitFor()
  assert.deepEqual(calls, ['GET /api/projects'])
  await expectAccessible(page, 'projects, empty')
  await page.getByRole('link', { name: 'New project' }).click()
  const newProject = page.getByRole('form', { name: 'New project' })
  await newProject.getByLabel('Name').fill('Harbor website')
  await newProject.getByLabel('Find customer').fill('harbor')
  await expectSoon(async () => await newProject.getByLabel('Customer', { exact: true }).locator('option').allInnerTexts(), ['choose a contact', 'Harbor Logistics (ops@harbor.example)'])
  await newProject.getByLabel('Customer', { exact: true }).selectOption({ label: 'Harbor Logistics (ops@harbor.example)' })
  await newProject.getByLabel('Find manager').fill('carl')
  await expectSoon(async () => await newProject.getByLabel('Manager', { exact: true }).locator('option').allInnerTexts(), ['no manager', 'Carl Coder'])
  await newProject.getByLabel('Manager', { exact: true }).selectOption({ label: 'Carl Coder' })
  await newProject.getByLabel('Start date').fill('2026-11-02')
  await newProject.getByLabel('End date').fill('2026-10-01')
  await newProject.getByLabel('Hours budget').fill('40')
  await newProject.getByRole('checkbox', { name: /Billable/ }).check()
  // The end before the start: said in the form, nothing sent, no project.
  calls.length = 0
  await newProject.getByRole('button', { name: 'Create project' }).click()
  await newProject.getByRole('alert').filter({ hasText: 'End date: not before the start date' }).waitFor()
  assert.deepEqual(calls.filter((c) => c.startsWith('POST')), [])
  assert.equal((await ok(o.get('/projects'), 200)).meta.total, 0)
  await expectAccessible(page, 'new project, refused')
  await newProject.getByLabel('End date').fill('2026-12-18')
  calls.length = 0
  await newProject.getByRole('button', { name: 'Create project' }).click()
  await page.getByRole('heading', { name: 'Harbor website', level: 1 }).waitFor()
  await page.getByRole('status').filter({ hasText: 'Harbor website created.' }).waitFor()
  const [project] = (await ok(o.get('/projects'), 200)).data
  assert.deepEqual([project.name, project.contact?.id, project.manager?.id, project.startDate, project.endDate, project.hoursBudget, project.billable, project.status], ['Harbor website', customer.id, carl.id, '2026-11-02', '2026-12-18', 40, true, 'active'])
  await page.getByRole('table', { name: 'Hours by employee' }).or(page.getByText('No hours logged over these dates.')).waitFor()
  await page.getByText('No tasks yet').waitFor()
  // The project's page: the create, then the project, its tasks, its milestones, the hours, and the pickers' employees.
  const pageCalls = calls.filter((c) => c !== 'POST /api/projects')
  assert.ok(pageCalls.length <= 9, `the project's page made ${pageCalls.length} calls: ${pageCalls.join(', ')}`)
  await expectAccessible(page, 'project, new')
  const pid = project.id

  // Tasks: three, assignee picked by name, estimates as hours.
  const newTask = page.getByRole('form', { name: 'New task' })
  const addTask = async (title: string, estimate: string, assignee?: string) => {
    await newTask.getByLabel('Title').fill(title)
    await newTask.getByLabel('Estimate').fill(estimate)
    if (assignee) await pick(newTask, 'Assignee', assignee.split(' ')[0]!.toLowerCase(), assignee)
    await newTask.getByRole('button', { name: 'Add task' }).click()
    await page.getByRole('status').filter({ hasText: `Task ${title} added.` }).waitFor()
    await page.getByRole('cell', { name: new RegExp(`^${title}`) }).waitFor()
  }
  await addTask('Design', '12', 'Bea Builder')
  await addTask('Build', '1:30', 'Carl Coder')
  await addTask('Launch', '2.5')
  const tasks = (await ok(o.get(`/projects/${pid}/tasks?sortBy=createdAt&sortOrder=asc`), 200)).data
  assert.deepEqual(tasks.map((x: any) => [x.title, x.assignee?.name ?? null, x.hoursEstimate, x.status]), [['Design', 'Bea Builder', 12, 'todo'], ['Build', 'Carl Coder', 1.5, 'todo'], ['Launch', null, 2.5, 'todo']])
  const [design, build, launch] = tasks
  await expectAccessible(page, 'project, three tasks')

  // Build edited: given to Bea, estimated 18.5 hours.
  await page.getByRole('button', { name: 'Edit Build' }).click()
  const editTask = page.getByRole('form', { name: 'Edit task Build' })
  await editTask.getByLabel('Find assignee').fill('bea')
  await expectSoon(async () => await editTask.getByLabel('Assignee', { exact: true }).locator('option').allInnerTexts(), ['nobody', 'Carl Coder', 'Bea Builder (bea@harbor-digital.example)'])
  await editTask.getByLabel('Assignee', { exact: true }).selectOption({ label: 'Bea Builder (bea@harbor-digital.example)' })
  await editTask.getByLabel('Estimate').fill('18.5')
  await expectAccessible(page, 'project, editing a task')
  await editTask.getByRole('button', { name: 'Save task' }).click()
  await page.getByRole('status').filter({ hasText: 'Task Build saved.' }).waitFor()
  assert.equal(await editTask.count(), 0)
  const built = await ok(o.get(`/projects/${pid}/tasks/${build.id}`), 200)
  assert.deepEqual([built.assignee?.id, built.hoursEstimate, built.title, built.status], [bea.id, 18.5, 'Build', 'todo'])

  // Design done: 1 of 3 is 33.33 %.
  await page.getByLabel('Status of Design').selectOption('done')
  await page.getByRole('status').filter({ hasText: 'Design: done.' }).waitFor()
  await expectSoon(() => page.getByTestId('project-progress').innerText(), '33.33 %')
  assert.equal(await page.getByTestId('project-tasks').innerText(), '1 of 3')
  const third = await ok(o.get(`/projects/${pid}`), 200)
  assert.deepEqual([third.progress, third.tasksDone, third.tasksTotal], [33.33, 1, 3])

  // Hours: 1:30 of Bea on Design; 7.25 of Carl and 20 of Bea on Build; 2 not billable of Carl on Launch.
  const log = page.getByRole('form', { name: 'Log hours' })
  const logHours = async (task: string, who: string, day: string, hours: string, billable = true) => {
    await log.getByLabel('Task').selectOption({ label: task })
    await pick(log, 'Employee', who, who === 'bea' ? 'Bea Builder' : 'Carl Coder')
    await log.getByLabel('Date').fill(day)
    await log.getByLabel('Hours').fill(hours)
    await log.getByRole('checkbox', { name: 'Billable' }).setChecked(billable)
    await log.getByRole('button', { name: 'Log hours' }).click()
  }
  assert.equal(await log.getByRole('checkbox', { name: 'Billable' }).isChecked(), true, "the project's billable is the default")
  // 1:20 is 1.333… hours: said in the form, and nothing is sent.
  calls.length = 0
  await logHours('Design', 'bea', '2026-11-02', '1:20')
  await log.getByRole('alert').filter({ hasText: 'Hours: 1:20 is 1.3333… hours' }).waitFor()
  assert.deepEqual(calls.filter((c) => c.startsWith('POST')), [])
  await expectAccessible(page, 'log hours, 1:20 refused in the form')
  await logHours('Design', 'bea', '2026-11-02', '1:30')
  await page.getByRole('status').filter({ hasText: '1.5 h logged for Bea Builder' }).waitFor()
  await logHours('Build', 'carl', '2026-11-02', '7.25')
  await page.getByRole('status').filter({ hasText: '7.25 h logged for Carl Coder' }).waitFor()
  await logHours('Build', 'bea', '2026-11-02', '20')
  await page.getByRole('status').filter({ hasText: '20 h logged for Bea Builder' }).waitFor()
  // 21.5 + 3 is more than Bea's day holds: the API's 400 in its words, and no hours are added.
  await logHours('Launch', 'bea', '2026-11-02', '3')
  await log.getByRole('alert').filter({ hasText: 'Hours logged exceed the daily limit of 24 hours: the employee has 21.5 hours on 2026-11-02, 3 more would make 24.5.' }).waitFor()
  assert.doesNotMatch(await log.getByRole('alert').innerText(), /LIMIT_EXCEEDED/)
  assert.equal((await ok(o.get(`/projects/${pid}`), 200)).hoursLogged, 28.75)
  await expectAccessible(page, 'log hours, a day above 24 hours refused')
  await logHours('Launch', 'carl', '2026-11-03', '2', false)
  await page.getByRole('status').filter({ hasText: '2 h logged for Carl Coder on' }).waitFor()

  // The figures, by hand: 1.5 + 7.25 + 20 + 2 = 30.75 h, billable 28.75 h, 30.75 of 40 is 76.875 %, answered 76.88;
  // Bea 21.5 h, Carl 9.25 h; Design 1.5 h, Build 27.25 h, Launch 2 h.
  await expectSoon(() => page.getByTestId('total-hours').innerText(), '30.75 h')
  assert.deepEqual(
    [await page.getByTestId('billable-hours').innerText(), await page.getByTestId('internal-hours').innerText(), await page.getByTestId('utilization').innerText(), await page.getByTestId('project-hours').innerText()],
    ['28.75 h', '2 h', '76.88 %', '30.75 h of 40 h'],
  )
  await expectSoon(() => rows(page, 'Hours by employee'), [['Bea Builder', '21.5 h'], ['Carl Coder', '9.25 h']])
  const summary = await ok(o.get(`/projects/${pid}/timesheets`), 200)
  assert.deepEqual([summary.totalHours, summary.billableHours, summary.budget, summary.utilizationPercent, summary.byEmployee.map((x: any) => [x.name, x.hours])], [30.75, 28.75, 40, 76.88, [['Bea Builder', 21.5], ['Carl Coder', 9.25]]])
  const logged = (await ok(o.get(`/projects/${pid}/tasks?sortBy=createdAt&sortOrder=asc`), 200)).data.map((x: any) => [x.title, x.hoursLogged])
  assert.deepEqual(logged, [['Design', 1.5], ['Build', 27.25], ['Launch', 2]])
  await expectSoon(async () => (await rows(page, 'Tasks of Harbor website')).map((r) => [r[0], r[1], r[3], r[4]]), [['Design medium', 'Bea Builder', '12 h', '1.5 h'], ['Build medium', 'Bea Builder', '18.5 h', '27.25 h'], ['Launch medium', '—', '2.5 h', '2 h']])
  await expectAccessible(page, 'project, hours logged')

  // Only November 3: Carl's 2 hours, none billable.
  await page.getByRole('search', { name: 'Dates of the hours' }).getByLabel('From').fill('2026-11-03')
  await expectSoon(() => page.getByTestId('total-hours').innerText(), '2 h')
  assert.equal(await page.getByTestId('billable-hours').innerText(), '0 h')
  assert.match(page.url(), /from=2026-11-03/)
  const third3 = await ok(o.get(`/projects/${pid}/timesheets?from=2026-11-03`), 200)
  assert.deepEqual([third3.totalHours, third3.billableHours, third3.utilizationPercent], [2, 0, 5])
  await page.getByRole('search', { name: 'Dates of the hours' }).getByLabel('From').fill('')
  await expectSoon(() => page.getByTestId('total-hours').innerText(), '30.75 h')

  // A milestone, reached.
  const newMilestone = page.getByRole('form', { name: 'New milestone' })
  await newMilestone.getByLabel('Name').fill('Beta live')
  await newMilestone.getByLabel('Target date').fill('2026-11-20')
  await newMilestone.getByRole('button', { name: 'Add milestone' }).click()
  await page.getByRole('status').filter({ hasText: 'Milestone Beta live added.' }).waitFor()
  await page.getByRole('button', { name: 'Mark reached Beta live' }).click()
  await page.getByRole('status').filter({ hasText: 'Beta live reached.' }).waitFor()
  await page.getByRole('button', { name: 'Reopen Beta live' }).waitFor()
  const [milestone] = (await ok(o.get(`/projects/${pid}/milestones`), 200)).data
  assert.deepEqual([milestone.name, milestone.targetDate, milestone.reached, typeof milestone.reachedDate], ['Beta live', '2026-11-20T00:00:00.000Z', true, 'string'])

  // Build done too: 2 of 3 is 66.67 %.
  await page.getByLabel('Status of Build').selectOption('done')
  await expectSoon(() => page.getByTestId('project-progress').innerText(), '66.67 %')
  assert.equal((await ok(o.get(`/projects/${pid}`), 200)).progress, 66.67)
  await expectAccessible(page, 'project, milestone reached, two tasks done')
  await hideToasts(page)
  await shot(page, 'project')
  await onPhone(page, 'project', 'project')

  // Edited: on hold, a budget of 45.5 hours, the end date cleared; the customer and the manager, untouched, are kept.
  await page.getByRole('link', { name: 'Edit project' }).click()
  const editProject = page.getByRole('form', { name: 'Edit project' })
  await editProject.getByText('Customer now: Harbor Logistics').waitFor()
  await editProject.getByLabel('Status').selectOption({ label: 'on hold' })
  await editProject.getByLabel('Hours budget').fill('45.5')
  await editProject.getByLabel('End date').fill('')
  await expectAccessible(page, 'edit project')
  await editProject.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('status').filter({ hasText: 'Changes to Harbor website saved.' }).waitFor()
  await expectSoon(() => page.getByTestId('project-status').innerText(), 'on hold')
  const onHold = await ok(o.get(`/projects/${pid}`), 200)
  assert.deepEqual([onHold.status, onHold.hoursBudget, onHold.endDate, onHold.startDate, onHold.contact?.id, onHold.manager?.id, onHold.billable], ['on_hold', 45.5, null, '2026-11-02', customer.id, carl.id, true])
  // 30.75 of 45.5 is 67.582…%, answered 67.58.
  await expectSoon(() => page.getByTestId('utilization').innerText(), '67.58 %')
  assert.equal((await ok(o.get(`/projects/${pid}/timesheets`), 200)).utilizationPercent, 67.58)

  // The list: the project with its figures; archived (asked first), then restored from the archived projects.
  await nav.getByRole('link', { name: 'Projects', exact: true }).click()
  await expectSoon(async () => (await rows(page, 'Projects')).map((r) => r.slice(0, 8)), [['Harbor website', 'Harbor Logistics', 'Carl Coder', 'on hold', '66.67 %', '2 of 3', '30.75 h of 45.5 h', 'billable']])
  await expectAccessible(page, 'projects')
  await shot(page, 'projects')
  await onPhone(page, 'projects', 'projects')
  // The project's page opened from the list: the project, its tasks, milestones and hours, and the two pickers' employees.
  calls.length = 0
  await page.getByRole('link', { name: 'Harbor website' }).click()
  await expectSoon(() => page.getByTestId('total-hours').innerText(), '30.75 h')
  await page.getByRole('table', { name: 'Milestones of Harbor website' }).waitFor()
  await page.waitForLoadState('networkidle')
  // The pickers' employees come from the shared cache when the list of employees was read moments ago (docs/dashboard.md "Cached reads").
  assert.ok(calls.filter((c) => c === 'GET /api/employees').length <= 2, JSON.stringify(calls))
  // The project's own reads: each once at most (none when the page was opened moments ago and the cache answers).
  const own = calls.filter((c) => c !== 'GET /api/employees')
  assert.deepEqual([...new Set(own)].sort(), own.sort())
  assert.ok(own.every((c) => [`GET /api/projects/${pid}`, `GET /api/projects/${pid}/milestones`, `GET /api/projects/${pid}/tasks`, `GET /api/projects/${pid}/timesheets`].includes(c)), JSON.stringify(own))
  await page.getByRole('link', { name: 'Back to the projects' }).click()
  await page.getByRole('button', { name: 'Archive Harbor website' }).waitFor()
  await page.getByRole('button', { name: 'Archive Harbor website' }).click()
  await page.getByRole('status').filter({ hasText: 'Harbor website archived.' }).waitFor()
  await page.getByText('No projects yet.').waitFor()
  assert.equal((await ok(o.get(`/projects/${pid}`), 200)).archived, true)
  await page.getByLabel('Archived').selectOption('archived')
  await page.getByRole('button', { name: 'Restore Harbor website' }).click()
  await page.getByRole('status').filter({ hasText: 'Harbor website restored.' }).waitFor()
  assert.equal((await ok(o.get(`/projects/${pid}`), 200)).archived, false)
  await expectAccessible(page, 'projects, restored')

  // Employees: Bea has hours, so the API keeps her (its 409 in words); Tom has none and goes.
  await nav.getByRole('link', { name: 'Employees', exact: true }).click()
  // A department's name narrows the list to it (exact, in the address); Every department widens it again.
  await page.getByRole('link', { name: 'Engineering' }).first().click()
  await expectSoon(async () => (await rows(page, 'Employees')).map((r) => r[0]), ['Bea Builder', 'Carl Coder'])
  assert.match(page.url(), /department=Engineering/)
  await page.getByRole('button', { name: 'Every department' }).click()
  await expectSoon(async () => (await rows(page, 'Employees')).map((r) => r[0]), ['Bea Builder', 'Carl Coder', 'Tom Temp'])
  await page.getByRole('button', { name: 'Delete Bea Builder' }).click()
  const conflict = page.getByRole('alert')
  await conflict.waitFor()
  assert.doesNotMatch(await conflict.innerText(), /CONFLICT|409/)
  assert.equal((await o.get(`/employees/${bea.id}`)).status, 200)
  await expectAccessible(page, 'employees, a delete refused')
  await page.getByRole('button', { name: 'Delete Tom Temp' }).click()
  await page.getByRole('status').filter({ hasText: 'Tom Temp deleted.' }).waitFor()
  assert.equal((await o.get(`/employees/${temp.id}`)).status, 404)
  assert.deepEqual(e.errors, [])
  void design
  void launch
})

test('projects: a member has the Projects and Employees pages and logs hours; a support user has neither', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const org = await createOrg(e.t.app, 'Quay Consulting')
  const password = 'member password 1'
  await ok(org.post('/users', { name: 'Mia Member', email: 'mia@quay.example', password, role: 'member' }))
  await ok(org.post('/users', { name: 'Sam Support', email: 'sam@quay.example', password, role: 'support' }))
  const mia = await ok(org.post('/employees', { name: 'Mia Member' }))
  const project = await ok(org.post('/projects', { name: 'Quay audit', hoursBudget: 8 }))
  const task = await ok(org.post(`/projects/${project.id}/tasks`, { title: 'Interviews' }))

  const page = await e.page()
  await signIn(page, 'mia@quay.example', password)
  const nav = page.getByRole('navigation', { name: 'Main' })
  await nav.getByRole('link', { name: 'Employees', exact: true }).waitFor()
  await nav.getByRole('link', { name: 'Projects', exact: true }).click()
  await page.getByRole('link', { name: 'Quay audit' }).click()
  await page.getByRole('heading', { name: 'Quay audit', level: 1 }).waitFor()
  const log = page.getByRole('form', { name: 'Log hours' })
  // An internal project: its hours are not billable unless said.
  assert.equal(await log.getByRole('checkbox', { name: 'Billable' }).isChecked(), false)
  await log.getByLabel('Task').selectOption({ label: 'Interviews' })
  await pick(log, 'Employee', 'mia', 'Mia Member')
  await log.getByLabel('Date').fill('2026-11-05')
  await log.getByLabel('Hours').fill('0:45')
  await log.getByRole('button', { name: 'Log hours' }).click()
  await page.getByRole('status').filter({ hasText: '0.75 h logged for Mia Member' }).waitFor()
  // 0.75 of 8 is 9.375 %, answered 9.38; none billable.
  await expectSoon(() => page.getByTestId('utilization').innerText(), '9.38 %')
  const summary = await ok(org.get(`/projects/${project.id}/timesheets`), 200)
  assert.deepEqual([summary.totalHours, summary.billableHours, summary.utilizationPercent, summary.byEmployee.map((x: any) => x.employeeId)], [0.75, 0, 9.38, [mia.id]])
  assert.equal((await ok(org.get(`/projects/${project.id}/tasks/${task.id}`), 200)).hoursLogged, 0.75)
  await expectAccessible(page, 'project, as a member')

  // Support: no Projects or Employees in the menu, and the address is not a page of its.
  const support = await e.page()
  await signIn(support, 'sam@quay.example', password)
  const menu = support.getByRole('navigation', { name: 'Main' })
  assert.equal(await menu.getByRole('link', { name: 'Projects', exact: true }).count(), 0)
  assert.equal(await menu.getByRole('link', { name: 'Employees', exact: true }).count(), 0)
  await support.goto(`/projects/${project.id}`)
  await support.getByRole('heading', { name: 'Page not found' }).waitFor()
  assert.deepEqual(e.errors, [])
})
