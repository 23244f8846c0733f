// The stock posting rules, docs/accounting.md "Posting rules: stock moves and revaluations":
// every figure below is computed by hand from the quantities, costs and prices
// the test sets.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { assertLedgerBalances, balances, entriesOf } from '../../../test/helpers/ledger.ts'
import { createBom } from '../../../test/helpers/manufacturing.ts'
import { createPurchaseOrder, createVendor } from '../../../test/helpers/purchase.ts'
import { createProduct } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const DAY = 24 * 3600 * 1000
const today = () => new Date().toISOString().slice(0, 10)
const yesterday = () => new Date(Date.now() - DAY).toISOString().slice(0, 10)

type Line = [string, number, number]
type Entry = { date: string; currency: string; lines: Line[] }

const storable = async (org: TestOrg, cost: number | null, extra: Record<string, unknown> = {}) =>
  (await createProduct(org, { type: 'storable', price: 1000, cost, ...extra })) as { id: string; name: string }

async function transfer(org: TestOrg, type: string, source: string, destination: string, productId: string, qty: number) {
  return expectStatus(await org.post('/inventory/transfers', { type, sourceLocationId: source, destinationLocationId: destination, moves: [{ productId, demandQty: qty }] }), 201)
}
/** Creates and validates a one-move transfer; answers the validated transfer. */
async function move(org: TestOrg, source: string, destination: string, productId: string, qty: number, type = 'internal') {
  const tr = await transfer(org, type, source, destination, productId, qty)
  return expectStatus(await org.post(`/inventory/transfers/${tr.id}/validate`), 200)
}

/** The entries of the moves of one reference (and product), oldest first, without their numbers. */
async function entriesOfReference(org: TestOrg, reference: string, productId?: string): Promise<Entry[]> {
  const { rows } = await t.app.ctx.db.query<{ id: string }>(
    'SELECT id FROM stock_moves WHERE organization_id = $1 AND reference = $2 AND ($3::uuid IS NULL OR product_id = $3) ORDER BY done_at, id',
    [org.id, reference, productId ?? null])
  assert.ok(rows.length > 0, `moves of ${reference}`)
  const out: Entry[] = []
  for (const r of rows) for (const e of await entriesOf(t, org.id, 'stock_move', r.id)) out.push({ date: e.date, currency: e.currency, lines: e.lines })
  return out
}
const revaluations = async (org: TestOrg, productId: string): Promise<Entry[]> =>
  (await entriesOf(t, org.id, 'revaluation', productId)).map((e) => ({ date: e.date, currency: e.currency, lines: e.lines }))

/** Debits equal credits in every entry and over the organization. */
async function assertBalanced(org: TestOrg) {
  const { rows } = await t.app.ctx.db.query<{ n: string; d: string; c: string }>(
    `SELECT e.number AS n, sum(l.debit)::text AS d, sum(l.credit)::text AS c FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
      WHERE e.organization_id = $1 GROUP BY e.number`, [org.id])
  for (const r of rows) assert.equal(r.d, r.c, `entry ${r.n} balances`)
  const all = await t.app.ctx.db.query<{ d: string; c: string }>(
    'SELECT coalesce(sum(debit), 0)::text AS d, coalesce(sum(credit), 0)::text AS c FROM journal_lines WHERE organization_id = $1', [org.id])
  assert.equal(all.rows[0].d, all.rows[0].c, 'debits = credits')
}

async function valuationTotal(org: TestOrg, currency = 'usd') {
  return expectStatus(await org.get(`/analytics/stock/valuation?currency=${currency}`), 200).totals.value as number
}

