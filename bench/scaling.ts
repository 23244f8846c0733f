// List scaling (issue 11, wired into bench/run.ts): one organization grown to
// 10,000, 100,000 and 1,000,000 contacts (PGlite: 10,000 and 100,000), seeded
// by SQL with generate_series, and at each size GET /contacts measured for
// page 3, page 500, search, a filter and a sort: p99 and req/s, then the ratio
// of the largest size's p99 to the 10,000 one. BENCH_SCALING_SECONDS per cell
// (default 3); BENCH_SCALING=off skips it; BENCH_SCALING_SIZES overrides the
// sizes (comma-separated), BENCH_SCALING_CELLS picks cells by name.
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'
import type { Queryable } from '../src/core/db.ts'
import { withSearchPlanner } from '../src/core/pagination.ts'
import { contactsRepository } from '../src/modules/contacts/contacts.repository.ts'

const SECONDS = Number(process.env.BENCH_SCALING_SECONDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
type Row = { name: string; value: string }
type Measured = { requestsPerSecond: number; p99Ms: number; errors: number }

async function measure(opts: autocannon.Options): Promise<Measured> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, workers: 1, ...opts })
  return { requestsPerSecond: Math.round(result.requests.average), p99Ms: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx }
}

const ALL_CELLS: Array<[string, string]> = [
  ['page 3', 'page=3&limit=20'],
  ['page 500', 'page=500&limit=20'],
  ['search', 'search=Contact%20777'],
  ['filter vendor=true', 'vendor=true&page=3'],
  ['filter type=individual', 'type=individual&page=3'],
  ['sort name asc', 'sortBy=name&sortOrder=asc&page=3'],
  ['sort email desc', 'sortBy=email&sortOrder=desc&page=3'],
]
/** BENCH_SCALING_CELLS=search,page 3: only those cells. */
const only = process.env.BENCH_SCALING_CELLS?.split(',').map((c) => c.trim())
const CELLS = only ? ALL_CELLS.filter(([name]) => only.includes(name)) : ALL_CELLS

/** Grows the organization's contacts from `from` to `to` rows; the counters are recounted by SQL, as the migration does. */
async function grow(app: App, organizationId: string, from: number, to: number) {
  const db = app.ctx.db
  await db.query('ALTER TABLE contacts DISABLE TRIGGER contacts_list_counts')
  try {
    for (let start = from + 1; start <= to; start += 100_000) {
      const end = Math.min(to, start + 99_999)
      await db.query(
        `INSERT INTO contacts (id, organization_id, name, email, phone, type, vendor, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'Contact ' || g, 'contact' || g || '@scale.example.com', '+1 555 ' || g,
                CASE WHEN g % 3 = 0 THEN 'individual' ELSE 'company' END, g % 10 = 0,
                now() - g * interval '1 second', now() - (g % 997) * interval '1 minute'
         FROM generate_series($2::int, $3::int) g`,
        [organizationId, start, end],
      )
    }
  } finally {
    await db.query('ALTER TABLE contacts ENABLE TRIGGER contacts_list_counts')
  }
  await db.query(`DELETE FROM list_counts WHERE table_name = 'contacts' AND organization_id = $1`, [organizationId])
  await db.query(
    `INSERT INTO list_counts (table_name, organization_id, key, shard, n)
     SELECT 'contacts', $1, k, 0, count(*) FROM contacts,
            LATERAL (VALUES (''), ('type=' || type), ('vendor=' || vendor::text)) AS keys(k)
     WHERE organization_id = $1 GROUP BY k`,
    [organizationId],
  )
  await db.query('VACUUM ANALYZE contacts')
}

/**
 * The plan of the search cell's statement as the repository builds it and
 * runs it (withSearchPlanner), node types and indexes on one line, so that a
 * slow search cell can be told apart: trigram bitmap scans, or a walk of the
 * sort index filtering every row.
 */
async function searchPlan(app: App, organizationId: string) {
  const db = app.ctx.db
  const seen: Array<{ sql: string; params: unknown[] }> = []
  const recording: Queryable = {
    query: (sql: string, params?: unknown[]) => {
      seen.push({ sql, params: params ?? [] })
      return db.query(sql, params)
    },
  } as Queryable
  await contactsRepository.list(recording, organizationId, { search: 'Contact 777', page: 1, limit: 20, sortOrder: 'desc' })
  const statement = seen.find((s) => s.sql.includes('ILIKE'))
  if (!statement) return 'no search statement seen'
  const { rows } = await withSearchPlanner(db, (q) => q.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params))
  return rows.map((r) => r['QUERY PLAN'].trim().replace(/\s+\(cost=[^)]*\)/, '')).filter((l) => /Scan|Sort|Window|Cond|Buffers|Execution/.test(l)).join(' / ')
}

export async function listScaling(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_SCALING === 'off') return []
  const pglite = app.ctx.db.kind === 'pglite'
  const sizes = (process.env.BENCH_SCALING_SIZES ?? (pglite ? '10000,100000' : '10000,100000,1000000')).split(',').map(Number)
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench scaling', name: 'Bench', email: `bench-s-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const auth = { authorization: `Bearer ${accessToken}` }
  const results = new Map<string, Measured[]>()
  let rows = 0
  for (const size of sizes) {
    const t0 = performance.now()
    await grow(app, organization.id, rows, size)
    rows = size
    console.log(`[${label}] scaling: ${size} contacts seeded in ${Math.round((performance.now() - t0) / 1000)} s`)
    console.log(`[${label}] scaling ${size} search plan: ${await searchPlan(app, organization.id)}`)
    for (const [name, qs] of CELLS) {
      const r = await measure({ url: `${base}/api/contacts?${qs}`, headers: auth })
      console.log(`[${label}] scaling ${size} ${name}: ${r.requestsPerSecond} req/s, p99 ${r.p99Ms} ms${r.errors ? `, ${r.errors} errors` : ''}`)
      results.set(name, [...(results.get(name) ?? []), r])
    }
  }
  const out: Row[] = []
  const fmt = (n: number) => n.toLocaleString('en-US')
  for (const [name] of CELLS) {
    const rs = results.get(name)!
    const cells = rs.map((r, i) => `${fmt(sizes[i])}: p99 ${r.p99Ms} ms, ${r.requestsPerSecond} req/s${r.errors ? ` (${r.errors} errors)` : ''}`)
    const ratio = rs.at(-1)!.p99Ms / Math.max(1, rs[0].p99Ms)
    out.push({ name: `${label}: GET /contacts ${name}, one organization`, value: `${cells.join('; ')}; p99 ${fmt(sizes.at(-1)!)}/${fmt(sizes[0])} = ${ratio.toFixed(1)}x` })
  }
  return out
}
export const benchmarks = [listScaling]
