// Stock under concurrency (issue 12): parallel validations and confirms never
// take or reserve more than a location holds, and the ledger balances after
// each test (test/helpers/ledger.ts). On PGlite the requests are serialized by
// its single connection; the assertions are the same.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { assertLedgerBalances } from '../../../test/helpers/ledger.ts'
import { createProduct } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

async function transfer(org: TestOrg, type: string, source: string, destination: string, moves: Array<{ productId: string; demandQty: number }>) {
  return expectStatus(await org.post('/inventory/transfers', { type, sourceLocationId: source, destinationLocationId: destination, moves }), 201) as { id: string; reference: string }
}
async function receive(org: TestOrg, productId: string, qty: number, location = 'LOC-STOCK') {
  const r = await transfer(org, 'receipt', 'LOC-SUPPLIER', location, [{ productId, demandQty: qty }])
  expectStatus(await org.post(`/inventory/transfers/${r.id}/validate`), 200)
}
async function stock(org: TestOrg, productId: string) {
  const row = expectStatus(await org.get('/inventory/products?limit=100'), 200).data.find((p: { productId: string }) => p.productId === productId)
  return { onHand: row.onHand as number, reserved: row.reserved as number, available: row.available as number }
}
/** Creates `n` transfers, a few at a time (creation is not what is measured). */
async function many<T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < n; i += 20) out.push(...(await Promise.all(Array.from({ length: Math.min(20, n - i) }, (_, j) => make(i + j)))))
  return out
}
const statuses = (results: Array<{ status: number }>) => {
  const count: Record<number, number> = {}
  for (const r of results) count[r.status] = (count[r.status] ?? 0) + 1
  return count
}

