// Issue 26, "Bulk writes are quadratic": the list counters (migrations/0050,
// kept per statement since migrations/0126, docs/decisions/0012) must stay
// exact after set-based writes: a bulk INSERT ... SELECT, a bulk UPDATE moving
// rows between counted values and organizations, a bulk DELETE, and many such
// statements at once. Each check compares every list_counts key of every
// counted table with a count(*) of the table, and the API's totals with a
// count(*) of the rows. On PostgreSQL the parallel statements run on several
// pool connections (several shards); PGlite has one connection, so there they
// run one after the other and check the same sums.
import assert from 'node:assert/strict'
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, test } from 'node:test'
import { openDb, type Queryable } from '../src/core/db.ts'
import { migrate } from '../src/core/migrate.ts'
import { buildTestApp, createDatabase, createOrg, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'

let t: TestApp
let a: TestOrg
let b: TestOrg
before(async () => {
  t = await buildTestApp()
  a = await createOrg(t.app)
  b = await createOrg(t.app)
})
after(() => t.close())

/** The counted tables and their counted columns, read from their counter triggers (the row triggers before 0126, its INSERT trigger after). */
async function countedTables(q: Queryable) {
  const { rows } = await q.query<{ table_name: string; cols: string[] }>(
    `SELECT c.relname AS table_name,
            coalesce((string_to_array(encode(g.tgargs, 'escape'), '\\000'))[1:g.tgnargs], '{}'::text[]) AS cols
     FROM pg_trigger AS g JOIN pg_class AS c ON c.oid = g.tgrelid
     WHERE g.tgfoid IN (SELECT oid FROM pg_proc WHERE proname = 'list_counts_track' OR proname LIKE 'list\\_counts\\_track\\_%')
       AND g.tgname = c.relname || '_list_counts'
     ORDER BY 1`,
  )
  return rows
}

/**
 * Every (table, organization, key) whose counter sum differs from a count(*)
 * of the table's rows of that organization with that value, both ways (a key
 * with rows but no counter, a counter with no rows but n <> 0).
 */
async function mismatches(q: Queryable) {
  const tables = await countedTables(q)
  assert.ok(tables.length >= 20, `counted tables: ${tables.map((x) => x.table_name).join(', ')}`)
  const bad: unknown[] = []
  for (const { table_name, cols } of tables) {
    const keys = ["''", ...cols.map((c) => `CASE WHEN r.${c} IS NOT NULL THEN '${c}=' || (to_jsonb(r.${c}) #>> '{}') END`)]
    const { rows } = await q.query(
      `WITH expected AS (
         SELECT r.organization_id, k.key, count(*) AS n
         FROM ${table_name} AS r CROSS JOIN LATERAL unnest(ARRAY[${keys.join(', ')}]) AS k(key)
         WHERE r.organization_id IS NOT NULL AND k.key IS NOT NULL
         GROUP BY 1, 2),
       counted AS (
         SELECT organization_id, key, sum(n) AS n FROM list_counts WHERE table_name = $1 GROUP BY 1, 2)
       SELECT $1 AS table_name, coalesce(e.organization_id, c.organization_id) AS organization_id, coalesce(e.key, c.key) AS key,
              coalesce(e.n, 0)::int AS expected, coalesce(c.n, 0)::int AS counted
       FROM expected AS e FULL JOIN counted AS c ON c.organization_id = e.organization_id AND c.key = e.key
       WHERE coalesce(e.n, 0) <> coalesce(c.n, 0)`,
      [table_name],
    )
    bad.push(...rows)
  }
  return bad
}

async function realCount(organizationId: string, where = 'TRUE') {
  const { rows } = await t.app.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1 AND ${where}`, [organizationId])
  return rows[0].n
}

/** The totals GET /contacts answers from the counters, and what they must be. */
async function contactTotals(org: TestOrg) {
  const total = async (query: string) => expectStatus(await org.get(`/contacts?limit=1${query}`), 200).meta.total as number
  return {
    answered: { all: await total(''), companies: await total('&type=company'), individuals: await total('&type=individual'), vendors: await total('&vendor=true') },
    expected: {
      all: await realCount(org.id),
      companies: await realCount(org.id, "type = 'company'"),
      individuals: await realCount(org.id, "type = 'individual'"),
      vendors: await realCount(org.id, 'vendor'),
    },
  }
}

async function assertExact(orgs: TestOrg[]) {
  assert.deepEqual(await mismatches(t.app.ctx.db), [])
  for (const org of orgs) {
    const { answered, expected } = await contactTotals(org)
    assert.deepEqual(answered, expected)
  }
}

/** One INSERT ... SELECT of n contacts of an organization, a third individuals, a fifth vendors. */
const bulkInsert = (q: Queryable, organizationId: string, n: number, tag: string) =>
  q.query(
    `INSERT INTO contacts (id, organization_id, name, email, type, vendor, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Bulk ' || g, $2 || '-' || g || '@bulk.example.com',
            CASE WHEN g % 3 = 0 THEN 'individual' ELSE 'company' END, g % 5 = 0, now(), now()
     FROM generate_series(1, $3::int) g`,
    [organizationId, tag, n],
  )

test('a bulk INSERT ... SELECT of 3,000 contacts leaves every counter exact', async () => {
  await bulkInsert(t.app.ctx.db, a.id, 3000, 'ins-a')
  // Two organizations in one statement.
  await t.app.ctx.db.query(
    `INSERT INTO contacts (id, organization_id, name, email, type, vendor, created_at, updated_at)
     SELECT gen_random_uuid(), CASE WHEN g % 2 = 0 THEN $1 ELSE $2 END::uuid, 'Mixed ' || g, 'mixed-' || g || '@bulk.example.com',
            CASE WHEN g % 4 = 0 THEN 'individual' ELSE 'company' END, g % 7 = 0, now(), now()
     FROM generate_series(1, 1000) g`,
    [a.id, b.id],
  )
  assert.equal(await realCount(a.id), 3500)
  assert.equal(await realCount(b.id), 500)
  await assertExact([a, b])
})

test('a bulk UPDATE moving rows between counted values and organizations leaves every counter exact', async () => {
  const { rowCount } = await t.app.ctx.db.query(
    `UPDATE contacts SET type = CASE WHEN type = 'company' THEN 'individual' ELSE 'company' END, vendor = NOT vendor
     WHERE organization_id = $1 AND email LIKE 'ins-a-%' AND (substring(email FROM 'ins-a-(\\d+)@'))::int % 2 = 0`,
    [a.id],
  )
  assert.equal(rowCount, 1500)
  // Some rows go to the other organization, some change one counted column only.
  await t.app.ctx.db.query(`UPDATE contacts SET organization_id = $2 WHERE organization_id = $1 AND email LIKE 'ins-a-1%'`, [a.id, b.id])
  await t.app.ctx.db.query(`UPDATE contacts SET vendor = true WHERE organization_id = $1 AND email LIKE 'mixed-%'`, [b.id])
  await assertExact([a, b])
})

test('updates of columns that are not counted write no counter row', async () => {
  const snapshot = () =>
    t.app.ctx.db.query<{ row: string }>(`SELECT (table_name, organization_id, key, shard, n, xmin)::text AS row FROM list_counts ORDER BY 1`).then((r) => r.rows.map((x) => x.row))
  const before = await snapshot()
  const { rowCount } = await t.app.ctx.db.query(`UPDATE contacts SET phone = '+1 555 0100', name = name || ' (edited)' WHERE organization_id = $1`, [a.id])
  assert.ok(rowCount > 1000)
  // Counted columns set to the values they have: nothing changes either.
  await t.app.ctx.db.query(`UPDATE contacts SET type = type, vendor = vendor, organization_id = organization_id WHERE organization_id = $1`, [b.id])
  assert.deepEqual(await snapshot(), before)

  // Through the API: a PATCH of the name leaves the contacts' counters untouched too.
  const contactCounters = async () => (await snapshot()).filter((r) => r.startsWith('(contacts,'))
  const beforePatch = await contactCounters()
  const c = expectStatus(await a.post('/contacts', { name: 'Patched', email: 'patched@example.com' }), 201)
  const afterCreate = await contactCounters()
  assert.notDeepEqual(afterCreate, beforePatch)
  expectStatus(await a.patch(`/contacts/${c.id}`, { name: 'Patched again', phone: '+1 555 0101' }), 200)
  assert.deepEqual(await contactCounters(), afterCreate)
  await assertExact([a, b])
})

test('a bulk DELETE leaves every counter exact', async () => {
  const { rowCount } = await t.app.ctx.db.query(`DELETE FROM contacts WHERE organization_id IN ($1, $2) AND (vendor OR type = 'individual')`, [a.id, b.id])
  assert.ok(rowCount > 1000)
  await assertExact([a, b])
  const { rows } = await t.app.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM contacts WHERE organization_id IN ($1, $2) AND (vendor OR type = 'individual')`, [a.id, b.id])
  assert.equal(rows[0].n, 0)
  const totals = await contactTotals(a)
  assert.equal(totals.answered.vendors, 0)
  assert.equal(totals.answered.individuals, 0)
})

