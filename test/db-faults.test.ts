import assert from 'node:assert/strict'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { after, before, test } from 'node:test'
import pg from 'pg'
import { buildTestApp, call, createOrg, type TestApp } from './helpers/app.ts'

// A database that is unreachable, restarting or dropping connections is 503
// with Retry-After (docs/errors.md "The codes", SERVICE_UNAVAILABLE), never
// 500; no write answered 201 is lost and none
// answered with an error is half-done. PostgreSQL only: PGlite lives in the
// process and has no connection to lose.

const skip = !process.env.DATABASE_URL && 'needs DATABASE_URL (PostgreSQL)'

/** A TCP proxy in front of PostgreSQL that can refuse new connections and cut the open ones. */
async function proxyTo(target: URL) {
  let refusing = false
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    if (refusing) return client.destroy()
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {})
    }
    client.pipe(upstream).pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as { port: number }).port,
    refuse(on: boolean) {
      refusing = on
      if (on) for (const s of sockets) s.destroy()
    },
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy()
      server.close(() => r())
    }),
  }
}

let t: TestApp
before(async () => {
  if (!skip) t = await buildTestApp()
})
after(() => t?.close())

test('connections killed during 600 contact creations: every answer is 201 or 503, and the rows are exactly the 201s', { skip, timeout: 120_000 }, async () => {
  const org = await createOrg(t.app)
  const dbName = new URL(t.config.databaseUrl!).pathname.slice(1)
  const killer = new pg.Client({ connectionString: t.config.databaseUrl, application_name: 'bp-test-killer' })
  await killer.connect()
  let killing = true
  let kills = 0
  const loop = (async () => {
    while (killing) {
      const { rowCount } = await killer.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> 'bp-test-killer'`,
        [dbName],
      )
      kills += rowCount ?? 0
      await new Promise((r) => setTimeout(r, 40))
    }
  })()

  const results: Array<{ email: string; status: number; body: any; retryAfter?: string }> = []
  let next = 0
  await Promise.all(Array.from({ length: 20 }, async () => {
    while (next < 600) {
      const email = `fault-${next++}@example.com`
      const res = await t.app.inject({ method: 'POST', url: '/api/contacts', headers: { authorization: `Bearer ${org.token}` }, payload: { name: 'Fault', email } })
      results.push({ email, status: res.statusCode, body: res.json(), retryAfter: res.headers['retry-after'] as string | undefined })
    }
  }))
  killing = false
  await loop
  await killer.end()

  const byStatus = new Map<number, typeof results>()
  for (const r of results) byStatus.set(r.status, [...(byStatus.get(r.status) ?? []), r])
  assert.deepEqual([...byStatus.keys()].filter((s) => s !== 201 && s !== 503), [], `statuses other than 201 and 503: ${JSON.stringify(results.find((r) => r.status !== 201 && r.status !== 503))}`)
  assert.ok(kills > 0 && (byStatus.get(503)?.length ?? 0) > 0, `the faults were exercised (${kills} connections killed)`)
  for (const r of byStatus.get(503) ?? []) {
    assert.deepEqual(Object.keys(r.body).sort(), ['code', 'error', 'message', 'statusCode'])
    assert.deepEqual([r.body.statusCode, r.body.error, r.body.code], [503, 'Service Unavailable', 'SERVICE_UNAVAILABLE'])
    assert.ok(Number(r.retryAfter) > 0, 'Retry-After')
  }

  // The service recovers by itself; then the database holds exactly the contacts answered 201.
  let ready = await call(t.app, 'GET', '/ready')
  for (let i = 0; i < 20 && ready.status !== 200; i++) ready = await call(t.app, 'GET', '/ready')
  assert.equal(ready.status, 200)
  const { rows } = await t.app.ctx.db.query<{ email: string }>(`SELECT email FROM contacts WHERE organization_id = $1 AND email LIKE 'fault-%'`, [org.id])
  const stored = new Set(rows.map((r) => r.email))
  const created = new Set((byStatus.get(201) ?? []).map((r) => r.email))
  assert.deepEqual([...created].filter((e) => !stored.has(e)), [], 'answered 201 but lost')
  assert.deepEqual([...stored].filter((e) => !created.has(e)), [], 'answered with an error but written')
})

test('a database that refuses connections: 503 with Retry-After, /ready 503, and the service recovers by itself', { skip, timeout: 60_000 }, async () => {
  const target = new URL(t.config.databaseUrl!)
  const proxy = await proxyTo(target)
  const url = new URL(target)
  url.host = `127.0.0.1:${proxy.port}`
  const behind = await buildTestApp({ DATABASE_URL: url.toString() })
  try {
    const org = await createOrg(behind.app)
    assert.equal((await org.get('/contacts')).status, 200)
    proxy.refuse(true)
    const down = await org.get('/contacts')
    assert.equal(down.status, 503, JSON.stringify(down.body))
    assert.equal(down.body.code, 'SERVICE_UNAVAILABLE')
    assert.ok(Number(down.headers['retry-after']) > 0)
    const write = await org.post('/contacts', { name: 'During the outage' })
    assert.equal(write.status, 503)
    assert.equal((await call(behind.app, 'GET', '/ready')).status, 503)
    assert.equal((await call(behind.app, 'GET', '/health')).status, 200)
    proxy.refuse(false)
    assert.equal((await org.get('/contacts')).status, 200)
    assert.equal((await call(behind.app, 'GET', '/ready')).status, 200)
    assert.equal((await org.get('/contacts?search=During')).body.meta.total, 0, 'the write answered 503 left nothing')
  } finally {
    await behind.close().catch(() => {})
    await proxy.close()
  }
})
