// Writes beside a minimal insert and NestJS + TypeORM (issue 26), wired into
// bench/run.ts; alone: `BENCH_ONLY=writes npm run bench` (PostgreSQL when
// BENCH_DATABASE_URL or DATABASE_URL is set, then PGlite unless BENCH_PGLITE=off).
//
// One organization of its own, seeded with BENCH_WRITES_CONTACTS contacts
// (default 10,000) so that the indexes are realistic, then with autocannon
// (BENCH_CONNECTIONS, default 10, BENCH_SECONDS each, a new e-mail per request
// by idReplacement), every server on the same database:
//   - POST /api/contacts through the full stack (API key, validation, the
//     contact.created event, the list counters) and GET /api/contacts?page=3&limit=20;
//   - a bare Fastify route doing one `INSERT INTO contacts ... RETURNING *` on
//     a pg pool (the minimal durable insert), and a bare GET running the
//     full stack's list SQL (contactsRepository.list) with no middleware;
//   - a NestJS + TypeORM app (bench/nest: platform-express, Repository.save,
//     findAndCount with skip/take), POST and GET /contacts;
// and the ratios of the issue's goal: POST full stack / minimal insert
// (>= 0.6), POST full stack / NestJS (>= 1.5), and the same for the reads.
// Then the hot writes that have no bench of their own: payments
// (POST /api/invoices/:id/pay, over 20 open invoices) and timesheet entries
// (POST /api/projects/:id/tasks/:taskId/timesheets, spread over 200 employees
// and the days). Licence validation, quote to cash and transfer validation are
// measured by bench/modules.ts and bench/inventory.ts.
//
// On PostgreSQL each server runs in a child process of its own (this file,
// started as `node --import tsx bench/writes.ts full|bare`, and bench/nest/main.ts),
// so none shares an event loop with another or with autocannon's worker; each
// has a pool of 10 connections. On PGlite (one in-process database) the full
// stack and the bare routes run in this process, and NestJS + TypeORM (which
// needs a PostgreSQL server) is skipped.
// Warm-up: BENCH_WRITES_WARMUP seconds (default 2) of each request before it is measured.
import autocannon from 'autocannon'
import Fastify from 'fastify'
import pg from 'pg'
import { spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openDb, type Db } from '../src/core/db.ts'
import type { App } from '../src/core/module.ts'
import { contactsRepository } from '../src/modules/contacts/contacts.repository.ts'
import { createDatabase } from '../test/helpers/app.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = Number(process.env.BENCH_WRITES_WARMUP ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const CONTACTS = Number(process.env.BENCH_WRITES_CONTACTS ?? 10_000)
const EMPLOYEES = 200
const here = dirname(fileURLToPath(import.meta.url))
type Row = { name: string; value: string }

interface Measured {
  requestsPerSecond: number
  p99Ms: number
  errors: number
}

/** workers: 1 (autocannon in a worker thread) unless opts say otherwise. */
async function measure(opts: autocannon.Options, seconds = SECONDS): Promise<Measured> {
  const result = await autocannon({ connections: CONNECTIONS, duration: seconds, workers: 1, ...opts })
  return { requestsPerSecond: Math.round(result.requests.average), p99Ms: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx }
}

const describe = (r: Measured) => `${r.requestsPerSecond} req/s, p99 ${r.p99Ms} ms${r.errors ? `, ${r.errors} errors` : ''}`
const ratio = (a: Measured, b: Measured) => (a.requestsPerSecond / b.requestsPerSecond).toFixed(2)

