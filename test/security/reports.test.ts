import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app.ts'
import type { App } from '../../src/core/module.ts'
import { DateRangeParameters } from '../../src/modules/reports/report-types.lib.ts'
import { buildTestApp, call, createOrg, type Res, type TestApp, type TestOrg } from '../helpers/app.ts'

// Issue 24, "Also seen": report runs had no per-organization cap (40 parallel
// runs were accepted and all ran at once). docs/analytics.md "Limits": at most
// 2 runs of an organization run at once, the others wait in the queue while other
// organizations' runs go on; past 20 pending runs POST /reports answers 429
// QUEUE_FULL. Both hold under concurrent requests and with two app instances on
// one database.

const MAX_PENDING = 20
const MAX_RUNNING = 2
const onPostgres = Boolean(process.env.DATABASE_URL)

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const range = (day: number) => ({ from: `2026-01-${String(day).padStart(2, '0')}`, to: `2026-01-${String(day).padStart(2, '0')}` })
const ok = (res: Res, status = 200) => {
  assert.equal(res.status, status, JSON.stringify(res.body))
  return res.body
}
const pendingOf = async (o: TestOrg) =>
  (await t.app.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM report_runs WHERE organization_id = $1 AND status = 'pending'`, [o.id])).rows[0].n

const QUEUE_FULL = {
  statusCode: 429,
  message: `This organization already has ${MAX_PENDING} report runs waiting, the most it may queue; request more once some have run (GET /reports?status=pending)`,
  error: 'Too Many Requests',
  code: 'QUEUE_FULL',
}

/**
 * A report type whose run takes a while and records, as it starts, how many
 * runs of its organization the database says are running, and how many run in
 * this process at that moment (the apps of a test share the process).
 */
function slowType(log: { org: string; day: string; runningInDb: number; runningHere: number }[], db: () => App['ctx']['db']) {
  const here = new Map<string, number>()
  return {
    description: 'a slow run that records the concurrency it sees',
    parameters: DateRangeParameters,
    async *rows(_q: unknown, org: string, p: { from: string }) {
      here.set(org, (here.get(org) ?? 0) + 1)
      try {
        const { rows } = await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM report_runs WHERE organization_id = $1 AND status = 'running'`, [org])
        log.push({ org, day: p.from, runningInDb: rows[0].n, runningHere: here.get(org)! })
        await new Promise((r) => setTimeout(r, 60))
        yield { day: p.from }
      } finally {
        here.set(org, here.get(org)! - 1)
      }
    },
  }
}

describe('the backlog limit', () => {
  test(`past ${MAX_PENDING} pending runs: 429 QUEUE_FULL with Retry-After; other organizations go on; room again once runs have run`, async () => {
    const x = await createOrg(t.app)
    const y = await createOrg(t.app)
    for (let day = 1; day <= MAX_PENDING; day++) ok(await x.post('/reports', { type: 'invoices', parameters: range(day) }), 201)
    const refused = await x.post('/reports', { type: 'invoices', parameters: range(21) })
    assert.equal(refused.status, 429)
    assert.deepEqual(refused.body, QUEUE_FULL)
    assert.equal(refused.headers['retry-after'], '30')
    assert.equal(await pendingOf(x), MAX_PENDING)
    // Another organization is not held back.
    ok(await y.post('/reports', { type: 'invoices', parameters: range(1) }), 201)
    // The admin's run of the queue runs X's runs (2 at a time at most); then X may queue again.
    assert.deepEqual(ok(await x.post('/admin/jobs/report-runs/run')).result, { succeeded: MAX_PENDING, failed: 0 })
    assert.equal(await pendingOf(x), 0)
    ok(await x.post('/reports', { type: 'invoices', parameters: range(21) }), 201)
  })

  test('many POST /reports at once never queue more than the limit', async () => {
    const x = await createOrg(t.app)
    const answers = await Promise.all(Array.from({ length: MAX_PENDING + 10 }, (_, i) => x.post('/reports', { type: 'invoices', parameters: range((i % 28) + 1) })))
    const statuses = answers.map((r) => r.status).sort()
    assert.deepEqual(statuses, [...Array(MAX_PENDING).fill(201), ...Array(10).fill(429)])
    for (const r of answers.filter((r) => r.status === 429)) assert.deepEqual(r.body, QUEUE_FULL)
    assert.equal(await pendingOf(x), MAX_PENDING)
  })
})