test('receipt, delivery and return at cost against 2200 and 5000; a move between internal locations posts nothing', async () => {
  const org = await createOrg(t.app)
  const p = await storable(org, 700)
  const inn = await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', p.id, 3, 'receipt')
  assert.deepEqual(await entriesOfReference(org, inn.reference), [{ date: today(), currency: 'usd', lines: [['1200', 2100, 0], ['2200', 0, 2100]] }])

  expectStatus(await org.post('/inventory/locations', { code: 'SHELF', name: 'WH/Shelf' }), 201)
  const internal = await move(org, 'LOC-STOCK', 'LOC-SHELF', p.id, 1)
  assert.deepEqual(await entriesOfReference(org, internal.reference), [])

  const out = await move(org, 'LOC-STOCK', 'LOC-CUSTOMER', p.id, 2, 'delivery')
  assert.deepEqual(await entriesOfReference(org, out.reference), [{ date: today(), currency: 'usd', lines: [['5000', 1400, 0], ['1200', 0, 1400]] }])

  const back = await move(org, 'LOC-SHELF', 'LOC-SUPPLIER', p.id, 1, 'delivery')
  assert.deepEqual(await entriesOfReference(org, back.reference), [{ date: today(), currency: 'usd', lines: [['2200', 700, 0], ['1200', 0, 700]] }])

  // A move between two locations that are not internal posts nothing either.
  const through = await move(org, 'LOC-SUPPLIER', 'LOC-CUSTOMER', p.id, 1, 'delivery')
  assert.deepEqual(await entriesOfReference(org, through.reference), [])

  // 2100 - 1400 - 700; 2200: -2100 + 700; 5000: 1400.
  assert.deepEqual(await balances(t, org.id), { 1200: 0, 2200: -1400, 5000: 1400 })
  assert.equal(await valuationTotal(org), 0)
  await assertBalanced(org)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('values are round(quantity x cost), half away from zero, exactly; no cost and a cost of 0 post nothing', async () => {
  const org = await createOrg(t.app)
  const a = await storable(org, 333)
  // 1.5 x 333 = 499.5 -> 500
  const r1 = await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', a.id, 1.5, 'receipt')
  assert.deepEqual(await entriesOfReference(org, r1.reference), [{ date: today(), currency: 'usd', lines: [['1200', 500, 0], ['2200', 0, 500]] }])
  // 1.005 x 100 = 100.5 -> 101 (in binary floating point 1.005 x 100 = 100.49999999999999)
  const b = await storable(org, 100)
  const r2 = await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', b.id, 1.005, 'receipt')
  assert.deepEqual(await entriesOfReference(org, r2.reference), [{ date: today(), currency: 'usd', lines: [['1200', 101, 0], ['2200', 0, 101]] }])
  // 0.5 x 333 = 166.5 -> 167 out
  const d1 = await move(org, 'LOC-STOCK', 'LOC-CUSTOMER', a.id, 0.5, 'delivery')
  assert.deepEqual(await entriesOfReference(org, d1.reference), [{ date: today(), currency: 'usd', lines: [['5000', 167, 0], ['1200', 0, 167]] }])

  const noCost = await storable(org, null)
  const r3 = await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', noCost.id, 5, 'receipt')
  assert.deepEqual(await entriesOfReference(org, r3.reference), [])
  const zero = await storable(org, 0)
  const r4 = await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', zero.id, 5, 'receipt')
  assert.deepEqual(await entriesOfReference(org, r4.reference), [])

  // 1200: 500 + 101 - 167 = 434 (each move rounded; the valuation rounds each product's total, so the two are
  // compared for whole quantities only: docs/accounting.md "Invariants").
  assert.equal((await balances(t, org.id))['1200'], 434)
  await assertBalanced(org)
})

test('an adjustment posts its loss and its gain against 5100, dated at its date', async () => {
  const org = await createOrg(t.app)
  const p = await storable(org, 250)
  await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', p.id, 10, 'receipt')
  const loss = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', date: yesterday(), lines: [{ productId: p.id, realQty: 7 }] }), 201)
  // 3 lost x 250
  assert.deepEqual(await entriesOfReference(org, loss.reference), [{ date: yesterday(), currency: 'usd', lines: [['5100', 750, 0], ['1200', 0, 750]] }])
  const gain = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: p.id, realQty: 9 }] }), 201)
  // 2 found x 250
  assert.deepEqual(await entriesOfReference(org, gain.reference), [{ date: today(), currency: 'usd', lines: [['1200', 500, 0], ['5100', 0, 500]] }])
  const same = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: p.id, realQty: 9 }] }), 201)
  const none = await t.app.ctx.db.query('SELECT 1 FROM stock_moves WHERE organization_id = $1 AND reference = $2', [org.id, same.reference])
  assert.equal(none.rows.length, 0, 'a count that finds what the ledger holds moves nothing')
  // 9 x 250 = 2250 = 2500 - 750 + 500
  assert.deepEqual(await balances(t, org.id), { 1200: 2250, 2200: -2500, 5100: 250 })
  assert.equal(await valuationTotal(org), 2250)
  await assertBalanced(org)
})

