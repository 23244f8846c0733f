// Inventory (issue 12, wired into bench/run.ts): one organization seeded by SQL
// with 10,000 storable products and 1,000,000 done moves (receipts into
// LOC-STOCK and deliveries out of it, with the quants and stock_levels they
// leave), then
//   - GET /api/inventory/products?belowReorder=true&page=1&limit=50 with
//     autocannon: p99 and req/s (target: p99 under 50 ms on PostgreSQL);
//   - validation of 5-line receipts (made beforehand, through the service),
//     BENCH_CONNECTIONS at a time over HTTP for BENCH_INVENTORY_SECONDS:
//     validations per second (target: at least 300 on PostgreSQL).
// BENCH_INVENTORY=off skips it; BENCH_INVENTORY_PRODUCTS and
// BENCH_INVENTORY_MOVES shrink the seed (a smoke run).
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'
import type { InventoryService } from '../src/modules/inventory/index.ts'

const SECONDS = Number(process.env.BENCH_INVENTORY_SECONDS ?? process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const PRODUCTS = Number(process.env.BENCH_INVENTORY_PRODUCTS ?? 10_000)
const MOVES = Number(process.env.BENCH_INVENTORY_MOVES ?? 1_000_000)
type Row = { name: string; value: string }

/**
 * Products (every 4th has a reorder point), then MOVES done moves: for each
 * product, receipts of 10 and deliveries of 3, so each ends with a known
 * positive quantity; quants and levels are the sums of those moves, counters
 * recounted as the migration does.
 */
async function seed(app: App, organizationId: string) {
  const db = app.ctx.db
  await db.query(
    `INSERT INTO products (id, organization_id, name, sku, price, type, reorder_point, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Part ' || g, 'SKU-' || lpad(g::text, 6, '0'), 100 + g % 900, 'storable',
            CASE WHEN g % 4 = 0 THEN 400 + g % 300 ELSE 0 END, now() - g * interval '1 second', now()
     FROM generate_series(1, $2::int) g`,
    [organizationId, PRODUCTS],
  )
  const perProduct = Math.max(1, Math.floor(MOVES / PRODUCTS))
  await db.query('ALTER TABLE stock_moves DISABLE TRIGGER stock_moves_list_counts')
  try {
    // Move k of a product is a receipt of 10 when k % 3 <> 2, else a delivery of 3.
    const step = Math.max(1, Math.floor(100_000 / perProduct))
    const { rows: products } = await db.query<{ id: string; n: number }>(
      'SELECT id, row_number() OVER (ORDER BY id)::int AS n FROM products WHERE organization_id = $1 ORDER BY id',
      [organizationId],
    )
    for (let i = 0; i < products.length; i += step) {
      const ids = products.slice(i, i + step).map((p) => p.id)
      await db.query(
        `INSERT INTO stock_moves (id, organization_id, reference, product_id, source_location_id, destination_location_id, quantity, done_at)
         SELECT gen_random_uuid(), $1, CASE WHEN k % 3 = 2 THEN 'WH/OUT/' ELSE 'WH/IN/' END || lpad((k + 1)::text, 5, '0'), p,
                CASE WHEN k % 3 = 2 THEN 'LOC-STOCK' ELSE 'LOC-SUPPLIER' END, CASE WHEN k % 3 = 2 THEN 'LOC-CUSTOMER' ELSE 'LOC-STOCK' END,
                CASE WHEN k % 3 = 2 THEN 3 ELSE 10 END, now() - (k * 3600 + 1) * interval '1 second'
         FROM unnest($2::uuid[]) AS p, generate_series(0, $3::int - 1) AS k`,
        [organizationId, ids, perProduct],
      )
    }
  } finally {
    await db.query('ALTER TABLE stock_moves ENABLE TRIGGER stock_moves_list_counts')
  }
  await db.query(`DELETE FROM list_counts WHERE table_name = 'stock_moves' AND organization_id = $1`, [organizationId])
  await db.query(`INSERT INTO list_counts (table_name, organization_id, key, shard, n) SELECT 'stock_moves', $1, '', 0, count(*) FROM stock_moves WHERE organization_id = $1`, [organizationId])
  await db.query(
    `INSERT INTO stock_quants (organization_id, product_id, location_id, internal, quantity, reserved)
     SELECT $1, product_id, location_id, location_id = 'LOC-STOCK', sum(q), 0 FROM (
       SELECT product_id, destination_location_id AS location_id, quantity AS q FROM stock_moves WHERE organization_id = $1
       UNION ALL SELECT product_id, source_location_id, -quantity FROM stock_moves WHERE organization_id = $1) f
     GROUP BY product_id, location_id`,
    [organizationId],
  )
  await db.query(
    `INSERT INTO stock_levels (organization_id, product_id, on_hand, reserved)
     SELECT $1, product_id, quantity, 0 FROM stock_quants WHERE organization_id = $1 AND internal`,
    [organizationId],
  )
  for (const table of ['products', 'stock_moves', 'stock_quants', 'stock_levels']) await db.query(`VACUUM ANALYZE ${table}`)
}

/** Runs `total` requests with `connections` in flight at a time; returns requests per second and the failures. */
async function concurrently(total: number, connections: number, run: (i: number) => Promise<boolean>) {
  let next = 0
  let failed = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < total) {
      const i = next++
      if (!(await run(i))) failed++
    }
  }))
  const seconds = (performance.now() - t0) / 1000
  return { perSecond: Math.round(total / seconds), failed, seconds }
}