test('many bulk inserts, updates and deletes at once, and API writes beside them, leave every counter exact', async () => {
  const db = t.app.ctx.db
  const statements: Array<() => Promise<unknown>> = []
  for (let i = 0; i < 12; i++) {
    statements.push(() => bulkInsert(db, i % 2 ? a.id : b.id, 200, `par${i}`))
    statements.push(() => db.query(
      `UPDATE contacts SET type = CASE WHEN type = 'company' THEN 'individual' ELSE 'company' END, vendor = NOT vendor
       WHERE organization_id IN ($1, $2) AND email LIKE $3`, [a.id, b.id, `par${(i + 3) % 12}-%1@bulk.example.com`]))
    statements.push(() => db.query(`DELETE FROM contacts WHERE organization_id IN ($1, $2) AND email LIKE $3`, [a.id, b.id, `par${(i + 5) % 12}-%7@bulk.example.com`]))
    statements.push(async () => expectStatus(await a.post('/contacts', { name: `Api ${i}`, email: `api-${i}@example.com`, vendor: i % 2 === 0 }), 201))
  }
  // Rows that exist from the start, patched and deleted through the API meanwhile.
  const existing = await Promise.all(Array.from({ length: 10 }, async (_, i) => expectStatus(await b.post('/contacts', { name: `Pre ${i}`, email: `pre-${i}@example.com` }), 201)))
  for (const [i, c] of existing.entries()) {
    statements.push(async () => (i % 2
      ? expectStatus(await b.del(`/contacts/${c.id}`), 204)
      : expectStatus(await b.patch(`/contacts/${c.id}`, { type: 'individual', vendor: true }), 200)))
  }
  await Promise.all(statements.map((s) => s()))
  await assertExact([a, b])
  if (db.kind === 'pg') {
    // Several connections wrote: the organization's total is spread over several shards.
    const { rows } = await db.query<{ n: number }>(`SELECT count(DISTINCT shard)::int AS n FROM list_counts WHERE table_name = 'contacts' AND organization_id = $1 AND key = ''`, [a.id])
    assert.ok(rows[0].n > 1, `shards: ${rows[0].n}`)
  }
})