test('a purchase receipt credits 2200 at the PO price and the difference goes to 5200; in another currency 5200 stands in for 2200', async () => {
  const org = await createOrg(t.app)
  const vendor = await createVendor(org)
  const a = await storable(org, 700)
  // Cost 700, PO price 750, quantity 3: Dr 1200 2100, Cr 2200 2250, Dr 5200 150; received yesterday.
  const po = await createPurchaseOrder(org, { vendorId: vendor.id, lineItems: [{ productId: a.id, quantity: 3, unitPrice: 750 }] })
  const received = expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { receiptDate: yesterday(), lines: [{ productId: a.id, receivedQty: 3 }] }), 201)
  assert.deepEqual(await entriesOfReference(org, received.transferReference), [
    { date: yesterday(), currency: 'usd', lines: [['1200', 2100, 0], ['2200', 0, 2250], ['5200', 150, 0]] },
  ])

  // Cost 700, PO price 650, 5 ordered: 2 received through the purchase order (Dr 1200 1400, Cr 2200 1300, Cr 5200 100),
  // the 3 left by validating its backorder in the inventory directly (Dr 1200 2100, Cr 2200 1950, Cr 5200 150).
  const b = await storable(org, 700)
  const po2 = await createPurchaseOrder(org, { vendorId: vendor.id, lineItems: [{ productId: b.id, quantity: 5, unitPrice: 650 }] })
  const part = expectStatus(await org.post(`/purchase/orders/${po2.id}/receive`, { lines: [{ productId: b.id, receivedQty: 2 }] }), 201)
  assert.deepEqual(await entriesOfReference(org, part.transferReference), [
    { date: today(), currency: 'usd', lines: [['1200', 1400, 0], ['2200', 0, 1300], ['5200', 0, 100]] },
  ])
  const pending = expectStatus(await org.get(`/purchase/orders/${po2.id}`), 200).pendingReceiptId
  const rest = expectStatus(await org.post(`/inventory/transfers/${pending}/validate`), 200)
  assert.deepEqual(await entriesOfReference(org, rest.reference), [
    { date: today(), currency: 'usd', lines: [['1200', 2100, 0], ['2200', 0, 1950], ['5200', 0, 150]] },
  ])
  assert.equal(expectStatus(await org.get(`/purchase/orders/${po2.id}`), 200).receiptStatus, 'received')

  // A PO in eur of a usd product (cost 700, 2 at 800 eur): Dr 1200 1400, Cr 5200 1400, in usd.
  const c = await storable(org, 700)
  const po3 = await createPurchaseOrder(org, { vendorId: vendor.id, currency: 'eur', lineItems: [{ productId: c.id, quantity: 2, unitPrice: 800 }] })
  assert.equal(po3.currency, 'eur')
  const eur = expectStatus(await org.post(`/purchase/orders/${po3.id}/receive`, { lines: [{ productId: c.id, receivedQty: 2 }] }), 201)
  assert.deepEqual(await entriesOfReference(org, eur.transferReference), [
    { date: today(), currency: 'usd', lines: [['1200', 1400, 0], ['5200', 0, 1400]] },
  ])

  // A product costing 0, 2 at 100: no 1200 line, the price still credits 2200 (the bill will debit it).
  const z = await storable(org, 0)
  const po4 = await createPurchaseOrder(org, { vendorId: vendor.id, lineItems: [{ productId: z.id, quantity: 2, unitPrice: 100 }] })
  const free = expectStatus(await org.post(`/purchase/orders/${po4.id}/receive`, { lines: [{ productId: z.id, receivedQty: 2 }] }), 201)
  assert.deepEqual(await entriesOfReference(org, free.transferReference), [
    { date: today(), currency: 'usd', lines: [['2200', 0, 200], ['5200', 200, 0]] },
  ])

  // 1200: 2100 + 1400 + 2100 + 1400 = 7000 = (3 + 5 + 2) x 700; 2200: -(2250 + 1300 + 1950 + 200); 5200: 150 - 100 - 150 - 1400 + 200.
  assert.deepEqual(await balances(t, org.id), { 1200: 7000, 2200: -5700, 5200: -1300 })
  assert.deepEqual(await balances(t, org.id, 'eur'), {})
  assert.equal(await valuationTotal(org), 7000)
  await assertBalanced(org)
})

