import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { assertLedgerBalances } from '../../../test/helpers/ledger.ts'
import { afterTimestamp, expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'
import { createProduct } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type Move = { productId: string; demandQty: number }
const storable = (org: TestOrg, overrides: Record<string, unknown> = {}) => createProduct(org, { type: 'storable', ...overrides }) as Promise<{ id: string; name: string; sku?: string }>

async function createTransfer(org: TestOrg, type: string, source: string, destination: string, moves: Move[], extra: Record<string, unknown> = {}) {
  return expectStatus(await org.post('/inventory/transfers', { type, sourceLocationId: source, destinationLocationId: destination, moves, ...extra }), 201)
}
const validate = async (org: TestOrg, id: string, body: unknown = {}) => expectStatus(await org.post(`/inventory/transfers/${id}/validate`, body), 200)
/** Puts `qty` of the product into a location through a validated receipt from LOC-SUPPLIER. */
async function receive(org: TestOrg, productId: string, qty: number, location = 'LOC-STOCK') {
  const r = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', location, [{ productId, demandQty: qty }])
  return validate(org, r.id)
}
async function stockOf(org: TestOrg, productId: string, query = '') {
  const res = expectStatus(await org.get(`/inventory/products?limit=100${query}`), 200)
  return res.data.find((p: { productId: string }) => p.productId === productId)
}
async function locationOf(org: TestOrg, body: Record<string, unknown>) {
  return expectStatus(await org.post('/inventory/locations', body), 201)
}
const events = async (org: TestOrg, type: string) =>
  (await t.app.ctx.db.query<{ resource_id: string; data: { object: any } }>('SELECT resource_id, data FROM domain_events WHERE organization_id = $1 AND type = $2 ORDER BY seq', [org.id, type])).rows

test('a receipt is created in draft, numbered WH/IN/00001, and its validation puts the stock in (transfer.done appended)', async () => {
  const org = await createOrg(t.app)
  const product = await storable(org, { reorderPoint: 3, uom: 'kg' })
  const created = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: product.id, demandQty: 12.5 }], { scheduledDate: '2026-12-01', origin: 'PO/2026/00007' })
  assert.match(created.id, UUID)
  assert.deepEqual(
    { ...created, id: undefined, createdAt: undefined, updatedAt: undefined },
    {
      id: undefined, reference: 'WH/IN/00001', type: 'receipt', status: 'draft', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK',
      sourceLocation: 'Partners/Vendors', destinationLocation: 'WH/Stock', scheduledDate: '2026-12-01T00:00:00.000Z', origin: 'PO/2026/00007',
      moves: [{ productId: product.id, productName: product.name, demandQty: 12.5, doneQty: 0, reservedQty: 0 }],
      backorder: null, backorderOf: null, doneAt: null, organizationId: org.id, createdAt: undefined, updatedAt: undefined,
    },
  )
  assert.deepEqual(expectStatus(await org.get(`/inventory/transfers/${created.id}`), 200), created)
  assert.deepEqual(await stockOf(org, product.id), { productId: product.id, productName: product.name, sku: null, onHand: 0, reserved: 0, available: 0, reorderPoint: 3, uom: 'kg' })

  const done = await validate(org, created.id)
  assert.equal(done.status, 'done')
  assert.deepEqual(done.moves, [{ productId: product.id, productName: product.name, demandQty: 12.5, doneQty: 12.5, reservedQty: 0 }])
  assert.equal(done.backorder, null)
  assert.ok(Date.parse(done.doneAt) <= Date.now())
  assert.deepEqual(await stockOf(org, product.id), { productId: product.id, productName: product.name, sku: null, onHand: 12.5, reserved: 0, available: 12.5, reorderPoint: 3, uom: 'kg' })
  assert.deepEqual(expectStatus(await org.get(`/inventory/products/${product.id}/stock`), 200), [{ locationId: 'LOC-STOCK', locationName: 'WH/Stock', quantity: 12.5 }])
  const [event] = await events(org, 'transfer.done')
  assert.equal(event.resource_id, created.id)
  assert.deepEqual(event.data.object, done)
  // References are per organization and per kind.
  assert.equal((await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: product.id, demandQty: 1 }])).reference, 'WH/IN/00002')
  assert.equal((await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: product.id, demandQty: 1 }])).reference, 'WH/OUT/00001')
  assert.equal((await createTransfer(org, 'internal', 'LOC-STOCK', 'LOC-STOCK2', [{ productId: product.id, demandQty: 1 }]).catch(() => ({ reference: 'refused' }))).reference, 'refused')
  await locationOf(org, { code: 'STOCK2' })
  assert.equal((await createTransfer(org, 'internal', 'LOC-STOCK', 'LOC-STOCK2', [{ productId: product.id, demandQty: 1 }])).reference, 'WH/INT/00001')
  const other = await createOrg(t.app)
  assert.equal((await createTransfer(other, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: (await storable(other)).id, demandQty: 1 }])).reference, 'WH/IN/00001')
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('create: bad bodies are 422 with every failed rule; non-storable products, duplicates, unknown locations and products are 422', async () => {
  const org = await createOrg(t.app)
  const p = await storable(org)
  const service = await createProduct(org, { type: 'service' })
  const consumable = await createProduct(org, { type: 'consumable' })
  const base = { type: 'delivery', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-CUSTOMER', moves: [{ productId: p.id, demandQty: 1 }] }
  const foreign = await storable(await createOrg(t.app))
  for (const [body, message] of [
    [{ ...base, moves: [{ productId: service.id, demandQty: 1 }] }, 'is a service product; only storable products are tracked in stock'],
    [{ ...base, moves: [{ productId: consumable.id, demandQty: 1 }] }, 'is a consumable product'],
    [{ ...base, moves: [{ productId: p.id, demandQty: 1 }, { productId: p.id, demandQty: 2 }] }, 'listed twice'],
    [{ ...base, moves: [{ productId: foreign.id, demandQty: 1 }] }, 'moves[0].productId does not name a product of this organization'],
    [{ ...base, moves: [{ productId: '00000000-0000-4000-8000-000000000000', demandQty: 1 }] }, 'does not name a product'],
    [{ ...base, sourceLocationId: 'LOC-NOPE' }, 'sourceLocationId LOC-NOPE does not name a location of this organization'],
    [{ ...base, destinationLocationId: 'LOC-STOCK' }, 'destinationLocationId must differ from sourceLocationId'],
    [{ ...base, moves: [] }, 'moves'],
    [{ ...base, moves: [{ productId: p.id, demandQty: 0 }] }, 'demandQty'],
    [{ ...base, moves: [{ productId: p.id, demandQty: -1 }] }, 'demandQty'],
    [{ ...base, type: 'transfer' }, 'type'],
    [{ ...base, status: 'done' }, 'status'],
    [{ ...base, organizationId: org.id }, 'organizationId'],
    [{ ...base, scheduledDate: '2026-02-30' }, 'scheduledDate'],
    [{ ...base, scheduledDate: 'tomorrow' }, 'scheduledDate'],
    [{ type: 'receipt' }, 'sourceLocationId'],
  ] as const) {
    expectStatus(await org.post('/inventory/transfers', body), 422, message)
  }
  const two = expectStatus(await org.post('/inventory/transfers', { ...base, moves: [{ productId: service.id, demandQty: 1 }, { productId: consumable.id, demandQty: 1 }] }), 422)
  assert.equal(two.message.length, 2, JSON.stringify(two.message))
  expectStatus(await call(t.app, 'POST', '/inventory/transfers', { token: org.token, body: '{"type":', headers: { 'content-type': 'application/json' } }), 400, 'Malformed JSON')
  expectPage(await org.get('/inventory/transfers'), { total: 0, page: 1, limit: 20 })
  // Nothing numbered was used up by the refusals that reached the service.
  assert.equal((await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: p.id, demandQty: 1 }])).reference, 'WH/OUT/00001')
})

