import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { createVendorBill } from '../../../test/helpers/purchase.ts'

// POST /purchase/bills/:id/pay (docs/purchase.md "Paying a vendor bill").

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const UNKNOWN = '00000000-0000-4000-8000-000000000000'

/** A vendor bill of 10 x 250 = 2500 cents. */
const newBill = (o = org) => createVendorBill(o)

const paidEvents = async (billId: string) =>
  (await t.app.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM domain_events WHERE resource_id = $1 AND type = 'bill.paid'`, [billId])).rows[0].n

describe('pay a vendor bill', () => {
  test('posted -> posted -> paid, with amountPaid, amountDue and paidAt; bill.paid once, by the last payment', async () => {
    const bill = await newBill()
    assert.deepEqual([bill.total, bill.status], [2500, 'posted'])
    const first = expectStatus(await org.post(`/purchase/bills/${bill.id}/pay`, { amount: 1000, paymentDate: '2026-11-10', method: 'bank_transfer', reference: 'SEPA-1' }), 200)
    assert.deepEqual(first, { billId: bill.id, status: 'posted', amountPaid: 1000, amountDue: 1500, paidAt: '2026-11-10T00:00:00.000Z' })
    assert.equal(await paidEvents(bill.id), 0)
    const before = Date.now()
    const last = expectStatus(await org.post(`/purchase/bills/${bill.id}/pay`, { amount: 1500 }), 200)
    assert.deepEqual({ ...last, paidAt: undefined }, { billId: bill.id, status: 'paid', amountPaid: 2500, amountDue: 0, paidAt: undefined })
    assert.ok(Date.parse(last.paidAt) >= before - 1000 && Date.parse(last.paidAt) <= Date.now() + 1000, 'paymentDate defaults to now')
    const stored = expectStatus(await org.get(`/purchase/bills/${bill.id}`), 200)
    assert.deepEqual([stored.status, stored.amountPaid, stored.amountDue], ['paid', 2500, 0])
    assert.equal(await paidEvents(bill.id), 1)
    const { rows } = await t.app.ctx.db.query<{ data: any }>(`SELECT data FROM domain_events WHERE resource_id = $1 AND type = 'bill.paid'`, [bill.id])
    assert.deepEqual([rows[0].data.object.id, rows[0].data.object.status, rows[0].data.object.amountDue], [bill.id, 'paid', 0])
    const payments = (await t.app.ctx.db.query<{ amount: number; method: string | null; reference: string | null; currency: string }>(
      'SELECT amount, method, reference, currency FROM bill_payments WHERE bill_id = $1 ORDER BY amount', [bill.id])).rows
    assert.deepEqual(payments, [{ amount: 1000, method: 'bank_transfer', reference: 'SEPA-1', currency: 'usd' }, { amount: 1500, method: null, reference: null, currency: 'usd' }])
    assert.equal(expectStatus(await org.get('/purchase/bills?status=paid'), 200).data.some((b: any) => b.id === bill.id), true)
  })

  test('above the amount due: 422 and nothing paid; a paid bill takes nothing more (422)', async () => {
    const bill = await newBill()
    expectStatus(await org.post(`/purchase/bills/${bill.id}/pay`, { amount: 2501 }), 422, 'Payment amount exceeds amount due (2500)')
    assert.equal(expectStatus(await org.get(`/purchase/bills/${bill.id}`), 200).amountPaid, 0)
    expectStatus(await org.post(`/purchase/bills/${bill.id}/pay`, { amount: 2500 }), 200)
    expectStatus(await org.post(`/purchase/bills/${bill.id}/pay`, { amount: 1 }), 422, 'Payment amount exceeds amount due (0)')
    assert.equal(await paidEvents(bill.id), 1)
  })

  test('bad bodies 422, bad id 400, unknown or another organization\'s bill 404', async () => {
    const bill = await newBill()
    const cases: Array<[unknown, string]> = [
      [{}, 'amount is required'],
      [{ amount: 0 }, 'amount'],
      [{ amount: -5 }, 'amount'],
      [{ amount: 1.5 }, 'amount'],
      [{ amount: '100' }, 'amount'],
      [{ amount: 100, paymentDate: 'yesterday' }, 'paymentDate'],
      [{ amount: 100, paymentDate: '2026-02-30' }, 'paymentDate is not a valid date'],
      [{ amount: 100, method: 'x'.repeat(101) }, 'method'],
      [{ amount: 100, reference: 'x'.repeat(201) }, 'reference'],
      [{ amount: 100, status: 'paid' }, 'status is not allowed'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post(`/purchase/bills/${bill.id}/pay`, body), 422, message)
    assert.equal(expectStatus(await org.get(`/purchase/bills/${bill.id}`), 200).amountPaid, 0)
    expectStatus(await org.post('/purchase/bills/nope/pay', { amount: 1 }), 400)
    expectStatus(await org.post(`/purchase/bills/${UNKNOWN}/pay`, { amount: 1 }), 404, 'Vendor bill not found')
    const other = await createOrg(t.app)
    expectStatus(await other.post(`/purchase/bills/${bill.id}/pay`, { amount: 1 }), 404, 'Vendor bill not found')
    assert.equal(expectStatus(await org.get(`/purchase/bills/${bill.id}`), 200).amountPaid, 0)
  })

  test('401 without a credential, 403 for roles outside admin and member; members pay', async () => {
    const bill = await newBill()
    const path = `/purchase/bills/${bill.id}/pay`
    expectStatus(await call(t.app, 'POST', path, { body: { amount: 1 } }), 401)
    for (const role of ['customer', 'support', 'agent'] as const) expectStatus(await call(t.app, 'POST', path, { body: { amount: 1 }, token: await org.as(role) }), 403)
    assert.equal(expectStatus(await org.get(`/purchase/bills/${bill.id}`), 200).amountPaid, 0)
    expectStatus(await org.post(path, { amount: 1 }, await org.as('member')), 200)
    assert.equal(expectStatus(await org.get(`/purchase/bills/${bill.id}`), 200).amountPaid, 1)
  })
})

describe('parallel payments never overpay', () => {
  test('20 parallel payments of 125 on a bill of 2500: all 200, paid exactly, one bill.paid, the ledger to the cent', async () => {
    const o = await createOrg(t.app)
    const bill = await newBill(o)
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => o.post(`/purchase/bills/${bill.id}/pay`, { amount: 125, reference: `P-${i}` })))
    assert.deepEqual(results.map((r) => r.status), Array(20).fill(200))
    // Each saw what the previous left: amountPaid 125, 250, ..., 2500, once each.
    assert.deepEqual(results.map((r) => r.body.amountPaid).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => 125 * (i + 1)))
    assert.equal(results.filter((r) => r.body.status === 'paid').length, 1)
    const stored = expectStatus(await o.get(`/purchase/bills/${bill.id}`), 200)
    assert.deepEqual([stored.status, stored.amountPaid, stored.amountDue], ['paid', 2500, 0])
    assert.equal(await paidEvents(bill.id), 1)
    const db = t.app.ctx.db
    assert.deepEqual((await db.query('SELECT count(*)::int AS n, sum(amount)::int AS s FROM bill_payments WHERE bill_id = $1', [bill.id])).rows[0], { n: 20, s: 2500 })
    const ledger = await db.query<{ code: string; n: number; debit: number; credit: number }>(
      `SELECT a.code, count(*)::int AS n, sum(l.debit)::int AS debit, sum(l.credit)::int AS credit FROM journal_lines l
         JOIN journal_entries e ON e.id = l.entry_id JOIN accounts a ON a.id = l.account_id
        WHERE e.organization_id = $1 AND e.source_type = 'bill_payment' GROUP BY a.code ORDER BY a.code`, [o.id])
    assert.deepEqual(ledger.rows, [{ code: '1000', n: 20, debit: 0, credit: 2500 }, { code: '2000', n: 20, debit: 2500, credit: 0 }])
    assert.equal(expectStatus(await o.get('/analytics/payables/aging'), 200).totals.total, 0)
  })

  test('30 parallel payments of 100 on a bill of 2500: 25 paid, 5 refused with 422, never more than the bill', async () => {
    const o = await createOrg(t.app)
    const bill = await newBill(o)
    const results = await Promise.all(Array.from({ length: 30 }, () => o.post(`/purchase/bills/${bill.id}/pay`, { amount: 100 })))
    assert.deepEqual(results.map((r) => r.status).sort(), [...Array(25).fill(200), ...Array(5).fill(422)])
    for (const r of results.filter((x) => x.status === 422)) expectStatus(r, 422, 'Payment amount exceeds amount due (0)')
    const stored = expectStatus(await o.get(`/purchase/bills/${bill.id}`), 200)
    assert.deepEqual([stored.status, stored.amountPaid], ['paid', 2500])
    assert.deepEqual((await t.app.ctx.db.query('SELECT count(*)::int AS n, sum(amount)::int AS s FROM bill_payments WHERE bill_id = $1', [bill.id])).rows[0], { n: 25, s: 2500 })
    assert.equal((await t.app.ctx.db.query(`SELECT count(*)::int AS n FROM journal_entries WHERE organization_id = $1 AND source_type = 'bill_payment'`, [o.id])).rows[0].n, 25)
  })
})