test('the project figures stay those of the row triggers after bulk task and timesheet writes', async () => {
  const db = t.app.ctx.db
  const p1 = expectStatus(await a.post('/projects', { name: 'Bulk one' }), 201)
  const p2 = expectStatus(await a.post('/projects', { name: 'Bulk two' }), 201)
  const employee = expectStatus(await a.post('/employees', { name: 'Bulk worker' }), 201)
  await db.query(
    `INSERT INTO tasks (id, organization_id, project_id, title, status)
     SELECT gen_random_uuid(), $1, CASE WHEN g % 3 = 0 THEN $2 ELSE $3 END::uuid, 'Task ' || g, CASE WHEN g % 4 = 0 THEN 'done' ELSE 'todo' END
     FROM generate_series(1, 600) g`,
    [a.id, p1.id, p2.id],
  )
  // Into and out of done, and changes that do not touch done.
  await db.query(`UPDATE tasks SET status = CASE WHEN status = 'done' THEN 'in_progress' ELSE 'done' END WHERE project_id = $1 AND title LIKE 'Task 1%'`, [p1.id])
  await db.query(`UPDATE tasks SET status = 'blocked' WHERE project_id = $1 AND status = 'todo' AND title LIKE 'Task 2%'`, [p2.id])
  await db.query(`UPDATE tasks SET title = title || '.' WHERE project_id = $1`, [p2.id])
  await db.query(
    `INSERT INTO timesheet_entries (id, organization_id, project_id, task_id, employee_id, date, hours, billable)
     SELECT gen_random_uuid(), $1, t.project_id, t.id, $2, date '2026-03-01' + (row_number() OVER (ORDER BY t.id))::int % 200, 0.25 + (row_number() OVER (ORDER BY t.id)) % 3 * 0.5, true
     FROM tasks AS t, generate_series(1, 3) AS g WHERE t.project_id IN ($3, $4)`,
    [a.id, employee.id, p1.id, p2.id],
  )
  // Through the API as well.
  const task = expectStatus(await a.post(`/projects/${p1.id}/tasks`, { title: 'By the API' }), 201)
  expectStatus(await a.patch(`/projects/${p1.id}/tasks/${task.id}`, { status: 'done' }), 200)
  expectStatus(await a.post(`/projects/${p1.id}/tasks/${task.id}/timesheets`, { employeeId: employee.id, date: '2026-09-01', hours: 1.5 }), 201)

  const { rows: projects } = await db.query(
    `SELECT p.id, p.tasks_total, p.tasks_done, p.hours_logged,
            (SELECT count(*)::int FROM tasks WHERE project_id = p.id) AS real_total,
            (SELECT count(*)::int FROM tasks WHERE project_id = p.id AND status = 'done') AS real_done,
            (SELECT coalesce(sum(hours), 0) FROM timesheet_entries WHERE project_id = p.id) AS real_hours
     FROM projects AS p WHERE p.id IN ($1, $2) ORDER BY p.name`,
    [p1.id, p2.id],
  )
  for (const p of projects) {
    assert.equal(p.tasks_total, p.real_total)
    assert.equal(p.tasks_done, p.real_done)
    assert.equal(p.hours_logged, p.real_hours)
    assert.ok(p.real_total > 100 && p.real_done > 10 && p.real_hours > 100, JSON.stringify(p))
  }
  const { rows: wrongTasks } = await db.query(
    `SELECT t.id FROM tasks AS t WHERE t.project_id IN ($1, $2)
     AND t.hours_logged <> (SELECT coalesce(sum(hours), 0) FROM timesheet_entries WHERE task_id = t.id)`,
    [p1.id, p2.id],
  )
  assert.deepEqual(wrongTasks, [])
  const shown = expectStatus(await a.get(`/projects/${p1.id}`), 200)
  assert.equal(shown.tasksTotal, projects[0].real_total)
  assert.equal(shown.tasksDone, projects[0].real_done)
  assert.equal(Number(shown.hoursLogged), projects[0].real_hours)
})