test('confirm reserves at an internal source (draft -> ready); short stock is 400 and reserves nothing; other states are 400', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const b = await storable(org)
  await receive(org, a.id, 10)
  await receive(org, b.id, 2)
  const delivery = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 4 }, { productId: b.id, demandQty: 1 }])
  const ready = expectStatus(await org.post(`/inventory/transfers/${delivery.id}/confirm`), 200)
  assert.equal(ready.status, 'ready')
  assert.deepEqual(ready.moves.map((m: any) => m.reservedQty), [4, 1])
  assert.deepEqual(await stockOf(org, a.id), { ...(await stockOf(org, a.id)), onHand: 10, reserved: 4, available: 6 })
  assert.deepEqual([(await stockOf(org, b.id)).reserved, (await stockOf(org, b.id)).available], [1, 1])
  expectStatus(await org.post(`/inventory/transfers/${delivery.id}/confirm`), 400, 'already ready')

  // b has 1 available: a second delivery of 2 cannot be reserved, and a's line is not reserved either.
  const short = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 1 }, { productId: b.id, demandQty: 2 }])
  const refused = expectStatus(await org.post(`/inventory/transfers/${short.id}/confirm`), 400, `Insufficient stock for ${b.name}`)
  assert.equal(refused.code, 'INSUFFICIENT_STOCK')
  assert.equal(expectStatus(await org.get(`/inventory/transfers/${short.id}`), 200).status, 'draft')
  assert.deepEqual([(await stockOf(org, a.id)).reserved, (await stockOf(org, b.id)).reserved], [4, 1])
  // Every short product is named, in the order of the moves, on confirm and on validate from draft.
  const bothShort = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: b.id, demandQty: 2 }, { productId: a.id, demandQty: 7 }])
  expectStatus(await org.post(`/inventory/transfers/${bothShort.id}/confirm`), 400, `Insufficient stock for ${b.name}, ${a.name}`)
  expectStatus(await org.post(`/inventory/transfers/${bothShort.id}/validate`), 400, `Insufficient stock for ${b.name}, ${a.name}`)
  assert.deepEqual([(await stockOf(org, a.id)).reserved, (await stockOf(org, b.id)).reserved], [4, 1])

  // A non-internal source needs no stock and reserves nothing.
  const receipt = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: a.id, demandQty: 500 }])
  const readyReceipt = expectStatus(await org.post(`/inventory/transfers/${receipt.id}/confirm`), 200)
  assert.deepEqual([readyReceipt.status, readyReceipt.moves[0].reservedQty], ['ready', 0])

  // Done and cancelled transfers cannot be confirmed.
  await validate(org, receipt.id)
  expectStatus(await org.post(`/inventory/transfers/${receipt.id}/confirm`), 400, 'already validated')
  expectStatus(await org.post(`/inventory/transfers/${short.id}/cancel`), 200)
  expectStatus(await org.post(`/inventory/transfers/${short.id}/confirm`), 400, 'already cancelled')
  expectStatus(await org.post('/inventory/transfers/00000000-0000-4000-8000-000000000000/confirm'), 404, 'Transfer not found')
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('validate from draft takes only unreserved stock: short stock is 400 INSUFFICIENT_STOCK and changes nothing', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  await receive(org, a.id, 5)
  const reserving = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 3 }])
  expectStatus(await org.post(`/inventory/transfers/${reserving.id}/confirm`), 200)
  const draft = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 3 }])
  const before = await stockOf(org, a.id)
  const res = expectStatus(await org.post(`/inventory/transfers/${draft.id}/validate`), 400, `Insufficient stock for ${a.name}`)
  assert.equal(res.code, 'INSUFFICIENT_STOCK')
  assert.deepEqual(await stockOf(org, a.id), before)
  assert.equal(expectStatus(await org.get(`/inventory/transfers/${draft.id}`), 200).status, 'draft')
  expectPage(await org.get(`/inventory/moves?reference=${encodeURIComponent(draft.reference)}`), { total: 0, page: 1, limit: 20 })
  // The ready one consumes its own reservation; then 2 are free, enough for a partial draft.
  await validate(org, reserving.id)
  assert.deepEqual([(await stockOf(org, a.id)).onHand, (await stockOf(org, a.id)).reserved], [2, 0])
  const partial = await validate(org, draft.id, { moves: [{ productId: a.id, doneQty: 2 }] })
  assert.equal(partial.backorder.reference, 'WH/OUT/00003')
  assert.equal((await stockOf(org, a.id)).onHand, 0)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('partial validation leaves a backorder in the state the original had; a ready backorder keeps the reservation of its rest', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const b = await storable(org)
  const c = await storable(org)
  await receive(org, a.id, 20)
  await receive(org, b.id, 20)
  await receive(org, c.id, 20)
  const ready = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 10 }, { productId: b.id, demandQty: 4 }, { productId: c.id, demandQty: 2 }], { origin: 'SO/2026/00001', scheduledDate: '2026-12-24T10:00:00Z' })
  expectStatus(await org.post(`/inventory/transfers/${ready.id}/confirm`), 200)
  // a: 6 of 10; b: not sent, so all 4; c: 0 of 2.
  const done = await validate(org, ready.id, { moves: [{ productId: a.id, doneQty: 6 }, { productId: c.id, doneQty: 0 }] })
  assert.equal(done.status, 'done')
  assert.deepEqual(done.moves.map((m: any) => [m.productId, m.demandQty, m.doneQty, m.reservedQty]), [[a.id, 10, 6, 0], [b.id, 4, 4, 0], [c.id, 2, 0, 0]])
  const back = expectStatus(await org.get(`/inventory/transfers/${done.backorder.id}`), 200)
  assert.equal(done.backorder.reference, back.reference)
  assert.deepEqual(
    [back.status, back.type, back.sourceLocationId, back.destinationLocationId, back.origin, back.scheduledDate, back.backorderOf],
    ['ready', 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', 'SO/2026/00001', '2026-12-24T10:00:00.000Z', { id: ready.id, reference: ready.reference }],
  )
  assert.deepEqual(back.moves.map((m: any) => [m.productId, m.demandQty, m.doneQty, m.reservedQty]), [[a.id, 4, 0, 4], [c.id, 2, 0, 2]])
  // Hand-computed: a 20 - 6 = 14 on hand, 4 still reserved by the backorder; b 16, 0; c 20, 2.
  for (const [p, onHand, reserved] of [[a, 14, 4], [b, 16, 0], [c, 20, 2]] as const) {
    const s = await stockOf(org, p.id)
    assert.deepEqual([s.onHand, s.reserved, s.available], [onHand, reserved, onHand - reserved], p.name)
  }
  // The backorder validates in full from its own reservation.
  const second = await validate(org, back.id)
  assert.equal(second.backorder, null)
  assert.deepEqual([(await stockOf(org, a.id)).onHand, (await stockOf(org, a.id)).reserved, (await stockOf(org, c.id)).onHand, (await stockOf(org, c.id)).reserved], [10, 0, 18, 0])

  // A draft's backorder is a draft and reserves nothing.
  const draft = await createTransfer(org, 'internal', 'LOC-STOCK', 'LOC-LOSS', [{ productId: a.id, demandQty: 5 }])
  const partial = await validate(org, draft.id, { moves: [{ productId: a.id, doneQty: 1.5 }] })
  const draftBack = expectStatus(await org.get(`/inventory/transfers/${partial.backorder.id}`), 200)
  assert.deepEqual([draftBack.status, draftBack.moves[0].demandQty, draftBack.moves[0].reservedQty, draftBack.reference], ['draft', 3.5, 0, 'WH/INT/00002'])
  assert.equal((await stockOf(org, a.id)).onHand, 8.5)
  assert.equal((await events(org, 'transfer.done')).length, 3 + 3)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('validate overrides: doneQty above demand, negative, unknown or repeated product, or zero everywhere is 422; done or cancelled is 400', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const other = await storable(org)
  const tr = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: a.id, demandQty: 3 }])
  for (const [moves, message] of [
    [[{ productId: a.id, doneQty: 4 }], 'doneQty 4 exceeds the demand 3'],
    [[{ productId: a.id, doneQty: -1 }], 'doneQty'],
    [[{ productId: other.id, doneQty: 1 }], `product ${other.id} has no move in transfer ${tr.reference}`],
    [[{ productId: a.id, doneQty: 1 }, { productId: a.id, doneQty: 2 }], 'listed twice'],
    [[{ productId: a.id, doneQty: 0 }], 'at least one move must have a doneQty above 0'],
    [[{ productId: a.id }], 'doneQty'],
    [[{ productId: a.id, doneQty: 1, extra: true }], 'extra'],
  ] as const) {
    expectStatus(await org.post(`/inventory/transfers/${tr.id}/validate`, { moves }), 422, message)
  }
  expectStatus(await call(t.app, 'POST', `/inventory/transfers/${tr.id}/validate`, { token: org.token, body: 'null', headers: { 'content-type': 'application/json' } }), 422)
  assert.equal(expectStatus(await org.get(`/inventory/transfers/${tr.id}`), 200).status, 'draft')
  // No body at all validates in full.
  const done = expectStatus(await call(t.app, 'POST', `/inventory/transfers/${tr.id}/validate`, { token: org.token }), 200)
  assert.equal(done.moves[0].doneQty, 3)
  expectStatus(await org.post(`/inventory/transfers/${tr.id}/validate`), 400, 'already validated')
  expectStatus(await org.post(`/inventory/transfers/${tr.id}/cancel`), 400, 'already validated')
  const cancelled = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: a.id, demandQty: 3 }])
  assert.equal(expectStatus(await org.post(`/inventory/transfers/${cancelled.id}/cancel`), 200).status, 'cancelled')
  const again = expectStatus(await org.post(`/inventory/transfers/${cancelled.id}/validate`), 400, 'already cancelled')
  assert.equal(again.code, 'INVALID_STATE')
  expectStatus(await org.post(`/inventory/transfers/${cancelled.id}/cancel`), 400, 'already cancelled')
  expectStatus(await org.post('/inventory/transfers/00000000-0000-4000-8000-000000000000/validate'), 404, 'Transfer not found')
  expectStatus(await org.post('/inventory/transfers/00000000-0000-4000-8000-000000000000/cancel'), 404)
  expectStatus(await org.get('/inventory/transfers/not-a-uuid'), 400)
  assert.equal((await stockOf(org, a.id)).onHand, 3)
})

