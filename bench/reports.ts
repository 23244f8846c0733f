// Report runs (issue 16, wired into bench/run.ts): one organization seeded by
// SQL with BENCH_REPORTS_MOVES done stock moves (default 1,000,000 on
// PostgreSQL, BENCH_REPORTS_PGLITE_MOVES, default 200,000, on PGlite, whose
// database lives in this process's memory), then one `stock_moves` run over
// all of them, requested with POST /api/reports and run by the background
// worker (woken by NOTIFY), polled with GET /api/reports/:id. Measured: the
// time from the POST to succeeded, and the growth of the process's RSS over
// its value before the POST, sampled every 50 ms (target on PostgreSQL:
// under 30 s and under 100 MiB). Then the file is downloaded and its lines
// counted. BENCH_REPORTS=off skips it.
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'

type Row = { name: string; value: string }
const PRODUCTS = 100

async function seed(app: App, organizationId: string, moves: number) {
  const db = app.ctx.db
  await db.query(
    `INSERT INTO products (id, organization_id, name, sku, price, type, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Part ' || g, 'SKU-' || lpad(g::text, 6, '0'), 100, 'storable', now(), now() FROM generate_series(1, $2::int) g`,
    [organizationId, PRODUCTS],
  )
  await db.query('ALTER TABLE stock_moves DISABLE TRIGGER stock_moves_list_counts')
  try {
    const { rows: products } = await db.query<{ id: string }>('SELECT id FROM products WHERE organization_id = $1 ORDER BY id', [organizationId])
    const ids = products.map((p) => p.id)
    // Receipts into LOC-STOCK, spread over the 180 days before 2026-07-01, in statements of 100,000.
    for (let start = 0; start < moves; start += 100_000) {
      await db.query(
        `INSERT INTO stock_moves (id, organization_id, reference, product_id, source_location_id, destination_location_id, quantity, done_at)
         SELECT gen_random_uuid(), $1, 'WH/IN/' || lpad(g::text, 7, '0'), ($2::uuid[])[1 + g % $3::int], 'LOC-SUPPLIER', 'LOC-STOCK',
                1 + (g % 7) * 0.5, timestamptz '2026-07-01' - (g % 15552000) * interval '1 second'
         FROM generate_series($4::int, $5::int) g`,
        [organizationId, ids, ids.length, start, Math.min(moves, start + 100_000) - 1],
      )
    }
  } finally {
    await db.query('ALTER TABLE stock_moves ENABLE TRIGGER stock_moves_list_counts')
  }
  await db.query('VACUUM ANALYZE stock_moves')
}

export async function reportsBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_REPORTS === 'off') return []
  const moves = Number(label === 'PGlite' ? (process.env.BENCH_REPORTS_PGLITE_MOVES ?? 200_000) : (process.env.BENCH_REPORTS_MOVES ?? 1_000_000))
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench reports', name: 'Bench', email: `bench-r-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }
  const t0 = performance.now()
  await seed(app, organization.id, moves)
  console.log(`[${label}] reports: ${moves} moves seeded in ${Math.round((performance.now() - t0) / 1000)} s`)

  const reports = app.services.reports!
  await reports.start()
  try {
    const rss0 = process.memoryUsage().rss
    const heap0 = process.memoryUsage().heapUsed / 2 ** 20
    let peak = rss0
    let heapPeak = 0
    const sampler = setInterval(() => {
      const m = process.memoryUsage()
      peak = Math.max(peak, m.rss)
      heapPeak = Math.max(heapPeak, m.heapUsed / 2 ** 20)
    }, 50)
    const started = performance.now()
    const post = await fetch(`${base}/api/reports`, { method: 'POST', headers, body: JSON.stringify({ type: 'stock_moves', parameters: { from: '2025-01-01', to: '2026-07-01' } }) })
    const run = (await post.json()) as { id: string }
    let status = 'pending'
    let body: { status: string; rows: number; file: { size: number } | null; error: string | null } | undefined
    while (status === 'pending' || status === 'running') {
      await new Promise((r) => setTimeout(r, 100))
      body = await (await fetch(`${base}/api/reports/${run.id}`, { headers })).json()
      status = body!.status
    }
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    const growthMiB = (peak - rss0) / 2 ** 20
    if (status !== 'succeeded') throw new Error(`report run ${status}: ${body?.error}`)
    // The download, streamed chunk by chunk: its data lines.
    const res = await fetch(`${base}/api/reports/${run.id}/file`, { headers })
    let lines = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) for (const byte of chunk) if (byte === 10) lines++
    const sizeMiB = (body!.file!.size / 2 ** 20).toFixed(0)
    console.log(`[${label}] reports stock_moves: ${body!.rows} rows (${sizeMiB} MiB) in ${seconds.toFixed(1)} s, RSS +${growthMiB.toFixed(0)} MiB; file ${lines - 1} lines; RSS before ${(rss0 / 2 ** 20).toFixed(0)} MiB, JS heap ${heap0.toFixed(0)} MiB before, ${heapPeak.toFixed(0)} MiB at most`)
    if (body!.rows !== moves || lines - 1 !== moves) throw new Error(`expected ${moves} rows, got ${body!.rows} and ${lines - 1} lines`)
    return [{ name: `${label}: report run stock_moves over ${moves.toLocaleString('en-US')} moves (${sizeMiB} MiB CSV)`, value: `${seconds.toFixed(1)} s, RSS +${growthMiB.toFixed(0)} MiB` }]
  } finally {
    await reports.stop()
  }
}

export const benchmarks = [reportsBench]
