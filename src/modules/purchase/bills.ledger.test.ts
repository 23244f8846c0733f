import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, type Res, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { entriesOf, type EntryLines } from '../../../test/helpers/ledger.ts'
import { createPurchaseOrder, createStorable, createVendor } from '../../../test/helpers/purchase.ts'

// The posting rules of docs/accounting.md "Posting rules: vendor bills and their payments",
// each checked against lines written here by hand. Only the bills' and payments'
// own entries are read: receipts post their own (stock rules).

let t: TestApp
before(async () => { t = await buildTestApp() })
after(() => t.close())

const shape = (es: EntryLines[]) => es.map((e) => ({ date: e.date, currency: e.currency, lines: e.lines }))

/** The bill and payment entries of an organization, by source, oldest first. */
async function moneyEntries(o: TestOrg) {
  const { rows } = await t.app.ctx.db.query<{ source_type: string; source_id: string }>(
    `SELECT source_type, source_id FROM journal_entries WHERE organization_id = $1 AND source_type IN ('vendor_bill', 'bill_payment') ORDER BY date, source_type DESC, source_id`, [o.id])
  const out: Array<{ source: string; date: string; currency: string; lines: EntryLines['lines'] }> = []
  for (const r of rows) for (const e of await entriesOf(t, o.id, r.source_type, r.source_id)) out.push({ source: `${r.source_type}:${r.source_id}`, date: e.date, currency: e.currency, lines: e.lines })
  return out
}

/** Balance (debit - credit) of 2000, 1000, 2200, 5200 and 1300 from the bills and their payments only. */
async function moneyBalances(o: TestOrg, currency = 'usd') {
  const { rows } = await t.app.ctx.db.query<{ code: string; balance: number }>(
    `SELECT a.code, sum(l.debit - l.credit)::bigint AS balance FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id JOIN accounts a ON a.id = l.account_id
      WHERE l.organization_id = $1 AND l.currency = $2 AND e.source_type IN ('vendor_bill', 'bill_payment') GROUP BY a.code ORDER BY a.code`, [o.id, currency])
  return Object.fromEntries(rows.map((r) => [r.code, Number(r.balance)]))
}

const payablesAging = async (o: TestOrg, query = '') => expectStatus(await o.get(`/analytics/payables/aging${query}`), 200).totals.total

/** A bill of a PO of 3 x 1250 and 0.5 x 999 (= 500): total 4250, in `currency`, its products in productCurrencies. */
async function bill(o: TestOrg, opts: { currency?: string; productCurrencies?: [string, string]; invoiceDate?: string } = {}) {
  const [ca, cb] = opts.productCurrencies ?? ['usd', 'usd']
  const a = await createStorable(o, { currency: ca })
  const b = await createStorable(o, { currency: cb })
  const vendor = await createVendor(o)
  const po = await createPurchaseOrder(o, {
    vendorId: vendor.id, currency: opts.currency ?? 'usd',
    lineItems: [{ productId: a.id, quantity: 3, unitPrice: 1250 }, { productId: b.id, quantity: 0.5, unitPrice: 999 }],
  })
  return expectStatus(await o.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: 'V-1', invoiceDate: opts.invoiceDate ?? '2026-11-09' }), 201)
}

describe('vendor bill posting rules', () => {
  test('a bill in its products\' currency: Dr 2200 4250, Cr 2000 4250 on its invoiceDate (no tax: no 1300 line)', async () => {
    const o = await createOrg(t.app)
    const b = await bill(o)
    assert.deepEqual(shape(await entriesOf(t, o.id, 'vendor_bill', b.id)), [
      { date: '2026-11-09', currency: 'usd', lines: [['2200', 4250, 0], ['2000', 0, 4250]] },
    ])
    assert.deepEqual(await moneyBalances(o), { 2000: -4250, 2200: 4250 })
    assert.equal(await payablesAging(o), 4250)
  })

  test('a line whose product is in another currency goes to 5200 instead of 2200', async () => {
    const o = await createOrg(t.app)
    // The PO is in eur; the first product is in eur (3750 to 2200), the second in usd (500 to 5200).
    const b = await bill(o, { currency: 'eur', productCurrencies: ['eur', 'usd'] })
    assert.deepEqual(shape(await entriesOf(t, o.id, 'vendor_bill', b.id)), [
      { date: '2026-11-09', currency: 'eur', lines: [['2200', 3750, 0], ['5200', 500, 0], ['2000', 0, 4250]] },
    ])
    assert.equal(await payablesAging(o, '?currency=eur'), 4250)
  })

  test('payments: Dr 2000, Cr 1000 on the paymentDate; 2000\'s credit balance equals the payables aging, today and as of a past day', async () => {
    const o = await createOrg(t.app)
    const b = await bill(o, { invoiceDate: '2026-11-01' })
    expectStatus(await o.post(`/purchase/bills/${b.id}/pay`, { amount: 1000, paymentDate: '2026-11-10', method: 'bank_transfer', reference: 'T-1' }), 200)
    expectStatus(await o.post(`/purchase/bills/${b.id}/pay`, { amount: 3250, paymentDate: '2026-11-12' }), 200)
    const payments = (await t.app.ctx.db.query<{ id: string; amount: number }>('SELECT id, amount FROM bill_payments WHERE bill_id = $1 ORDER BY amount', [b.id])).rows
    assert.deepEqual(payments.map((p) => p.amount), [1000, 3250])
    assert.deepEqual(shape(await entriesOf(t, o.id, 'bill_payment', payments[0].id)), [
      { date: '2026-11-10', currency: 'usd', lines: [['2000', 1000, 0], ['1000', 0, 1000]] },
    ])
    assert.deepEqual(shape(await entriesOf(t, o.id, 'bill_payment', payments[1].id)), [
      { date: '2026-11-12', currency: 'usd', lines: [['2000', 3250, 0], ['1000', 0, 3250]] },
    ])
    // 2000: -4250 + 1000 + 3250 = 0; 1000: -4250.
    assert.deepEqual(await moneyBalances(o), { 1000: -4250, 2000: 0, 2200: 4250 })
    assert.equal(await payablesAging(o), 0)
    // As of 2026-11-11 only the first payment was made: 4250 - 1000 = 3250 open; as of 2026-11-09, all of it.
    assert.equal(await payablesAging(o, '?asOf=2026-11-11'), 3250)
    assert.equal(await payablesAging(o, '?asOf=2026-11-09'), 4250)
    assert.equal(await payablesAging(o, '?asOf=2026-10-31'), 0)
  })
})

