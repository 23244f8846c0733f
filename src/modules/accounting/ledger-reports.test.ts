import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'

let t: TestApp
let org: TestOrg
let a: Record<string, string>
/** The entries of the fixture, by name. */
const e: Record<string, any> = {}

/**
 * The fixture, hand-made (amounts in cents):
 * E1 2026-01-05 capital        Dr 1000 1,000,000  Cr 3000 1,000,000
 * E2 2026-01-20 invoice        Dr 1100   121,000  Cr 4000   100,000  Cr 2100 21,000
 * E3 2026-02-03 payment        Dr 1000   121,000  Cr 1100   121,000
 * E4 2026-02-10 rent           Dr 6100    50,000  Cr 1000    50,000
 * E5 2026-02-15 goods bought   Dr 1200    30,000  Cr 2000    30,000
 * E6 2026-03-01 goods sold     Dr 5000    20,000  Cr 1200    20,000
 * EUR 2026-02-01               Dr 1000       500  Cr 3000       500 (never in the usd reports)
 */
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  expectStatus(await org.post('/accounting/accounts', { code: '6100', name: 'Rent', type: 'expense' }), 201)
  a = Object.fromEntries(expectStatus(await org.get('/accounting/accounts?limit=100'), 200).data.map((x: any) => [x.code, x.id]))
  const post = async (name: string, date: string, lines: Array<[string, number, number]>, currency = 'usd') => {
    e[name] = expectStatus(await org.post('/accounting/entries', {
      date, currency, memo: name, lines: lines.map(([code, debit, credit]) => ({ accountId: a[code], ...(debit ? { debit } : { credit }) })),
    }), 201)
  }
  await post('capital', '2026-01-05', [['1000', 1000000, 0], ['3000', 0, 1000000]])
  await post('invoice', '2026-01-20', [['1100', 121000, 0], ['4000', 0, 100000], ['2100', 0, 21000]])
  await post('eur', '2026-02-01', [['1000', 500, 0], ['3000', 0, 500]], 'eur')
  await post('payment', '2026-02-03', [['1000', 121000, 0], ['1100', 0, 121000]])
  await post('rent', '2026-02-10', [['6100', 50000, 0], ['1000', 0, 50000]])
  await post('goods bought', '2026-02-15', [['1200', 30000, 0], ['2000', 0, 30000]])
  await post('goods sold', '2026-03-01', [['5000', 20000, 0], ['1200', 0, 20000]])
})
after(() => t.close())

const rowsOf = (tb: any) => tb.data.map((r: any) => [r.account.code, r.debit, r.credit, r.balance])
const amounts = (rows: any[]) => rows.map((r: any) => [r.account.code, r.amount])

test('trial balance: sums up to asOf per account, sorted by code, accounts without lines left out', async () => {
  const feb = expectStatus(await org.get('/accounting/trial-balance?asOf=2026-02-28'), 200)
  assert.equal(feb.asOf, '2026-02-28')
  assert.equal(feb.currency, 'usd')
  assert.deepEqual(rowsOf(feb), [
    ['1000', 1121000, 50000, 1071000],
    ['1100', 121000, 121000, 0],
    ['1200', 30000, 0, 30000],
    ['2000', 0, 30000, -30000],
    ['2100', 0, 21000, -21000],
    ['3000', 0, 1000000, -1000000],
    ['4000', 0, 100000, -100000],
    ['6100', 50000, 0, 50000],
  ])
  assert.deepEqual(feb.totals, { debit: 1322000, credit: 1322000 })
  assert.deepEqual(feb.data[0].account, { id: a['1000'], code: '1000', name: 'Bank', type: 'asset' })
  const mar = expectStatus(await org.get('/accounting/trial-balance?asOf=2026-03-31&currency=usd'), 200)
  assert.deepEqual(rowsOf(mar).filter((r: any) => ['1200', '5000'].includes(r[0])), [['1200', 30000, 20000, 10000], ['5000', 20000, 0, 20000]])
  assert.deepEqual(mar.totals, { debit: 1342000, credit: 1342000 })
  // The day before the first entry, and today (the default).
  assert.deepEqual(expectStatus(await org.get('/accounting/trial-balance?asOf=2026-01-04'), 200).data, [])
  const now = expectStatus(await org.get('/accounting/trial-balance'), 200)
  assert.equal(now.asOf, new Date().toISOString().slice(0, 10))
  const eur = expectStatus(await org.get('/accounting/trial-balance?asOf=2026-12-31&currency=EUR'), 200)
  assert.equal(eur.currency, 'eur')
  assert.deepEqual(rowsOf(eur), [['1000', 500, 0, 500], ['3000', 0, 500, -500]])
  expectStatus(await org.get('/accounting/trial-balance?asOf=2026-02-30'), 422)
  expectStatus(await org.get('/accounting/trial-balance?asOf=20260228'), 422)
  expectStatus(await org.get('/accounting/trial-balance?currency=dollars'), 400)
  assert.deepEqual(expectStatus(await (await createOrg(t.app)).get('/accounting/trial-balance?asOf=2026-12-31'), 200).data, [])
})