test('cancel releases the reservation of a ready transfer', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  await receive(org, a.id, 5)
  const tr = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 5 }])
  expectStatus(await org.post(`/inventory/transfers/${tr.id}/confirm`), 200)
  assert.equal((await stockOf(org, a.id)).available, 0)
  const cancelled = expectStatus(await org.post(`/inventory/transfers/${tr.id}/cancel`), 200)
  assert.deepEqual([cancelled.status, cancelled.moves[0].reservedQty, cancelled.doneAt], ['cancelled', 0, null])
  assert.deepEqual([(await stockOf(org, a.id)).onHand, (await stockOf(org, a.id)).reserved, (await stockOf(org, a.id)).available], [5, 0, 5])
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('transfers list: filters type, status, from/to (scheduled), search; sorts; query rules', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const r1 = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: a.id, demandQty: 1 }], { scheduledDate: '2026-03-01T09:00:00Z', origin: 'PO/2026/00042' })
  await afterTimestamp(r1.createdAt)
  const r2 = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: a.id, demandQty: 1 }], { scheduledDate: '2026-03-05T00:00:00Z' })
  await afterTimestamp(r2.createdAt)
  const d1 = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 1 }], { scheduledDate: '2026-03-03T12:00:00Z' })
  await validate(org, r1.id)
  await afterTimestamp(d1.createdAt)
  expectStatus(await org.post(`/inventory/transfers/${d1.id}/cancel`), 200)
  const ids = async (q: string) => idsOf(await org.get(`/inventory/transfers?${q}`))
  assert.deepEqual(await ids('type=receipt'), [r1.id, r2.id].sort())
  assert.deepEqual(await ids('type=delivery'), [d1.id])
  assert.deepEqual(await ids('type=internal'), [])
  assert.deepEqual(await ids('status=done'), [r1.id])
  assert.deepEqual(await ids('status=draft'), [r2.id])
  assert.deepEqual(await ids('status=cancelled'), [d1.id])
  assert.deepEqual(await ids('status=ready'), [])
  assert.deepEqual(await ids('type=receipt&status=draft'), [r2.id])
  assert.deepEqual(await ids('from=2026-03-02'), [r2.id, d1.id].sort())
  assert.deepEqual(await ids('to=2026-03-03'), [r1.id, d1.id].sort())
  assert.deepEqual(await ids('from=2026-03-03T12:00:00Z&to=2026-03-05'), [r2.id, d1.id].sort())
  assert.deepEqual(await ids('search=00042'), [r1.id])
  assert.deepEqual(await ids('search=WH/OUT'), [d1.id])
  expectPage(await org.get('/inventory/transfers?status=draft'), { total: 1, page: 1, limit: 20 })
  expectPage(await org.get('/inventory/transfers?limit=2&page=2'), { total: 3, page: 2, limit: 2 })
  for (const field of ['reference', 'scheduledDate', 'createdAt', 'updatedAt']) await expectSortable((p) => org.get(p), '/inventory/transfers', field)
  const refs = async (q: string) => (await org.get(`/inventory/transfers?${q}`)).body.data.map((x: any) => x.reference)
  assert.deepEqual(await refs('sortBy=scheduledDate&sortOrder=asc'), [r1.reference, d1.reference, r2.reference])
  assert.deepEqual(await refs(''), [d1.reference, r2.reference, r1.reference])
  await expectListQueryRules((p) => org.get(p), '/inventory/transfers', 'status')
  for (const bad of ['type=transfer', 'status=open', 'from=yesterday']) expectStatus(await org.get(`/inventory/transfers?${bad}`), 400)
  expectStatus(await org.get('/inventory/transfers?from=2026-03-05&to=2026-03-01'), 422, 'from must not be after to')
})

