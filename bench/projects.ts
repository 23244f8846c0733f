// Projects (issue 14, wired into bench/run.ts; alone: `BENCH_ONLY=projects npm run bench`,
// PostgreSQL when BENCH_DATABASE_URL or DATABASE_URL is set, then PGlite). One
// organization seeded by SQL with BENCH_PROJECTS projects (default 100,000; a
// tenth archived, statuses spread), then with autocannon:
//   - GET /api/projects?page=3&limit=20 (the default list: counters, joins of
//     contact and manager) and GET /api/projects?status=on_hold&limit=20;
//   - POST timesheet entries, BENCH_CONNECTIONS at a time: spread over 200
//     employees and many days (the advisory lock rarely waits), and all on one
//     employee and one day (every entry waits for the one before: the cost of
//     the 24-hour rule's serialization).
// BENCH_PROJECTS_BENCH=off skips it.
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'

const SECONDS = Number(process.env.BENCH_PROJECTS_SECONDS ?? process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 100_000)
const EMPLOYEES = 200
type Row = { name: string; value: string }

async function seed(app: App, organizationId: string) {
  const db = app.ctx.db
  await db.query(
    `INSERT INTO employees (id, organization_id, name, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Employee ' || g, now(), now() FROM generate_series(1, $2::int) g`,
    [organizationId, EMPLOYEES],
  )
  await db.query(
    `INSERT INTO contacts (id, organization_id, name, email, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Customer ' || g, 'customer' || g || '@example.com', now(), now() FROM generate_series(1, 100) g`,
    [organizationId],
  )
  // The counters' trigger would upsert the same few rows 100,000 times in one transaction
  // (each update slower than the last): off for the seed, then recounted as the migration does.
  await db.query('ALTER TABLE projects DISABLE TRIGGER projects_list_counts')
  try {
    await insertProjects(app, organizationId)
  } finally {
    await db.query('ALTER TABLE projects ENABLE TRIGGER projects_list_counts')
  }
  await db.query(`DELETE FROM list_counts WHERE table_name = 'projects' AND organization_id = $1`, [organizationId])
  await db.query(
    `INSERT INTO list_counts (table_name, organization_id, key, shard, n)
     SELECT 'projects', $1, k, 0, count(*) FROM projects p,
       LATERAL (VALUES (''), ('archived=' || p.archived), ('live_status=' || p.live_status)) AS v(k)
     WHERE p.organization_id = $1 AND k IS NOT NULL GROUP BY k`,
    [organizationId],
  )
  for (const table of ['projects', 'employees', 'contacts']) await db.query(`VACUUM ANALYZE ${table}`)
}

async function insertProjects(app: App, organizationId: string) {
  await app.ctx.db.query(
    `WITH e AS (SELECT array_agg(id) AS ids FROM employees WHERE organization_id = $1),
          c AS (SELECT array_agg(id) AS ids FROM contacts WHERE organization_id = $1)
     INSERT INTO projects (id, organization_id, name, status, contact_id, manager_id, start_date, archived, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Project ' || g, (ARRAY['active', 'on_hold', 'done', 'cancelled'])[1 + g % 4],
            c.ids[1 + g % 100], e.ids[1 + g % ${EMPLOYEES}], date '2026-01-01' + g % 365, g % 10 = 0,
            now() - g * interval '1 second', now() - g * interval '1 second'
     FROM generate_series(1, $2::int) g, e, c`,
    [organizationId, PROJECTS],
  )
}

/** Runs `total` requests with `connections` in flight at a time, stopping at the deadline. */
async function concurrently(seconds: number, connections: number, run: (i: number) => Promise<number>) {
  let next = 0
  const statuses = new Map<number, number>()
  const t0 = performance.now()
  const deadline = t0 + seconds * 1000
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < deadline) {
      const status = await run(next++)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
  }))
  const elapsed = (performance.now() - t0) / 1000
  return { perSecond: Math.round(next / elapsed), statuses }
}

export async function projectsBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_PROJECTS_BENCH === 'off') return []
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench projects', name: 'Bench', email: `bench-p-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'member' } })
  const headers = { authorization: `Bearer ${key.json().key}`, 'content-type': 'application/json' }
  const t0 = performance.now()
  await seed(app, organization.id)
  console.log(`[${label}] projects: ${PROJECTS} projects seeded in ${Math.round((performance.now() - t0) / 1000)} s`)
  const rows: Row[] = []

  // A second of warm-up (connections, prepared statements, caches) before the first measured run.
  await autocannon({ url: `${base}/api/projects?limit=20`, headers, connections: CONNECTIONS, duration: 1, workers: 1 })
  for (const query of ['page=3&limit=20', 'status=on_hold&limit=20']) {
    const r = await autocannon({ url: `${base}/api/projects?${query}`, headers, connections: CONNECTIONS, duration: SECONDS, workers: 1 })
    const errors = r.errors + r.timeouts + r.non2xx
    console.log(`[${label}] GET /projects?${query}: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms${errors ? `, ${errors} errors` : ''}`)
    rows.push({ name: `${label}: GET /projects?${query} (${PROJECTS.toLocaleString('en-US')} projects)`, value: `p99 ${r.latency.p99} ms, ${Math.round(r.requests.average)} req/s${errors ? `, ${errors} errors` : ''}` })
  }

  // Tasks to log on: 20 projects with one task each, made through the API.
  const tasks: string[] = []
  const { rows: projects } = await app.ctx.db.query<{ id: string }>('SELECT id FROM projects WHERE organization_id = $1 AND NOT archived LIMIT 20', [organization.id])
  for (const p of projects) {
    const res = await fetch(`${base}/api/projects/${p.id}/tasks`, { method: 'POST', headers, body: JSON.stringify({ title: 'Bench task' }) })
    tasks.push(`/api/projects/${p.id}/tasks/${(await res.json()).id}/timesheets`)
  }
  const { rows: employees } = await app.ctx.db.query<{ id: string }>('SELECT id FROM employees WHERE organization_id = $1', [organization.id])
  const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)
  const log = async (path: string, body: object) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
    await res.arrayBuffer()
    return res.status
  }
  // Spread: entry i is employee i % 200 on day i / 200 (one hour: never above 24).
  const spread = await concurrently(SECONDS, CONNECTIONS, (i) =>
    log(tasks[i % tasks.length], { employeeId: employees[i % EMPLOYEES].id, date: day(Math.floor(i / EMPLOYEES)), hours: 1 }))
  // One day of one employee: 0.01 h each (2,400 fit, then 400s, which take the lock too).
  const one = await concurrently(SECONDS, CONNECTIONS, (i) => log(tasks[i % tasks.length], { employeeId: employees[0].id, date: '2027-06-01', hours: 0.01 }))
  const describe = (s: Map<number, number>) => [...s].map(([status, n]) => `${n} x ${status}`).join(', ')
  console.log(`[${label}] timesheets spread: ${spread.perSecond}/s (${describe(spread.statuses)}); one employee-day: ${one.perSecond}/s (${describe(one.statuses)})`)
  rows.push({ name: `${label}: POST timesheets, ${CONNECTIONS} at a time, spread over employees and days`, value: `${spread.perSecond} entries/s (${describe(spread.statuses)})` })
  rows.push({ name: `${label}: POST timesheets, ${CONNECTIONS} at a time, one employee and day`, value: `${one.perSecond} entries/s (${describe(one.statuses)})` })
  return rows
}

export const benchmarks = [projectsBench]

// Alone: builds the app on each database and prints the table.
