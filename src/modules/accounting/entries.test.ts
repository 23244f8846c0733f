import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { allEntries } from '../../../test/helpers/ledger.ts'

let t: TestApp
before(async () => { t = await buildTestApp() })
after(() => t.close())

/** The organization's account ids by code. */
async function chart(org: TestOrg): Promise<Record<string, string>> {
  const list = expectStatus(await org.get('/accounting/accounts?limit=100'), 200)
  return Object.fromEntries(list.data.map((a: any) => [a.code, a.id]))
}

const linesOf = (entry: any) => entry.lines.map((l: any) => [l.accountCode, l.debit, l.credit])

test('a manual entry: posted, numbered per year, shown with its lines; member may post', async () => {
  const org = await createOrg(t.app)
  const a = await chart(org)
  const e1 = expectStatus(await org.post('/accounting/entries', {
    date: '2026-01-05', currency: 'USD', memo: 'Capital',
    lines: [{ accountId: a['1000'], debit: 1000000, description: 'Wire' }, { accountId: a['3000'], credit: 1000000 }],
  }), 201)
  assert.equal(e1.number, 'JE/2026/00001')
  assert.equal(e1.date, '2026-01-05')
  assert.equal(e1.currency, 'usd')
  assert.equal(e1.memo, 'Capital')
  assert.deepEqual(e1.source, { type: 'manual', id: e1.source.id })
  assert.deepEqual(e1.lines, [
    { accountId: a['1000'], accountCode: '1000', accountName: 'Bank', debit: 1000000, credit: 0, description: 'Wire' },
    { accountId: a['3000'], accountCode: '3000', accountName: "Owner's equity", debit: 0, credit: 1000000, description: null },
  ])
  assert.equal(e1.reverses, null)
  assert.equal(e1.reversedBy, null)
  assert.deepEqual(expectStatus(await org.get(`/accounting/entries/${e1.id}`), 200), e1)

  const member = await org.as('member')
  const e2 = expectStatus(await org.post('/accounting/entries', {
    date: '2025-12-31', lines: [{ accountId: a['5100'], debit: 250 }, { accountId: a['1200'], credit: 100 }, { accountId: a['1200'], credit: 150 }],
  }, member), 201)
  assert.equal(e2.number, 'JE/2025/00001')
  assert.equal(e2.currency, 'usd')
  assert.equal(e2.memo, '')
  assert.deepEqual(linesOf(e2), [['5100', 250, 0], ['1200', 0, 100], ['1200', 0, 150]])
  assert.equal(expectStatus(await org.get(`/accounting/entries/${e2.id}`, member), 200).id, e2.id)
  const e3 = expectStatus(await org.post('/accounting/entries', { date: '2026-06-30', lines: [{ accountId: a['1000'], debit: 1 }, { accountId: a['3000'], credit: 1 }] }), 201)
  assert.equal(e3.number, 'JE/2026/00002')
  // The event, with the entry as its object.
  const { rows } = await t.app.ctx.db.query(`SELECT count(*)::int n FROM domain_events WHERE organization_id = $1 AND type = 'journal_entry.posted'`, [org.id])
  assert.equal(rows[0].n, 3)
  expectStatus(await org.get(`/accounting/entries/${randomUUID()}`), 404)
  for (const role of ['support', 'agent', 'customer'] as const) {
    const token = await org.as(role)
    expectStatus(await org.get('/accounting/entries', token), 403)
    expectStatus(await org.get(`/accounting/entries/${e1.id}`, token), 403)
    expectStatus(await org.post('/accounting/entries', { date: '2026-01-05', lines: [{ accountId: a['1000'], debit: 1 }, { accountId: a['3000'], credit: 1 }] }, token), 403)
    expectStatus(await org.post(`/accounting/entries/${e1.id}/reverse`, {}, token), 403)
  }
})

