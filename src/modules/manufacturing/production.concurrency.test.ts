// Production orders under concurrency (issue 13): parallel confirms of orders
// competing for one component never reserve more than is on hand; parallel
// produces and closes (with inventory validations of the same products in
// between) neither deadlock nor over-produce; the ledger balances after each
// test (test/helpers/ledger.ts). On PGlite the requests are serialized by its
// single connection; the assertions are the same.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { assertLedgerBalances } from '../../../test/helpers/ledger.ts'
import { createBom, createItem, createProductionOrder, stockUp } from '../../../test/helpers/manufacturing.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const statuses = (results: Array<{ status: number }>) => {
  const count: Record<number, number> = {}
  for (const r of results) count[r.status] = (count[r.status] ?? 0) + 1
  return count
}

test('30 parallel confirms of orders competing for one component reserve exactly what is on hand; then parallel produces and closes balance the ledger', { timeout: 300_000 }, async () => {
  const org = await createOrg(t.app)
  const p = await createItem(org, { name: 'Lamp' })
  const scarce = await createItem(org, { name: 'Bulb' })
  const plenty = await createItem(org, { name: 'Shade' })
  // Two BOMs listing the components in opposite orders, so the lock order does not follow the order of the lines.
  const one = await createBom(org, { productId: p.id, components: [{ productId: scarce.id, quantity: 1 }, { productId: plenty.id, quantity: 2 }] })
  const two = await createBom(org, { productId: p.id, components: [{ productId: plenty.id, quantity: 2 }, { productId: scarce.id, quantity: 1 }] })
  await stockUp(org, scarce.id, 10)
  await stockUp(org, plenty.id, 100)
  const orders = []
  for (let i = 0; i < 30; i++) orders.push(await createProductionOrder(org, { productId: p.id, bomId: i % 2 ? one.id : two.id }))

  const confirms = await Promise.all(orders.map((o) => org.post(`/manufacturing/orders/${o.id}/confirm`)))
  assert.deepEqual(statuses(confirms), { 200: 10, 400: 20 })
  for (const r of confirms.filter((x) => x.status === 400)) {
    const body = expectStatus(r, 400, 'Insufficient stock for Bulb')
    assert.equal(body.code, 'INSUFFICIENT_STOCK')
    assert.doesNotMatch(body.message, /Shade/)
  }
  const levels = async () => {
    const rows = expectStatus(await org.get('/inventory/products?limit=100'), 200).data
    return Object.fromEntries(rows.map((r: any) => [r.productName, [r.onHand, r.reserved]]))
  }
  assert.deepEqual(await levels(), { Bulb: [10, 10], Shade: [100, 20], Lamp: [0, 0] })
  await assertLedgerBalances(t.app.ctx.db, org.id)

  // The 10 confirmed are produced, the 20 drafts closed, and 5 deliveries of shades validated, all at once.
  const confirmed = orders.filter((_, i) => confirms[i].status === 200)
  const drafts = orders.filter((_, i) => confirms[i].status === 400)
  const deliveries = []
  for (let i = 0; i < 5; i++) {
    deliveries.push(expectStatus(await org.post('/inventory/transfers', { type: 'delivery', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-CUSTOMER', moves: [{ productId: plenty.id, demandQty: 1 }, { productId: p.id, demandQty: 1 }] }), 201))
  }
  const results = await Promise.all([
    ...confirmed.map((o) => org.post(`/manufacturing/orders/${o.id}/produce`, { qty: 1 })),
    ...drafts.map((o) => org.post(`/manufacturing/orders/${o.id}/close`)),
    ...deliveries.map((d) => org.post(`/inventory/transfers/${d.id}/validate`)),
  ])
  const produced = results.slice(0, 10)
  const closed = results.slice(10, 30)
  const delivered = results.slice(30)
  assert.deepEqual(statuses(produced), { 200: 10 })
  for (const r of produced) assert.equal(r.body.status, 'done')
  assert.deepEqual(statuses(closed), { 200: 20 })
  for (const r of closed) assert.equal(r.body.status, 'cancelled')
  // A delivery takes a lamp only once one is made: each either went through or was short of lamps.
  for (const r of delivered) if (r.status !== 200) expectStatus(r, 400, 'Insufficient stock for Lamp')
  const shipped = delivered.filter((r) => r.status === 200).length
  assert.deepEqual(await levels(), { Bulb: [0, 0], Shade: [80 - shipped, 0], Lamp: [10 - shipped, 0] })
  const done = expectStatus(await org.get('/manufacturing/orders?status=done&limit=1'), 200)
  assert.equal(done.meta.total, 10)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('10 parallel produces of 2 on an order of 5: exactly 2 succeed, the rest are 422, producedQty is 4', { timeout: 300_000 }, async () => {
  const org = await createOrg(t.app)
  const order = await createProductionOrder(org, { quantity: 5 })
  for (const c of order.components) await stockUp(org, c.productId, c.quantity)
  expectStatus(await org.post(`/manufacturing/orders/${order.id}/confirm`), 200)
  const results = await Promise.all(Array.from({ length: 10 }, () => org.post(`/manufacturing/orders/${order.id}/produce`, { qty: 2 })))
  assert.deepEqual(statuses(results), { 200: 2, 422: 8 })
  for (const r of results.filter((x) => x.status === 422)) expectStatus(r, 422, `qty 2 exceeds the open quantity 1 of ${order.reference}`)
  const after = expectStatus(await org.get(`/manufacturing/orders/${order.id}`), 200)
  assert.deepEqual([after.status, after.producedQty, after.productions.length], ['in_progress', 4, 2])
  // 4 of 5: the components of 4 are consumed, those of 1 still reserved.
  assert.deepEqual(after.components.map((c: any) => c.consumedQty), order.components.map((c: any) => c.quantity * 4 / 5))
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('20 parallel creates get 20 distinct MO references and work order ids; parallel starts of one work order: one succeeds', { timeout: 300_000 }, async () => {
  const org = await createOrg(t.app)
  const bom = await createBom(org, { operations: [{ name: 'Cut', workcenter: 'Saw', durationMinutes: 5 }, { name: 'Pack', workcenter: 'Table', durationMinutes: 2 }] })
  const created = await Promise.all(Array.from({ length: 20 }, () => org.post('/manufacturing/orders', { productId: bom.product.id, quantity: 1 })))
  assert.deepEqual(statuses(created), { 201: 20 })
  const year = new Date().getUTCFullYear()
  assert.deepEqual(created.map((r) => r.body.reference).sort(), Array.from({ length: 20 }, (_, i) => `MO/${year}/${String(i + 1).padStart(5, '0')}`))
  const woIds = (await Promise.all(created.map((r) => org.get(`/manufacturing/orders/${r.body.id}/work-orders`)))).flatMap((r) => r.body.data.map((w: { id: string }) => w.id))
  assert.equal(new Set(woIds).size, 40)
  assert.deepEqual([...woIds].sort(), Array.from({ length: 40 }, (_, i) => `wo_${i + 1}`).sort())

  const order = created[0].body
  for (const c of order.components) await stockUp(org, c.productId, c.quantity)
  expectStatus(await org.post(`/manufacturing/orders/${order.id}/confirm`), 200)
  const [wo] = (await org.get(`/manufacturing/orders/${order.id}/work-orders`)).body.data
  const starts = await Promise.all(Array.from({ length: 10 }, () => org.post(`/manufacturing/orders/${order.id}/work-orders/${wo.id}/start`)))
  assert.deepEqual(statuses(starts), { 200: 1, 409: 9 })
  assert.equal((await org.get(`/manufacturing/orders/${order.id}`)).body.status, 'in_progress')
  await assertLedgerBalances(t.app.ctx.db, org.id)
})