export async function inventoryBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_INVENTORY === 'off') return []
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench inventory', name: 'Bench', email: `bench-i-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'member' } })
  const headers = { authorization: `Bearer ${key.json().key}`, 'content-type': 'application/json' }
  const t0 = performance.now()
  await seed(app, organization.id)
  console.log(`[${label}] inventory: ${PRODUCTS} products and ${MOVES} moves seeded in ${Math.round((performance.now() - t0) / 1000)} s`)
  const rows: Row[] = []

  const list = await autocannon({ url: `${base}/api/inventory/products?belowReorder=true&page=1&limit=50`, headers, connections: CONNECTIONS, duration: SECONDS, workers: 1 })
  const listErrors = list.errors + list.timeouts + list.non2xx
  console.log(`[${label}] inventory belowReorder: ${Math.round(list.requests.average)} req/s, p99 ${list.latency.p99} ms${listErrors ? `, ${listErrors} errors` : ''}`)
  rows.push({ name: `${label}: GET /inventory/products?belowReorder=true&limit=50 (${PRODUCTS.toLocaleString('en-US')} products, ${MOVES.toLocaleString('en-US')} moves)`, value: `p99 ${list.latency.p99} ms, ${Math.round(list.requests.average)} req/s${listErrors ? `, ${listErrors} errors` : ''}` })

  // 5-line receipts made beforehand through the service (creation is not measured): enough for SECONDS at 1,000/s, at most 20,000.
  const inventory = app.services.inventory as InventoryService
  const { rows: ids } = await app.ctx.db.query<{ id: string }>('SELECT id FROM products WHERE organization_id = $1 ORDER BY random() LIMIT 500', [organization.id])
  const count = Math.min(20_000, Math.max(200, SECONDS * 1000))
  const transfers: string[] = []
  for (let i = 0; i < count; i += 50) {
    const made = await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => app.ctx.db.tx((q) => inventory.createTransfer(q, organization.id, {
      type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK',
      moves: Array.from({ length: 5 }, (_, k) => ({ productId: ids[((i + j) * 5 + k) % ids.length].id, demandQty: 1 + k })),
    }))))
    transfers.push(...made.map((tr) => tr.id))
  }
  // Distinct products within a transfer: five consecutive of the shuffled list.
  const deadline = performance.now() + SECONDS * 1000
  let attempted = 0
  const result = await concurrently(transfers.length, CONNECTIONS, async (i) => {
    if (performance.now() > deadline) return true
    attempted++
    const res = await fetch(`${base}/api/inventory/transfers/${transfers[i]}/validate`, { method: 'POST', headers, body: '{}' })
    await res.arrayBuffer()
    return res.status === 200
  })
  const perSecond = Math.round(attempted / Math.min(result.seconds, SECONDS))
  console.log(`[${label}] inventory validations (5 lines): ${perSecond}/s over ${attempted}${result.failed ? `, ${result.failed} failed` : ''}`)
  rows.push({ name: `${label}: POST /inventory/transfers/:id/validate, 5-line receipts, ${CONNECTIONS} at a time`, value: `${perSecond} validations/s${result.failed ? ` (${result.failed} failed)` : ''}` })
  return rows
}

export const benchmarks = [inventoryBench]
