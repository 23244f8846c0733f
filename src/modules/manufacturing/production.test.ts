// Production and work orders (issue 13): every transition legal and illegal,
// the ledger after confirm, produce and close (test/helpers/ledger.ts),
// phantom explosion, and the error bodies of docs/manufacturing.md "Errors".
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { assertLedgerBalances } from '../../../test/helpers/ledger.ts'
import { afterTimestamp, expectListQueryRules, expectPage, expectSortable } from '../../../test/helpers/lists.ts'
import { createBom, createItem, createProductionOrder, stockUp } from '../../../test/helpers/manufacturing.ts'
import { createProduct } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const YEAR = new Date().getUTCFullYear()

async function stockOf(o: TestOrg, productId: string) {
  const res = expectStatus(await o.get(`/inventory/products?limit=100&search=${encodeURIComponent((await o.get(`/products/${productId}`)).body.name)}`), 200)
  const row = res.data.find((p: { productId: string }) => p.productId === productId)
  return row ? { onHand: row.onHand as number, reserved: row.reserved as number } : { onHand: 0, reserved: 0 }
}
const events = async (o: TestOrg, type: string) =>
  (await t.app.ctx.db.query<{ resource_id: string; data: { object: any } }>('SELECT resource_id, data FROM domain_events WHERE organization_id = $1 AND type = $2 ORDER BY seq', [o.id, type])).rows
const post = (o: TestOrg, path: string, body?: unknown) => o.post(path, body)

/** A product made from a (10 per 4 units: 2.5 each) and b (0.5 per 4 units), with two operations. */
async function tableBom(o: TestOrg) {
  const product = await createItem(o, { name: 'Table', uom: 'unit' })
  const a = await createItem(o, { name: 'Plank' })
  const b = await createItem(o, { name: 'Glue' })
  const bom = await createBom(o, {
    productId: product.id, quantity: 4,
    components: [{ productId: a.id, quantity: 10 }, { productId: b.id, quantity: 0.5 }],
    operations: [{ name: 'Cut', workcenter: 'Saw', durationMinutes: 10 }, { name: 'Assemble', workcenter: 'Bench', durationMinutes: 25.5 }],
  })
  return { product, a, b, bom }
}

