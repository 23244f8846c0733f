import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, type Res, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { allEntries, balances, entriesOf, type EntryLines } from '../../../test/helpers/ledger.ts'
import { createInvoice } from '../../../test/helpers/sales-fixtures.ts'
import { taxShare } from './invoices.service.ts'

// The posting rules of docs/accounting.md "Posting rules: invoices and payments",
// each checked against lines written here by hand.

let t: TestApp
before(async () => { t = await buildTestApp() })
after(() => t.close())

/** Today's UTC day: the date of a cancellation's entry and of a payment without paymentDate. */
const today = () => new Date().toISOString().slice(0, 10)

/** [date, source type, lines] of each entry: what the rules decide. */
const shape = (es: EntryLines[]) => es.map((e) => ({ date: e.date, currency: e.currency, source: e.source?.split(':')[0], lines: e.lines }))

/** One line of 910 cents taxed 10%: subtotal 910, tax 91, total 1001. */
const line1001 = [{ description: 'Audit', quantity: 1, unitPrice: 910, taxRate: 10 }]

async function sent(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const inv = await createInvoice(o, { lineItems: line1001, invoiceDate: '2026-11-02', ...overrides })
  expectStatus(await o.post(`/invoices/${inv.id}/send`), 200)
  return inv
}

const receivablesAging = async (o: TestOrg, currency = 'usd') => expectStatus(await o.get(`/analytics/receivables/aging?currency=${currency}`), 200).totals.total

