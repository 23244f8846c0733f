import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { test } from 'node:test'
import pg from 'pg'
import { Redis } from 'ioredis'
import { loadConfig } from '../src/config.ts'
import { createDatabase } from './helpers/app.ts'

// Many API processes on one port (docs/scale-out.md "Many processes"):
// `npm start` with WEB_CONCURRENCY=2, for real, over a PostgreSQL database and
// Redis. Both processes serve; a revoked API key stops at once in both; each
// queued report run is handled once; each scheduled job runs once per
// interval across the two; SIGTERM stops them all.

test('WEB_CONCURRENCY: a bad value or a setting that one process alone can honour is refused with its reason', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x', REDIS_URL: 'redis://127.0.0.1:6379' }
  assert.equal(loadConfig({}).workers, 1)
  assert.equal(loadConfig({ ...base, WEB_CONCURRENCY: '4' }).workers, 4)
  assert.throws(() => loadConfig({ ...base, WEB_CONCURRENCY: '0' }), /WEB_CONCURRENCY/)
  assert.throws(() => loadConfig({ ...base, WEB_CONCURRENCY: 'two' }), /WEB_CONCURRENCY/)
  assert.throws(() => loadConfig({ REDIS_URL: base.REDIS_URL, WEB_CONCURRENCY: '2' }), /WEB_CONCURRENCY=2 needs DATABASE_URL: the embedded database \(PGlite\) belongs to one process/)
  assert.throws(() => loadConfig({ DATABASE_URL: base.DATABASE_URL, WEB_CONCURRENCY: '2' }), /WEB_CONCURRENCY=2 needs REDIS_URL so that the processes share the rate limits/)
  // Without rate limits there is nothing to share in Redis.
  assert.equal(loadConfig({ DATABASE_URL: base.DATABASE_URL, WEB_CONCURRENCY: '2', RATE_LIMIT: 'off' }).workers, 2)
})

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