describe('production orders', () => {
  test('POST /manufacturing/orders: 201 draft MO/<year>/<seq>, needs = component x quantity / BOM quantity, work orders from the operations', async () => {
    const o = await createOrg(t.app)
    const { product, a, b, bom } = await tableBom(o)
    const created = expectStatus(await o.post('/manufacturing/orders', { productId: product.id, quantity: 10, scheduledDate: '2026-12-01' }), 201)
    assert.deepEqual({ ...created, id: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined, reference: `MO/${YEAR}/00001`, product: { id: product.id, name: 'Table' }, bomId: bom.id, quantity: 10, producedQty: 0,
      uom: 'unit', status: 'draft', scheduledDate: '2026-12-01T00:00:00.000Z',
      // 10 x 10 / 4 = 25 planks; 0.5 x 10 / 4 = 1.25 glue.
      components: [{ productId: a.id, name: 'Plank', quantity: 25, consumedQty: 0 }, { productId: b.id, name: 'Glue', quantity: 1.25, consumedQty: 0 }],
      componentTransfer: null, productions: [], confirmedAt: null, closedAt: null, organizationId: o.id, createdAt: undefined, updatedAt: undefined,
    })
    assert.deepEqual(expectStatus(await o.get(`/manufacturing/orders/${created.id}`), 200), created)
    const wos = expectStatus(await o.get(`/manufacturing/orders/${created.id}/work-orders`), 200)
    assert.deepEqual(wos, {
      data: [
        { id: 'wo_1', productionOrderId: created.id, name: 'Cut', workcenter: 'Saw', expectedDurationMinutes: 10, status: 'pending', startedAt: null, finishedAt: null, durationMinutes: null, notes: null },
        { id: 'wo_2', productionOrderId: created.id, name: 'Assemble', workcenter: 'Bench', expectedDurationMinutes: 25.5, status: 'pending', startedAt: null, finishedAt: null, durationMinutes: null, notes: null },
      ],
      meta: { total: 2, page: 1, limit: 20, totalPages: 1, nextCursor: null },
    })
    assert.deepEqual(expectStatus(await o.get(`/manufacturing/orders/${created.id}/work-orders?limit=1&page=2`), 200).data.map((w: any) => w.id), ['wo_2'])
    // The next order takes the next numbers; scheduledDate defaults to now.
    const before = new Date().toISOString()
    const second = expectStatus(await o.post('/manufacturing/orders', { productId: product.id, bomId: bom.id, quantity: 1 }), 201)
    assert.equal(second.reference, `MO/${YEAR}/00002`)
    assert.ok(second.scheduledDate >= before.slice(0, 19))
    assert.deepEqual(expectStatus(await o.get(`/manufacturing/orders/${second.id}/work-orders`), 200).data.map((w: any) => w.id), ['wo_3', 'wo_4'])
    // The order keeps what it was made from: a changed BOM leaves it as it was.
    expectStatus(await o.patch(`/manufacturing/boms/${bom.id}`, { components: [{ productId: a.id, quantity: 1 }], operations: [] }), 200)
    assert.deepEqual(expectStatus(await o.get(`/manufacturing/orders/${created.id}`), 200).components, created.components)
  })

  test('bomId defaults to the first BOM of the product; 422 for bad references, non-storable products and a bad body; 404 for an unknown order', async () => {
    const product = await createItem(org)
    const first = await createBom(org, { productId: product.id })
    await createBom(org, { productId: product.id })
    assert.equal((await createProductionOrder(org, { productId: product.id })).bomId, first.id)
    const otherBom = await createBom(org)
    const bare = await createItem(org)
    // A BOM refuses a component that is not storable: this one became a consumable after its BOM was saved.
    const consumable = await createItem(org)
    const service = await createProduct(org, { type: 'service' })
    const withConsumable = await createBom(org, { components: [{ productId: consumable.id, quantity: 1 }] })
    expectStatus(await org.patch(`/products/${consumable.id}`, { type: 'consumable' }), 200)
    const consumableBom = await createBom(org, { productId: service.id })
    // 2 per 1e-9 units: 2e9 per unit.
    const tiny = await createBom(org, { quantity: 1e-9, components: [{ productId: (await createItem(org)).id, quantity: 2 }] })
    const cases: Array<[unknown, string]> = [
      [{ productId: UNKNOWN, quantity: 1 }, 'productId does not name a product of this organization'],
      [{ productId: bare.id, quantity: 1 }, `productId: ${bare.name} has no BOM`],
      [{ productId: product.id, bomId: UNKNOWN, quantity: 1 }, 'bomId does not name a BOM of this organization'],
      [{ productId: product.id, bomId: otherBom.id, quantity: 1 }, `bomId: BOM ${otherBom.name} makes ${otherBom.product.name}, not ${product.name}`],
      [{ productId: withConsumable.product.id, quantity: 1 }, `components: ${consumable.name} is a consumable product; only storable products move through stock`],
      [{ productId: service.id, bomId: consumableBom.id, quantity: 1 }, `productId: ${service.name} is a service product`],
      [{ productId: product.id, quantity: 0 }, 'quantity'],
      [{ productId: product.id, quantity: -1 }, 'quantity'],
      [{ productId: product.id }, 'quantity'],
      [{ quantity: 1 }, 'productId'],
      [{ productId: product.id, quantity: 1, scheduledDate: 'soon' }, 'scheduledDate'],
      [{ productId: product.id, quantity: 1, status: 'done' }, 'status is not allowed'],
      [{ productId: tiny.product.id, quantity: 1_000_000 }, `would need 2000000000000000, above the limit of 1000000000 per order`],
    ]
    for (const [body, message] of cases) expectStatus(await org.post('/manufacturing/orders', body), 422, message)
    for (const path of ['', '/work-orders']) expectStatus(await org.get(`/manufacturing/orders/${UNKNOWN}${path}`), 404, 'Production order not found')
    for (const action of ['confirm', 'produce', 'close', 'work-orders/wo_1/start', 'work-orders/wo_1/done']) {
      expectStatus(await post(org, `/manufacturing/orders/${UNKNOWN}/${action}`, action === 'produce' ? { qty: 1 } : undefined), 404, 'Production order not found')
    }
    expectStatus(await org.get('/manufacturing/orders/nope'), 400)
  })

  test('phantom kits explode into their components, recursively, when the order is made; confirm and produce move those, never the kit', async () => {
    const o = await createOrg(t.app)
    const p = await createItem(o, { name: 'Bike' })
    const kit = await createItem(o, { name: 'Wheel kit' })
    const x = await createItem(o, { name: 'Spoke' })
    const y = await createItem(o, { name: 'Hub kit' })
    const z = await createItem(o, { name: 'Bearing' })
    // A wheel kit (2 of them) is 3 spokes and 1 hub kit; a hub kit is 0.5 bearing.
    await createBom(o, { productId: kit.id, type: 'phantom', quantity: 2, components: [{ productId: x.id, quantity: 3 }, { productId: y.id, quantity: 1 }] })
    await createBom(o, { productId: y.id, type: 'phantom', components: [{ productId: z.id, quantity: 0.5 }] })
    const bom = await createBom(o, { productId: p.id, components: [{ productId: kit.id, quantity: 4 }, { productId: x.id, quantity: 1 }] })
    const order = await createProductionOrder(o, { productId: p.id, quantity: 5 })
    // 5 bikes: 20 wheel kits = 30 spokes + 10 hub kits = 5 bearings; plus 5 spokes directly.
    assert.deepEqual(order.components.map((c: any) => [c.name, c.quantity]), [['Spoke', 35], ['Bearing', 5]])
    await stockUp(o, x.id, 40)
    await stockUp(o, z.id, 5)
    const confirmed = expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 200)
    const transfer = expectStatus(await o.get(`/inventory/transfers/${confirmed.componentTransfer.id}`), 200)
    assert.deepEqual(transfer.moves.map((m: any) => [m.productId, m.demandQty, m.reservedQty]), [[x.id, 35, 35], [z.id, 5, 5]])
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 5 }), 200)
    assert.deepEqual([await stockOf(o, x.id), await stockOf(o, z.id), await stockOf(o, p.id), await stockOf(o, kit.id)],
      [{ onHand: 5, reserved: 0 }, { onHand: 0, reserved: 0 }, { onHand: 5, reserved: 0 }, { onHand: 0, reserved: 0 }])
    await assertLedgerBalances(t.app.ctx.db, o.id)

    // A cycle that slipped in (two concurrent BOM saves are not serialized): bearing as a kit of a wheel kit.
    const loop = await createBom(o, { productId: z.id, type: 'phantom', components: [{ productId: x.id, quantity: 1 }] })
    await t.app.ctx.db.query('UPDATE bom_components SET product_id = $1 WHERE bom_id = $2', [kit.id, loop.id])
    const res = expectStatus(await o.post('/manufacturing/orders', { productId: p.id, bomId: bom.id, quantity: 1 }), 422)
    assert.match(res.message[0], new RegExp(`^bomId: phantom BOM cycle ${p.id} -> ${kit.id} -> ${y.id} -> ${z.id} -> ${kit.id} `))
  })

  test('confirm reserves every need at LOC-STOCK; short stock is 400 naming every short product and reserves nothing; confirm twice is 409', async () => {
    const o = await createOrg(t.app)
    const { a, b, product } = await tableBom(o)
    const order = await createProductionOrder(o, { productId: product.id, quantity: 10 })
    await stockUp(o, a.id, 30)
    await stockUp(o, b.id, 1)
    const c = await createItem(o, { name: 'Varnish' })
    // b is short (1 of 1.25).
    const short = expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 400, 'Insufficient stock for Glue')
    assert.equal(short.code, 'INSUFFICIENT_STOCK')
    assert.equal(short.error, 'Bad Request')
    assert.deepEqual(await stockOf(o, a.id), { onHand: 30, reserved: 0 })
    assert.equal(expectStatus(await o.get(`/manufacturing/orders/${order.id}`), 200).status, 'draft')
    // Two short products: both named.
    const two = await createProductionOrder(o, { bomId: (await createBom(o, { productId: product.id, components: [{ productId: b.id, quantity: 2 }, { productId: a.id, quantity: 1 }, { productId: c.id, quantity: 1 }] })).id, productId: product.id })
    expectStatus(await post(o, `/manufacturing/orders/${two.id}/confirm`), 400, 'Insufficient stock for Glue, Varnish')
    assert.deepEqual(await stockOf(o, a.id), { onHand: 30, reserved: 0 })

    await stockUp(o, b.id, 0.25)
    const confirmed = expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 200)
    assert.equal(confirmed.status, 'confirmed')
    assert.ok(confirmed.confirmedAt)
    assert.match(confirmed.componentTransfer.reference, /^WH\/INT\/\d{5}$/)
    const transfer = expectStatus(await o.get(`/inventory/transfers/${confirmed.componentTransfer.id}`), 200)
    assert.deepEqual([transfer.status, transfer.type, transfer.sourceLocationId, transfer.destinationLocationId, transfer.origin], ['ready', 'internal', 'LOC-STOCK', 'LOC-PRODUCTION', confirmed.reference])
    assert.deepEqual([await stockOf(o, a.id), await stockOf(o, b.id)], [{ onHand: 30, reserved: 25 }, { onHand: 1.25, reserved: 1.25 }])
    const [event] = await events(o, 'production_order.confirmed')
    assert.deepEqual(event.data.object, confirmed)
    const again = expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 409, `Production order ${order.reference} is already confirmed`)
    assert.deepEqual([again.code, again.error], ['STATE_CONFLICT', 'Conflict'])
    await assertLedgerBalances(t.app.ctx.db, o.id)
  })

  test('produce: repeatable, consumes the components of qty and puts qty on hand; above the open quantity 422; done at the quantity', async () => {
    const o = await createOrg(t.app)
    const { a, b, product } = await tableBom(o)
    const order = await createProductionOrder(o, { productId: product.id, quantity: 10 })
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 1 }), 409, 'is a draft; confirm it first')
    await stockUp(o, a.id, 30)
    await stockUp(o, b.id, 2)
    const confirmed = expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 200)

    // 4 of 10: 4/10 of 25 planks = 10, of 1.25 glue = 0.5.
    const first = expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 4, lotNumber: 'LOT-1' }), 200)
    assert.deepEqual([first.status, first.producedQty], ['in_progress', 4])
    assert.deepEqual(first.components.map((c: any) => c.consumedQty), [10, 0.5])
    assert.equal(first.productions.length, 1)
    assert.deepEqual([first.productions[0].quantity, first.productions[0].lotNumber, first.productions[0].consumptionTransferId], [4, 'LOT-1', confirmed.componentTransfer.id])
    assert.notEqual(first.componentTransfer.id, confirmed.componentTransfer.id)
    assert.deepEqual([await stockOf(o, a.id), await stockOf(o, b.id), await stockOf(o, product.id)],
      [{ onHand: 20, reserved: 15 }, { onHand: 1.5, reserved: 0.75 }, { onHand: 4, reserved: 0 }])
    const finished = expectStatus(await o.get(`/inventory/transfers/${first.productions[0].finishedTransferId}`), 200)
    assert.deepEqual([finished.status, finished.sourceLocationId, finished.destinationLocationId, finished.moves[0].doneQty], ['done', 'LOC-PRODUCTION', 'LOC-STOCK', 4])
    const moves = expectStatus(await o.get(`/inventory/moves?locationId=LOC-PRODUCTION&limit=100`), 200).data
    assert.deepEqual(moves.map((m: any) => [m.product.id, m.sourceLocationId, m.destinationLocationId, m.quantity]).sort(), [
      [a.id, 'LOC-STOCK', 'LOC-PRODUCTION', 10], [b.id, 'LOC-STOCK', 'LOC-PRODUCTION', 0.5], [product.id, 'LOC-PRODUCTION', 'LOC-STOCK', 4],
    ].sort())
    await assertLedgerBalances(t.app.ctx.db, o.id)

    const over = expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 6.5 }), 422, `qty 6.5 exceeds the open quantity 6 of ${order.reference}`)
    assert.deepEqual([over.code, over.error], ['VALIDATION_FAILED', 'Unprocessable Entity'])
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 0 }), 422, 'qty')
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, {}), 422, 'qty')
    // 5.9 more: 9.9 of 10 produced.
    const second = expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 5.9 }), 200)
    assert.deepEqual([second.status, second.producedQty, second.components.map((c: any) => c.consumedQty)], ['in_progress', 9.9, [24.75, 1.2375]])
    const done = expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 0.1 }), 200)
    assert.deepEqual([done.status, done.producedQty, done.componentTransfer, done.components.map((c: any) => c.consumedQty)], ['done', 10, null, [25, 1.25]])
    assert.ok(done.closedAt)
    assert.deepEqual([await stockOf(o, a.id), await stockOf(o, b.id), await stockOf(o, product.id)],
      [{ onHand: 5, reserved: 0 }, { onHand: 0.75, reserved: 0 }, { onHand: 10, reserved: 0 }])
    const [event] = await events(o, 'production_order.done')
    assert.deepEqual(event.data.object, done)
    assert.deepEqual(event.data.object, expectStatus(await o.get(`/manufacturing/orders/${order.id}`), 200))
    await assertLedgerBalances(t.app.ctx.db, o.id)
    // Terminal: every operation is 409.
    for (const [action, body] of [['confirm'], ['produce', { qty: 1 }], ['close'], ['work-orders/wo_1/start'], ['work-orders/wo_1/done']] as const) {
      const res = expectStatus(await post(o, `/manufacturing/orders/${order.id}/${action}`, body), 409, `Production order ${order.reference} is already done`)
      assert.equal(res.code, 'STATE_CONFLICT')
    }
  })

  test('needs that do not divide evenly: each produce consumes its cumulative share, the last one exactly what is left', async () => {
    const o = await createOrg(t.app)
    const product = await createItem(o)
    const c = await createItem(o)
    const bom = await createBom(o, { productId: product.id, quantity: 3, components: [{ productId: c.id, quantity: 1 }], operations: [] })
    const order = await createProductionOrder(o, { productId: product.id, bomId: bom.id, quantity: 1 })
    assert.equal(order.components[0].quantity, 0.333333)
    await stockUp(o, c.id, 1)
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 200)
    // Half of 0.333333 is 0.1666665, rounded half away from zero to 0.166667; the rest is 0.166666.
    assert.equal(expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 0.5 }), 200).components[0].consumedQty, 0.166667)
    const done = expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 0.5 }), 200)
    assert.deepEqual([done.status, done.components[0].consumedQty], ['done', 0.333333])
    assert.deepEqual(await stockOf(o, c.id), { onHand: 0.666667, reserved: 0 })
    await assertLedgerBalances(t.app.ctx.db, o.id)
  })

  test('a BOM without components: confirm reserves nothing, produce only puts the product on hand', async () => {
    const o = await createOrg(t.app)
    const product = await createItem(o)
    const bom = await createBom(o, { productId: product.id, components: [], operations: [] })
    const order = await createProductionOrder(o, { productId: product.id, bomId: bom.id, quantity: 3 })
    assert.deepEqual(order.components, [])
    assert.deepEqual(expectStatus(await o.get(`/manufacturing/orders/${order.id}/work-orders`), 200), { data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0, nextCursor: null } })
    const confirmed = expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 200)
    assert.deepEqual([confirmed.status, confirmed.componentTransfer], ['confirmed', null])
    const done = expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 3, lotNumber: 'L-9' }), 200)
    assert.deepEqual([done.status, done.productions[0].consumptionTransferId, done.productions[0].lotNumber], ['done', null, 'L-9'])
    assert.deepEqual(await stockOf(o, product.id), { onHand: 3, reserved: 0 })
    await assertLedgerBalances(t.app.ctx.db, o.id)
  })

  test('close: a draft or an order with nothing produced is cancelled, one with production is done; reservations are released', async () => {
    const o = await createOrg(t.app)
    const { a, b, product } = await tableBom(o)
    await stockUp(o, a.id, 100)
    await stockUp(o, b.id, 10)
    const draft = await createProductionOrder(o, { productId: product.id, quantity: 4 })
    const cancelled = expectStatus(await post(o, `/manufacturing/orders/${draft.id}/close`), 200)
    assert.deepEqual([cancelled.status, cancelled.producedQty, cancelled.confirmedAt], ['cancelled', 0, null])
    assert.ok(cancelled.closedAt)
    assert.deepEqual((await events(o, 'production_order.cancelled')).map((e) => e.data.object), [cancelled])

    const confirmed = await createProductionOrder(o, { productId: product.id, quantity: 4 })
    const c = expectStatus(await post(o, `/manufacturing/orders/${confirmed.id}/confirm`), 200)
    assert.deepEqual(await stockOf(o, a.id), { onHand: 100, reserved: 10 })
    const closed = expectStatus(await post(o, `/manufacturing/orders/${confirmed.id}/close`, {}), 200)
    assert.deepEqual([closed.status, closed.componentTransfer], ['cancelled', null])
    assert.equal(expectStatus(await o.get(`/inventory/transfers/${c.componentTransfer.id}`), 200).status, 'cancelled')
    assert.deepEqual(await stockOf(o, a.id), { onHand: 100, reserved: 0 })

    const partial = await createProductionOrder(o, { productId: product.id, quantity: 8 })
    expectStatus(await post(o, `/manufacturing/orders/${partial.id}/confirm`), 200)
    expectStatus(await post(o, `/manufacturing/orders/${partial.id}/produce`, { qty: 2 }), 200)
    assert.deepEqual(await stockOf(o, a.id), { onHand: 95, reserved: 15 })
    const done = expectStatus(await post(o, `/manufacturing/orders/${partial.id}/close`), 200)
    assert.deepEqual([done.status, done.producedQty, done.componentTransfer], ['done', 2, null])
    assert.deepEqual([await stockOf(o, a.id), await stockOf(o, b.id), await stockOf(o, product.id)], [{ onHand: 95, reserved: 0 }, { onHand: 9.75, reserved: 0 }, { onHand: 2, reserved: 0 }])
    assert.deepEqual((await events(o, 'production_order.done')).map((e) => e.data.object), [done])
    await assertLedgerBalances(t.app.ctx.db, o.id)
    for (const id of [draft.id, confirmed.id]) {
      expectStatus(await post(o, `/manufacturing/orders/${id}/close`), 409, 'is already cancelled')
      expectStatus(await post(o, `/manufacturing/orders/${id}/confirm`), 409, 'is already cancelled')
      expectStatus(await post(o, `/manufacturing/orders/${id}/produce`, { qty: 1 }), 409, 'is already cancelled')
    }
  })

  test('a component transfer cancelled in inventory: produce is 409, close still closes', async () => {
    const o = await createOrg(t.app)
    const { a, b, product } = await tableBom(o)
    await stockUp(o, a.id, 100)
    await stockUp(o, b.id, 10)
    const order = await createProductionOrder(o, { productId: product.id, quantity: 4 })
    const confirmed = expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 200)
    expectStatus(await post(o, `/inventory/transfers/${confirmed.componentTransfer.id}/cancel`), 200)
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/produce`, { qty: 1 }), 409, `The component transfer ${confirmed.componentTransfer.reference} of ${order.reference} was cancelled in inventory`)
    assert.equal(expectStatus(await post(o, `/manufacturing/orders/${order.id}/close`), 200).status, 'cancelled')
    await assertLedgerBalances(t.app.ctx.db, o.id)
  })

  test('DELETE of a BOM is 409 while an open order uses it; once the order is closed it is 204 and the order keeps bomId null', async () => {
    const order = await createProductionOrder(org)
    const res = expectStatus(await org.del(`/manufacturing/boms/${order.bomId}`), 409, 'BOM is used by a production order that is not done or cancelled')
    assert.equal(res.code, 'STATE_CONFLICT')
    expectStatus(await post(org, `/manufacturing/orders/${order.id}/close`), 200)
    assert.equal((await org.del(`/manufacturing/boms/${order.bomId}`)).status, 204)
    assert.equal(expectStatus(await org.get(`/manufacturing/orders/${order.id}`), 200).bomId, null)
  })

  test('GET /manufacturing/orders: envelope, status, productId, from/to and search filters, sorts, paging rules', async () => {
    const o = await createOrg(t.app)
    const bom = await createBom(o)
    const a = await createProductionOrder(o, { productId: bom.product.id, scheduledDate: '2026-01-10' })
    await afterTimestamp(new Date().toISOString())
    const b = await createProductionOrder(o, { scheduledDate: '2026-02-10' })
    await afterTimestamp(new Date().toISOString())
    const c = await createProductionOrder(o, { productId: bom.product.id, scheduledDate: '2026-03-10' })
    expectStatus(await post(o, `/manufacturing/orders/${c.id}/close`), 200)
    const ids = (res: any) => res.map((x: any) => x.id)
    assert.deepEqual(ids(expectPage(await o.get('/manufacturing/orders'), { total: 3, page: 1, limit: 20 })), [c.id, b.id, a.id])
    assert.deepEqual(ids(expectPage(await o.get('/manufacturing/orders?status=draft'), { total: 2, page: 1, limit: 20 })), [b.id, a.id])
    assert.deepEqual(ids(expectPage(await o.get('/manufacturing/orders?status=cancelled'), { total: 1, page: 1, limit: 20 })), [c.id])
    expectPage(await o.get('/manufacturing/orders?status=done'), { total: 0, page: 1, limit: 20 })
    assert.deepEqual(ids(expectPage(await o.get(`/manufacturing/orders?productId=${bom.product.id}`), { total: 2, page: 1, limit: 20 })), [c.id, a.id])
    assert.deepEqual(ids(expectPage(await o.get('/manufacturing/orders?from=2026-02-10'), { total: 2, page: 1, limit: 20 })), [c.id, b.id])
    assert.deepEqual(ids(expectPage(await o.get('/manufacturing/orders?from=2026-01-01&to=2026-02-10'), { total: 2, page: 1, limit: 20 })), [b.id, a.id])
    assert.deepEqual(ids(expectPage(await o.get(`/manufacturing/orders?search=${encodeURIComponent(b.reference)}`), { total: 1, page: 1, limit: 20 })), [b.id])
    assert.deepEqual(ids(expectPage(await o.get('/manufacturing/orders?sortBy=scheduledDate&sortOrder=asc'), { total: 3, page: 1, limit: 20 })), [a.id, b.id, c.id])
    expectPage(await o.get('/manufacturing/orders?limit=2&page=2'), { total: 3, page: 2, limit: 2 })
    for (const field of ['reference', 'scheduledDate', 'createdAt', 'updatedAt']) await expectSortable((p) => o.get(p), '/manufacturing/orders', field)
    await expectListQueryRules((p) => o.get(p), '/manufacturing/orders', 'quantity')
    expectStatus(await o.get('/manufacturing/orders?status=open'), 400)
    expectStatus(await o.get('/manufacturing/orders?from=2026-03-01&to=2026-02-01'), 422, 'from must not be after to')
    expectPage(await (await createOrg(t.app)).get('/manufacturing/orders'), { total: 0, page: 1, limit: 20 })
  })
})

describe('work orders', () => {
  test('start: pending only, records startedAt, the first start moves a confirmed order to in_progress; done: in_progress only, records finishedAt, duration and notes', async () => {
    const o = await createOrg(t.app)
    const { product } = await tableBom(o)
    const order = await createProductionOrder(o, { productId: product.id })
    const [first, second] = expectStatus(await o.get(`/manufacturing/orders/${order.id}/work-orders`), 200).data
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${first.id}/start`), 409, 'is a draft; confirm it before starting its work orders')
    for (const c of order.components) await stockUp(o, c.productId, c.quantity)
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/confirm`), 200)
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${first.id}/done`), 409, `Work order ${first.id} is not started`)
    const before = new Date().toISOString()
    const started = expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${first.id}/start`), 200)
    assert.deepEqual({ ...started, startedAt: undefined }, { ...first, status: 'in_progress', startedAt: undefined })
    assert.ok(started.startedAt >= before)
    assert.equal(expectStatus(await o.get(`/manufacturing/orders/${order.id}`), 200).status, 'in_progress')
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${first.id}/start`), 409, `Work order ${first.id} is already in_progress`)
    const done = expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${first.id}/done`, { durationMinutes: 42.5, notes: 'Went fine' }), 200)
    assert.deepEqual({ ...done, finishedAt: undefined }, { ...started, status: 'done', durationMinutes: 42.5, notes: 'Went fine', finishedAt: undefined })
    assert.ok(done.finishedAt >= done.startedAt)
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${first.id}/done`), 409, `Work order ${first.id} is already done`)
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${first.id}/start`), 409, `Work order ${first.id} is already done`)
    // A second start leaves the order in_progress; done without a body measures the minutes since the start.
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${second.id}/start`), 200)
    const measured = expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${second.id}/done`), 200)
    assert.ok(measured.durationMinutes >= 0 && measured.durationMinutes < 5)
    assert.equal(measured.notes, null)
    assert.deepEqual(expectStatus(await o.get(`/manufacturing/orders/${order.id}/work-orders`), 200).data.map((w: any) => w.status), ['done', 'done'])
    // Bad bodies and ids.
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/${second.id}/done`, { durationMinutes: -1 }), 422, 'durationMinutes')
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/wo_999999/start`), 404, 'Work order not found')
    expectStatus(await post(o, `/manufacturing/orders/${order.id}/work-orders/nope/start`), 400)
    // Another order's work order is not this order's.
    const other = await createProductionOrder(o)
    expectStatus(await post(o, `/manufacturing/orders/${other.id}/work-orders/${first.id}/start`), 404, 'Work order not found')
    // A cancelled order's work orders: 409.
    const [pending] = expectStatus(await o.get(`/manufacturing/orders/${other.id}/work-orders`), 200).data
    expectStatus(await post(o, `/manufacturing/orders/${other.id}/close`), 200)
    expectStatus(await post(o, `/manufacturing/orders/${other.id}/work-orders/${pending.id}/start`), 409, 'is already cancelled')
    expectStatus(await post(o, `/manufacturing/orders/${other.id}/work-orders/${pending.id}/done`), 409, 'is already cancelled')
    await assertLedgerBalances(t.app.ctx.db, o.id)
  })

  test("another organization's orders and work orders are 404", async () => {
    const order = await createProductionOrder(org)
    const other = await createOrg(t.app)
    expectStatus(await other.get(`/manufacturing/orders/${order.id}`), 404)
    expectStatus(await other.get(`/manufacturing/orders/${order.id}/work-orders`), 404)
    expectStatus(await post(other, `/manufacturing/orders/${order.id}/confirm`), 404)
    expectStatus(await post(other, `/manufacturing/orders/${order.id}/close`), 404)
    expectStatus(await post(other, `/manufacturing/orders/${order.id}/work-orders/wo_1/start`), 404)
    assert.equal(expectStatus(await org.get(`/manufacturing/orders/${order.id}`), 200).status, 'draft')
  })
})