/** The full stack's configuration, as bench/run.ts builds it (rate limit and jobs off). */
function fullStackConfig(databaseUrl: string | undefined) {
  return loadConfig({ ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), DATA_DIR: 'memory://', RATE_LIMIT: 'off', JOBS: 'off', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789' })
}

/**
 * The bare routes. POST: one INSERT ... RETURNING * (`insert`, a plain pg pool
 * query on PostgreSQL), what a Fastify + pg user writes. GET: the full stack's
 * list SQL (contactsRepository.list: the page and the counted total) on `db`.
 */
async function bareServer(organizationId: string, db: Db, insert: (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>) {
  const bare = Fastify({ logger: false })
  bare.post('/contacts', async (req, reply) => {
    const body = req.body as { name: string; email?: string; phone?: string }
    const { rows } = await insert(
      'INSERT INTO contacts (id, organization_id, name, email, phone) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [randomUUID(), organizationId, body.name, body.email ?? null, body.phone ?? null],
    )
    return reply.status(201).send(rows[0])
  })
  bare.get('/contacts', async (req) => {
    const q = req.query as { page?: string; limit?: string }
    return contactsRepository.list(db, organizationId, { page: Number(q.page ?? 1), limit: Number(q.limit ?? 20), sortOrder: 'desc' })
  })
  await bare.listen({ port: 0, host: '127.0.0.1' })
  return bare
}

interface Server {
  base: string
  stop(): Promise<void>
}

/** A child process that prints `listening <port>` when ready; stopped by SIGTERM. */
async function child(args: string[], env: Record<string, string>): Promise<Server> {
  const proc = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: proc.stdout })
  const port = await new Promise<number>((resolvePort, reject) => {
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before listening`)))
    lines.on('line', (line) => {
      const m = /^listening (\d+)$/.exec(line)
      if (m) resolvePort(Number(m[1]))
      else console.log(line)
    })
  })
  return {
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (proc.exitCode !== null) return
      const exited = once(proc, 'exit')
      proc.kill('SIGTERM')
      await exited
    },
  }
}

/** Child process entry: `node --import tsx bench/writes.ts full|bare`, DATABASE_URL and ORGANIZATION_ID in the environment. */
async function serve(kind: string) {
  const databaseUrl = process.env.DATABASE_URL!
  const organizationId = process.env.ORGANIZATION_ID!
  let close: () => Promise<unknown>
  let port: number
  if (kind === 'full') {
    const app = await buildApp(fullStackConfig(databaseUrl), { logger: false })
    await app.listen({ port: 0, host: '127.0.0.1' })
    port = (app.server.address() as { port: number }).port
    close = () => app.close()
  } else if (kind === 'bare') {
    const db = await openDb({ databaseUrl, dataDir: 'memory://', pgPoolSize: 10 })
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
    const bare = await bareServer(organizationId, db, (sql, params) => pool.query(sql, params))
    port = (bare.server.address() as { port: number }).port
    close = async () => {
      await bare.close()
      await pool.end()
      await db.close()
    }
  } else throw new Error(`unknown server ${kind}`)
  const stop = () => close().finally(() => process.exit(0))
  process.once('SIGTERM', stop)
  // The parent gone (its end of stdin closed): stop too.
  process.stdin.on('end', stop).resume()
  console.log(`listening ${port}`)
}

type Sql = (sql: string, params?: unknown[]) => Promise<{ rows: any[] }>

/** An organization of its own (registered through `base`) with an API key (member), and `CONTACTS` contacts. */
async function seed(base: string, sql: Sql) {
  const json = { 'content-type': 'application/json' }
  const { organization, accessToken } = await call(base, json, '/auth/register', {
    organizationName: 'Bench writes', name: 'Bench', email: `bench-w-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password',
  })
  const key = await call(base, { ...json, authorization: `Bearer ${accessToken}` }, '/api-keys', { name: 'bench', environment: 'test', role: 'member' })
  // In statements of 1,000 rows: one statement of 10,000 would pay the per-row counters'
  // trigger's growing chain of versions of one counter row (issue 26).
  for (let from = 1; from <= CONTACTS; from += 1000) {
    await sql(
      `INSERT INTO contacts (id, organization_id, name, email, phone, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'Contact ' || g, 'contact' || g || '@example.com', '+1 555 ' || g,
              now() - g * interval '1 second', now() - g * interval '1 second'
       FROM generate_series($2::int, $3::int) g`,
      [organization.id, from, Math.min(CONTACTS, from + 999)],
    )
  }
  await sql('ANALYZE contacts')
  return { organizationId: organization.id as string, apiKey: key.key as string }
}

type Target = Record<'post' | 'get', { name: string; opts: autocannon.Options }>

