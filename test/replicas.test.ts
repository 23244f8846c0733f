import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { test } from 'node:test'
import pg from 'pg'
import { lagTolerant, lsn } from '../src/core/replicas.ts'
import { loadConfig } from '../src/config.ts'
import { buildTestApp, call, createDatabase, createOrg } from './helpers/app.ts'

// Read replicas (docs/scale-out.md "Read replicas"), for real: a streaming
// standby of the local PostgreSQL made by scripts/replica.sh, named by
// TEST_REPLICA_URL (CI sets it on PostgreSQL). Its replay is paused and
// resumed to make it lag on purpose.

test('replicas: WAL positions, the routes whose reads tolerate lag, and the configuration', () => {
  assert.equal(lsn('0/0'), 0n)
  assert.equal(lsn('16/B374D848'), (0x16n << 32n) + 0xb374d848n)
  assert.ok(lsn('1/0') > lsn('0/FFFFFFFF'))
  const list = { type: 'object', properties: { data: {}, meta: {} } }
  assert.equal(lagTolerant({ method: 'GET', url: '/api/contacts', schema: { response: { 200: list } } }), true)
  assert.equal(lagTolerant({ method: 'GET', url: '/api/contacts/:id', schema: { response: { 200: { type: 'object', properties: { id: {} } } } } }), false)
  assert.equal(lagTolerant({ method: 'POST', url: '/api/contacts', schema: { response: { 201: list } } }), false)
  assert.equal(lagTolerant({ method: 'GET', url: '/api/analytics/overview' }), true)
  assert.equal(lagTolerant({ method: 'GET', url: '/api/events/:id' }), true)
  assert.equal(lagTolerant({ method: 'GET', url: '/api/reports/:id/file' }), true)
  assert.equal(lagTolerant({ method: 'GET', url: '/api/invoices/:id/pdf' }), true)
  assert.equal(lagTolerant({ method: 'GET', url: '/api/auth/me' }), false)
  assert.equal(lagTolerant({ method: 'GET', url: '/api/contacts', config: { replica: false } as never, schema: { response: { 200: list } } }), false)
  // A list published as a shared schema, referred to by its id.
  assert.equal(lagTolerant({ method: 'GET', url: '/api/contacts', schema: { response: { 200: { $ref: 'ContactList#' } } } }, (id) => (id === 'ContactList' ? list : undefined)), true)

  const primary = 'postgres://postgres@127.0.0.1:5432/x'
  assert.deepEqual(loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URL: 'postgres://r1:5433/x, postgresql://r2/x' }).replicaUrls, ['postgres://r1:5433/x', 'postgresql://r2/x'])
  assert.deepEqual(loadConfig({ DATABASE_URL: primary }).replicaUrls, [])
  assert.throws(() => loadConfig({ DATABASE_REPLICA_URL: 'postgres://r1/x' }), /DATABASE_REPLICA_URL needs DATABASE_URL/)
  assert.throws(() => loadConfig({ DATABASE_URL: primary, DATABASE_REPLICA_URL: 'mysql://r1/x' }), /DATABASE_REPLICA_URL/)
})

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000) {
  const start = Date.now()
  while (!(await check())) {
    assert.ok(Date.now() - start < timeoutMs, `timed out waiting: ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

test('replicas: lists read from the standby, a credential reads its own writes, a lagging or stopped replica is skipped', { timeout: 240_000 }, async (t) => {
  const base = process.env.DATABASE_URL
  const replicaBase = process.env.TEST_REPLICA_URL
  if (!base || !replicaBase) return t.skip('needs DATABASE_URL and TEST_REPLICA_URL (a standby made by scripts/replica.sh start)')
  const db = await createDatabase(base, 'bp_replica')
  t.after(() => db.drop())
  const replicaUrl = new URL(replicaBase)
  replicaUrl.pathname = new URL(db.url).pathname
  // A second replica that is never there: skipped, never an error.
  const nowhere = `postgres://postgres@127.0.0.1:${await freePort()}${replicaUrl.pathname}`
  const maxLagMs = 4000
  const { app, close } = await buildTestApp({ DATABASE_URL: db.url, DATABASE_REPLICA_URL: `${replicaUrl},${nowhere}`, DATABASE_REPLICA_MAX_LAG_MS: String(maxLagMs) })
  t.after(() => close())
  const replicas = app.ctx.replicas!
  const standby = new pg.Client({ connectionString: replicaUrl.toString() })
  const status = () => replicas.status()[0]

  // The new database reaches the standby by replay; then the replica is in use.
  await until('the standby has the database', async () => {
    try {
      await standby.connect()
      return true
    } catch {
      return false
    }
  })
  standby.on('error', () => {})
  t.after(async () => {
    await standby.query('SELECT pg_wal_replay_resume()').catch(() => {})
    await standby.end()
  })
  await until('the replica is up and caught up', () => status().up && status().lagMs === 0)
  assert.equal(replicas.status()[1].up, false, 'the replica that is not there is out of use')

  const o = await createOrg(app, 'Replica Readers')
  const key = async (name: string) => (await call(app, 'POST', '/api-keys', { token: o.token, body: { name, environment: 'test', role: 'member' } })).body.key as string
  const writer = await key('writer')
  const reader = await key('reader')
  const get = (token: string, path: string) => call(app, 'GET', path, { token })
  const names = async (token: string, search: string) => {
    const res = await get(token, `/contacts?search=${encodeURIComponent(search)}`)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    return res.body.data.map((c: { name: string }) => c.name)
  }
  await until('the keys reached the standby', () => status().lagMs === 0)

  // Lists land on the replica; a single record (GET /contacts/:id) does not.
  const before = status().reads
  assert.deepEqual(await names(reader, 'nobody'), [])
  assert.ok(status().reads > before, 'the list was read on the replica')
  const own = await call(app, 'POST', '/contacts', { token: o.token, body: { name: 'Seen by all' } })
  await until('the contact reached the standby', () => status().lagMs === 0)
  const atOne = status().reads
  assert.equal((await get(reader, `/contacts/${own.body.id}`)).status, 200)
  assert.equal(status().reads, atOne, 'a single record is read on the primary')

  // Replay paused: the replica stops where it is.
  await standby.query('SELECT pg_wal_replay_pause()')
  const written = await call(app, 'POST', '/contacts', { token: writer, body: { name: 'Written while paused' } })
  assert.equal(written.status, 201)
  // The writer reads its own write (from the primary); another credential reads the replica, which has not replayed it yet.
  assert.deepEqual(await names(writer, 'Written while paused'), ['Written while paused'])
  const readerBefore = status().reads
  assert.deepEqual(await names(reader, 'Written while paused'), [], 'the reader was answered by the paused replica')
  assert.ok(status().reads > readerBefore)

  // A replica more than DATABASE_REPLICA_MAX_LAG_MS behind is skipped: the reader now gets the primary's answer.
  await until('the replica counts as lagging', () => (status().lagMs ?? Infinity) > maxLagMs, 20_000)
  const lagging = status().reads
  assert.deepEqual(await names(reader, 'Written while paused'), ['Written while paused'])
  assert.equal(status().reads, lagging, 'the lagging replica answered nothing')

  // Replay resumed: the replica catches up and answers again.
  await standby.query('SELECT pg_wal_replay_resume()')
  await until('the replica caught up', () => status().lagMs === 0)
  const resumed = status().reads
  assert.deepEqual(await names(reader, 'Written while paused'), ['Written while paused'])
  assert.ok(status().reads > resumed)

  // The replica lag a reader sees: from a write's answer to another credential seeing it in a list.
  const lags: number[] = []
  for (let i = 0; i < 5; i++) {
    const name = `Lag probe ${i}`
    assert.equal((await call(app, 'POST', '/contacts', { token: writer, body: { name } })).status, 201)
    const start = performance.now()
    assert.deepEqual(await names(writer, name), [name], 'read-your-writes')
    await until(`${name} visible to the reader`, async () => (await names(reader, name)).length === 1, 10_000)
    lags.push(performance.now() - start)
  }
  t.diagnostic(`replica lag seen by another credential (ms): ${lags.map((l) => l.toFixed(1)).join(', ')}`)

  // The replica's connections dropped (as when it stops): the reads go to the primary, no error.
  await standby.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
  for (let i = 0; i < 5; i++) assert.deepEqual(await names(reader, 'Seen by all'), ['Seen by all'])
  // Other lag-tolerant reads, after the drop: the analytics, the event feed.
  assert.equal((await get(reader, '/analytics/overview')).status, 200)
  assert.equal((await get(o.token, '/events?limit=5')).status, 200)
})
