// Load benchmarks (not part of npm test). For each database (PGlite, and
// PostgreSQL when BENCH_DATABASE_URL or DATABASE_URL is set) it seeds 100,000
// contacts across 10 organizations, then measures with autocannon on loopback,
// each for BENCH_SECONDS (default 10):
//   - GET /api/contacts?page=3&limit=20 and POST /api/contacts through the full
//     stack (auth, rate limit lifted, validation, serialization), and
//   - the same SQL behind a bare Fastify route with no middleware;
// plus the module benchmarks that exist (quote-to-cash, license validation),
// the list scaling table of bench/scaling.ts (10k, 100k, 1M contacts) and the
// inventory figures of bench/inventory.ts (belowReorder p99, validations/s).
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { randomBytes, randomUUID } from 'node:crypto'
import { buildApp } from '../src/app.ts'
import type { App } from '../src/core/module.ts'
import { loadConfig } from '../src/config.ts'
import type { Db } from '../src/core/db.ts'
import { DomainEvents } from '../src/core/events.ts'
import { contactsRepository } from '../src/modules/contacts/contacts.repository.ts'
import { contactDefaults } from '../src/modules/contacts/contacts.service.ts'
import { createDatabase } from '../test/helpers/app.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
/** BENCH_ONLY=scaling,inventory: only those files of bench/ (without the contacts runs of this file). */
const ONLY = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const ORGS = 10
const CONTACTS_PER_ORG = 10_000

export interface Measured {
  requestsPerSecond: number
  p99Ms: number
  errors: number
}

/** One bounded autocannon run against a URL on loopback. */
export async function measure(opts: autocannon.Options): Promise<Measured> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, workers: 1, ...opts })
  const errors = result.errors + result.timeouts + result.non2xx
  return { requestsPerSecond: Math.round(result.requests.average), p99Ms: result.latency.p99, errors }
}

async function seedContacts(app: App) {
  const orgs: { id: string; token: string }[] = []
  for (let i = 0; i < ORGS; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { organizationName: `Bench ${i}`, name: 'Bench', email: `bench-${i}-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
    })
    const { organization, accessToken } = res.json()
    const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'member' } })
    orgs.push({ id: organization.id, token: key.json().key })
    await app.ctx.db.query(
      `INSERT INTO contacts (id, organization_id, name, email, phone, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'Contact ' || g, 'contact' || g || '-' || $2 || '@example.com', '+1 555 ' || g,
              now() - g * interval '1 second', now() - g * interval '1 second'
       FROM generate_series(1, $3) g`,
      [organization.id, i, CONTACTS_PER_ORG],
    )
  }
  await app.ctx.db.query('ANALYZE contacts')
  return orgs
}

/** The same SQL as GET and POST /contacts, behind no middleware at all. */
async function bareServer(db: Db, organizationId: string) {
  const bare = Fastify({ logger: false })
  bare.get('/bare/contacts', async () =>
    contactsRepository.list(db, organizationId, { page: 3, limit: 20, sortOrder: 'desc' }),
  )
  // The create writes the contact and its contact.created event in one transaction, as ContactsService does.
  const events = new DomainEvents(db, bare.log)
  bare.post('/bare/contacts', async (req, reply) =>
    reply.status(201).send(await db.tx(async (q) => {
      const contact = await contactsRepository.insert(q, organizationId, randomUUID(), contactDefaults(req.body as { name: string; email: string }))
      await events.append(q, { organizationId, type: 'contact.created', resource: { type: 'contact', id: contact.id }, object: contact })
      return contact
    })),
  )
  await bare.listen({ port: 0, host: '127.0.0.1' })
  return bare
}

type Row = { name: string; value: string }

async function benchDatabase(label: string, databaseUrl: string | undefined): Promise<Row[]> {
  const config = loadConfig({ ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), DATA_DIR: 'memory://', RATE_LIMIT: 'off', JOBS: 'off', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789' })
  const app = await buildApp(config, { logger: false })
  const rows: Row[] = []
  try {
    if (ONLY) {
      await app.listen({ port: 0, host: '127.0.0.1' })
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
      for (const extra of await moduleBenchmarks()) rows.push(...(await extra(label, app, base)))
      return rows
    }
    console.log(`[${label}] seeding ${ORGS * CONTACTS_PER_ORG} contacts`)
    const orgs = await seedContacts(app)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const bare = await bareServer(app.ctx.db, orgs[0].id)
    const bareBase = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`
    const auth = { authorization: `Bearer ${orgs[0].token}`, 'content-type': 'application/json' }
    const postBody = JSON.stringify({ name: 'Bench [<id>]', email: 'bench-[<id>]@example.com' })

    const runs: Array<[string, autocannon.Options]> = [
      ['GET /contacts?page=3&limit=20 (full stack)', { url: `${base}/api/contacts?page=3&limit=20`, headers: auth }],
      ['GET same SQL, bare route', { url: `${bareBase}/bare/contacts` }],
      ['POST /contacts (full stack)', { url: `${base}/api/contacts`, method: 'POST', headers: auth, body: postBody, idReplacement: true }],
      ['POST same SQL, bare route', { url: `${bareBase}/bare/contacts`, method: 'POST', headers: { 'content-type': 'application/json' }, body: postBody, idReplacement: true }],
    ]
    const results: Measured[] = []
    for (const [name, opts] of runs) {
      const r = await measure(opts)
      results.push(r)
      console.log(`[${label}] ${name}: ${r.requestsPerSecond} req/s, p99 ${r.p99Ms} ms, errors ${r.errors}`)
      rows.push({ name: `${label}: ${name}`, value: `${r.requestsPerSecond} req/s, p99 ${r.p99Ms} ms${r.errors ? `, ${r.errors} errors` : ''}` })
    }
    rows.push({ name: `${label}: GET full stack / bare`, value: `${Math.round((100 * results[0].requestsPerSecond) / results[1].requestsPerSecond)}%` })
    rows.push({ name: `${label}: POST full stack / bare`, value: `${Math.round((100 * results[2].requestsPerSecond) / results[3].requestsPerSecond)}%` })

    for (const extra of await moduleBenchmarks()) rows.push(...(await extra(label, app, base)))
    await bare.close()
  } finally {
    await app.close()
  }
  return rows
}

type ModuleBench = (label: string, app: App, base: string) => Promise<Row[]>

/** Benchmarks that modules ship in bench/, loaded when present. */
async function moduleBenchmarks(): Promise<ModuleBench[]> {
  const found: ModuleBench[] = []
  for (const file of ['./auth.ts', './modules.ts', './scaling.ts', './inventory.ts', './manufacturing.ts', './projects.ts', './helpdesk.ts', './webhooks.ts', './analytics.ts', './reports.ts', './heavy.ts', './writes.ts', './bulk.ts']) {
    if (ONLY && !ONLY.includes(file.slice(2, -3))) continue
    try {
      const mod = await import(file)
      found.push(...(mod.benchmarks as ModuleBench[]))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err
    }
  }
  return found
}

const all: Row[] = []
const pgBase = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL
if (pgBase) {
  const db = await createDatabase(pgBase, 'bp_bench')
  try {
    all.push(...(await benchDatabase('PostgreSQL', db.url)))
  } finally {
    await db.drop()
  }
}
if (process.env.BENCH_PGLITE !== 'off') all.push(...(await benchDatabase('PGlite', undefined)))

console.log(`\n${SECONDS} s per run, ${CONNECTIONS} connections, loopback\n`)
console.log('| Benchmark | Result |\n|---|---|')
for (const r of all) console.log(`| ${r.name} | ${r.value} |`)