describe('PERIOD_LOCKED: nothing changes', () => {
  const locked = (res: Res) => assert.equal(expectStatus(res, 422).code, 'PERIOD_LOCKED')
  const lock = (o: TestOrg, date: string) => t.app.ctx.db.query('UPDATE organizations SET lock_date = $2 WHERE id = $1', [o.id, date])

  test('a bill dated on the lock date', async () => {
    const o = await createOrg(t.app)
    await lock(o, '2026-10-31')
    const po = await createPurchaseOrder(o)
    locked(await o.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: 'L-1', invoiceDate: '2026-10-31' }))
    assert.equal(expectStatus(await o.get(`/purchase/orders/${po.id}`), 200).billId, null)
    assert.equal(expectStatus(await o.get('/purchase/bills'), 200).meta.total, 0)
    assert.deepEqual(await moneyEntries(o), [])
    // The day after is open.
    expectStatus(await o.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: 'L-1', invoiceDate: '2026-11-01' }), 201)
  })

  test('a payment dated before the lock date', async () => {
    const o = await createOrg(t.app)
    const b = await bill(o, { invoiceDate: '2026-11-20' })
    await lock(o, '2026-11-20')
    locked(await o.post(`/purchase/bills/${b.id}/pay`, { amount: 4250, paymentDate: '2026-11-19' }))
    const after = expectStatus(await o.get(`/purchase/bills/${b.id}`), 200)
    assert.deepEqual([after.status, after.amountPaid, after.amountDue], ['posted', 0, 4250])
    assert.equal((await t.app.ctx.db.query('SELECT 1 FROM bill_payments WHERE bill_id = $1', [b.id])).rows.length, 0)
    assert.equal((await moneyEntries(o)).length, 1)
  })
})

test('history: the same lines come back when the entries are posted from the bills and payments', async () => {
  const o = await createOrg(t.app)
  const a = await bill(o, { invoiceDate: '2026-11-03' })
  const b = await bill(o, { invoiceDate: '2026-11-04', currency: 'eur', productCurrencies: ['eur', 'usd'] })
  expectStatus(await o.post(`/purchase/bills/${a.id}/pay`, { amount: 250, paymentDate: '2026-11-05' }), 200)
  expectStatus(await o.post(`/purchase/bills/${b.id}/pay`, { amount: 4250, paymentDate: '2026-11-06' }), 200)
  const pays = (await t.app.ctx.db.query<{ id: string; bill_id: string }>('SELECT id, bill_id FROM bill_payments WHERE organization_id = $1', [o.id])).rows
  const payOf = (billId: string) => pays.find((p) => p.bill_id === billId)!.id
  const expected = [
    { source: `vendor_bill:${a.id}`, date: '2026-11-03', currency: 'usd', lines: [['2200', 4250, 0], ['2000', 0, 4250]] },
    { source: `vendor_bill:${b.id}`, date: '2026-11-04', currency: 'eur', lines: [['2200', 3750, 0], ['5200', 500, 0], ['2000', 0, 4250]] },
    { source: `bill_payment:${payOf(a.id)}`, date: '2026-11-05', currency: 'usd', lines: [['2000', 250, 0], ['1000', 0, 250]] },
    { source: `bill_payment:${payOf(b.id)}`, date: '2026-11-06', currency: 'eur', lines: [['2000', 4250, 0], ['1000', 0, 4250]] },
  ]
  assert.deepEqual(await moneyEntries(o), expected)

  const db = t.app.ctx.db
  await db.query('DELETE FROM journal_entries WHERE organization_id = $1', [o.id])
  await db.query('DELETE FROM journal_balances WHERE organization_id = $1', [o.id])
  await db.query('INSERT INTO accounting_history_pending (organization_id) VALUES ($1)', [o.id])
  await t.app.services.accounting!.postHistory()
  assert.deepEqual(await moneyEntries(o), expected)
  // usd: 2000 -4250 + 250 = -4000 (the aging's 4000), 1000 -250, 2200 4250.
  assert.deepEqual(await moneyBalances(o), { 1000: -250, 2000: -4000, 2200: 4250 })
  assert.equal(await payablesAging(o), 4000)
})