test('product stock: onHand, reserved and available over two warehouses, by warehouse, belowReorder, search, sorts; stock by location', async () => {
  const org = await createOrg(t.app)
  const main = expectStatus(await org.get('/inventory/locations/LOC-STOCK'), 200).warehouseId
  // A second warehouse has no route; it is made as the organization's default one is.
  const second = (await t.app.ctx.db.query<{ id: string }>(`INSERT INTO warehouses (id, organization_id, code, name) VALUES (gen_random_uuid(), $1, 'WH2', 'Second') RETURNING id`, [org.id])).rows[0].id
  await locationOf(org, { code: 'SHELF-A', name: 'WH/Shelf A', warehouseId: main })
  await locationOf(org, { code: 'WH2-STOCK', name: 'WH2/Stock', warehouseId: second })
  const bolt = await storable(org, { name: `Bolt ${unique()}`, sku: unique('BOLT-'), reorderPoint: 10 })
  const nut = await storable(org, { name: `Nut ${unique()}`, sku: unique('NUT-'), reorderPoint: 5 })
  const washer = await storable(org, { name: `Washer ${unique()}`, sku: unique('WSH-'), reorderPoint: 0 })
  const service = await createProduct(org, { type: 'service', name: `Install ${unique()}` })
  // bolt: 8 at LOC-STOCK, 4 at SHELF-A, 20 at WH2; 3 reserved at LOC-STOCK, 5 at WH2.
  await receive(org, bolt.id, 8)
  await receive(org, bolt.id, 4, 'LOC-SHELF-A')
  await receive(org, bolt.id, 20, 'LOC-WH2-STOCK')
  expectStatus(await org.post(`/inventory/transfers/${(await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: bolt.id, demandQty: 3 }])).id}/confirm`), 200)
  expectStatus(await org.post(`/inventory/transfers/${(await createTransfer(org, 'internal', 'LOC-WH2-STOCK', 'LOC-STOCK', [{ productId: bolt.id, demandQty: 5 }])).id}/confirm`), 200)
  // nut: 6 at WH2 only, 2 delivered; washer: 1 at LOC-STOCK.
  await receive(org, nut.id, 6, 'LOC-WH2-STOCK')
  await validate(org, (await createTransfer(org, 'delivery', 'LOC-WH2-STOCK', 'LOC-CUSTOMER', [{ productId: nut.id, demandQty: 2 }])).id)
  await receive(org, washer.id, 1)

  const figures = async (q = '') => {
    const rows = expectStatus(await org.get(`/inventory/products?limit=100${q}`), 200).data
    return Object.fromEntries(rows.map((r: any) => [r.productId, [r.onHand, r.reserved, r.available]]))
  }
  assert.deepEqual(await figures(), { [bolt.id]: [32, 8, 24], [nut.id]: [4, 0, 4], [washer.id]: [1, 0, 1] })
  assert.deepEqual(await figures(`&warehouseId=${main}`), { [bolt.id]: [12, 3, 9], [nut.id]: [0, 0, 0], [washer.id]: [1, 0, 1] })
  assert.deepEqual(await figures(`&warehouseId=${second}`), { [bolt.id]: [20, 5, 15], [nut.id]: [4, 0, 4], [washer.id]: [0, 0, 0] })
  assert.deepEqual(await figures('&warehouseId=00000000-0000-4000-8000-000000000000'), { [bolt.id]: [0, 0, 0], [nut.id]: [0, 0, 0], [washer.id]: [0, 0, 0] })
  // belowReorder: nut (4 <= 5); bolt 24 > 10; washer has no reorder point. By warehouse: bolt 9 <= 10 in the main one.
  assert.deepEqual(Object.keys(await figures('&belowReorder=true')), [nut.id])
  assert.deepEqual(Object.keys(await figures(`&belowReorder=true&warehouseId=${main}`)).sort(), [bolt.id, nut.id].sort())
  assert.equal(Object.keys(await figures('&belowReorder=false')).length, 3)
  expectPage(await org.get('/inventory/products?belowReorder=true'), { total: 1, page: 1, limit: 20 })
  assert.deepEqual(Object.keys(await figures(`&search=${encodeURIComponent(bolt.name.slice(0, 8))}`)), [bolt.id])
  assert.deepEqual(Object.keys(await figures(`&search=${encodeURIComponent(nut.sku!.slice(0, 8).toLowerCase())}`)), [nut.id])
  assert.ok(!(service.id in (await figures())), 'services are not listed')
  const order = async (q: string) => expectStatus(await org.get(`/inventory/products?${q}`), 200).data.map((r: any) => r.productId)
  assert.deepEqual(await order('sortBy=onHand&sortOrder=desc'), [bolt.id, nut.id, washer.id])
  assert.deepEqual(await order('sortBy=available&sortOrder=asc'), [washer.id, nut.id, bolt.id])
  assert.deepEqual(await order('sortBy=name&sortOrder=asc'), [bolt.id, nut.id, washer.id])
  // name is checked above (the rows carry it as productName).
  for (const field of ['sku', 'onHand', 'available']) await expectSortable((p) => org.get(p), '/inventory/products', field)
  await expectListQueryRules((p) => org.get(p), '/inventory/products', 'reserved')
  for (const bad of ['belowReorder=maybe', 'warehouseId=nope']) expectStatus(await org.get(`/inventory/products?${bad}`), 400)

  // By location: internal locations with a non-zero quantity, a bare array.
  assert.deepEqual(expectStatus(await org.get(`/inventory/products/${bolt.id}/stock`), 200), [
    { locationId: 'LOC-SHELF-A', locationName: 'WH/Shelf A', quantity: 4 },
    { locationId: 'LOC-STOCK', locationName: 'WH/Stock', quantity: 8 },
    { locationId: 'LOC-WH2-STOCK', locationName: 'WH2/Stock', quantity: 20 },
  ])
  await validate(org, (await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: washer.id, demandQty: 1 }])).id)
  assert.deepEqual(expectStatus(await org.get(`/inventory/products/${washer.id}/stock`), 200), [])
  assert.deepEqual(expectStatus(await org.get(`/inventory/products/${service.id}/stock`), 200), [])
  expectStatus(await org.get('/inventory/products/00000000-0000-4000-8000-000000000000/stock'), 404, 'Product not found')
  expectStatus(await org.get('/inventory/products/nope/stock'), 400)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('adjustments: WH/ADJ/<n>, the location ends at realQty through moves to or from LOC-LOSS dated by date; difference and state rules', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const b = await storable(org)
  await receive(org, a.id, 10)
  const adj = expectStatus(await org.post('/inventory/adjustments', {
    locationId: 'LOC-STOCK', date: '2026-01-15', reason: 'Year-end count',
    lines: [{ productId: a.id, theoreticalQty: 10, realQty: 7, difference: -3 }, { productId: b.id, theoreticalQty: 0, realQty: 2.5 }],
  }), 201)
  assert.match(adj.id, UUID)
  assert.deepEqual({ ...adj, id: undefined, createdAt: undefined }, {
    id: undefined, reference: 'WH/ADJ/00001', locationId: 'LOC-STOCK', date: '2026-01-15T00:00:00.000Z', reason: 'Year-end count',
    lines: [
      { productId: a.id, productName: a.name, theoreticalQty: 10, realQty: 7, difference: -3 },
      { productId: b.id, productName: b.name, theoreticalQty: 0, realQty: 2.5, difference: 2.5 },
    ],
    organizationId: org.id, createdAt: undefined,
  })
  assert.deepEqual(expectStatus(await org.get(`/inventory/adjustments/${adj.id}`), 200), adj)
  assert.deepEqual([(await stockOf(org, a.id)).onHand, (await stockOf(org, b.id)).onHand], [7, 2.5])
  const moves = expectStatus(await org.get(`/inventory/moves?reference=WH/ADJ/00001&sortBy=quantity&sortOrder=asc`), 200).data
  assert.deepEqual(moves.map((m: any) => [m.product.id, m.sourceLocationId, m.destinationLocationId, m.quantity, m.doneAt, m.adjustmentId]), [
    [b.id, 'LOC-LOSS', 'LOC-STOCK', 2.5, '2026-01-15T00:00:00.000Z', adj.id],
    [a.id, 'LOC-STOCK', 'LOC-LOSS', 3, '2026-01-15T00:00:00.000Z', adj.id],
  ])
  // theoreticalQty defaults to what the location holds; a count equal to it moves nothing.
  const same = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 7 }] }), 201)
  assert.deepEqual([same.reference, same.lines[0].theoreticalQty, same.lines[0].difference, same.reason], ['WH/ADJ/00002', 7, 0, null])
  expectPage(await org.get('/inventory/moves?reference=WH/ADJ/00002'), { total: 0, page: 1, limit: 20 })

  const service = await createProduct(org, { type: 'service' })
  const tomorrow = new Date(Date.now() + 36 * 3600 * 1000).toISOString().slice(0, 10)
  for (const [body, message] of [
    [{ locationId: 'LOC-STOCK', lines: [{ productId: a.id, theoreticalQty: 7, realQty: 5, difference: 2 }] }, 'difference 2 is not realQty - theoreticalQty (-2)'],
    [{ locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 5, difference: -2 }] }, 'difference needs theoreticalQty'],
    [{ locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: -1 }] }, 'realQty'],
    [{ locationId: 'LOC-STOCK', lines: [{ productId: service.id, realQty: 1 }] }, 'only storable products are tracked'],
    [{ locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 1 }, { productId: a.id, realQty: 2 }] }, 'listed twice'],
    [{ locationId: 'LOC-CUSTOMER', lines: [{ productId: a.id, realQty: 1 }] }, 'LOC-CUSTOMER is not an internal location'],
    [{ locationId: 'LOC-NOPE', lines: [{ productId: a.id, realQty: 1 }] }, 'locationId LOC-NOPE does not name a location'],
    [{ locationId: 'LOC-STOCK', date: tomorrow, lines: [{ productId: a.id, realQty: 1 }] }, 'date must not be after today'],
    [{ locationId: 'LOC-STOCK', lines: [] }, 'lines'],
    [{ lines: [{ productId: a.id, realQty: 1 }] }, 'locationId'],
  ] as const) {
    expectStatus(await org.post('/inventory/adjustments', body), 422, message)
  }
  // Below what ready transfers hold reserved there: 400.
  expectStatus(await org.post(`/inventory/transfers/${(await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 4 }])).id}/confirm`), 200)
  const reserved = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 3 }] }), 400, 'realQty cannot be below it')
  assert.equal(reserved.code, 'INVALID_STATE')
  assert.equal((await stockOf(org, a.id)).onHand, 7)
  expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 4 }] }), 201)
  assert.deepEqual([(await stockOf(org, a.id)).onHand, (await stockOf(org, a.id)).available], [4, 0])

  // List: filters locationId, from/to on date; sorts.
  const shelf = await locationOf(org, { code: 'COUNTED' })
  const other = expectStatus(await org.post('/inventory/adjustments', { locationId: shelf.id, date: '2025-06-30T10:00:00Z', lines: [{ productId: b.id, realQty: 1 }] }), 201)
  assert.deepEqual(idsOf(await org.get(`/inventory/adjustments?locationId=${shelf.id}`)), [other.id])
  assert.deepEqual(idsOf(await org.get('/inventory/adjustments?to=2025-12-31')), [other.id])
  assert.deepEqual(idsOf(await org.get('/inventory/adjustments?from=2026-01-15&to=2026-01-15')), [adj.id])
  expectPage(await org.get('/inventory/adjustments'), { total: 4, page: 1, limit: 20 })
  for (const field of ['date', 'createdAt', 'reference']) await expectSortable((p) => org.get(p), '/inventory/adjustments', field)
  await expectListQueryRules((p) => org.get(p), '/inventory/adjustments', 'reason')
  expectStatus(await org.get('/inventory/adjustments/00000000-0000-4000-8000-000000000000'), 404, 'Adjustment not found')
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('adjustments: theoreticalQty is what the ledger holds; a sent one that disagrees is 422 and nothing is posted, so difference always equals the moves', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const b = await storable(org)
  await receive(org, a.id, 5)
  // The case: 5 held, a count "expected" 1e9 and found 5.
  const refused = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: a.id, theoreticalQty: 1_000_000_000, realQty: 5 }] }), 422)
  assert.deepEqual(refused.message, ['lines[0].theoreticalQty 1000000000 is not what LOC-STOCK holds (5); send the held quantity, or leave it out'])
  // Every stale line is named at once; a consistent difference does not make a stale figure right.
  const both = expectStatus(await org.post('/inventory/adjustments', {
    locationId: 'LOC-STOCK', lines: [{ productId: a.id, theoreticalQty: 4, realQty: 3, difference: -1 }, { productId: b.id, theoreticalQty: 2, realQty: 2 }],
  }), 422)
  assert.deepEqual(both.message, ['lines[0].theoreticalQty 4 is not what LOC-STOCK holds (5); send the held quantity, or leave it out', 'lines[1].theoreticalQty 2 is not what LOC-STOCK holds (0); send the held quantity, or leave it out'])
  expectPage(await org.get('/inventory/adjustments'), { total: 0, page: 1, limit: 20 })
  expectPage(await org.get('/inventory/moves?locationId=LOC-LOSS'), { total: 0, page: 1, limit: 20 })
  assert.equal((await stockOf(org, a.id)).onHand, 5)
  // Left out, or sent equal to what is held: the line's difference is the move posted.
  const adj = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 2 }, { productId: b.id, theoreticalQty: 0, realQty: 1.5, difference: 1.5 }] }), 201)
  assert.deepEqual(adj.lines.map((l: any) => [l.theoreticalQty, l.realQty, l.difference]), [[5, 2, -3], [0, 1.5, 1.5]])
  const moves = expectStatus(await org.get(`/inventory/moves?reference=${adj.reference}`), 200).data
  for (const line of adj.lines) {
    const posted = moves.filter((m: any) => m.product.id === line.productId).reduce((sum: number, m: any) => sum + (m.destinationLocationId === 'LOC-STOCK' ? m.quantity : -m.quantity), 0)
    assert.equal(posted, line.difference)
  }
  assert.deepEqual([(await stockOf(org, a.id)).onHand, (await stockOf(org, b.id)).onHand], [2, 1.5])
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('moves: the ledger of done moves, filters productId, locationId (either end), reference, from/to; sorts', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const b = await storable(org)
  const r = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: a.id, demandQty: 5 }, { productId: b.id, demandQty: 2 }])
  const draft = await createTransfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: a.id, demandQty: 1 }])
  expectPage(await org.get('/inventory/moves'), { total: 0, page: 1, limit: 20 })
  await validate(org, r.id)
  await validate(org, draft.id)
  expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', date: '2020-05-01', lines: [{ productId: b.id, realQty: 1 }] }), 201)
  const all = expectPage(await org.get('/inventory/moves?sortBy=doneAt&sortOrder=asc'), { total: 4, page: 1, limit: 20 })
  assert.deepEqual(all[0], { id: all[0].id, reference: 'WH/ADJ/00001', product: { id: b.id, name: b.name }, quantity: 1, sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-LOSS', transferId: null, adjustmentId: all[0].adjustmentId, doneAt: '2020-05-01T00:00:00.000Z' })
  const refs = async (q: string) => expectStatus(await org.get(`/inventory/moves?${q}`), 200).data.map((m: any) => `${m.reference} ${m.product.id === a.id ? 'a' : 'b'}`).sort()
  assert.deepEqual(await refs(`productId=${a.id}`), [`${draft.reference} a`, `${r.reference} a`].sort())
  assert.deepEqual(await refs('locationId=LOC-CUSTOMER'), [`${draft.reference} a`])
  assert.deepEqual(await refs('locationId=LOC-STOCK'), [`${draft.reference} a`, `${r.reference} a`, `${r.reference} b`, 'WH/ADJ/00001 b'].sort())
  assert.deepEqual(await refs('locationId=LOC-NOPE'), [])
  assert.deepEqual(await refs(`reference=${encodeURIComponent(r.reference)}`), [`${r.reference} a`, `${r.reference} b`].sort())
  assert.deepEqual(await refs('to=2020-05-01'), ['WH/ADJ/00001 b'])
  assert.deepEqual((await refs('from=2020-05-02')).length, 3)
  assert.deepEqual(await refs(`productId=${b.id}&locationId=LOC-LOSS`), ['WH/ADJ/00001 b'])
  for (const field of ['doneAt', 'quantity', 'reference']) await expectSortable((p) => org.get(p), '/inventory/moves', field)
  await expectListQueryRules((p) => org.get(p), '/inventory/moves', 'product')
  expectStatus(await org.get('/inventory/moves?productId=nope'), 400)
  expectStatus(await org.get('/inventory/moves?from=2026-01-02&to=2026-01-01'), 422)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test("a location's type cannot change once it holds stock or is named by a transfer (409); such a location cannot be deleted (409)", async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const bin = await locationOf(org, { code: 'BIN-1' })
  expectStatus(await org.patch(`/inventory/locations/${bin.id}`, { type: 'customer' }), 200)
  expectStatus(await org.patch(`/inventory/locations/${bin.id}`, { type: 'internal' }), 200)
  await receive(org, a.id, 2, bin.id)
  expectStatus(await org.patch(`/inventory/locations/${bin.id}`, { type: 'customer' }), 409, 'its type cannot change')
  expectStatus(await org.patch(`/inventory/locations/${bin.id}`, { type: 'internal', name: 'Same type' }), 200)
  expectStatus(await org.del(`/inventory/locations/${bin.id}`), 409)
  const fresh = await locationOf(org, { code: 'BIN-2' })
  await createTransfer(org, 'internal', 'LOC-STOCK', fresh.id, [{ productId: a.id, demandQty: 1 }])
  expectStatus(await org.patch(`/inventory/locations/${fresh.id}`, { type: 'production' }), 409)
  expectStatus(await org.patch('/inventory/locations/LOC-NOPE', { type: 'production' }), 404)
  // A product with moves cannot be deleted either.
  expectStatus(await org.del(`/products/${a.id}`), 409)
})

test('roles: admin and member only; 401 without credential; 404 across organizations', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const tr = await createTransfer(org, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: a.id, demandQty: 1 }])
  const adj = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 1 }] }), 201)
  const transferBody = { type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK', moves: [{ productId: a.id, demandQty: 1 }] }
  const adjBody = { locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 1 }] }
  const routes = [
    ['GET', '/inventory/products'], ['GET', `/inventory/products/${a.id}/stock`], ['GET', '/inventory/transfers'], ['POST', '/inventory/transfers', transferBody],
    ['GET', `/inventory/transfers/${tr.id}`], ['POST', `/inventory/transfers/${tr.id}/confirm`], ['POST', `/inventory/transfers/${tr.id}/validate`, {}],
    ['POST', `/inventory/transfers/${tr.id}/cancel`], ['GET', '/inventory/adjustments'], ['POST', '/inventory/adjustments', adjBody],
    ['GET', `/inventory/adjustments/${adj.id}`], ['GET', '/inventory/moves'],
  ] as const
  for (const [method, path, body] of routes) {
    expectStatus(await call(t.app, method, path, { body }), 401)
    for (const role of ['customer', 'support', 'agent'] as const) expectStatus(await call(t.app, method, path, { body, token: await org.as(role) }), 403)
  }
  const member = await org.as('member')
  const made = expectStatus(await org.post('/inventory/transfers', transferBody, member), 201)
  expectStatus(await org.post(`/inventory/transfers/${made.id}/validate`, {}, member), 200)
  expectStatus(await org.post('/inventory/adjustments', adjBody, member), 201)
  expectStatus(await org.get('/inventory/products', member), 200)

  const stranger = await createOrg(t.app)
  for (const path of [`/inventory/transfers/${tr.id}`, `/inventory/adjustments/${adj.id}`, `/inventory/products/${a.id}/stock`]) expectStatus(await stranger.get(path), 404)
  for (const action of ['confirm', 'validate', 'cancel']) expectStatus(await stranger.post(`/inventory/transfers/${tr.id}/${action}`), 404)
  assert.equal(expectStatus(await org.get(`/inventory/transfers/${tr.id}`), 200).status, 'draft')
  expectPage(await stranger.get('/inventory/transfers'), { total: 0, page: 1, limit: 20 })
  expectPage(await stranger.get('/inventory/moves'), { total: 0, page: 1, limit: 20 })
  expectPage(await stranger.get('/inventory/products'), { total: 0, page: 1, limit: 20 })
  // A stranger's transfer may not name our product.
  expectStatus(await stranger.post('/inventory/transfers', transferBody), 422, 'does not name a product')
})

