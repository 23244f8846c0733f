// Bulk writes (issue 26, "Bulk writes are quadratic"; wired into bench/run.ts;
// alone: `BENCH_ONLY=bulk npm run bench`, PostgreSQL when BENCH_DATABASE_URL or
// DATABASE_URL is set, then PGlite). In one new organization:
//   - one `INSERT ... SELECT` of 5,000, 20,000 and 40,000 contacts
//     (BENCH_BULK_SIZES), then one UPDATE moving all of them from
//     type=company to individual and one DELETE of all of them, the three in
//     one transaction that is rolled back afterwards (so each size starts
//     from the same table); with the contacts' triggers (the list counters)
//     and with them disabled (`ALTER TABLE contacts DISABLE TRIGGER USER`
//     inside the transaction) for reference;
//   - one INSERT ... SELECT of BENCH_BULK_CHILDREN (default 20,000) tasks into
//     one project and as many timesheet entries onto one task (the triggers
//     that keep the project's and task's figures), rolled back likewise;
//   - single-row writes: BENCH_BULK_SINGLE (default 2,000) one-row INSERTs of
//     a contact, each its own transaction, one after the other on one
//     connection, run as EXPLAIN ANALYZE (the server's execution time and the
//     time in triggers), with and without the triggers; and POST
//     /api/contacts with autocannon for BENCH_BULK_POST_SECONDS (default 5).
// BENCH_BULK_STEPS=insert keeps only the inserts (update, delete, children,
// single, post are the others); on PostgreSQL each statement stops after
// BENCH_BULK_TIMEOUT seconds (default 180) and is reported as "> N s".
// BENCH_BULK=off skips it.
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'
import type { Queryable } from '../src/core/db.ts'

const SIZES = (process.env.BENCH_BULK_SIZES ?? '5000,20000,40000').split(',').map(Number)
const CHILDREN = Number(process.env.BENCH_BULK_CHILDREN ?? 20_000)
const SINGLE = Number(process.env.BENCH_BULK_SINGLE ?? 2_000)
const POST_SECONDS = Number(process.env.BENCH_BULK_POST_SECONDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const TIMEOUT_S = Number(process.env.BENCH_BULK_TIMEOUT ?? 180)
const STEPS = new Set((process.env.BENCH_BULK_STEPS ?? 'insert,update,delete,children,single,post').split(',').map((s) => s.trim()))
type Row = { name: string; value: string }

class Rollback extends Error {}

/** Runs fn in a transaction that is always rolled back. */
async function rolledBack(app: App, fn: (q: Queryable) => Promise<void>) {
  try {
    await app.ctx.db.tx(async (q) => {
      if (app.ctx.db.kind === 'pg') await q.query(`SELECT set_config('statement_timeout', $1, true)`, [`${TIMEOUT_S}s`])
      await fn(q)
      throw new Rollback()
    })
  } catch (err) {
    if (!(err instanceof Rollback)) throw err
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`

/** The statement's duration, or undefined when it hit the statement timeout (57014). */
async function timed(q: Queryable, sql: string, params: unknown[]): Promise<number | undefined> {
  const t0 = performance.now()
  try {
    await q.query(sql, params)
  } catch (err) {
    if ((err as { code?: string }).code === '57014') return undefined
    throw err
  }
  return performance.now() - t0
}

const show = (ms: number | undefined) => (ms === undefined ? `> ${TIMEOUT_S} s` : seconds(ms))

async function contactsRun(app: App, organizationId: string, size: number, triggers: boolean) {
  const out: Record<string, string> = {}
  await rolledBack(app, async (q) => {
    if (!triggers) await q.query('ALTER TABLE contacts DISABLE TRIGGER USER')
    const insert = await timed(q,
      `INSERT INTO contacts (id, organization_id, name, email, type, vendor, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'Bulk ' || g, 'bulk' || g || '@bulk.example.com', 'company', g % 10 = 0, now(), now()
       FROM generate_series(1, $2::int) g`,
      [organizationId, size])
    out.insert = show(insert)
    if (insert === undefined) return
    if (STEPS.has('update')) {
      const update = await timed(q, `UPDATE contacts SET type = 'individual' WHERE organization_id = $1 AND email LIKE '%@bulk.example.com'`, [organizationId])
      out.update = show(update)
      if (update === undefined) return
    }
    if (STEPS.has('delete')) out.delete = show(await timed(q, `DELETE FROM contacts WHERE organization_id = $1 AND email LIKE '%@bulk.example.com'`, [organizationId]))
  })
  return out
}

async function childrenRun(app: App, organizationId: string, projectId: string, taskId: string, employeeId: string, triggers: boolean) {
  const out: Record<string, string> = {}
  await rolledBack(app, async (q) => {
    if (!triggers) {
      await q.query('ALTER TABLE tasks DISABLE TRIGGER USER')
      await q.query('ALTER TABLE timesheet_entries DISABLE TRIGGER USER')
    }
    const tasks = await timed(q,
      `INSERT INTO tasks (id, organization_id, project_id, title, status)
       SELECT gen_random_uuid(), $1, $2, 'Bulk task ' || g, CASE WHEN g % 4 = 0 THEN 'done' ELSE 'todo' END FROM generate_series(1, $3::int) g`,
      [organizationId, projectId, CHILDREN])
    out.tasks = show(tasks)
    if (tasks === undefined) return
    out.entries = show(await timed(q,
      `INSERT INTO timesheet_entries (id, organization_id, project_id, task_id, employee_id, date, hours, billable)
       SELECT gen_random_uuid(), $1, $2, $3, $4, date '2026-01-01' + g / 100, 0.25, true FROM generate_series(1, $5::int) g`,
      [organizationId, projectId, taskId, employeeId, CHILDREN]))
  })
  return out
}

/**
 * One-row INSERTs of a contact, each its own transaction, one after the other
 * on one connection, each run as EXPLAIN (ANALYZE): the server's execution
 * time (median) and the time in the triggers (mean; ANALYZE reports each
 * AFTER trigger's time), free of the commit's wait for the disk that the
 * wall time would be mostly made of.
 */
async function singleRun(app: App, organizationId: string, triggers: boolean) {
  const db = app.ctx.db
  const tag = randomBytes(4).toString('hex')
  if (!triggers) await db.query('ALTER TABLE contacts DISABLE TRIGGER USER')
  try {
    const executions: number[] = []
    let inTriggers = 0
    for (let i = 0; i < SINGLE; i++) {
      const { rows } = await db.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) INSERT INTO contacts (id, organization_id, name, email, created_at, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, now(), now())`,
        [organizationId, `Single ${i}`, `single-${tag}-${i}@single.example.com`],
      )
      const raw = rows[0]['QUERY PLAN']
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ 'Execution Time': number; Triggers?: Array<{ Time: number }> }>
      executions.push(plan[0]['Execution Time'])
      for (const trig of plan[0].Triggers ?? []) inTriggers += trig.Time
    }
    await db.query(`DELETE FROM contacts WHERE organization_id = $1 AND email LIKE $2`, [organizationId, `single-${tag}-%`])
    executions.sort((a, b) => a - b)
    return { median: executions[Math.floor(executions.length / 2)], triggers: inTriggers / SINGLE }
  } finally {
    if (!triggers) await db.query('ALTER TABLE contacts ENABLE TRIGGER USER')
  }
}