test('a manual entry is refused with 422 and writes nothing: unbalanced, both or neither side, unknown account, bounds, dates', async () => {
  const org = await createOrg(t.app)
  const other = await chart(await createOrg(t.app))
  const a = await chart(org)
  const ok = (lines: unknown[], extra: Record<string, unknown> = {}) => org.post('/accounting/entries', { date: '2026-03-01', lines, ...extra })
  expectStatus(await ok([{ accountId: a['1000'], debit: 100 }, { accountId: a['3000'], credit: 99 }]), 422, 'The debits (100) do not equal the credits (99)')
  expectStatus(await ok([{ accountId: a['1000'], debit: 100, credit: 100 }, { accountId: a['3000'], credit: 0, debit: 0 }]), 422, 'lines[0] has both a debit and a credit')
  expectStatus(await ok([{ accountId: a['1000'], debit: 100 }, { accountId: a['3000'] }, { accountId: a['3000'], credit: 100 }]), 422, 'lines[1] has neither')
  expectStatus(await ok([{ accountId: a['1000'], debit: 100 }, { accountId: randomUUID(), credit: 100 }]), 422, 'account this organization does not have')
  expectStatus(await ok([{ accountId: a['1000'], debit: 100 }, { accountId: other['3000'], credit: 100 }]), 422, 'account this organization does not have')
  expectStatus(await ok([{ accountId: a['1000'], debit: 100 }]), 422)
  expectStatus(await ok(Array.from({ length: 101 }, (_, i) => ({ accountId: a['1000'], ...(i === 0 ? { credit: 100 } : { debit: 1 }) }))), 422)
  expectStatus(await ok([{ accountId: a['1000'], debit: 1_000_000_000_001 }, { accountId: a['3000'], credit: 1_000_000_000_001 }]), 422)
  expectStatus(await ok([{ accountId: a['1000'], debit: -5 }, { accountId: a['3000'], credit: -5 }]), 422)
  expectStatus(await ok([{ accountId: a['1000'], debit: 1.5 }, { accountId: a['3000'], credit: 1.5 }]), 422)
  expectStatus(await ok([{ accountId: a['1000'], debit: 1 }, { accountId: a['3000'], credit: 1 }], { date: '2026-02-30' }), 422)
  expectStatus(await ok([{ accountId: a['1000'], debit: 1 }, { accountId: a['3000'], credit: 1 }], { date: '26-02-01' }), 422)
  expectStatus(await ok([{ accountId: a['1000'], debit: 1 }, { accountId: a['3000'], credit: 1 }], { date: '0999-02-01' }), 422)
  expectStatus(await ok([{ accountId: a['1000'], debit: 1 }, { accountId: a['3000'], credit: 1 }], { currency: 'us' }), 422)
  expectStatus(await ok([{ accountId: 'nope', debit: 1 }, { accountId: a['3000'], credit: 1 }]), 422)
  expectStatus(await org.post('/accounting/entries', { lines: [{ accountId: a['1000'], debit: 1 }, { accountId: a['3000'], credit: 1 }] }), 422)
  assert.deepEqual(await allEntries(t, org.id), [])
  // The largest amounts: 100 lines at the bound.
  const big = expectStatus(await ok([
    ...Array.from({ length: 50 }, () => ({ accountId: a['1000'], debit: 1_000_000_000_000 })),
    ...Array.from({ length: 50 }, () => ({ accountId: a['3000'], credit: 1_000_000_000_000 })),
  ]), 201)
  assert.equal(big.lines.length, 100)
  const tb = expectStatus(await org.get('/accounting/trial-balance?asOf=2026-03-01'), 200)
  assert.deepEqual(tb.totals, { debit: 50_000_000_000_000, credit: 50_000_000_000_000 })
})