/** One request on a connection of its own (no keep-alive), so that the primary hands each to the next process. */
function fresh(port: number, method: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        port,
        host: '127.0.0.1',
        method,
        path: `/api${path}`,
        agent: false,
        headers: { connection: 'close', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
      },
      (res) => {
        let text = ''
        res.on('data', (c) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

async function redisUrl(): Promise<string | undefined> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  try {
    await r.connect()
    await r.ping()
    return url
  } catch {
    return undefined
  } finally {
    r.disconnect()
  }
}

test('two API processes on one port: both serve, a revoked key stops in both, queue rows and scheduled jobs run once', { timeout: 180_000 }, async (t) => {
  const base = process.env.DATABASE_URL
  if (!base) return t.skip('needs PostgreSQL (DATABASE_URL): the embedded database belongs to one process')
  const redis = await redisUrl()
  const db = await createDatabase(base, 'bp_cluster')
  t.after(() => db.drop())
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts', '--workers', '2'], {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      // Rate limits shared through Redis when there is one (as in CI); off otherwise, which the configuration then allows.
      ...(redis ? { REDIS_URL: redis, RATE_LIMIT: 'on' } : { RATE_LIMIT: 'off' }),
      LOG_LEVEL: 'debug',
      JOBS: 'on',
      PASSWORD_HASH_COST: '14',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
  })
  const lines: Array<Record<string, any>> = []
  let stderr = ''
  let partial = ''
  child.stdout.on('data', (chunk) => {
    const text = partial + chunk
    const parts = text.split('\n')
    partial = parts.pop() ?? ''
    for (const line of parts) if (line.startsWith('{')) lines.push(JSON.parse(line))
  })
  child.stderr.on('data', (c) => (stderr += c))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))

  // Up once both processes listen (a cold start compiles the TypeScript and migrates).
  for (let i = 0; lines.filter((l) => String(l.msg).startsWith('Server listening')).length < 2; i++) {
    assert.ok(i < 900 && child.exitCode === null, `the processes did not start: ${stderr}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const started = Date.now()
  const pids = new Set(lines.filter((l) => String(l.msg).startsWith('Server listening')).map((l) => l.pid))
  assert.equal(pids.size, 2, 'two API processes')
  assert.ok(!pids.has(child.pid), 'the primary itself serves nothing')
  const servedBy = (path: string) => new Set(lines.filter((l) => l.msg === 'incoming request' && l.req?.url === path).map((l) => l.pid))

  // An organization, and an API key used on both processes.
  const reg = await fresh(port, 'POST', '/auth/register', { body: { organizationName: 'Two Processes Ltd', name: 'Ada', email: 'ada@two.example', password: 'long enough password' } })
  assert.equal(reg.status, 201, JSON.stringify(reg.body))
  const token = reg.body.accessToken as string
  const key = await fresh(port, 'POST', '/api-keys', { token, body: { name: 'cluster test', environment: 'test' } })
  assert.equal(key.status, 201, JSON.stringify(key.body))
  for (let i = 0; i < 6; i++) assert.equal((await fresh(port, 'GET', '/contacts?limit=1', { token: key.body.key })).status, 200)
  assert.deepEqual(servedBy('/api/contacts?limit=1'), pids, 'each process answered the key (and holds it in its cache)')

  // Revoked: at once, in both (NOTIFY reaches every process before the DELETE answers).
  assert.equal((await fresh(port, 'DELETE', `/api-keys/${key.body.id}`, { token })).status, 204)
  const after = await Promise.all(Array.from({ length: 8 }, () => fresh(port, 'GET', '/contacts?limit=2', { token: key.body.key })))
  assert.deepEqual(
    after.map((r) => r.status),
    Array(8).fill(401),
  )
  assert.deepEqual(servedBy('/api/contacts?limit=2'), pids, 'both processes refused the revoked key')

  // Queue rows: twelve report runs, each claimed and run exactly once by one of the processes.
  const runs: string[] = []
  for (let day = 1; day <= 12; day++) {
    const res = await fresh(port, 'POST', '/reports', { token, body: { type: 'invoices', parameters: { from: `2026-01-${String(day).padStart(2, '0')}`, to: '2026-01-31' } } })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    runs.push(res.body.id)
  }
  const sql = new pg.Client({ connectionString: db.url })
  await sql.connect()
  // Ended at the end of the test; the drop of the database (an earlier after-hook) would end it otherwise.
  sql.on('error', () => {})
  for (let i = 0; ; i++) {
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM report_runs WHERE status = 'succeeded'`)
    if (rows[0].n === runs.length) break
    assert.ok(i < 300, 'the report runs finished')
    await new Promise((r) => setTimeout(r, 100))
  }
  const { rows: attempts } = await sql.query(`SELECT attempts, count(*)::int AS n FROM report_runs GROUP BY attempts`)
  assert.deepEqual(attempts, [{ attempts: 1, n: 12 }], 'every run claimed once')

  // Scheduled jobs: the 5-second ones, watched for 16 seconds after the start. Each
  // process ticks every 5 s, but an interval is claimed by one process only:
  // two runs of a job are at least its interval (less the 0.5 s tolerance) apart.
  await new Promise((r) => setTimeout(r, Math.max(0, 16_000 - (Date.now() - started))))
  const ran = lines.filter((l) => l.msg === 'job ran')
  const { rows: jobs } = await sql.query(`SELECT name FROM scheduled_jobs ORDER BY name`)
  assert.ok(jobs.length >= 3, `the 5-second jobs ran: ${JSON.stringify(jobs)}`)
  for (const { name } of jobs) {
    const times = ran.filter((l) => l.job === name).map((l) => l.time as number)
    assert.ok(times.length >= 1 && times.length <= 4, `${name}: ${times.length} runs in 16 s`)
    for (let i = 1; i < times.length; i++) assert.ok(times[i] - times[i - 1] >= 4_000, `${name}: two runs ${times[i] - times[i - 1]} ms apart`)
  }
  // And none of those runs failed.
  const { rows: claimed } = await sql.query(`SELECT count(*)::int AS n FROM scheduled_jobs WHERE last_error IS NOT NULL`)
  assert.equal(claimed[0].n, 0, 'no job failed')
  await sql.end()

  // SIGTERM to the primary: every process finishes and the service exits 0.
  child.kill('SIGTERM')
  assert.equal(await exited, 0, stderr)
  for (const pid of pids) assert.throws(() => process.kill(pid, 0), /ESRCH/, `process ${pid} is gone`)
})