export async function bulkBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_BULK === 'off') return []
  const db = app.ctx.db
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench bulk', name: 'Bench', email: `bench-b-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const organizationId: string = organization.id
  const rows: Row[] = []
  const log = (name: string, value: string) => {
    console.log(`[${label}] ${name}: ${value}`)
    rows.push({ name: `${label}: ${name}`, value })
  }

  for (const size of SIZES) {
    const on = await contactsRun(app, organizationId, size, true)
    const off = await contactsRun(app, organizationId, size, false)
    for (const step of ['insert', 'update', 'delete']) {
      if (on[step] === undefined && off[step] === undefined) continue
      const what = step === 'insert' ? 'INSERT ... SELECT of' : step === 'update' ? 'UPDATE type of' : 'DELETE of'
      log(`bulk ${what} ${size.toLocaleString('en-US')} contacts, one transaction`, `${on[step] ?? 'not run'} (triggers disabled: ${off[step] ?? 'not run'})`)
    }
  }

  if (STEPS.has('children')) {
    const { rows: [employee] } = await db.query<{ id: string }>(
      `INSERT INTO employees (id, organization_id, name, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'Bulk employee', now(), now()) RETURNING id`, [organizationId])
    const { rows: [project] } = await db.query<{ id: string }>(
      `INSERT INTO projects (id, organization_id, name) VALUES (gen_random_uuid(), $1, 'Bulk project') RETURNING id`, [organizationId])
    const { rows: [task] } = await db.query<{ id: string }>(
      `INSERT INTO tasks (id, organization_id, project_id, title) VALUES (gen_random_uuid(), $1, $2, 'Bulk task') RETURNING id`, [organizationId, project.id])
    const on = await childrenRun(app, organizationId, project.id, task.id, employee.id, true)
    const off = await childrenRun(app, organizationId, project.id, task.id, employee.id, false)
    const n = CHILDREN.toLocaleString('en-US')
    log(`bulk INSERT ... SELECT of ${n} tasks into one project`, `${on.tasks ?? 'not run'} (triggers disabled: ${off.tasks ?? 'not run'})`)
    log(`bulk INSERT ... SELECT of ${n} timesheet entries onto one task`, `${on.entries ?? 'not run'} (triggers disabled: ${off.entries ?? 'not run'})`)
  }

  if (STEPS.has('single')) {
    const on = await singleRun(app, organizationId, true)
    const off = await singleRun(app, organizationId, false)
    log(`${SINGLE.toLocaleString('en-US')} one-row INSERTs of a contact, EXPLAIN ANALYZE`,
      `execution ${on.median.toFixed(3)} ms (median), in triggers ${on.triggers.toFixed(3)} ms (mean); triggers disabled: execution ${off.median.toFixed(3)} ms`)
  }

  if (STEPS.has('post')) {
    const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'member' } })
    const headers = { authorization: `Bearer ${key.json().key}`, 'content-type': 'application/json' }
    const opts = { url: `${base}/api/contacts`, method: 'POST' as const, headers, body: JSON.stringify({ name: 'Post [<id>]', email: `post-${randomBytes(3).toString('hex')}-[<id>]@example.com` }), idReplacement: true, connections: CONNECTIONS, workers: 1 }
    await autocannon({ ...opts, duration: 1 })
    const r = await autocannon({ ...opts, duration: POST_SECONDS })
    const errors = r.errors + r.timeouts + r.non2xx
    log(`POST /api/contacts, ${CONNECTIONS} connections, ${POST_SECONDS} s`, `${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms${errors ? `, ${errors} errors` : ''}`)
  }
  return rows
}

export const benchmarks = [bulkBench]
