// Issue 27: the trial balance and the balance sheet at 1,000,000 journal lines
// in one organization (docs/accounting.md "Reports"; target p99 < 100 ms with
// 10 connections on PostgreSQL). Seeds 500,000 two-line entries spread over
// two years straight into journal_entries and journal_lines (INSERT ...
// SELECT with generate_series, in batches; the statement trigger of
// migrations/0129 fills the daily balances as it does for every posting),
// then measures with autocannon, BENCH_SECONDS each (default 10):
//   GET /api/accounting/trial-balance, GET /api/accounting/balance-sheet,
//   both as of today (every line counted).
//   npx tsx bench/ledger.ts   (BENCH_DATABASE_URL or DATABASE_URL, default the local server)
import { randomBytes } from 'node:crypto'
import autocannon from 'autocannon'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { createDatabase } from '../test/helpers/app.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const LINES = Number(process.env.BENCH_LEDGER_LINES ?? 1_000_000)
const BATCH = 50_000
const BASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const database = await createDatabase(BASE_URL, 'bp_bench_ledger')
const config = loadConfig({ DATABASE_URL: database.url, DATA_DIR: 'memory://', RATE_LIMIT: 'off', JOBS: 'off', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789' })
const app = await buildApp(config, { logger: false })
try {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const reg = await app.inject({ method: 'POST', url: '/api/auth/register', payload: { organizationName: 'Bench ledger', name: 'Bench', email: `bench-l-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' } })
  const { organization, accessToken } = reg.json()
  const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'member' } })
  const headers = { authorization: `Bearer ${key.json().key}` }
  const db = app.ctx.db

  // Entry g: dated g mod 730 days before today, Dr account (g mod 13), Cr account ((g + 5) mod 13), 1.00 to 100.99.
  const t0 = performance.now()
  const entries = LINES / 2
  for (let from = 1; from <= entries; from += BATCH) {
    const to = Math.min(entries, from + BATCH - 1)
    await db.tx(async (q) => {
      await q.query(
        `INSERT INTO journal_entries (id, organization_id, number, date, currency, memo, source_type, source_id, created_at)
         SELECT gen_random_uuid(), $1, 'JE/B/' || lpad(g::text, 7, '0'), current_date - (g % 730), 'usd', 'Bench ' || g, 'manual', 'bench', now()
           FROM generate_series($2::int, $3::int) g`,
        [organization.id, from, to])
      await q.query(
        `WITH a AS (SELECT array_agg(id ORDER BY code) AS ids FROM accounts WHERE organization_id = $1 AND system),
              e AS (SELECT id, date, substr(number, 6)::int AS g FROM journal_entries WHERE organization_id = $1 AND number >= 'JE/B/' || lpad($2::text, 7, '0') AND number <= 'JE/B/' || lpad($3::text, 7, '0'))
         INSERT INTO journal_lines (entry_id, line_no, organization_id, account_id, currency, date, debit, credit)
         SELECT e.id, n, $1, a.ids[1 + CASE WHEN n = 1 THEN e.g % 13 ELSE (e.g + 5) % 13 END], 'usd', e.date,
                CASE WHEN n = 1 THEN 100 + e.g % 10000 ELSE 0 END, CASE WHEN n = 2 THEN 100 + e.g % 10000 ELSE 0 END
           FROM e CROSS JOIN a CROSS JOIN generate_series(1, 2) n`,
        [organization.id, from, to])
    })
  }
  await db.query('ANALYZE journal_entries')
  await db.query('ANALYZE journal_lines')
  await db.query('ANALYZE journal_balances')
  const { rows } = await db.query<{ lines: number; days: number }>(
    `SELECT (SELECT count(*)::int FROM journal_lines WHERE organization_id = $1) AS lines, (SELECT count(*)::int FROM journal_balances WHERE organization_id = $1) AS days`, [organization.id])
  console.log(`seeded ${rows[0].lines.toLocaleString('en-US')} journal lines (${rows[0].days.toLocaleString('en-US')} daily balance rows) in ${Math.round((performance.now() - t0) / 1000)} s`)

  const results: string[] = []
  for (const path of ['/api/accounting/trial-balance', '/api/accounting/balance-sheet']) {
    const probe = await (await fetch(`${base}${path}`, { headers })).json() as { totals: Record<string, number> }
    console.log(`${path}: totals ${JSON.stringify(probe.totals)}`)
    await autocannon({ url: `${base}${path}`, headers, connections: CONNECTIONS, duration: 2, workers: 1 })
    const r = await autocannon({ url: `${base}${path}`, headers, connections: CONNECTIONS, duration: SECONDS, workers: 1 })
    const errors = r.errors + r.timeouts + r.non2xx
    results.push(`| GET ${path.slice(4)} (${(LINES).toLocaleString('en-US')} lines), ${CONNECTIONS} connections | p99 ${r.latency.p99} ms, p50 ${r.latency.p50} ms, ${Math.round(r.requests.average)} req/s${errors ? `, ${errors} errors` : ''} |`)
  }
  console.log(`\n${SECONDS} s per run, loopback, PostgreSQL\n\n| Benchmark | Result |\n|---|---|\n${results.join('\n')}`)
} finally {
  await app.close()
  await database.drop()
}
