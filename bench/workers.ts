// One and two API processes on one port (docs/scale-out.md "Many processes"):
// `npx tsx bench/workers.ts` with BENCH_DATABASE_URL or DATABASE_URL set (the
// embedded database belongs to one process). For each of WEB_CONCURRENCY=1
// and 2 it starts the real entry point (src/server.ts, rate limits lifted),
// seeds 10,000 contacts in one organization by SQL, and measures with
// autocannon on loopback, each for BENCH_SECONDS (default 10):
// GET /api/contacts?page=3&limit=20 and POST /api/contacts.
// The load generator runs on the same machine and takes a share of its cores.
import autocannon from 'autocannon'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import pg from 'pg'
import { createDatabase } from '../test/helpers/app.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20)
const base = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL
if (!base) {
  console.error('bench/workers.ts needs BENCH_DATABASE_URL or DATABASE_URL (a PostgreSQL server): the embedded database belongs to one process')
  process.exit(1)
}

async function start(workers: number, databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, WEB_CONCURRENCY: String(workers), DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT: 'off', LOG_LEVEL: 'warn', JOBS: 'off' },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  for (let i = 0; i < 1200; i++) {
    // Ready once every process answers: the primary hands connections out in turn, so `workers` fresh connections in a row must all succeed.
    const answers = await Promise.all(Array.from({ length: workers * 2 }, () => fetch(`http://127.0.0.1:${port}/api/health`, { headers: { connection: 'close' } }).then((r) => r.ok, () => false)))
    if (answers.every(Boolean)) return child
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error('the server did not start')
}

async function stop(child: ChildProcess) {
  const exited = new Promise((r) => child.on('exit', r))
  child.kill('SIGTERM')
  await exited
}

async function run(opts: autocannon.Options) {
  const r = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts })
  return { rps: Math.round(r.requests.average), p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx }
}

const db = await createDatabase(base, 'bp_bench_workers')
const rows: string[] = []
try {
  const port = 3400 + Math.floor(Math.random() * 500)
  let token = ''
  for (const workers of [1, 2]) {
    const child = await start(workers, db.url, port)
    try {
      if (!token) {
        const reg = await fetch(`http://127.0.0.1:${port}/api/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ organizationName: 'Bench workers', name: 'Bench', email: `bench-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' }),
        }).then((r) => r.json())
        const key = await fetch(`http://127.0.0.1:${port}/api/api-keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${reg.accessToken}` },
          body: JSON.stringify({ name: 'bench', environment: 'test', role: 'member' }),
        }).then((r) => r.json())
        token = key.key
        const sql = new pg.Client({ connectionString: db.url })
        await sql.connect()
        await sql.query(
          `INSERT INTO contacts (id, organization_id, name, email, created_at, updated_at)
           SELECT gen_random_uuid(), $1, 'Contact ' || g, 'contact' || g || '@example.com', now() - g * interval '1 second', now() - g * interval '1 second'
           FROM generate_series(1, 10000) g`,
          [reg.organization.id],
        )
        await sql.query('ANALYZE contacts')
        await sql.end()
      }
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
      const url = `http://127.0.0.1:${port}`
      const load = loadavg()[0].toFixed(1)
      const get = await run({ url: `${url}/api/contacts?page=3&limit=20`, headers })
      let n = 0
      // A new contact each request (an e-mail is unique in the organization).
      const post = await run({
        url,
        headers,
        requests: [{ method: 'POST', path: '/api/contacts', setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: `Bench ${workers}-${n}`, email: `w${workers}-${n++}@example.com` }) }) }],
      })
      rows.push(`| ${workers} | ${get.rps} | ${get.p99} ms | ${post.rps} | ${post.p99} ms | ${get.errors + post.errors} | ${load} |`)
    } finally {
      await stop(child)
    }
  }
} finally {
  await db.drop()
}
console.log(`\nWEB_CONCURRENCY, ${SECONDS} s each, ${CONNECTIONS} connections, PostgreSQL, rate limits off\n`)
console.log('| Processes | GET /contacts req/s | GET p99 | POST /contacts req/s | POST p99 | Errors | Load before |')
console.log('|---|---|---|---|---|---|---|')
for (const r of rows) console.log(r)