test('migration 0126 keeps the counters of rows written under the row triggers and counts on after it', async () => {
  // A database migrated up to 0125, rows written there by the row triggers, then 0126 and the rest.
  const all = fileURLToPath(new URL('../migrations/', import.meta.url))
  const dir = mkdtempSync(join(tmpdir(), 'bp-0126-'))
  for (const f of readdirSync(all)) if (f.endsWith('.sql') && f < '0126') copyFileSync(join(all, f), join(dir, f))
  const server = process.env.DATABASE_URL ? await createDatabase(process.env.DATABASE_URL, 'bp_test', { fastCommit: true }) : undefined
  const db = await openDb(server ? { databaseUrl: server.url, dataDir: '', pgPoolSize: 2 } : { dataDir: 'memory://' })
  try {
    await migrate(db, `${dir}/`)
    const { rows: [{ n: rowTriggers }] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_trigger WHERE tgfoid = 'list_counts_track'::regproc`)
    assert.ok(rowTriggers >= 20)
    const countedBefore = new Set((await countedTables(db)).map((t) => t.table_name))
    const org1 = '00000000-0000-4000-8000-000000000001'
    const org2 = '00000000-0000-4000-8000-000000000002'
    await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'One'), ($2, 'Two')`, [org1, org2])
    await bulkInsert(db, org1, 300, 'old')
    await bulkInsert(db, org2, 100, 'old')
    await db.query(`UPDATE contacts SET type = 'individual' WHERE email LIKE 'old-1%'`)
    await db.query(`DELETE FROM contacts WHERE email LIKE 'old-2%'`)
    await db.query(
      `INSERT INTO outbox (id, organization_id, to_address, subject, text_body, status)
       SELECT gen_random_uuid(), CASE WHEN g % 3 = 0 THEN NULL ELSE $1 END::uuid, 'x@example.com', 'S', 'T', CASE WHEN g % 2 = 0 THEN 'sent' ELSE 'queued' END
       FROM generate_series(1, 30) g`,
      [org1],
    )
    assert.deepEqual(await mismatches(db), [])

    for (const f of readdirSync(all)) if (f.endsWith('.sql') && f >= '0126') copyFileSync(join(all, f), join(dir, f))
    const applied = await migrate(db, `${dir}/`)
    assert.ok(applied.includes('0126_statement_level_counters.sql'), applied.join(', '))
    const { rows: [{ n: left }] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'list_counts_track'`)
    assert.equal(left, 0)
    // Every table counted under the row triggers is counted after 0126 (later migrations add tables of their own).
    assert.equal((await countedTables(db)).filter((t) => countedBefore.has(t.table_name)).length, rowTriggers)
    assert.deepEqual(await mismatches(db), [])

    await bulkInsert(db, org1, 500, 'new')
    await db.query(`UPDATE contacts SET vendor = NOT vendor, type = 'company' WHERE email LIKE '%1%'`)
    await db.query(`UPDATE outbox SET status = 'failed' WHERE status = 'queued'`)
    await db.query(`DELETE FROM contacts WHERE email LIKE 'old-%3@%'`)
    await db.query(`DELETE FROM outbox WHERE status = 'sent'`)
    assert.deepEqual(await mismatches(db), [])
    const { rows: [{ n: outboxCounted }] } = await db.query<{ n: number }>(`SELECT coalesce(sum(n), 0)::int AS n FROM list_counts WHERE table_name = 'outbox' AND key = ''`)
    assert.equal(outboxCounted, 10) // 30 mails, 10 of no organization, the 10 sent ones of org1 deleted
    // A table installed after 0126 counts its present rows and gets the statement triggers.
    await db.query(`CREATE TABLE later_things (id int PRIMARY KEY, organization_id uuid REFERENCES organizations(id), kind text)`)
    await db.query(`INSERT INTO later_things SELECT g, CASE WHEN g % 4 = 0 THEN NULL WHEN g % 2 = 0 THEN $1 ELSE $2 END::uuid, CASE WHEN g % 3 = 0 THEN 'x' END FROM generate_series(1, 40) g`, [org1, org2])
    await db.query(`SELECT list_counts_install('later_things', ARRAY['kind'])`)
    await db.query(`INSERT INTO later_things SELECT g, $1, 'y' FROM generate_series(41, 60) g`, [org2])
    await db.query(`UPDATE later_things SET kind = 'z' WHERE id % 5 = 0`)
    assert.deepEqual(await mismatches(db), [])
    // The check sees a counter that is one off.
    await db.query(`UPDATE list_counts SET n = n + 1 WHERE (table_name, organization_id, key, shard) = (SELECT table_name, organization_id, key, shard FROM list_counts WHERE table_name = 'contacts' AND organization_id = $1 AND key = 'type=company' LIMIT 1)`, [org1])
    assert.deepEqual((await mismatches(db)).map((m) => (m as { key: string }).key), ['type=company'])
    await db.query('TRUNCATE later_things')
    const { rows: [{ n: afterTruncate }] } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM list_counts WHERE table_name = 'later_things'`)
    assert.equal(afterTruncate, 0)
  } finally {
    await db.close()
    await server?.drop()
    rmSync(dir, { recursive: true, force: true })
  }
})