describe('invoice posting rules', () => {
  test('sent: Dr 1100 total, Cr 4000 subtotal, Cr 2100 tax on the invoiceDate; a second sending posts nothing', async () => {
    const o = await createOrg(t.app)
    const inv = await sent(o, { currency: 'eur' })
    expectStatus(await o.post(`/invoices/${inv.id}/send`), 200)
    assert.deepEqual(shape(await entriesOf(t, o.id, 'invoice', inv.id)), [
      { date: '2026-11-02', currency: 'eur', source: 'invoice', lines: [['1100', 1001, 0], ['4000', 0, 910], ['2100', 0, 91]] },
    ])
    assert.equal((await allEntries(t, o.id)).length, 1)
    assert.deepEqual(await balances(t, o.id, 'eur'), { 1100: 1001, 2100: -91, 4000: -910 })
    assert.equal(await receivablesAging(o, 'eur'), 1001)
  })

  test('payments: Dr 1000, Cr 1100 on the paymentDate (today by default); 1100 equals the receivables aging', async () => {
    const o = await createOrg(t.app)
    const inv = await sent(o)
    expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: 400, paymentDate: '2026-11-10' }), 200)
    expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: 601 }), 200)
    const payments = await t.app.ctx.db.query<{ id: string; amount: number }>('SELECT id, amount FROM invoice_payments WHERE invoice_id = $1 ORDER BY amount', [inv.id])
    const [p400, p601] = payments.rows
    assert.deepEqual(shape(await entriesOf(t, o.id, 'invoice_payment', p400.id)), [
      { date: '2026-11-10', currency: 'usd', source: 'invoice_payment', lines: [['1000', 400, 0], ['1100', 0, 400]] },
    ])
    assert.deepEqual(shape(await entriesOf(t, o.id, 'invoice_payment', p601.id)), [
      { date: today(), currency: 'usd', source: 'invoice_payment', lines: [['1000', 601, 0], ['1100', 0, 601]] },
    ])
    // 1001 - 400 - 601 = 0 receivable; 1000 holds 1001.
    assert.deepEqual(await balances(t, o.id), { 1000: 1001, 1100: 0, 2100: -91, 4000: -910 })
    assert.equal(await receivablesAging(o), 0)
  })

  test('a draft paid is issued by the payment: its issue entry, then the payment', async () => {
    const o = await createOrg(t.app)
    const inv = await createInvoice(o, { lineItems: line1001, invoiceDate: '2026-11-03' })
    expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: 300, paymentDate: '2026-11-04' }), 200)
    assert.deepEqual(shape(await allEntries(t, o.id)), [
      { date: '2026-11-03', currency: 'usd', source: 'invoice', lines: [['1100', 1001, 0], ['4000', 0, 910], ['2100', 0, 91]] },
      { date: '2026-11-04', currency: 'usd', source: 'invoice_payment', lines: [['1000', 300, 0], ['1100', 0, 300]] },
    ])
    // Sent afterwards: already issued, nothing more.
    expectStatus(await o.post(`/invoices/${inv.id}/send`), 200)
    assert.equal((await allEntries(t, o.id)).length, 2)
    assert.equal((await balances(t, o.id))['1100'], 701)
    assert.equal(await receivablesAging(o), 701)
  })

  test('cancelled by hand: Cr 1100 total, Dr 2100 the whole tax, Dr 4000 the subtotal, today; a draft cancelled posts nothing', async () => {
    const o = await createOrg(t.app)
    const inv = await sent(o)
    expectStatus(await o.post(`/invoices/${inv.id}/cancel`), 200)
    assert.deepEqual(shape(await entriesOf(t, o.id, 'invoice_cancellation', inv.id)), [
      { date: today(), currency: 'usd', source: 'invoice_cancellation', lines: [['1100', 0, 1001], ['2100', 91, 0], ['4000', 910, 0]] },
    ])
    assert.deepEqual(await balances(t, o.id), { 1100: 0, 2100: 0, 4000: 0 })
    const draft = await createInvoice(o, { lineItems: line1001 })
    expectStatus(await o.post(`/invoices/${draft.id}/cancel`), 200)
    assert.deepEqual(await entriesOf(t, o.id, 'invoice_cancellation', draft.id), [])
    assert.deepEqual(await entriesOf(t, o.id, 'invoice', draft.id), [])
    assert.equal((await allEntries(t, o.id)).length, 2)
    assert.equal(await receivablesAging(o), 0)
  })

  test('credit note on a partly paid invoice: D = 500 of 1001, tax round(91 x 500 / 1001) = round(45.45) = 45, sales 455', async () => {
    const o = await createOrg(t.app)
    const inv = await sent(o)
    expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: 501, paymentDate: '2026-11-05' }), 200)
    const note = expectStatus(await o.post(`/invoices/${inv.id}/credit-note`, { reason: 'Returned' }), 201)
    assert.equal(note.invoiceId, inv.id)
    assert.deepEqual(shape(await allEntries(t, o.id)), [
      { date: '2026-11-02', currency: 'usd', source: 'invoice', lines: [['1100', 1001, 0], ['4000', 0, 910], ['2100', 0, 91]] },
      { date: '2026-11-05', currency: 'usd', source: 'invoice_payment', lines: [['1000', 501, 0], ['1100', 0, 501]] },
      { date: today(), currency: 'usd', source: 'invoice_cancellation', lines: [['1100', 0, 500], ['2100', 45, 0], ['4000', 455, 0]] },
    ])
    // 2100: -91 + 45 = -46; 4000: -910 + 455 = -455; 1000: 501 = 46 + 455.
    assert.deepEqual(await balances(t, o.id), { 1000: 501, 1100: 0, 2100: -46, 4000: -455 })
    assert.equal(await receivablesAging(o), 0)
  })

  test('credit note, an exact half: tax 10 of total 20, D = 1 -> round(0.5) = 1 to 2100, 0 to 4000 (no line)', async () => {
    const o = await createOrg(t.app)
    const inv = await sent(o, { lineItems: [{ description: 'Fee', quantity: 1, unitPrice: 10, taxRate: 100 }] })
    expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: 19, paymentDate: '2026-11-06' }), 200)
    expectStatus(await o.post(`/invoices/${inv.id}/credit-note`, {}), 201)
    assert.deepEqual(shape(await entriesOf(t, o.id, 'invoice_cancellation', inv.id)), [
      { date: today(), currency: 'usd', source: 'invoice_cancellation', lines: [['1100', 0, 1], ['2100', 1, 0]] },
    ])
  })

  test('credit note on a paid invoice (nothing due) and on a draft post nothing', async () => {
    const o = await createOrg(t.app)
    const paid = await sent(o)
    expectStatus(await o.post(`/invoices/${paid.id}/pay`, { amount: 1001, paymentDate: '2026-11-07' }), 200)
    expectStatus(await o.post(`/invoices/${paid.id}/credit-note`, {}), 201)
    assert.deepEqual(await entriesOf(t, o.id, 'invoice_cancellation', paid.id), [])
    const draft = await createInvoice(o, { lineItems: line1001 })
    expectStatus(await o.post(`/invoices/${draft.id}/credit-note`, {}), 201)
    assert.deepEqual(await entriesOf(t, o.id, 'invoice_cancellation', draft.id), [])
    assert.equal((await allEntries(t, o.id)).length, 2)
  })

  test('taxShare: half away from zero, exact beyond 2^53', () => {
    assert.equal(taxShare(91, 500, 1001), 45)
    assert.equal(taxShare(10, 1, 20), 1)
    assert.equal(taxShare(30, 1, 20), 2) // 1.5 -> 2
    assert.equal(taxShare(91, 1001, 1001), 91)
    assert.equal(taxShare(0, 500, 1001), 0)
    // 3,000,000,000,001 x 3,000,000,000,001 passes 2^53; / 6,000,000,000,002 = 1,500,000,000,000.5 -> 1,500,000,000,001
    assert.equal(taxShare(3_000_000_000_001, 3_000_000_000_001, 6_000_000_000_002), 1_500_000_000_001)
  })
})

