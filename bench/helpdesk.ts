// Helpdesk (issue 14, wired into bench/run.ts): one organization seeded by SQL
// with BENCH_HELPDESK_TICKETS (default 100,000) tickets under one SLA policy
// (statuses, priorities and creation times spread evenly over 35 days,
// resolution deadline 24 h after creation, resolved and closed ones done 0 to
// 47 h after it), then with autocannon:
//   GET /api/helpdesk/tickets?overdueSla=true&status=in_progress
// p99 and req/s (target: p99 under 50 ms on PostgreSQL), and the unfiltered
// first page beside it. BENCH_HELPDESK=off skips it.
// Alone: `BENCH_ONLY=helpdesk npm run bench` (PostgreSQL when BENCH_DATABASE_URL or
// DATABASE_URL is set, then PGlite unless BENCH_PGLITE=off).
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'

const SECONDS = Number(process.env.BENCH_HELPDESK_SECONDS ?? process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const TICKETS = Number(process.env.BENCH_HELPDESK_TICKETS ?? 100_000)
type Row = { name: string; value: string }

export async function seed(app: App, organizationId: string) {
  const db = app.ctx.db
  const policy = await db.query<{ id: string }>(
    `INSERT INTO helpdesk_sla_policies (id, organization_id, name, first_response_hours, resolution_hours, applies)
     VALUES (gen_random_uuid(), $1, 'Standard', 4, 24, '{low,medium,high,urgent}') RETURNING id`,
    [organizationId],
  )
  const contact = await db.query<{ id: string }>(
    `INSERT INTO contacts (id, organization_id, name, email) VALUES (gen_random_uuid(), $1, 'Bench Customer', 'customer@example.com') RETURNING id`,
    [organizationId],
  )
  await db.query('ALTER TABLE helpdesk_tickets DISABLE TRIGGER helpdesk_tickets_list_counts')
  try {
    // Ticket g: status g % 5, priority g % 4, created g * 30 s ago; the done ones finish (g % 48) h after creation.
    await db.query(
      `INSERT INTO helpdesk_tickets (id, organization_id, ticket_number, subject, status, priority, contact_id, contact_name, contact_email,
                                     sla_policy_id, sla_policy_name, first_response_deadline, resolution_deadline, first_response_at, done_at, closed_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'HD-2026-' || lpad(g::text, 6, '0'), 'Ticket ' || g, s.status, (ARRAY['low','medium','high','urgent'])[g % 4 + 1],
              $2, 'Bench Customer', 'customer@example.com', $3, 'Standard', c.at + interval '4 hours', c.at + interval '24 hours',
              CASE WHEN g % 3 = 0 THEN NULL ELSE c.at + (g % 7) * interval '1 hour' END,
              CASE WHEN s.status IN ('resolved', 'closed') THEN c.at + (g % 48) * interval '1 hour' END,
              CASE WHEN s.status = 'closed' THEN c.at + (g % 48) * interval '1 hour' END,
              c.at, c.at
       FROM generate_series(1, $4::int) g
       CROSS JOIN LATERAL (SELECT (ARRAY['new','in_progress','pending_customer','resolved','closed'])[g % 5 + 1] AS status) s
       CROSS JOIN LATERAL (SELECT now() - g * interval '30 seconds' AS at) c`,
      [organizationId, contact.rows[0].id, policy.rows[0].id, TICKETS],
    )
  } finally {
    await db.query('ALTER TABLE helpdesk_tickets ENABLE TRIGGER helpdesk_tickets_list_counts')
  }
  await db.query(`DELETE FROM list_counts WHERE table_name = 'helpdesk_tickets' AND organization_id = $1`, [organizationId])
  await db.query(
    `INSERT INTO list_counts (table_name, organization_id, key, shard, n)
     SELECT 'helpdesk_tickets', $1, k.key, 0, count(*) FROM helpdesk_tickets t
     CROSS JOIN LATERAL (VALUES (''), ('status=' || t.status), ('priority=' || t.priority), ('sla_state=' || t.sla_state)) AS k(key)
     WHERE t.organization_id = $1 AND k.key IS NOT NULL GROUP BY k.key`,
    [organizationId],
  )
  await db.query('VACUUM ANALYZE helpdesk_tickets')
}

export async function helpdeskBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_HELPDESK === 'off') return []
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench helpdesk', name: 'Bench', email: `bench-h-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'agent' } })
  const headers = { authorization: `Bearer ${key.json().key}` }
  const t0 = performance.now()
  await seed(app, organization.id)
  console.log(`[${label}] helpdesk: ${TICKETS} tickets seeded in ${Math.round((performance.now() - t0) / 1000)} s`)
  const rows: Row[] = []
  const cells: Array<[string, string]> = [
    ['overdueSla=true&status=in_progress', '/api/helpdesk/tickets?overdueSla=true&status=in_progress'],
    ['overdueSla=true', '/api/helpdesk/tickets?overdueSla=true'],
    ['first page, no filter', '/api/helpdesk/tickets'],
  ]
  // Two seconds unmeasured first: the seed's writes (checkpoint, hint bits) must not land in the first cell.
  await autocannon({ url: `${base}${cells[0][1]}`, headers, connections: CONNECTIONS, duration: 2, workers: 1 })
  for (const [name, path] of cells) {
    const probe = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}limit=1`, { headers })
    const total = (await probe.json()).meta?.total
    const r = await autocannon({ url: `${base}${path}`, headers, connections: CONNECTIONS, duration: SECONDS, workers: 1 })
    const errors = r.errors + r.timeouts + r.non2xx
    console.log(`[${label}] helpdesk ${name} (${total} match): ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99} ms${errors ? `, ${errors} errors` : ''}`)
    rows.push({ name: `${label}: GET /helpdesk/tickets?${name} (${TICKETS.toLocaleString('en-US')} tickets, ${total} match)`, value: `p99 ${r.latency.p99} ms, ${Math.round(r.requests.average)} req/s${errors ? `, ${errors} errors` : ''}` })
  }
  return rows
}

export const benchmarks = [helpdeskBench]
