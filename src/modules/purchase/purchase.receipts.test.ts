import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { assertLedgerBalances } from '../../../test/helpers/ledger.ts'
import { createPurchaseOrder, createRfq, createStorable, createVendor } from '../../../test/helpers/purchase.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const DAY = 24 * 3600 * 1000
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Quantity of a product at LOC-STOCK, read through GET /inventory/products/:id/stock (0 when absent). */
async function stockAt(o: TestOrg, productId: string, locationId = 'LOC-STOCK') {
  const rows = expectStatus(await o.get(`/inventory/products/${productId}/stock`), 200) as Array<{ locationId: string; quantity: number }>
  return rows.find((r) => r.locationId === locationId)?.quantity ?? 0
}

/** The done moves of a product, through GET /inventory/moves. */
async function movesOf(o: TestOrg, productId: string) {
  return expectStatus(await o.get(`/inventory/moves?productId=${productId}&limit=100&sortBy=doneAt&sortOrder=asc`), 200).data as any[]
}

/** A purchase order of two storable products: 10 of A at 150 cents and 4 of B at 1000 cents. */
async function twoLineOrder(o: TestOrg = org, extra: Record<string, unknown> = {}) {
  const a = await createStorable(o, { name: 'Part A' })
  const b = await createStorable(o, { name: 'Part B' })
  const po = await createPurchaseOrder(o, { lineItems: [{ productId: a.id, quantity: 10, unitPrice: 150 }, { productId: b.id, quantity: 4, unitPrice: 1000 }], ...extra })
  return { po, a: a.id, b: b.id }
}

describe('confirm creates the receipt', () => {
  test('a ready WH/IN transfer LOC-SUPPLIER -> LOC-STOCK with one move per line, its origin the PO reference; nothing on hand yet', async () => {
    const { po, a, b } = await twoLineOrder(org, { expectedArrival: '2026-12-10' })
    const receipt = expectStatus(await org.get(`/inventory/transfers/${po.pendingReceiptId}`), 200)
    assert.match(receipt.reference, /^WH\/IN\/\d{5}$/)
    assert.deepEqual(
      [receipt.type, receipt.status, receipt.sourceLocationId, receipt.destinationLocationId, receipt.origin, receipt.scheduledDate],
      ['receipt', 'ready', 'LOC-SUPPLIER', 'LOC-STOCK', po.reference, '2026-12-10T00:00:00.000Z'],
    )
    assert.deepEqual(receipt.moves.map((m: any) => [m.productId, m.demandQty, m.doneQty]).sort(), [[a, 10, 0], [b, 4, 0]].sort())
    assert.equal(await stockAt(org, a), 0)
    assert.deepEqual(await movesOf(org, a), [])
  })
})

