// Credentials on the hot path (issue 24, wired into bench/run.ts): the same
// read, GET /api/contacts?page=3&limit=20 over 10,000 contacts, sent with an
// access token (JWT from POST /auth/login) and with an API key, so that the
// cost of checking the token's user and session per request shows beside the
// API key's cache. BENCH_AUTH=off skips it.
// Alone: `BENCH_ONLY=auth npm run bench` (PostgreSQL when BENCH_DATABASE_URL or
// DATABASE_URL is set, then PGlite unless BENCH_PGLITE=off).
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'

const SECONDS = Number(process.env.BENCH_AUTH_SECONDS ?? process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
type Row = { name: string; value: string }

async function post(app: App, url: string, payload: unknown, token?: string) {
  const res = await app.inject({ method: 'POST', url, payload: payload as object, headers: token ? { authorization: `Bearer ${token}` } : {} })
  if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}

async function authBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_AUTH === 'off') return []
  const email = `bench-auth-${randomBytes(4).toString('hex')}@example.com`
  const password = 'benchmark password'
  const registered = await post(app, '/api/auth/register', { organizationName: 'Bench auth', name: 'Bench', email, password })
  const organizationId = registered.organization.id
  await app.ctx.db.query(
    `INSERT INTO contacts (id, organization_id, name, email, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Contact ' || g, 'auth-contact' || g || '@example.com', now() - g * interval '1 second', now() - g * interval '1 second'
     FROM generate_series(1, 10000) g`,
    [organizationId],
  )
  await app.ctx.db.query('ANALYZE contacts')
  const { accessToken } = await post(app, '/api/auth/login', { email, password })
  const { key } = await post(app, '/api/api-keys', { name: 'bench', environment: 'test' }, accessToken)
  const rows: Row[] = []
  for (const [name, token] of [['access token', accessToken], ['API key', key]] as const) {
    const result = await autocannon({ url: `${base}/api/contacts?page=3&limit=20`, headers: { authorization: `Bearer ${token}` }, connections: CONNECTIONS, duration: SECONDS, workers: 1 })
    const errors = result.errors + result.timeouts + result.non2xx
    const value = `${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms${errors ? `, ${errors} errors` : ''}`
    console.log(`[${label}] GET /contacts with an ${name}: ${value}`)
    rows.push({ name: `${label}: GET /contacts?page=3&limit=20 with an ${name}`, value })
  }
  return rows
}

export const benchmarks = [authBench]
