// Tenancy contract fixtures of the accounting module (see test/helpers/tenancy.ts).
import { unique, type TestOrg } from '../../../test/helpers/app.ts'
import { defineTenancyFixtures, type ForeignRecord } from '../../../test/helpers/tenancy.ts'

/** An account of the organization's own, with a unique name. */
async function account(o: TestOrg) {
  const code = String(1_000_000 + Math.floor(Math.random() * 8_999_999))
  const res = await o.post('/accounting/accounts', { code, name: unique('Account '), type: 'expense' })
  if (res.status !== 201) throw new Error(`account: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string; code: string }
}

async function chart(o: TestOrg): Promise<Record<string, string>> {
  const res = await o.get('/accounting/accounts?limit=100')
  return Object.fromEntries(res.body.data.map((a: { code: string; id: string }) => [a.code, a.id]))
}

/** A manual entry dated today (the reports' default day and month): Dr 1000 Bank, Cr 4000 Sales. */
async function entry(o: TestOrg) {
  const a = await chart(o)
  const res = await o.post('/accounting/entries', {
    date: new Date().toISOString().slice(0, 10), memo: unique('Memo '),
    lines: [{ accountId: a['1000'], debit: 1234 }, { accountId: a['4000'], credit: 1234 }],
  })
  if (res.status !== 201) throw new Error(`entry: ${res.status} ${JSON.stringify(res.body)}`)
  return { entry: res.body as { id: string; memo: string }, bank: a['1000'], sales: a['4000'] }
}

const foreignAccount = async (other: TestOrg): Promise<ForeignRecord> => {
  const a = await account(other)
  return { id: a.id, secrets: [a.name] }
}

export default defineTenancyFixtures({
  paths: {
    '/accounting/accounts/:id': async (o) => ({ id: (await account(o)).id }),
    '/accounting/accounts/:id/ledger': async (o) => ({ id: (await entry(o)).bank }),
    '/accounting/entries/:id': async (o) => ({ id: (await entry(o)).entry.id }),
    '/accounting/entries/:id/reverse': async (o) => ({ id: (await entry(o)).entry.id }),
  },
  bodies: {
    'PATCH /accounting/accounts/:id': { name: 'Renamed' },
    'POST /accounting/entries/:id/reverse': {},
  },
  references: {
    'POST /accounting/entries': {
      body: async (o) => {
        const a = await chart(o)
        return { date: '2026-03-01', lines: [{ accountId: a['1000'], debit: 100 }, { accountId: a['3000'], credit: 100 }] }
      },
      unchanged: '/accounting/entries',
      fields: { 'lines[].accountId': { status: 422, foreign: foreignAccount } },
    },
  },
  lists: {
    '/accounting/accounts': async (o) => {
      const a = await account(o)
      return [a.id, a.name]
    },
    '/accounting/entries': async (o) => {
      const e = await entry(o)
      return [e.entry.id, e.entry.memo]
    },
    '/accounting/trial-balance': {
      make: async (o) => {
        const e = await entry(o)
        return [e.bank, e.sales]
      },
      count: (body) => body.data.length,
    },
    '/accounting/profit-and-loss': {
      make: async (o) => [(await entry(o)).sales],
      count: (body) => body.income.length + body.expenses.length,
    },
    '/accounting/balance-sheet': {
      make: async (o) => [(await entry(o)).bank],
      count: (body) => body.assets.length + body.liabilities.length + body.equity.length,
    },
  },
})