describe('runs at once per organization', () => {
  test(`at most ${MAX_RUNNING} runs of an organization run at once; the others wait while another organization's runs go on`, async () => {
    const log: Parameters<typeof slowType>[0] = []
    t.app.services.reports!.registerType('test_slow', slowType(log, () => t.app.ctx.db))
    const x = await createOrg(t.app)
    const y = await createOrg(t.app)
    for (let day = 1; day <= 6; day++) ok(await x.post('/reports', { type: 'test_slow', parameters: range(day) }), 201)
    for (let day = 1; day <= 2; day++) ok(await y.post('/reports', { type: 'test_slow', parameters: range(day) }), 201)
    // Four workers at once (as four processes would be).
    const reports = t.app.services.reports!
    await Promise.all([reports.runDue(), reports.runDue(), reports.runDue(), reports.runDue()])
    assert.equal(log.length, 8, JSON.stringify(log))
    for (const entry of log) {
      assert.ok(entry.runningInDb <= MAX_RUNNING && entry.runningHere <= MAX_RUNNING, JSON.stringify(entry))
    }
    assert.equal(Math.max(...log.filter((e) => e.org === x.id).map((e) => e.runningHere)), MAX_RUNNING)
    // Y's two runs, requested after X's six, started while X's first two were still running.
    assert.deepEqual(log.slice(0, 4).map((e) => e.org).sort(), [x.id, x.id, y.id, y.id].sort())
    const runs = ok(await x.get('/reports?type=test_slow')).data
    assert.deepEqual(runs.map((r: { status: string }) => r.status), Array(6).fill('succeeded'))
  })

  test('one worker takes the organizations in turn: a run asked later by another organization does not wait for the whole queue', async () => {
    const log: Parameters<typeof slowType>[0] = []
    t.app.services.reports!.registerType('test_turns', slowType(log, () => t.app.ctx.db))
    const x = await createOrg(t.app)
    const y = await createOrg(t.app)
    for (let day = 1; day <= 3; day++) ok(await x.post('/reports', { type: 'test_turns', parameters: range(day) }), 201)
    ok(await y.post('/reports', { type: 'test_turns', parameters: range(9) }), 201)
    await t.app.services.reports!.runDue()
    assert.deepEqual(log.map((e) => `${e.org === x.id ? 'x' : 'y'}${e.day.slice(-2)}`), ['x01', 'y09', 'x02', 'x03'])
  })
})

describe('two app instances on one PostgreSQL database', { skip: !onPostgres && 'PostgreSQL only (PGlite is one process)' }, () => {
  test('the backlog limit and the running cap hold across instances', async () => {
    const second: App = await buildApp(t.config, { logger: false })
    try {
      const log: Parameters<typeof slowType>[0] = []
      t.app.services.reports!.registerType('test_two', slowType(log, () => t.app.ctx.db))
      second.services.reports!.registerType('test_two', slowType(log, () => second.ctx.db))
      const x = await createOrg(t.app)
      const y = await createOrg(t.app)
      // Requests to both instances at once: never more than the limit queued.
      const post = (app: App, day: number) => call(app, 'POST', '/reports', { token: x.token, body: { type: 'test_two', parameters: range(day) } })
      const answers = await Promise.all(Array.from({ length: MAX_PENDING + 6 }, (_, i) => post(i % 2 ? second : t.app, (i % 28) + 1)))
      assert.deepEqual(answers.map((r) => r.status).sort(), [...Array(MAX_PENDING).fill(201), ...Array(6).fill(429)])
      assert.equal(await pendingOf(x), MAX_PENDING)
      for (let day = 1; day <= 2; day++) ok(await y.post('/reports', { type: 'test_two', parameters: range(day) }), 201)
      // Three workers in each instance.
      const a = t.app.services.reports!
      const b = second.services.reports!
      await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue(), a.runDue(), b.runDue()])
      assert.equal(log.length, MAX_PENDING + 2)
      for (const entry of log) assert.ok(entry.runningInDb <= MAX_RUNNING, JSON.stringify(entry))
      // Each run ran once.
      assert.equal(new Set(log.filter((e) => e.org === x.id).map((e) => e.day)).size, new Set(answers.filter((r) => r.status === 201).map((r) => r.body.parameters.from)).size)
      assert.equal(await pendingOf(x), 0)
    } finally {
      await second.close()
    }
  })
})