test('profit and loss: income credit - debit, expenses debit - credit, over the period', async () => {
  const q1 = expectStatus(await org.get('/accounting/profit-and-loss?from=2026-01-01&to=2026-03-31'), 200)
  assert.deepEqual(q1.period, { from: '2026-01-01', to: '2026-03-31' })
  assert.equal(q1.currency, 'usd')
  assert.deepEqual(amounts(q1.income), [['4000', 100000]])
  assert.deepEqual(amounts(q1.expenses), [['5000', 20000], ['6100', 50000]])
  assert.deepEqual(q1.totals, { income: 100000, expenses: 70000, net: 30000 })
  const febMar = expectStatus(await org.get('/accounting/profit-and-loss?from=2026-02-01&to=2026-03-31'), 200)
  assert.deepEqual(febMar.income, [])
  assert.deepEqual(febMar.totals, { income: 0, expenses: 70000, net: -70000 })
  // Only to: its month.
  const march = expectStatus(await org.get('/accounting/profit-and-loss?to=2026-03-31'), 200)
  assert.deepEqual(march.period, { from: '2026-03-01', to: '2026-03-31' })
  assert.deepEqual(march.totals, { income: 0, expenses: 20000, net: -20000 })
  // Default: the current month.
  const now = new Date().toISOString().slice(0, 10)
  const current = expectStatus(await org.get('/accounting/profit-and-loss'), 200)
  assert.equal(current.period.from, `${now.slice(0, 7)}-01`)
  assert.equal(current.period.to.slice(0, 7), now.slice(0, 7))
  expectStatus(await org.get('/accounting/profit-and-loss?from=2026-03-01&to=2026-02-01'), 422, 'from must not be after to')
  expectStatus(await org.get('/accounting/profit-and-loss?from=2026-3-1'), 422)
})

test('balance sheet: assets equal liabilities + equity + earnings', async () => {
  const bs = expectStatus(await org.get('/accounting/balance-sheet?asOf=2026-03-31'), 200)
  assert.equal(bs.asOf, '2026-03-31')
  assert.deepEqual(amounts(bs.assets), [['1000', 1071000], ['1100', 0], ['1200', 10000]])
  assert.deepEqual(amounts(bs.liabilities), [['2000', 30000], ['2100', 21000]])
  assert.deepEqual(amounts(bs.equity), [['3000', 1000000]])
  assert.deepEqual(bs.totals, { assets: 1081000, liabilities: 51000, equity: 1000000, earnings: 30000, liabilitiesAndEquity: 1081000 })
  const jan = expectStatus(await org.get('/accounting/balance-sheet?asOf=2026-01-31'), 200)
  assert.deepEqual(amounts(jan.assets), [['1000', 1000000], ['1100', 121000]])
  assert.deepEqual(jan.totals, { assets: 1121000, liabilities: 21000, equity: 1000000, earnings: 100000, liabilitiesAndEquity: 1121000 })
  expectStatus(await org.get('/accounting/balance-sheet?asOf=tomorrow'), 422)
})