test('manufacturing: the components consumed Dr 5300 Cr 1200, the product made Dr 1200 Cr 5300, at their costs', async () => {
  const org = await createOrg(t.app)
  const b = await storable(org, 250)
  const c = await storable(org, 600)
  await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', b.id, 10, 'receipt')
  const bom = await createBom(org, { productId: c.id, components: [{ productId: b.id, quantity: 2 }] })
  const mo = expectStatus(await org.post('/manufacturing/orders', { productId: c.id, bomId: bom.id, quantity: 3 }), 201)
  expectStatus(await org.post(`/manufacturing/orders/${mo.id}/confirm`), 200)
  expectStatus(await org.post(`/manufacturing/orders/${mo.id}/produce`, { qty: 3 }), 200)
  // 6 B x 250 consumed; 3 C x 600 made.
  assert.deepEqual(await entriesOfReference(org, await componentReference(org, b.id)), [
    { date: today(), currency: 'usd', lines: [['5300', 1500, 0], ['1200', 0, 1500]] },
  ])
  const finished = await t.app.ctx.db.query<{ reference: string }>(
    `SELECT reference FROM stock_moves WHERE organization_id = $1 AND product_id = $2 AND source_location_id = 'LOC-PRODUCTION'`, [org.id, c.id])
  assert.deepEqual(await entriesOfReference(org, finished.rows[0].reference), [
    { date: today(), currency: 'usd', lines: [['1200', 1800, 0], ['5300', 0, 1800]] },
  ])
  // 1200: 2500 - 1500 + 1800 = 2800 = 4 x 250 + 3 x 600
  assert.deepEqual(await balances(t, org.id), { 1200: 2800, 2200: -2500, 5300: -300 })
  assert.equal(await valuationTotal(org), 2800)
  await assertBalanced(org)
})

async function componentReference(org: TestOrg, productId: string) {
  const { rows } = await t.app.ctx.db.query<{ reference: string }>(
    `SELECT reference FROM stock_moves WHERE organization_id = $1 AND product_id = $2 AND destination_location_id = 'LOC-PRODUCTION'`, [org.id, productId])
  return rows[0].reference
}

test('a cost change while on hand revalues it against 5100, dated today; another currency moves the value across', async () => {
  const org = await createOrg(t.app)
  const p = await storable(org, 333)
  await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', p.id, 4, 'receipt')
  const patch = async (body: Record<string, unknown>) => expectStatus(await org.patch(`/products/${p.id}`, body), 200)

  await patch({ cost: 350 })
  // 4 x 350 - 4 x 333 = 1400 - 1332
  assert.deepEqual(await revaluations(org, p.id), [{ date: today(), currency: 'usd', lines: [['1200', 68, 0], ['5100', 0, 68]] }])
  await patch({ name: 'Renamed', price: 5 })
  await patch({ cost: 350 })
  assert.equal((await revaluations(org, p.id)).length, 1, 'no change of cost, no entry')
  await patch({ cost: 300 })
  // 1200 - 1400
  assert.deepEqual((await revaluations(org, p.id))[1], { date: today(), currency: 'usd', lines: [['5100', 200, 0], ['1200', 0, 200]] })
  await patch({ cost: null })
  assert.deepEqual((await revaluations(org, p.id))[2], { date: today(), currency: 'usd', lines: [['5100', 1200, 0], ['1200', 0, 1200]] })
  assert.equal((await balances(t, org.id))['1200'], 0)
  await patch({ cost: 300 })
  assert.deepEqual((await revaluations(org, p.id))[3], { date: today(), currency: 'usd', lines: [['1200', 1200, 0], ['5100', 0, 1200]] })
  await patch({ currency: 'eur' })
  // 4 x 300 leaves usd and enters eur.
  assert.deepEqual((await revaluations(org, p.id)).slice(4), [
    { date: today(), currency: 'usd', lines: [['5100', 1200, 0], ['1200', 0, 1200]] },
    { date: today(), currency: 'eur', lines: [['1200', 1200, 0], ['5100', 0, 1200]] },
  ])
  // Not storable any more: out of the valuation, out of 1200.
  await patch({ type: 'consumable' })
  assert.deepEqual((await revaluations(org, p.id))[6], { date: today(), currency: 'eur', lines: [['5100', 1200, 0], ['1200', 0, 1200]] })

  // 4 x 333 in; +68, -200, -1200, +1200, -1200 in usd: 1332 + 68 - 200 - 1200 + 1200 - 1200 = 0.
  assert.equal((await balances(t, org.id))['1200'], 0)
  assert.equal((await balances(t, org.id, 'eur'))['1200'], 0)
  assert.equal(await valuationTotal(org), 0)
  assert.equal(await valuationTotal(org, 'eur'), 0)

  const empty = await storable(org, 100)
  expectStatus(await org.patch(`/products/${empty.id}`, { cost: 200 }), 200)
  assert.deepEqual(await revaluations(org, empty.id), [], 'nothing on hand, nothing to revalue')
  await assertBalanced(org)
})

