import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp } from '../../../test/helpers/app.ts'

let t: TestApp
before(async () => { t = await buildTestApp() })
after(() => t.close())

test('numbers entries per year, keeps daily balances, refuses locked dates', async () => {
    const org = await createOrg(t.app)
    const acc = t.app.services.accounting!
    const db = t.app.ctx.db
    const e1 = await db.tx((q) => acc.post(q, org.id, { date: '2026-03-01', currency: 'usd', memo: 'x', source: null,
      lines: [{ account: '1000', debit: 500 }, { account: '3000', amount: -500 }] }))
    assert.equal(e1!.number, 'JE/2026/00001')
    assert.deepEqual(e1!.lines.map((l) => [l.accountCode, l.debit, l.credit]), [['1000', 500, 0], ['3000', 0, 500]])
    const e2 = await db.tx((q) => acc.post(q, org.id, { date: '2025-12-31', currency: 'usd', memo: 'y', source: { type: 'manual', id: 'm' },
      lines: [{ account: '1000', debit: 100 }, { account: '3000', credit: 100 }, { account: '4000', amount: 0 }] }))
    assert.equal(e2!.number, 'JE/2025/00001')
    const e3 = await db.tx((q) => acc.post(q, org.id, { date: '2026-03-01', currency: 'usd', memo: 'z', source: null,
      lines: [{ account: '1000', debit: 7 }, { account: '3000', credit: 7 }] }))
    assert.equal(e3!.number, 'JE/2026/00002')
    const { rows } = await db.query(`SELECT a.code, to_char(b.date,'YYYY-MM-DD') d, b.debit::int, b.credit::int FROM journal_balances b JOIN accounts a ON a.id = b.account_id WHERE b.organization_id = $1 ORDER BY d, code`, [org.id])
    assert.deepEqual(rows, [
      { code: '1000', d: '2025-12-31', debit: 100, credit: 0 }, { code: '3000', d: '2025-12-31', debit: 0, credit: 100 },
      { code: '1000', d: '2026-03-01', debit: 507, credit: 0 }, { code: '3000', d: '2026-03-01', debit: 0, credit: 507 },
    ])
    await assert.rejects(db.tx((q) => acc.post(q, org.id, { date: '2026-03-01', currency: 'usd', memo: 'u', source: null,
      lines: [{ account: '1000', debit: 7 }, { account: '9999', credit: 7 }] })), { code: 'VALIDATION_FAILED' })
    await db.query(`UPDATE organizations SET lock_date = '2026-03-01' WHERE id = $1`, [org.id])
    await assert.rejects(db.tx((q) => acc.post(q, org.id, { date: '2026-03-01', currency: 'usd', memo: 'u', source: null,
      lines: [{ account: '1000', debit: 7 }, { account: '3000', credit: 7 }] })), { code: 'PERIOD_LOCKED' })
    const n = await db.query(`SELECT count(*)::int n FROM journal_entries WHERE organization_id = $1`, [org.id])
    assert.equal(n.rows[0].n, 3)
    await assert.rejects(db.query(`UPDATE journal_lines SET debit = 1 WHERE organization_id = $1`, [org.id]), /never changed/)
})