describe('PERIOD_LOCKED: nothing changes', () => {
  const locked = (res: Res) => assert.equal(expectStatus(res, 422).code, 'PERIOD_LOCKED')
  const lock = (o: TestOrg, date: string) => t.app.ctx.db.query('UPDATE organizations SET lock_date = $2 WHERE id = $1', [o.id, date])

  test('send with an invoiceDate on the lock date', async () => {
    const o = await createOrg(t.app)
    const inv = await createInvoice(o, { lineItems: line1001, invoiceDate: '2026-10-31' })
    await lock(o, '2026-10-31')
    locked(await o.post(`/invoices/${inv.id}/send`))
    assert.equal(expectStatus(await o.get(`/invoices/${inv.id}`), 200).status, 'draft')
    assert.deepEqual(await allEntries(t, o.id), [])
  })

  test('pay with a paymentDate before the lock date', async () => {
    const o = await createOrg(t.app)
    const inv = await sent(o)
    await lock(o, '2026-11-15')
    locked(await o.post(`/invoices/${inv.id}/pay`, { amount: 100, paymentDate: '2026-11-14' }))
    const after = expectStatus(await o.get(`/invoices/${inv.id}`), 200)
    assert.deepEqual([after.status, after.amountPaid], ['sent', 0])
    assert.equal(expectStatus(await o.get(`/invoices/${inv.id}/payments`), 200).meta.total, 0)
    assert.equal((await allEntries(t, o.id)).length, 1)
  })

  test('cancel and credit note with the lock date today', async () => {
    const o = await createOrg(t.app)
    const a = await sent(o)
    const b = await sent(o)
    await lock(o, today())
    locked(await o.post(`/invoices/${a.id}/cancel`))
    locked(await o.post(`/invoices/${b.id}/credit-note`, {}))
    assert.equal(expectStatus(await o.get(`/invoices/${a.id}`), 200).status, 'sent')
    assert.equal(expectStatus(await o.get(`/invoices/${b.id}`), 200).status, 'sent')
    assert.equal(expectStatus(await o.get(`/credit-notes?invoiceId=${b.id}`), 200).meta.total, 0)
    assert.equal((await allEntries(t, o.id)).length, 2)
  })
})