test('PERIOD_LOCKED: a move or a cost change whose entry would be dated on or before the lock date is 422 and changes nothing', async () => {
  const org = await createOrg(t.app)
  const p = await storable(org, 100)
  await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', p.id, 5, 'receipt')
  const lock = (date: string | null) => t.app.ctx.db.query('UPDATE organizations SET lock_date = $2 WHERE id = $1', [org.id, date])
  const onHand = async () => (expectStatus(await org.get('/inventory/products?limit=100'), 200).data as any[]).find((r) => r.productId === p.id).onHand

  await lock(today())
  const d = await transfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', p.id, 2)
  const refused = await org.post(`/inventory/transfers/${d.id}/validate`)
  assert.equal(refused.status, 422)
  assert.equal(refused.body.code, 'PERIOD_LOCKED')
  assert.equal(expectStatus(await org.get(`/inventory/transfers/${d.id}`), 200).status, 'draft')
  assert.equal(await onHand(), 5)
  const cost = await org.patch(`/products/${p.id}`, { cost: 120 })
  assert.equal(cost.status, 422)
  assert.equal(cost.body.code, 'PERIOD_LOCKED')
  assert.equal(expectStatus(await org.get(`/products/${p.id}`), 200).cost, 100)
  // Between internal locations nothing is posted, so nothing is locked.
  expectStatus(await org.post('/inventory/locations', { code: 'SHELF' }), 201)
  await move(org, 'LOC-STOCK', 'LOC-SHELF', p.id, 1)

  await lock(yesterday())
  const adj = await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', date: yesterday(), lines: [{ productId: p.id, realQty: 3 }] })
  assert.equal(adj.status, 422)
  assert.equal(adj.body.code, 'PERIOD_LOCKED')
  const vendor = await createVendor(org)
  const po = await createPurchaseOrder(org, { vendorId: vendor.id, lineItems: [{ productId: p.id, quantity: 2, unitPrice: 90 }] })
  const rec = await org.post(`/purchase/orders/${po.id}/receive`, { receiptDate: yesterday(), lines: [{ productId: p.id, receivedQty: 2 }] })
  assert.equal(rec.status, 422)
  assert.equal(rec.body.code, 'PERIOD_LOCKED')
  assert.equal(expectStatus(await org.get(`/purchase/orders/${po.id}`), 200).receiptStatus, 'pending')
  assert.equal(await onHand(), 5)
  // Today is open again.
  expectStatus(await org.post(`/inventory/transfers/${d.id}/validate`), 200)
  assert.deepEqual(await balances(t, org.id), { 1200: 300, 2200: -500, 5000: 200 })
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('50 parallel validations of deliveries from one stock: 1200 equals the valuation, debits equal credits', async () => {
  const org = await createOrg(t.app)
  const p = await storable(org, 321)
  await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', p.id, 60, 'receipt')
  const deliveries = []
  for (let i = 0; i < 50; i++) deliveries.push(await transfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', p.id, 1))
  const res = await Promise.all(deliveries.map((d) => org.post(`/inventory/transfers/${d.id}/validate`)))
  assert.deepEqual([...new Set(res.map((r) => r.status))], [200])
  // 60 x 321 in, 50 x 321 out: 1200 = 10 x 321, 5000 = 50 x 321.
  assert.deepEqual(await balances(t, org.id), { 1200: 3210, 2200: -19260, 5000: 16050 })
  assert.equal(await valuationTotal(org), 3210)
  await assertBalanced(org)
  await assertLedgerBalances(t.app.ctx.db, org.id)
})

test('cost changes in parallel with validations: 1200 equals on-hand x cost afterwards', async () => {
  const org = await createOrg(t.app)
  const p = await storable(org, 100)
  await move(org, 'LOC-SUPPLIER', 'LOC-STOCK', p.id, 100, 'receipt')
  const deliveries = []
  for (let i = 0; i < 40; i++) deliveries.push(await transfer(org, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', p.id, 1))
  const costs = async () => {
    for (const cost of [110, 120, 130, 140, 150]) expectStatus(await org.patch(`/products/${p.id}`, { cost }), 200)
  }
  const [res] = await Promise.all([Promise.all(deliveries.map((d) => org.post(`/inventory/transfers/${d.id}/validate`))), costs()])
  assert.deepEqual([...new Set(res.map((r) => r.status))], [200])
  // 60 left at the last cost, 150.
  assert.equal((await balances(t, org.id))['1200'], 9000)
  assert.equal(await valuationTotal(org), 9000)
  await assertBalanced(org)
})

test('history: the stock entries posted again from the moves equal the live ones, and value the moves at the current cost', async () => {
  const org = await createOrg(t.app)
  const vendor = await createVendor(org)
  const a = await storable(org, 700)
  const po = await createPurchaseOrder(org, { vendorId: vendor.id, lineItems: [{ productId: a.id, quantity: 3, unitPrice: 750 }] })
  const rec = expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { receiptDate: yesterday(), lines: [{ productId: a.id, receivedQty: 3 }] }), 201)
  const out = await move(org, 'LOC-STOCK', 'LOC-CUSTOMER', a.id, 1, 'delivery')
  const adj = expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 1 }] }), 201)
  expectStatus(await org.post('/inventory/locations', { code: 'SHELF' }), 201)
  const inside = await move(org, 'LOC-STOCK', 'LOC-SHELF', a.id, 1)

  const live = {
    receipt: await entriesOfReference(org, rec.transferReference),
    delivery: await entriesOfReference(org, out.reference),
    adjustment: await entriesOfReference(org, adj.reference),
    internal: await entriesOfReference(org, inside.reference),
  }
  assert.deepEqual(live, {
    receipt: [{ date: yesterday(), currency: 'usd', lines: [['1200', 2100, 0], ['2200', 0, 2250], ['5200', 150, 0]] }],
    delivery: [{ date: today(), currency: 'usd', lines: [['5000', 700, 0], ['1200', 0, 700]] }],
    adjustment: [{ date: today(), currency: 'usd', lines: [['5100', 700, 0], ['1200', 0, 700]] }],
    internal: [],
  })
  const repost = async () => {
    await t.app.ctx.db.query(`DELETE FROM journal_entries WHERE organization_id = $1 AND source_type IN ('stock_move', 'revaluation')`, [org.id])
    await t.app.ctx.db.query('INSERT INTO accounting_history_pending (organization_id) VALUES ($1)', [org.id])
    await t.app.services.accounting!.postHistory()
    return {
      receipt: await entriesOfReference(org, rec.transferReference),
      delivery: await entriesOfReference(org, out.reference),
      adjustment: await entriesOfReference(org, adj.reference),
      internal: await entriesOfReference(org, inside.reference),
    }
  }
  assert.deepEqual(await repost(), live)

  // Cost 700 -> 720 with 1 on hand: +20 live; the history values every move at 720.
  expectStatus(await org.patch(`/products/${a.id}`, { cost: 720 }), 200)
  assert.deepEqual(await revaluations(org, a.id), [{ date: today(), currency: 'usd', lines: [['1200', 20, 0], ['5100', 0, 20]] }])
  assert.deepEqual(await repost(), {
    receipt: [{ date: yesterday(), currency: 'usd', lines: [['1200', 2160, 0], ['2200', 0, 2250], ['5200', 90, 0]] }],
    delivery: [{ date: today(), currency: 'usd', lines: [['5000', 720, 0], ['1200', 0, 720]] }],
    adjustment: [{ date: today(), currency: 'usd', lines: [['5100', 720, 0], ['1200', 0, 720]] }],
    internal: [],
  })
  // 2160 - 720 - 720 = 720 = 1 x 720
  assert.equal((await balances(t, org.id))['1200'], 720)
  assert.equal(await valuationTotal(org), 720)
  await assertBalanced(org)
})