test('200 parallel validations of one-unit draft deliveries from a location holding 100: exactly 100 succeed, the rest are 400, on hand 0', { timeout: 300_000 }, async () => {
  const org = await createOrg(t.app)
  const p = await createProduct(org, { type: 'storable' })
  await receive(org, p.id, 100)
  const deliveries = await many(200, () => transfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: p.id, demandQty: 1 }]))
  const results = await Promise.all(deliveries.map((d) => org.post(`/inventory/transfers/${d.id}/validate`)))
  assert.deepEqual(statuses(results), { 200: 100, 400: 100 })
  for (const r of results.filter((x) => x.status === 400)) expectStatus(r, 400, `Insufficient stock for ${p.name}`)
  assert.deepEqual(await stock(org, p.id), { onHand: 0, reserved: 0, available: 0 })
  assert.deepEqual(expectStatus(await org.get(`/inventory/products/${p.id}/stock`), 200), [])
  const done = expectStatus(await org.get('/inventory/transfers?type=delivery&status=done&limit=1'), 200)
  assert.equal(done.meta.total, 100)
  assert.equal(expectStatus(await org.get('/inventory/transfers?type=delivery&status=draft&limit=1'), 200).meta.total, 100)
  assert.equal(expectStatus(await org.get(`/inventory/moves?productId=${p.id}&locationId=LOC-CUSTOMER&limit=1`), 200).meta.total, 100)
  const events = await t.app.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM domain_events WHERE organization_id = $1 AND type = 'transfer.done'`, [org.id])
  assert.equal(events.rows[0].n, 101)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('parallel confirms never reserve more than on hand; the reserved ones then validate in parallel with drafts competing for the rest', { timeout: 300_000 }, async () => {
  const org = await createOrg(t.app)
  const a = await createProduct(org, { type: 'storable' })
  const b = await createProduct(org, { type: 'storable' })
  await receive(org, a.id, 30)
  await receive(org, b.id, 30)
  // 40 two-line deliveries of 1 a + 1 b, and 20 of 2 b + 1 a in the other line order: at most 30 of each may be reserved.
  const mixed = await many(60, (i) => transfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', i < 40
    ? [{ productId: a.id, demandQty: 1 }, { productId: b.id, demandQty: 1 }]
    : [{ productId: b.id, demandQty: 2 }, { productId: a.id, demandQty: 1 }]))
  const confirms = await Promise.all(mixed.map((d) => org.post(`/inventory/transfers/${d.id}/confirm`)))
  const counts = statuses(confirms)
  assert.deepEqual(Object.keys(counts).sort(), ['200', '400'])
  for (const r of confirms.filter((x) => x.status === 400)) assert.equal(r.body.code, 'INSUFFICIENT_STOCK')
  const okSmall = confirms.filter((r, i) => r.status === 200 && i < 40).length
  const okBig = confirms.filter((r, i) => r.status === 200 && i >= 40).length
  const reservedA = okSmall + okBig
  const reservedB = okSmall + 2 * okBig
  assert.ok(reservedA <= 30 && reservedB <= 30, `reserved ${reservedA} a and ${reservedB} b`)
  // Every refused confirm was refused for a real shortage of one of its products at that moment: at the end nothing
  // smaller than the cheapest refused transfer fits.
  assert.ok(30 - reservedB < 1 || 30 - reservedA < 1 || !confirms.some((r, i) => r.status === 400 && i < 40), 'a one-unit transfer was refused while both products had stock left')
  assert.deepEqual(await stock(org, a.id), { onHand: 30, reserved: reservedA, available: 30 - reservedA })
  assert.deepEqual(await stock(org, b.id), { onHand: 30, reserved: reservedB, available: 30 - reservedB })
  await assertLedgerBalances(t.app.ctx.db, org.id)

  // The ready ones validate from their own reservation while 30 one-unit drafts of b compete for what is free.
  const ready = mixed.filter((_, i) => confirms[i].status === 200)
  const drafts = await many(30, () => transfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: b.id, demandQty: 1 }]))
  const results = await Promise.all([...ready, ...drafts].map((d) => org.post(`/inventory/transfers/${d.id}/validate`)))
  assert.ok(results.slice(0, ready.length).every((r) => r.status === 200), 'a reserved transfer failed to validate')
  const draftResults = statuses(results.slice(ready.length))
  assert.equal(draftResults[200] ?? 0, 30 - reservedB)
  assert.equal((draftResults[200] ?? 0) + (draftResults[400] ?? 0), 30)
  assert.deepEqual(await stock(org, b.id), { onHand: 0, reserved: 0, available: 0 })
  assert.deepEqual(await stock(org, a.id), { onHand: 30 - reservedA, reserved: 0, available: 30 - reservedA })
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('parallel cancels, confirms, validations and adjustments of one product keep the ledger exact', { timeout: 300_000 }, async () => {
  const org = await createOrg(t.app)
  const p = await createProduct(org, { type: 'storable' })
  const shelf = expectStatus(await org.post('/inventory/locations', { code: 'SHELF' }), 201).id as string
  await receive(org, p.id, 50)
  await receive(org, p.id, 10, shelf)
  const ready = await many(20, () => transfer(org, 'internal', 'LOC-STOCK', shelf, [{ productId: p.id, demandQty: 2 }]))
  for (const r of ready) expectStatus(await org.post(`/inventory/transfers/${r.id}/confirm`), 200)
  const drafts = await many(20, () => transfer(org, 'internal', shelf, 'LOC-STOCK', [{ productId: p.id, demandQty: 1 }]))
  const receipts = await many(10, () => transfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: p.id, demandQty: 3 }]))
  const calls = [
    ...ready.slice(0, 10).map((r) => org.post(`/inventory/transfers/${r.id}/cancel`)),
    ...ready.slice(10).map((r) => org.post(`/inventory/transfers/${r.id}/validate`, { moves: [{ productId: p.id, doneQty: 1 }] })),
    ...drafts.map((d) => org.post(`/inventory/transfers/${d.id}/confirm`)),
    ...receipts.map((r) => org.post(`/inventory/transfers/${r.id}/validate`)),
    ...Array.from({ length: 5 }, (_, i) => org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: p.id, realQty: 40 + i }] })),
  ]
  const results = await Promise.all(calls)
  for (const r of results) assert.ok([200, 201, 400].includes(r.status), `unexpected ${r.status}: ${JSON.stringify(r.body)}`)
  assert.ok(results.slice(0, 20).every((r) => r.status === 200), 'cancels and reserved validations must all pass')
  await assertLedgerBalances(t.app.ctx.db, org.id)
  const s = await stock(org, p.id)
  assert.ok(s.onHand >= 0 && s.reserved >= 0 && s.reserved <= s.onHand, JSON.stringify(s))
})

test('adjustments racing receipts: theoreticalQty is what the location held when each posted, so every difference is the move it posted', { timeout: 300_000 }, async () => {
  const org = await createOrg(t.app)
  const p = await createProduct(org, { type: 'storable' })
  await receive(org, p.id, 20)
  const receipts = await many(10, () => transfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: p.id, demandQty: 3 }]))
  // Counts left to the service, and counts sent with the figure read before the race (20), which goes stale as receipts land.
  const counted = Array.from({ length: 10 }, (_, i) => ({ realQty: 10 + i }))
  const stale = Array.from({ length: 5 }, () => ({ theoreticalQty: 20, realQty: 7 }))
  const results = await Promise.all([
    ...receipts.map((r) => org.post(`/inventory/transfers/${r.id}/validate`)),
    ...[...counted, ...stale].map((line) => org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: p.id, ...line }] })),
  ])
  assert.ok(results.slice(0, 10).every((r) => r.status === 200), 'every receipt validates')
  assert.ok(results.slice(10, 20).every((r) => r.status === 201), 'every count without theoreticalQty posts')
  for (const r of results.slice(20)) {
    if (r.status !== 201) expectStatus(r, 422, /lines\[0\]\.theoreticalQty 20 is not what LOC-STOCK holds \(\d+(\.\d+)?\)/)
  }
  const posted = results.filter((r) => r.status === 201).map((r) => r.body as { id: string; reference: string; lines: Array<{ theoreticalQty: number; realQty: number; difference: number }> })
  for (const adj of posted) {
    const [line] = adj.lines
    assert.equal(line.theoreticalQty + line.difference, line.realQty, adj.reference)
    const moves = expectStatus(await org.get(`/inventory/moves?reference=${encodeURIComponent(adj.reference)}`), 200).data as Array<{ quantity: number; destinationLocationId: string }>
    const net = moves.reduce((sum, m) => sum + (m.destinationLocationId === 'LOC-STOCK' ? m.quantity : -m.quantity), 0)
    assert.equal(net, line.difference, `${adj.reference}: the moves post ${net}, the document says ${line.difference}`)
  }
  // The documents add up to the ledger: what was received plus every difference is what is on hand.
  const differences = posted.reduce((sum, a) => sum + a.lines[0].difference, 0)
  assert.equal((await stock(org, p.id)).onHand, 20 + 3 * receipts.length + differences)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})