test("an account's ledger: oldest first, running balance from the first line ever, opening balance", async () => {
  const all = expectStatus(await org.get(`/accounting/accounts/${a['1000']}/ledger`), 200)
  assert.deepEqual(all.data.map((l: any) => [l.number, l.date, l.memo, l.debit, l.credit, l.balance]), [
    ['JE/2026/00001', '2026-01-05', 'capital', 1000000, 0, 1000000],
    ['JE/2026/00004', '2026-02-03', 'payment', 121000, 0, 1121000],
    ['JE/2026/00005', '2026-02-10', 'rent', 0, 50000, 1071000],
  ])
  assert.equal(all.data[0].entryId, e.capital.id)
  assert.deepEqual(all.data[0].source, e.capital.source)
  assert.equal(all.meta.openingBalance, 0)
  assert.equal(all.meta.total, 3)
  assert.equal(all.meta.account.code, '1000')
  const feb = expectStatus(await org.get(`/accounting/accounts/${a['1000']}/ledger?from=2026-02-01&to=2026-02-28`), 200)
  assert.equal(feb.meta.openingBalance, 1000000)
  assert.deepEqual(feb.data.map((l: any) => [l.number, l.balance]), [['JE/2026/00004', 1121000], ['JE/2026/00005', 1071000]])
  // Pages keep the running balance; a cursor continues.
  const p2 = expectStatus(await org.get(`/accounting/accounts/${a['1000']}/ledger?limit=1&page=2`), 200)
  assert.deepEqual(p2.data.map((l: any) => [l.number, l.balance]), [['JE/2026/00004', 1121000]])
  const c = expectStatus(await org.get(`/accounting/accounts/${a['1000']}/ledger?limit=2`), 200)
  const next = expectStatus(await org.get(`/accounting/accounts/${a['1000']}/ledger?limit=2&cursor=${encodeURIComponent(c.meta.nextCursor)}`), 200)
  assert.deepEqual(next.data.map((l: any) => [l.number, l.balance]), [['JE/2026/00005', 1071000]])
  assert.equal(next.meta.nextCursor, null)
  const eur = expectStatus(await org.get(`/accounting/accounts/${a['1000']}/ledger?currency=eur`), 200)
  assert.deepEqual(eur.data.map((l: any) => [l.number, l.debit, l.balance]), [['JE/2026/00003', 500, 500]])
  const liability = expectStatus(await org.get(`/accounting/accounts/${a['2100']}/ledger?from=2026-02-01`), 200)
  assert.equal(liability.meta.openingBalance, -21000)
  assert.deepEqual(liability.data, [])
  expectStatus(await org.get(`/accounting/accounts/${randomUUID()}/ledger`), 404)
  expectStatus(await org.get(`/accounting/accounts/${a['1000']}/ledger?from=2026-03-01&to=2026-02-01`), 422)
  expectStatus(await org.get(`/accounting/accounts/${a['1000']}/ledger?from=2026-02-31`), 422)
})

test('the three reports as CSV', async () => {
  const csv = async (path: string) => {
    const res = await call(t.app, 'GET', path, { token: org.token, headers: { accept: 'text/csv' } })
    assert.equal(res.status, 200, res.body)
    assert.match(String(res.headers['content-type']), /^text\/csv/)
    return { text: res.body as string, disposition: String(res.headers['content-disposition']) }
  }
  const tb = await csv('/accounting/trial-balance?asOf=2026-02-28')
  assert.equal(tb.disposition, 'attachment; filename="trial-balance-2026-02-28.csv"')
  assert.equal(tb.text, [
    'accountCode,accountName,accountType,debit,credit,balance,currency',
    '1000,Bank,asset,11210.00,500.00,10710.00,usd',
    '1100,Accounts receivable,asset,1210.00,1210.00,0.00,usd',
    '1200,Inventory,asset,300.00,0.00,300.00,usd',
    '2000,Accounts payable,liability,0.00,300.00,-300.00,usd',
    '2100,Tax payable,liability,0.00,210.00,-210.00,usd',
    "3000,Owner's equity,equity,0.00,10000.00,-10000.00,usd",
    '4000,Sales,income,0.00,1000.00,-1000.00,usd',
    '6100,Rent,expense,500.00,0.00,500.00,usd',
    '',
  ].join('\n'))
  const pl = await csv('/accounting/profit-and-loss?from=2026-01-01&to=2026-03-31')
  assert.equal(pl.disposition, 'attachment; filename="profit-and-loss-2026-01-01-2026-03-31.csv"')
  assert.equal(pl.text, [
    'section,accountCode,accountName,accountType,amount,currency',
    'income,4000,Sales,income,1000.00,usd',
    'expenses,5000,Cost of goods sold,expense,200.00,usd',
    'expenses,6100,Rent,expense,500.00,usd',
    '',
  ].join('\n'))
  const bs = await csv('/accounting/balance-sheet?asOf=2026-03-31')
  assert.equal(bs.text, [
    'section,accountCode,accountName,accountType,amount,currency',
    'assets,1000,Bank,asset,10710.00,usd',
    'assets,1100,Accounts receivable,asset,0.00,usd',
    'assets,1200,Inventory,asset,100.00,usd',
    'liabilities,2000,Accounts payable,liability,300.00,usd',
    'liabilities,2100,Tax payable,liability,210.00,usd',
    "equity,3000,Owner's equity,equity,10000.00,usd",
    'earnings,,Earnings (income - expenses),,300.00,usd',
    '',
  ].join('\n'))
  // JSON unless asked.
  assert.equal(expectStatus(await org.get('/accounting/balance-sheet?asOf=2026-03-31'), 200).totals.assets, 1081000)
})