test('the public face for purchase: createTransfer in ready (reserving at an internal source only), validateTransfer with doneAt, cancelTransfer, getTransfer, in the caller transaction', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org)
  const service = await createProduct(org, { type: 'service' })
  const inventory = t.app.services.inventory!
  const db = t.app.ctx.db
  const receipt = await db.tx((q) => inventory.createTransfer(q, org.id, { type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK', moves: [{ productId: a.id, demandQty: 1 }], origin: 'PO/2026/00001' }, { status: 'ready' }))
  assert.deepEqual([receipt.status, receipt.reference, receipt.origin, receipt.moves[0].reservedQty], ['ready', 'WH/IN/00001', 'PO/2026/00001', 0])
  const doneAt = new Date('2026-02-03T04:05:06.000Z')
  const done = await db.tx((q) => inventory.validateTransfer(q, org.id, receipt.id, { moves: [{ productId: a.id, doneQty: 0.9 }], doneAt }))
  assert.equal(done.doneAt, doneAt.toISOString())
  const back = await inventory.getTransfer(org.id, done.backorder!.id)
  // Quantities are exact decimals: 1 - 0.9 is 0.1.
  assert.deepEqual([back.status, back.moves[0].demandQty], ['ready', 0.1])
  assert.equal(expectStatus(await org.get(`/inventory/moves?reference=WH/IN/00001`), 200).data[0].doneAt, doneAt.toISOString())
  await db.tx((q) => inventory.validateTransfer(q, org.id, back.id))
  assert.equal((await stockOf(org, a.id)).onHand, 1)

  // Ready from an internal source reserves; short stock throws INSUFFICIENT_STOCK and the caller's transaction makes nothing.
  const ready = await db.tx((q) => inventory.createTransfer(q, org.id, { type: 'delivery', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-CUSTOMER', moves: [{ productId: a.id, demandQty: 0.7 }] }, { status: 'ready' }))
  assert.deepEqual([ready.status, ready.moves[0].reservedQty, (await stockOf(org, a.id)).available], ['ready', 0.7, 0.3])
  await assert.rejects(db.tx((q) => inventory.createTransfer(q, org.id, { type: 'delivery', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-CUSTOMER', moves: [{ productId: a.id, demandQty: 0.4 }] }, { status: 'ready' })), { code: 'INSUFFICIENT_STOCK' })
  expectPage(await org.get('/inventory/transfers?type=delivery'), { total: 1, page: 1, limit: 20 })
  await assert.rejects(db.tx((q) => inventory.createTransfer(q, org.id, { type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK', moves: [{ productId: service.id, demandQty: 1 }] })), { code: 'VALIDATION_FAILED' })
  const cancelled = await db.tx((q) => inventory.cancelTransfer(q, org.id, ready.id))
  assert.equal(cancelled.status, 'cancelled')
  await assert.rejects(db.tx((q) => inventory.cancelTransfer(q, org.id, ready.id)), { code: 'INVALID_STATE' })
  await assert.rejects(inventory.getTransfer(org.id, '00000000-0000-4000-8000-000000000000'), { code: 'NOT_FOUND' })
  assert.deepEqual([(await stockOf(org, a.id)).reserved, (await stockOf(org, a.id)).available], [0, 1])
  await assertLedgerBalances(t.app.ctx.db, org.id)
})
