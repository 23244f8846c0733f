import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openDb } from '../src/core/db.ts'
import { migrate } from '../src/core/migrate.ts'
import { buildTestApp, createDatabase, createOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'

test('transactions never interleave: 40 concurrent read-then-write increments all count', async () => {
  const t = await buildTestApp()
  const db = t.app.ctx.db
  await db.query(`CREATE TABLE counter (n integer NOT NULL)`)
  await db.query(`INSERT INTO counter VALUES (0)`)
  await Promise.all(
    Array.from({ length: 40 }, () =>
      db.tx(async (q) => {
        // FOR UPDATE closes the race on PostgreSQL; PGlite's queue closes it by serializing.
        const { rows } = await q.query<{ n: number }>('SELECT n FROM counter FOR UPDATE')
        await new Promise((r) => setImmediate(r))
        await q.query('UPDATE counter SET n = $1', [rows[0].n + 1])
      }),
    ),
  )
  assert.equal((await db.query<{ n: number }>('SELECT n FROM counter')).rows[0].n, 40)
  await t.close()
})

test('a failing transaction rolls back alone while others commit', async () => {
  const t = await buildTestApp()
  const db = t.app.ctx.db
  await db.query(`CREATE TABLE items (id integer PRIMARY KEY)`)
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) =>
      db.tx(async (q) => {
        await q.query('INSERT INTO items VALUES ($1)', [i])
        if (i % 2 === 1) throw new Error('boom')
      }),
    ),
  )
  assert.equal(results.filter((r) => r.status === 'rejected').length, 10)
  const { rows } = await db.query<{ id: number }>('SELECT id FROM items ORDER BY id')
  assert.deepEqual(rows.map((r) => r.id), [0, 2, 4, 6, 8, 10, 12, 14, 16, 18])
  await t.close()
})

test('a transaction aborted by a deadlock is run again and commits; other errors are not retried', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL (PGlite has one connection: nothing can deadlock)' }, async (tc) => {
  const t = await buildTestApp()
  tc.after(() => t.close())
  const db = t.app.ctx.db
  await db.query(`CREATE TABLE pair (id integer PRIMARY KEY, n integer NOT NULL)`)
  await db.query(`INSERT INTO pair VALUES (1, 0), (2, 0)`)
  // Each transaction locks one row, waits until the other holds its own, then asks for the other's: a deadlock.
  let arrived = 0
  let bothHold!: () => void
  const barrier = new Promise<void>((r) => (bothHold = r))
  const runs = [0, 0]
  const crossing = (first: number, second: number, i: number) =>
    db.tx(async (q) => {
      runs[i]++
      await q.query('UPDATE pair SET n = n + 1 WHERE id = $1', [first])
      if (++arrived === 2) bothHold()
      await barrier
      await q.query('UPDATE pair SET n = n + 1 WHERE id = $1', [second])
    })
  await Promise.all([crossing(1, 2, 0), crossing(2, 1, 1)])
  // PostgreSQL aborted one of them; it ran again once the other had committed.
  assert.deepEqual([...runs].sort(), [1, 2])
  assert.deepEqual((await db.query<{ n: number }>('SELECT n FROM pair ORDER BY id')).rows.map((r) => r.n), [2, 2])

  // A deadlock every time: given up after 3 runs, the error reaches the caller. Any other error: one run.
  let attempts = 0
  await assert.rejects(db.tx(async () => { attempts++; throw Object.assign(new Error('deadlock detected'), { code: '40P01' }) }), { code: '40P01' })
  assert.equal(attempts, 3)
  attempts = 0
  await assert.rejects(db.tx(async () => { attempts++; throw Object.assign(new Error('duplicate key'), { code: '23505' }) }), { code: '23505' })
  assert.equal(attempts, 1)
})

test('50 concurrent HTTP creates all succeed with distinct records', async () => {
  const t = await buildTestApp()
  const org = await createOrg(t.app)
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => org.post('/contacts', { name: `C${i}`, email: `c${i}@example.com` })))
  assert.deepEqual([...new Set(results.map((r) => r.status))], [201])
  assert.equal((await org.get('/contacts')).body.meta.total, 50)
  await t.close()
})

test('PGlite data persists under DATA_DIR across restarts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bp-data-'))
  const config = loadConfig({ DATA_DIR: dir, JOBS: 'off', LOG_LEVEL: 'silent', RATE_LIMIT: 'off' })
  const first = await buildApp(config, { logger: false })
  const org = await createOrg(first)
  const created = expectStatus(await org.post('/contacts', { name: 'Kept' }), 201)
  await first.close()
  const second = await buildApp(config, { logger: false })
  const res = await second.inject({ method: 'GET', url: `/api/contacts/${created.id}`, headers: { authorization: `Bearer ${org.token}` } })
  assert.equal(res.statusCode, 200)
  assert.equal(res.json().name, 'Kept')
  await second.close()
  rmSync(dir, { recursive: true, force: true })
})

test('two processes migrating one PostgreSQL database at once apply each migration once', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' }, async () => {
  const fresh = await createDatabase(process.env.DATABASE_URL!, 'bp_migrate')
  const [a, b] = await Promise.all([openDb({ databaseUrl: fresh.url, dataDir: '' }), openDb({ databaseUrl: fresh.url, dataDir: '' })])
  try {
    const [appliedA, appliedB] = await Promise.all([migrate(a), migrate(b)])
    const applied = [...appliedA, ...appliedB]
    const { rows } = await a.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')
    assert.deepEqual(applied.sort(), rows.map((r) => r.name))
    assert.ok(appliedA.length === 0 || appliedB.length === 0, 'one process did all the work')
  } finally {
    await a.close()
    await b.close()
    await fresh.drop()
  }
})
