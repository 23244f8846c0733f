// Analytics (issue 16, wired into bench/run.ts): one organization seeded by
// SQL with BENCH_ANALYTICS_INVOICES (default 200,000) invoices of one line
// over 2,000 contacts, dated over the last 365 days and due 30 days later: a
// third partly paid (half, one payment 10 days after the invoice date), the
// others paid in full 10 days after their date, except those of the last 45
// days, still sent and unpaid (about 83,000 invoices open today); then with
// autocannon, with 1 connection (the latency of one report) and with
// BENCH_CONNECTIONS (default 10):
//   GET /api/analytics/receivables/aging          (target p99 < 100 ms on PostgreSQL)
//   GET /api/analytics/overview                   (target p99 < 150 ms on PostgreSQL)
//   GET /api/analytics/receivables/aging?asOf=<90 days ago>  (payments after asOf to add back)
// BENCH_ANALYTICS=off skips it. Alone: `BENCH_ONLY=analytics npm run bench`
// (PostgreSQL when BENCH_DATABASE_URL or DATABASE_URL is set, then PGlite unless BENCH_PGLITE=off).
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'

const SECONDS = Number(process.env.BENCH_ANALYTICS_SECONDS ?? process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const INVOICES = Number(process.env.BENCH_ANALYTICS_INVOICES ?? 200_000)
const CONTACTS = 2_000
type Row = { name: string; value: string }

export async function seed(app: App, organizationId: string) {
  const db = app.ctx.db
  await db.query(
    `INSERT INTO contacts (id, organization_id, name, email)
     SELECT gen_random_uuid(), $1, 'Customer ' || g, 'customer' || g || '@example.com' FROM generate_series(1, $2::int) g`,
    [organizationId, CONTACTS],
  )
  await db.query('ALTER TABLE invoices DISABLE TRIGGER invoices_list_counts')
  try {
    // Invoice g: contact g % CONTACTS, total 10,000 + (g % 50) x 100 cents, dated g x (365 days / INVOICES) ago, due 30 days later;
    // g % 3 = 1 partly paid (half); the others paid, or sent when dated in the last 45 days.
    await db.query(
      `WITH c AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM contacts WHERE organization_id = $1)
       INSERT INTO invoices (id, organization_id, number, status, contact_id, contact_name, contact_email, line_items, subtotal, tax_amount, total,
                             amount_paid, currency, invoice_date, due_date, sent_at, paid_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'INV/B/' || lpad(g::text, 7, '0'), s.status,
              c.id, 'Customer', NULL,
              jsonb_build_array(jsonb_build_object('productId', NULL, 'productName', NULL, 'description', 'Consulting services', 'quantity', 1,
                                                   'unitPrice', v.total, 'discount', 0, 'taxRate', NULL, 'total', v.total)),
              v.total, 0, v.total,
              CASE s.status WHEN 'sent' THEN 0 WHEN 'partial_paid' THEN v.total / 2 ELSE v.total END, 'usd',
              d.at, d.at + interval '30 days', d.at, CASE WHEN s.status = 'paid' THEN least(d.at + interval '10 days', now()) END, d.at, d.at
       FROM generate_series(1, $2::int) g
       CROSS JOIN LATERAL (SELECT 10000 + (g % 50) * 100 AS total) v
       CROSS JOIN LATERAL (SELECT now() - g * (interval '365 days' / $2::int) AS at) d
       CROSS JOIN LATERAL (SELECT CASE WHEN g % 3 = 1 THEN 'partial_paid' WHEN d.at > now() - interval '45 days' THEN 'sent' ELSE 'paid' END AS status) s
       JOIN c ON c.n = g % $3`,
      [organizationId, INVOICES, CONTACTS],
    )
  } finally {
    await db.query('ALTER TABLE invoices ENABLE TRIGGER invoices_list_counts')
  }
  await db.query(`DELETE FROM list_counts WHERE table_name = 'invoices' AND organization_id = $1`, [organizationId])
  await db.query(
    `INSERT INTO list_counts (table_name, organization_id, key, shard, n)
     SELECT 'invoices', $1, k.key, 0, count(*) FROM invoices i
     CROSS JOIN LATERAL (VALUES (''), ('status=' || i.status)) AS k(key)
     WHERE i.organization_id = $1 GROUP BY k.key`,
    [organizationId],
  )
  await db.query(
    `INSERT INTO invoice_payments (id, organization_id, invoice_id, amount, currency, payment_date)
     SELECT gen_random_uuid(), organization_id, id, amount_paid, currency, least(invoice_date + interval '10 days', now())
     FROM invoices WHERE organization_id = $1 AND amount_paid > 0`,
    [organizationId],
  )
  await db.query('VACUUM ANALYZE contacts')
  await db.query('VACUUM ANALYZE invoices')
  await db.query('VACUUM ANALYZE invoice_payments')
}

export async function analyticsBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_ANALYTICS === 'off') return []
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench analytics', name: 'Bench', email: `bench-a-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'member' } })
  const headers = { authorization: `Bearer ${key.json().key}` }
  const t0 = performance.now()
  await seed(app, organization.id)
  console.log(`[${label}] analytics: ${INVOICES} invoices seeded in ${Math.round((performance.now() - t0) / 1000)} s`)
  const past = new Date(Date.now() - 90 * 86400_000).toISOString().slice(0, 10)
  const cells: Array<[string, string]> = [
    ['GET /analytics/receivables/aging', '/api/analytics/receivables/aging'],
    ['GET /analytics/overview', '/api/analytics/overview'],
    ['GET /analytics/receivables/aging?asOf=<90 days ago>', `/api/analytics/receivables/aging?asOf=${past}`],
  ]
  // Two seconds unmeasured first: the seed's writes (checkpoint, hint bits) must not land in the first cell.
  await autocannon({ url: `${base}${cells[0][1]}`, headers, connections: CONNECTIONS, duration: 2, workers: 1 })
  const rows: Row[] = []
  for (const [name, path] of cells) {
    const probe = await (await fetch(`${base}${path}`, { headers })).json()
    const open = probe.totals?.invoices ?? probe.receivables?.outstanding
    for (const connections of [1, CONNECTIONS]) {
      const r = await autocannon({ url: `${base}${path}`, headers, connections, duration: SECONDS, workers: 1 })
      const errors = r.errors + r.timeouts + r.non2xx
      const value = `p99 ${r.latency.p99} ms, ${Math.round(r.requests.average)} req/s${errors ? `, ${errors} errors` : ''}`
      console.log(`[${label}] analytics ${name} (${open}), ${connections} connection(s): ${value}`)
      rows.push({ name: `${label}: ${name} (${INVOICES.toLocaleString('en-US')} invoices), ${connections} connection${connections > 1 ? 's' : ''}`, value })
    }
  }
  return rows
}

export const benchmarks = [analyticsBench]