test('list: newest date first, filters by account, source, currency and dates', async () => {
  const org = await createOrg(t.app)
  const a = await chart(org)
  const post = async (date: string, dr: string, cr: string, amount: number, currency = 'usd') =>
    expectStatus(await org.post('/accounting/entries', { date, currency, memo: `${dr}/${cr}`, lines: [{ accountId: a[dr], debit: amount }, { accountId: a[cr], credit: amount }] }), 201)
  const e1 = await post('2026-01-05', '1000', '3000', 1000)
  const e2 = await post('2026-03-01', '1100', '4000', 500)
  const e3 = await post('2026-02-01', '1000', '1100', 200)
  const e4 = await post('2026-02-15', '1000', '3000', 700, 'eur')
  const ids = async (qs: string) => expectStatus(await org.get(`/accounting/entries${qs}`), 200).data.map((e: any) => e.id)
  assert.deepEqual(await ids(''), [e2.id, e4.id, e3.id, e1.id])
  assert.deepEqual(await ids('?sortOrder=asc'), [e1.id, e3.id, e4.id, e2.id])
  assert.deepEqual(await ids('?sortBy=createdAt&sortOrder=asc'), [e1.id, e2.id, e3.id, e4.id])
  assert.deepEqual(await ids(`?accountId=${a['1100']}`), [e2.id, e3.id])
  assert.deepEqual(await ids(`?accountId=${a['1000']}&currency=EUR`), [e4.id])
  assert.deepEqual(await ids('?currency=usd'), [e2.id, e3.id, e1.id])
  assert.deepEqual(await ids('?from=2026-02-01&to=2026-02-28'), [e4.id, e3.id])
  assert.deepEqual(await ids('?from=2026-02-16'), [e2.id])
  assert.deepEqual(await ids('?to=2026-01-31'), [e1.id])
  assert.deepEqual(await ids('?sourceType=manual'), [e2.id, e4.id, e3.id, e1.id])
  assert.deepEqual(await ids('?sourceType=invoice'), [])
  assert.deepEqual(await ids(`?sourceType=manual&sourceId=${e1.source.id}`), [e2.id, e4.id, e3.id, e1.id])
  assert.deepEqual(await ids(`?sourceId=${randomUUID()}`), [])
  const page = expectStatus(await org.get('/accounting/entries?limit=3'), 200)
  assert.equal(page.meta.total, 4)
  assert.deepEqual(await ids(`?limit=3&cursor=${encodeURIComponent(page.meta.nextCursor)}`), [e1.id])
  expectStatus(await org.get('/accounting/entries?from=2026-03-01&to=2026-02-01'), 422, 'from must not be after to')
  expectStatus(await org.get('/accounting/entries?from=2026-13-01'), 422)
  expectStatus(await org.get('/accounting/entries?to=yesterday'), 422)
  expectStatus(await org.get('/accounting/entries?sourceType=sale'), 400)
  expectStatus(await org.get('/accounting/entries?accountId=x'), 400)
  // Another organization sees none of them.
  assert.equal(expectStatus(await (await createOrg(t.app)).get('/accounting/entries'), 200).meta.total, 0)
})