async function writes(label: string, app: App, base: string): Promise<Row[]> {
  const servers: Server[] = []
  const rows: Row[] = []
  // On PostgreSQL a database of its own, which the full stack's child process migrates:
  // the child cannot open the secrets this process sealed (a key per process without SECRET_KEY).
  const database = app.ctx.config.databaseUrl ? await createDatabase(app.ctx.config.databaseUrl, 'bp_bench_writes') : undefined
  const pool = database ? new pg.Pool({ connectionString: database.url, max: 2 }) : undefined
  const sql: Sql = pool ? (text, params) => pool.query(text, params as any[]) : (text, params) => app.ctx.db.query(text, params)
  try {
    let full: Server
    let bare: Server
    let nest: Server | undefined
    let organizationId: string
    let apiKey: string
    const t0 = performance.now()
    if (database) {
      servers.push((full = await child([join(here, 'writes.ts'), 'full'], { DATABASE_URL: database.url, SECRET_KEY: randomBytes(32).toString('base64url') })))
      console.log(`[${label}] writes: full stack started (and migrated its database) in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
      ;({ organizationId, apiKey } = await seed(full.base, sql))
      const env = { DATABASE_URL: database.url, ORGANIZATION_ID: organizationId }
      servers.push((bare = await child([join(here, 'writes.ts'), 'bare'], env)))
      servers.push((nest = await child([join(here, 'nest', 'main.ts')], { ...env, TSX_TSCONFIG_PATH: join(here, 'nest', 'tsconfig.json') })))
    } else {
      full = { base, stop: async () => {} }
      ;({ organizationId, apiKey } = await seed(full.base, sql))
      const db = app.ctx.db
      const inProcess = await bareServer(organizationId, db, (text, params) => db.query(text, params))
      servers.push((bare = { base: `http://127.0.0.1:${(inProcess.server.address() as { port: number }).port}`, stop: () => inProcess.close() }))
      console.log(`[${label}] writes: NestJS + TypeORM skipped (it needs a PostgreSQL server); full stack and bare routes share this process`)
    }
    console.log(`[${label}] writes: servers up, ${CONTACTS} contacts seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
    const json = { 'content-type': 'application/json' }
    const body = JSON.stringify({ name: 'Bench [<id>]', email: 'bench-[<id>]@example.com' })
    const post = (url: string, headers: Record<string, string>): autocannon.Options => ({ url, method: 'POST', headers, body, idReplacement: true })
    const targets: Target[] = [
      {
        post: { name: 'full stack (API key, validation, event, counters)', opts: post(`${full.base}/api/contacts`, auth) },
        get: { name: 'full stack (API key, validation, counted total)', opts: { url: `${full.base}/api/contacts?page=3&limit=20`, headers: auth } },
      },
      {
        post: { name: `bare Fastify${database ? ' + pg' : ''}, one INSERT ... RETURNING *`, opts: post(`${bare.base}/contacts`, json) },
        get: { name: 'bare Fastify route, the same list SQL', opts: { url: `${bare.base}/contacts?page=3&limit=20` } },
      },
      ...(nest ? [{
        post: { name: 'NestJS + TypeORM, Repository.save', opts: post(`${nest.base}/contacts`, json) },
        get: { name: 'NestJS + TypeORM, findAndCount', opts: { url: `${nest.base}/contacts?page=3&limit=20` } },
      }] : []),
    ]
    const results: Record<'post' | 'get', Measured[]> = { post: [], get: [] }
    for (const kind of ['post', 'get'] as const) {
      for (const t of targets) {
        const { name, opts } = t[kind]
        if (WARMUP > 0) await measure(opts, WARMUP)
        const r = await measure(opts)
        results[kind].push(r)
        const what = kind === 'post' ? 'POST /contacts' : 'GET /contacts?page=3&limit=20'
        console.log(`[${label}] ${what}, ${name}: ${describe(r)}`)
        rows.push({ name: `${label}: ${what}, ${name}`, value: describe(r) })
      }
    }
    const [postFull, postBare, postNest] = results.post
    const [getFull, getBare, getNest] = results.get
    rows.push({ name: `${label}: POST full stack / minimal insert (goal >= 0.6)`, value: ratio(postFull, postBare) })
    if (postNest) rows.push({ name: `${label}: POST full stack / NestJS + TypeORM (goal >= 1.5)`, value: ratio(postFull, postNest) })
    rows.push({ name: `${label}: GET full stack / bare route`, value: ratio(getFull, getBare) })
    if (getNest) rows.push({ name: `${label}: GET full stack / NestJS + TypeORM`, value: ratio(getFull, getNest) })
    for (const r of rows.slice(-(postNest ? 4 : 2))) console.log(`[${label}] ${r.name.slice(label.length + 2)}: ${r.value}`)

    rows.push(...(await payments(label, full.base, auth)))
    rows.push(...(await timesheets(label, sql, organizationId, full.base, auth)))
  } finally {
    for (const s of servers) await s.stop()
    await pool?.end()
    await database?.drop()
  }
  return rows
}

async function call(base: string, headers: Record<string, string>, path: string, payload: unknown) {
  const res = await fetch(`${base}/api${path}`, { method: 'POST', headers, body: JSON.stringify(payload) })
  const json = (await res.json()) as any
  if (res.status >= 400) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** POST /api/invoices/:id/pay of 1.00 on 20 draft invoices of 10,000,000.00 each, taken in turn. */
async function payments(label: string, base: string, headers: Record<string, string>): Promise<Row[]> {
  const contact = await call(base, headers, '/contacts', { name: 'Bench payer', email: `payer-${randomBytes(4).toString('hex')}@example.com` })
  const paths: string[] = []
  for (let i = 0; i < 20; i++) {
    const invoice = await call(base, headers, '/invoices', { contactId: contact.id, lineItems: [{ description: 'Bench', quantity: 1, unitPrice: 1_000_000_000 }] })
    paths.push(`/api/invoices/${invoice.id}/pay`)
  }
  let n = 0
  // setupRequest (a closure) cannot be sent to a worker thread: autocannon runs in this process.
  const opts: autocannon.Options = {
    url: base,
    workers: undefined,
    requests: [{ method: 'POST', headers, body: JSON.stringify({ amount: 100 }), setupRequest: (req) => ({ ...req, path: paths[n++ % paths.length] }) }],
  }
  if (WARMUP > 0) await measure(opts, WARMUP)
  const r = await measure(opts)
  console.log(`[${label}] POST /invoices/:id/pay: ${describe(r)}`)
  return [{ name: `${label}: POST /invoices/:id/pay (20 invoices in turn)`, value: describe(r) }]
}

/** POST timesheet entries of one hour on 20 tasks, entry i by employee i % 200 on day i / 200 (never above 24 hours). */
async function timesheets(label: string, sql: Sql, organizationId: string, base: string, headers: Record<string, string>): Promise<Row[]> {
  const { rows: employees }: { rows: { id: string }[] } = await sql(
    `INSERT INTO employees (id, organization_id, name, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Employee ' || g, now(), now() FROM generate_series(1, $2::int) g RETURNING id`,
    [organizationId, EMPLOYEES],
  )
  const paths: string[] = []
  for (let i = 0; i < 20; i++) {
    const project = await call(base, headers, '/projects', { name: `Bench project ${i}` })
    const task = await call(base, headers, `/projects/${project.id}/tasks`, { title: 'Bench task' })
    paths.push(`/api/projects/${project.id}/tasks/${task.id}/timesheets`)
  }
  const day = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString().slice(0, 10)
  let n = 0
  const opts: autocannon.Options = {
    url: base,
    workers: undefined,
    requests: [{
      method: 'POST',
      headers,
      setupRequest: (req) => {
        const i = n++
        return { ...req, path: paths[i % paths.length], body: JSON.stringify({ employeeId: employees[i % EMPLOYEES].id, date: day(Math.floor(i / EMPLOYEES)), hours: 1 }) }
      },
    }],
  }
  if (WARMUP > 0) await measure(opts, WARMUP)
  const r = await measure(opts)
  console.log(`[${label}] POST timesheets: ${describe(r)}`)
  return [{ name: `${label}: POST /projects/:id/tasks/:taskId/timesheets (spread over ${EMPLOYEES} employees and the days)`, value: describe(r) }]
}

export const benchmarks = [writes]

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await serve(process.argv[2])
