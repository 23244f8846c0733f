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