test('a reversal swaps every line, links both entries, once only', async () => {
  const org = await createOrg(t.app)
  const a = await chart(org)
  const original = expectStatus(await org.post('/accounting/entries', { date: '2026-02-10', memo: 'Rent', lines: [
    { accountId: a['5100'], debit: 50000, description: 'Rent' }, { accountId: a['1000'], credit: 30000 }, { accountId: a['2000'], credit: 20000 },
  ] }), 201)
  const member = await org.as('member')
  const reversal = expectStatus(await org.post(`/accounting/entries/${original.id}/reverse`, { date: '2026-02-11' }, member), 201)
  assert.equal(reversal.number, 'JE/2026/00002')
  assert.equal(reversal.date, '2026-02-11')
  assert.equal(reversal.memo, 'Reversal of JE/2026/00001')
  assert.deepEqual(reversal.source, { type: 'reversal', id: original.id })
  assert.deepEqual(reversal.reverses, { id: original.id, number: 'JE/2026/00001' })
  assert.equal(reversal.reversedBy, null)
  assert.deepEqual(linesOf(reversal), [['5100', 0, 50000], ['1000', 30000, 0], ['2000', 20000, 0]])
  assert.equal(reversal.lines[0].description, 'Rent')
  const again = expectStatus(await org.get(`/accounting/entries/${original.id}`), 200)
  assert.deepEqual(again.reversedBy, { id: reversal.id, number: 'JE/2026/00002' })
  expectStatus(await org.post(`/accounting/entries/${original.id}/reverse`, {}), 409, 'already been reversed')
  // Both balance to nothing.
  const tb = expectStatus(await org.get('/accounting/trial-balance?asOf=2026-02-28'), 200)
  assert.deepEqual(tb.data.map((r: any) => [r.account.code, r.debit, r.credit, r.balance]), [['1000', 30000, 30000, 0], ['2000', 20000, 20000, 0], ['5100', 50000, 50000, 0]])
  // A reversal of the reversal is an entry like any other; default date today and a memo of one's own.
  const back = expectStatus(await org.post(`/accounting/entries/${reversal.id}/reverse`, { memo: 'Undo the undo' }), 201)
  assert.equal(back.date, new Date().toISOString().slice(0, 10))
  assert.equal(back.memo, 'Undo the undo')
  assert.deepEqual(linesOf(back), [['5100', 50000, 0], ['1000', 0, 30000], ['2000', 0, 20000]])
  // Parallel reversals of one entry: one wins, the others 409.
  const fresh = expectStatus(await org.post('/accounting/entries', { date: '2026-02-12', lines: [{ accountId: a['1000'], debit: 5 }, { accountId: a['3000'], credit: 5 }] }), 201)
  const results = await Promise.all(Array.from({ length: 5 }, () => org.post(`/accounting/entries/${fresh.id}/reverse`, { date: '2026-02-13' })))
  assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409])
  expectStatus(await org.post(`/accounting/entries/${randomUUID()}/reverse`, {}), 404)
  expectStatus(await org.post(`/accounting/entries/${fresh.id}/reverse`, { date: '2026-02-31' }), 422)
})

test('the lock date: manual entries and reversals dated on or before it are 422 PERIOD_LOCKED and write nothing', async () => {
  const org = await createOrg(t.app)
  const a = await chart(org)
  const lines = [{ accountId: a['1000'], debit: 100 }, { accountId: a['3000'], credit: 100 }]
  const jan = expectStatus(await org.post('/accounting/entries', { date: '2026-01-15', lines }), 201)
  const jan2 = expectStatus(await org.post('/accounting/entries', { date: '2026-01-20', lines }), 201)
  assert.equal(expectStatus(await org.get('/organization'), 200).lockDate, null)
  expectStatus(await org.patch('/organization', { lockDate: '2026-01-31' }, await org.as('member')), 403)
  expectStatus(await org.patch('/organization', { lockDate: '2026-02-30' }), 422)
  expectStatus(await org.patch('/organization', { lockDate: 'soon' }), 422)
  assert.equal(expectStatus(await org.patch('/organization', { lockDate: '2026-01-31' }), 200).lockDate, '2026-01-31')
  assert.equal(expectStatus(await org.get('/organization', await org.as('member')), 200).lockDate, '2026-01-31')
  const before = await allEntries(t, org.id)
  expectStatus(await org.post('/accounting/entries', { date: '2026-01-31', lines }), 422, 'locked')
  assert.equal(expectStatus(await org.post('/accounting/entries', { date: '2025-06-01', lines }), 422).code, 'PERIOD_LOCKED')
  // A locked entry may be reversed into an open period, not into the locked one.
  assert.equal(expectStatus(await org.post(`/accounting/entries/${jan.id}/reverse`, { date: '2026-01-31' }), 422).code, 'PERIOD_LOCKED')
  assert.deepEqual(await allEntries(t, org.id), before)
  assert.equal(expectStatus(await org.get(`/accounting/entries/${jan.id}`), 200).reversedBy, null)
  const rev = expectStatus(await org.post(`/accounting/entries/${jan.id}/reverse`, { date: '2026-02-01' }), 201)
  assert.equal(rev.number, 'JE/2026/00003')
  expectStatus(await org.post('/accounting/entries', { date: '2026-02-01', lines }), 201)
  // Unlocked again: the past is open.
  assert.equal(expectStatus(await org.patch('/organization', { lockDate: null }), 200).lockDate, null)
  expectStatus(await org.post(`/accounting/entries/${jan2.id}/reverse`, { date: '2026-01-25' }), 201)
})
