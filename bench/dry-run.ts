// Issue 28: what Prefer: dry-run costs beside the real request (docs/platform.md "Dry runs").
// One client, in process (app.inject), BENCH_REQUESTS of each (default 300), alternated:
//   POST /api/contacts, and POST /api/invoices with three lines (the dashboard's preview),
//   for real and with Prefer: dry-run; p50 and p99 latency in ms.
//   npx tsx bench/dry-run.ts                 (PostgreSQL: BENCH_DATABASE_URL or DATABASE_URL, default the local server)
//   BENCH_PGLITE=1 npx tsx bench/dry-run.ts  (embedded PGlite, in memory)
import { randomBytes } from 'node:crypto'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createDatabase } from '../test/helpers/app.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300)
const PGLITE = process.env.BENCH_PGLITE === '1'
const BASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const database = PGLITE ? undefined : await createDatabase(BASE_URL, 'bp_bench_dry')
const config = loadConfig({ ...(database ? { DATABASE_URL: database.url } : {}), DATA_DIR: 'memory://', RATE_LIMIT: 'off', JOBS: 'off', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789' })
const app = await buildApp(config, { logger: false })
try {
  const reg = await app.inject({ method: 'POST', url: '/api/auth/register', payload: { organizationName: 'Bench dry run', name: 'Bench', email: `bench-d-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' } })
  const auth = { authorization: `Bearer ${reg.json().accessToken}` }
  const contact = await app.inject({ method: 'POST', url: '/api/contacts', headers: auth, payload: { name: 'Bench customer', email: 'bench-customer@example.com' } })
  const contactId = contact.json().id
  let n = 0
  const bodies = {
    contact: () => ({ name: `Bench ${n}`, email: `bench-${n++}-${randomBytes(3).toString('hex')}@example.com` }),
    invoice: () => ({ contactId, lineItems: [1, 2, 3].map((i) => ({ description: `Line ${i}`, quantity: i, unitPrice: 1250 * i, taxRate: 0.2 })) }),
  }
  const urls = { contact: '/api/contacts', invoice: '/api/invoices' }
  const times: Record<string, number[]> = {}
  for (let i = 0; i < REQUESTS; i++) {
    for (const what of ['contact', 'invoice'] as const) {
      for (const dry of [false, true]) {
        const started = process.hrtime.bigint()
        const res = await app.inject({ method: 'POST', url: urls[what], headers: { ...auth, ...(dry ? { prefer: 'dry-run' } : {}) }, payload: bodies[what]() })
        const ms = Number(process.hrtime.bigint() - started) / 1e6
        if (res.statusCode !== 201) throw new Error(`${what} ${dry ? 'dry' : 'real'}: ${res.statusCode} ${res.body}`)
        ;(times[`${what} ${dry ? 'dry run' : 'real'}`] ??= []).push(ms)
      }
    }
  }
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]
  console.log(`${PGLITE ? 'PGlite' : 'PostgreSQL'}, ${REQUESTS} requests of each, one client`)
  for (const [name, xs] of Object.entries(times)) console.log(`${name.padEnd(18)} p50 ${q(xs, 0.5).toFixed(2)} ms  p99 ${q(xs, 0.99).toFixed(2)} ms`)
} finally {
  await app.close()
  await database?.drop()
}