describe('receive', () => {
  test('partial -> backorder -> full: quantities on the lines, stock at LOC-STOCK, moves dated, receiptStatus, the event', async () => {
    const { po, a, b } = await twoLineOrder()
    const firstReceipt = po.pendingReceiptId
    // 1. Part of A only, dated yesterday (a date means its start, UTC).
    const yesterday = dayOf(Date.now() - DAY)
    const r1 = expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { receiptDate: yesterday, lines: [{ productId: a, receivedQty: 6, notes: 'two boxes dented' }] }), 201)
    assert.deepEqual(r1, { receiptId: firstReceipt, transferReference: r1.transferReference, receivedLines: [{ productId: a, receivedQty: 6 }], backorderQty: 8 })
    assert.match(r1.transferReference, /^WH\/IN\/\d{5}$/)
    let now = expectStatus(await org.get(`/purchase/orders/${po.id}`), 200)
    assert.equal(now.receiptStatus, 'partial')
    assert.deepEqual(now.lineItems.map((l: any) => [l.productId, l.quantity, l.receivedQty]), [[a, 10, 6], [b, 4, 0]])
    assert.notEqual(now.pendingReceiptId, firstReceipt)
    assert.deepEqual(now.receipts.map((x: any) => [x.receiptId, x.transferReference, x.receiptDate, x.lines]), [
      [firstReceipt, r1.transferReference, `${yesterday}T00:00:00.000Z`, [{ productId: a, receivedQty: 6, notes: 'two boxes dented' }]],
    ])
    assert.equal(expectStatus(await org.get(`/inventory/transfers/${firstReceipt}`), 200).status, 'done')
    const backorder = expectStatus(await org.get(`/inventory/transfers/${now.pendingReceiptId}`), 200)
    assert.deepEqual([backorder.status, backorder.origin], ['ready', po.reference])
    assert.deepEqual(backorder.moves.map((m: any) => [m.productId, m.demandQty]).sort(), [[a, 4], [b, 4]].sort())
    assert.equal(await stockAt(org, a), 6)
    assert.equal(await stockAt(org, b), 0)
    const moves = await movesOf(org, a)
    assert.deepEqual(moves.map((m) => [m.quantity, m.sourceLocationId, m.destinationLocationId, m.reference, m.doneAt]), [[6, 'LOC-SUPPLIER', 'LOC-STOCK', r1.transferReference, `${yesterday}T00:00:00.000Z`]])

    // 2. The rest of A and 1 of B, no date: done now.
    const before = Date.now()
    const r2 = expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: b, receivedQty: 1 }, { productId: a, receivedQty: 4 }] }), 201)
    assert.equal(r2.receiptId, now.pendingReceiptId)
    assert.equal(r2.backorderQty, 3)
    assert.deepEqual(r2.receivedLines.sort((x: any, y: any) => x.productId.localeCompare(y.productId)), [{ productId: a, receivedQty: 4 }, { productId: b, receivedQty: 1 }].sort((x, y) => x.productId.localeCompare(y.productId)))
    now = expectStatus(await org.get(`/purchase/orders/${po.id}`), 200)
    assert.deepEqual([now.receiptStatus, now.lineItems.map((l: any) => l.receivedQty)], ['partial', [10, 1]])
    assert.equal(await stockAt(org, a), 10)
    const doneAt = Date.parse((await movesOf(org, b))[0].doneAt)
    assert.ok(doneAt >= before - 1000 && doneAt <= Date.now() + 1000, 'without receiptDate the moves are done now')

    // 3. The rest of B: fully received, no pending receipt.
    const r3 = expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { receiptDate: new Date().toISOString(), lines: [{ productId: b, receivedQty: 3 }] }), 201)
    assert.deepEqual([r3.backorderQty, r3.receivedLines], [0, [{ productId: b, receivedQty: 3 }]])
    now = expectStatus(await org.get(`/purchase/orders/${po.id}`), 200)
    assert.deepEqual([now.receiptStatus, now.pendingReceiptId, now.lineItems.map((l: any) => l.receivedQty), now.receipts.length], ['received', null, [10, 4], 3])
    assert.equal(await stockAt(org, b), 4)
    assert.equal(expectStatus(await org.get(`/inventory/transfers/${r3.receiptId}`), 200).backorder, null)
    // Fully received: 409, and nothing moves.
    expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: b, receivedQty: 1 }] }), 409, 'Purchase order already fully received')
    assert.equal(await stockAt(org, b), 4)
    await assertLedgerBalances(t.app.ctx.db, org.id)

    const { rows } = await t.app.ctx.db.query<{ type: string; data: any }>(`SELECT type, data FROM domain_events WHERE resource_id = $1 ORDER BY seq`, [po.id])
    assert.deepEqual(rows.map((r) => r.type), ['purchase_order.confirmed', 'purchase_order.received', 'purchase_order.received', 'purchase_order.received'])
    assert.deepEqual(rows.at(-1)!.data.object, now)
  })

  test('above the open quantity: 400 and nothing received, for any line of the request', async () => {
    const { po, a, b } = await twoLineOrder()
    expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: a, receivedQty: 11 }] }), 400, 'Received quantity exceeds ordered quantity for Part A')
    expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: a, receivedQty: 7 }] }), 201)
    // 7 of 10 received: 3.5 is too much, even beside a good line, and nothing of the request is received.
    const res = expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: b, receivedQty: 4 }, { productId: a, receivedQty: 3.5 }] }), 400, 'open 3')
    assert.equal(res.code, 'LIMIT_EXCEEDED')
    const now = expectStatus(await org.get(`/purchase/orders/${po.id}`), 200)
    assert.deepEqual([now.lineItems.map((l: any) => l.receivedQty), now.receiptStatus, now.receipts.length], [[7, 0], 'partial', 1])
    assert.equal(await stockAt(org, a), 7)
    assert.equal(await stockAt(org, b), 0)
    assert.equal(expectStatus(await org.get(`/inventory/transfers/${now.pendingReceiptId}`), 200).status, 'ready')
    // Exactly the open quantity is fine, decimals included.
    expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: a, receivedQty: 2.9 }, { productId: b, receivedQty: 4 }] }), 201)
    const last = expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: a, receivedQty: 0.1 }] }), 201)
    assert.equal(last.backorderQty, 0)
    assert.equal(await stockAt(org, a), 10)
  })

  test('not confirmed: 409; unknown: 404; bad lines, a product not on the order, a repeated one or a date after today: 422', async () => {
    const draft = await createRfq(org)
    const productId = draft.lineItems[0].productId
    expectStatus(await org.post(`/purchase/orders/${draft.id}/receive`, { lines: [{ productId, receivedQty: 1 }] }), 409, 'Only confirmed purchase orders can be received; this one is draft')
    expectStatus(await org.post(`/purchase/rfqs/${draft.id}/cancel`), 200)
    expectStatus(await org.post(`/purchase/orders/${draft.id}/receive`, { lines: [{ productId, receivedQty: 1 }] }), 409, 'this one is cancelled')
    expectStatus(await org.post(`/purchase/orders/${UNKNOWN}/receive`, { lines: [{ productId, receivedQty: 1 }] }), 404, 'Purchase order not found')

    const { po, a } = await twoLineOrder()
    const other = await createStorable(org)
    const tomorrow = dayOf(Date.now() + DAY)
    const cases: Array<[unknown, string]> = [
      [{}, 'lines is required'],
      [{ lines: [] }, 'lines'],
      [{ lines: [{ productId: a }] }, 'receivedQty is required'],
      [{ lines: [{ productId: a, receivedQty: 0 }] }, 'receivedQty'],
      [{ lines: [{ productId: a, receivedQty: -1 }] }, 'receivedQty'],
      [{ lines: [{ productId: a, receivedQty: '1' }] }, 'receivedQty'],
      [{ lines: [{ productId: a, receivedQty: 1, lot: 'x' }] }, 'lot is not allowed'],
      [{ lines: [{ productId: other.id, receivedQty: 1 }] }, 'lines.0.productId is not a product of this purchase order'],
      [{ lines: [{ productId: UNKNOWN, receivedQty: 1 }] }, 'is not a product of this purchase order'],
      [{ lines: [{ productId: a, receivedQty: 1 }, { productId: a, receivedQty: 1 }] }, 'lines.1.productId repeats a product'],
      [{ receiptDate: tomorrow, lines: [{ productId: a, receivedQty: 1 }] }, 'receiptDate must not be after today'],
      [{ receiptDate: new Date(Date.now() + 2 * DAY).toISOString(), lines: [{ productId: a, receivedQty: 1 }] }, 'receiptDate must not be after today'],
      [{ receiptDate: '2026-13-01', lines: [{ productId: a, receivedQty: 1 }] }, 'receiptDate'],
      [{ receiptDate: 'yesterday', lines: [{ productId: a, receivedQty: 1 }] }, 'receiptDate'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, body), 422, message)
    // Today, even late in the day, is not in the future.
    expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { receiptDate: dayOf(Date.now()), lines: [{ productId: a, receivedQty: 1 }] }), 201)
    const now = expectStatus(await org.get(`/purchase/orders/${po.id}`), 200)
    assert.deepEqual(now.lineItems.map((l: any) => l.receivedQty), [1, 0])
    assert.equal(await stockAt(org, a), 1)
  })

  test('a receipt validated in inventory is booked on its purchase order too', async () => {
    const { po, a, b } = await twoLineOrder()
    const validated = expectStatus(await org.post(`/inventory/transfers/${po.pendingReceiptId}/validate`, { moves: [{ productId: a, doneQty: 10 }, { productId: b, doneQty: 1 }] }), 200)
    const now = expectStatus(await org.get(`/purchase/orders/${po.id}`), 200)
    assert.deepEqual([now.receiptStatus, now.lineItems.map((l: any) => l.receivedQty), now.pendingReceiptId], ['partial', [10, 1], validated.backorder.id])
    assert.deepEqual(now.receipts.map((r: any) => [r.receiptId, r.lines.length]), [[po.pendingReceiptId, 2]])
    // The rest through the purchase route.
    const r = expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: b, receivedQty: 3 }] }), 201)
    assert.deepEqual([r.receiptId, r.backorderQty], [validated.backorder.id, 0])
    assert.equal(await stockAt(org, b), 4)
  })

  test('parallel receipts of one line never receive more than ordered; stock and moves agree with the PO afterwards', async () => {
    const p = await createStorable(org, { name: 'Contended part' })
    const po = await createPurchaseOrder(org, { lineItems: [{ productId: p.id, quantity: 20, unitPrice: 10 }] })
    // 30 receipts of 1 against 20 ordered: exactly 20 succeed, 10 get 400 or 409, never a 500.
    const results = await Promise.all(Array.from({ length: 30 }, () => org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: p.id, receivedQty: 1 }] })))
    const statuses = results.map((r) => r.status)
    assert.equal(statuses.filter((s) => s === 201).length, 20, JSON.stringify(statuses))
    for (const r of results.filter((x) => x.status !== 201)) {
      assert.ok([400, 409].includes(r.status), JSON.stringify(r.body))
      expectStatus(r, r.status)
    }
    const now = expectStatus(await org.get(`/purchase/orders/${po.id}`), 200)
    assert.deepEqual([now.lineItems[0].receivedQty, now.receiptStatus, now.receipts.length], [20, 'received', 20])
    assert.equal(await stockAt(org, p.id), 20)
    const moves = await movesOf(org, p.id)
    assert.equal(moves.length, 20)
    assert.equal(moves.reduce((s, m) => s + m.quantity, 0), 20)
    const stock = expectStatus(await org.get(`/inventory/products?search=${encodeURIComponent('Contended part')}`), 200).data
    assert.deepEqual(stock.map((s: any) => [s.onHand, s.reserved, s.available]), [[20, 0, 20]])

    // Larger parallel receipts that each fit alone: the sum never goes above the order.
    const q = await createStorable(org)
    const po2 = await createPurchaseOrder(org, { lineItems: [{ productId: q.id, quantity: 10, unitPrice: 10 }] })
    const big = await Promise.all([4, 4, 4, 3].map((n) => org.post(`/purchase/orders/${po2.id}/receive`, { lines: [{ productId: q.id, receivedQty: n }] })))
    const received = big.filter((r) => r.status === 201).reduce((s, r) => s + r.body.receivedLines[0].receivedQty, 0)
    assert.ok(received <= 10, `received ${received} of 10`)
    for (const r of big.filter((x) => x.status !== 201)) expectStatus(r, 400, 'exceeds ordered quantity')
    const after2 = expectStatus(await org.get(`/purchase/orders/${po2.id}`), 200)
    assert.equal(after2.lineItems[0].receivedQty, received)
    assert.equal(await stockAt(org, q.id), received)
    assert.equal((await movesOf(org, q.id)).reduce((s, m) => s + m.quantity, 0), received)
    // The open rest is still one ready receipt for what the order lacks.
    const pending = expectStatus(await org.get(`/inventory/transfers/${after2.pendingReceiptId}`), 200)
    assert.deepEqual([pending.status, pending.moves.map((m: any) => m.demandQty)], ['ready', [10 - received]])
    await assertLedgerBalances(t.app.ctx.db, org.id)
  })

  test('a vendor of another organization sees nothing; its own orders are independent', async () => {
    const other = await createOrg(t.app)
    const v = await createVendor(other)
    const po = await createPurchaseOrder(other, { vendorId: v.id })
    expectStatus(await other.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: po.lineItems[0].productId, receivedQty: 10 }] }), 201)
    expectStatus(await org.get(`/purchase/orders/${po.id}`), 404)
    assert.equal(await stockAt(other, po.lineItems[0].productId), 10)
  })
})