test('roles: admin and member read the reports, others 403', async () => {
  const member = await org.as('member')
  for (const path of ['/accounting/trial-balance', '/accounting/profit-and-loss', '/accounting/balance-sheet', `/accounting/accounts/${a['1000']}/ledger`]) {
    expectStatus(await org.get(path, member), 200)
    for (const role of ['support', 'agent', 'customer'] as const) expectStatus(await org.get(path, await org.as(role)), 403)
  }
})

test('report runs: trial_balance is the CSV of the GET; journal_entries lists every line of the period', async () => {
  await t.app.services.reports!.start()
  const settled = async (id: string) => {
    for (let i = 0; i < 400; i++) {
      const run = expectStatus(await org.get(`/reports/${id}`), 200)
      if (run.status === 'succeeded' || run.status === 'failed') return run
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`report run ${id} did not end`)
  }
  const file = async (id: string) => (await org.get(`/reports/${id}/file`)).body as string
  const tb = await settled(expectStatus(await org.post('/reports', { type: 'trial_balance', parameters: { asOf: '2026-02-28' } }), 201).id)
  assert.equal(tb.status, 'succeeded', tb.error)
  assert.equal(tb.rows, 8)
  const get = await call(t.app, 'GET', '/accounting/trial-balance?asOf=2026-02-28', { token: org.token, headers: { accept: 'text/csv' } })
  assert.equal(await file(tb.id), get.body)
  const je = await settled(expectStatus(await org.post('/reports', { type: 'journal_entries', parameters: { from: '2026-02-01', to: '2026-02-10' } }), 201).id)
  assert.equal(je.status, 'succeeded', je.error)
  const lines = (await file(je.id)).trimEnd().split('\n')
  assert.equal(lines[0], 'entryId,number,date,currency,memo,sourceType,sourceId,accountCode,accountName,debit,credit,description')
  assert.deepEqual(lines.slice(1).map((l) => l.split(',')).map((c) => [c[1], c[2], c[3], c[7], c[9], c[10]]), [
    ['JE/2026/00003', '2026-02-01', 'eur', '1000', '5.00', '0.00'],
    ['JE/2026/00003', '2026-02-01', 'eur', '3000', '0.00', '5.00'],
    ['JE/2026/00004', '2026-02-03', 'usd', '1000', '1210.00', '0.00'],
    ['JE/2026/00004', '2026-02-03', 'usd', '1100', '0.00', '1210.00'],
    ['JE/2026/00005', '2026-02-10', 'usd', '6100', '500.00', '0.00'],
    ['JE/2026/00005', '2026-02-10', 'usd', '1000', '0.00', '500.00'],
  ])
  expectStatus(await org.post('/reports', { type: 'journal_entries', parameters: { from: '2026-03-01', to: '2026-02-01' } }), 422)
  expectStatus(await org.post('/reports', { type: 'journal_entries', parameters: { from: '2026-03-01' } }), 422)
  expectStatus(await org.post('/reports', { type: 'trial_balance', parameters: { asOf: '2026-02-30' } }), 422)
})