test('history: the same lines come back when the entries are posted from the documents', async () => {
  const o = await createOrg(t.app)
  const a = await sent(o) // issued 2026-11-02
  expectStatus(await o.post(`/invoices/${a.id}/pay`, { amount: 501, paymentDate: '2026-11-05' }), 200)
  expectStatus(await o.post(`/invoices/${a.id}/credit-note`, {}), 201)
  const b = await createInvoice(o, { lineItems: line1001, invoiceDate: '2026-11-03' })
  expectStatus(await o.post(`/invoices/${b.id}/pay`, { amount: 1001, paymentDate: '2026-11-04' }), 200) // a draft paid: issued
  const c = await sent(o, { invoiceDate: '2026-11-01' })
  expectStatus(await o.post(`/invoices/${c.id}/cancel`), 200)
  const d = await createInvoice(o, { lineItems: line1001 })
  expectStatus(await o.post(`/invoices/${d.id}/cancel`), 200) // a draft cancelled: nothing

  const expected = [
    { date: '2026-11-01', currency: 'usd', source: `invoice:${c.id}`, lines: [['1100', 1001, 0], ['4000', 0, 910], ['2100', 0, 91]] },
    { date: '2026-11-02', currency: 'usd', source: `invoice:${a.id}`, lines: [['1100', 1001, 0], ['4000', 0, 910], ['2100', 0, 91]] },
    { date: '2026-11-03', currency: 'usd', source: `invoice:${b.id}`, lines: [['1100', 1001, 0], ['4000', 0, 910], ['2100', 0, 91]] },
    { date: '2026-11-04', currency: 'usd', source: 'invoice_payment', lines: [['1000', 1001, 0], ['1100', 0, 1001]] },
    { date: '2026-11-05', currency: 'usd', source: 'invoice_payment', lines: [['1000', 501, 0], ['1100', 0, 501]] },
    { date: today(), currency: 'usd', source: `invoice_cancellation:${a.id}`, lines: [['1100', 0, 500], ['2100', 45, 0], ['4000', 455, 0]] },
    { date: today(), currency: 'usd', source: `invoice_cancellation:${c.id}`, lines: [['1100', 0, 1001], ['2100', 91, 0], ['4000', 910, 0]] },
  ]
  const view = (es: EntryLines[]) => es
    .map((e) => ({ date: e.date, currency: e.currency, source: e.source!.startsWith('invoice_payment:') ? 'invoice_payment' : e.source, lines: e.lines }))
    .sort((x, y) => (x.date + x.source).localeCompare(y.date + y.source))
  const sortExpected = [...expected].sort((x, y) => (x.date + x.source).localeCompare(y.date + y.source))
  const live = view(await allEntries(t, o.id))
  assert.deepEqual(live, sortExpected)
  const before = await balances(t, o.id)

  const db = t.app.ctx.db
  await db.query('DELETE FROM journal_entries WHERE organization_id = $1', [o.id])
  await db.query('DELETE FROM journal_balances WHERE organization_id = $1', [o.id])
  await db.query('INSERT INTO accounting_history_pending (organization_id) VALUES ($1)', [o.id])
  await t.app.services.accounting!.postHistory()
  assert.deepEqual(view(await allEntries(t, o.id)), sortExpected)
  assert.deepEqual(await balances(t, o.id), before)
  // 1100: 3003 - 1001 - 501 - 500 - 1001 = 0; 1000: 1502; 2100: -273 + 45 + 91 = -137; 4000: -2730 + 455 + 910 = -1365.
  assert.deepEqual(before, { 1000: 1502, 1100: 0, 2100: -137, 4000: -1365 })
  // Run again: the sources are posted already, nothing more.
  await db.query('INSERT INTO accounting_history_pending (organization_id) VALUES ($1)', [o.id])
  await t.app.services.accounting!.postHistory()
  assert.equal((await allEntries(t, o.id)).length, expected.length)
})
