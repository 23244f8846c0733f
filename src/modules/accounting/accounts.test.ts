import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'

let t: TestApp
before(async () => { t = await buildTestApp() })
after(() => t.close())

const CHART = [
  ['1000', 'Bank', 'asset'], ['1100', 'Accounts receivable', 'asset'], ['1200', 'Inventory', 'asset'], ['1300', 'Tax receivable', 'asset'],
  ['2000', 'Accounts payable', 'liability'], ['2100', 'Tax payable', 'liability'], ['2200', 'Goods received not billed', 'liability'],
  ['3000', "Owner's equity", 'equity'], ['4000', 'Sales', 'income'], ['5000', 'Cost of goods sold', 'expense'],
  ['5100', 'Inventory adjustments', 'expense'], ['5200', 'Purchase price difference', 'expense'], ['5300', 'Production', 'expense'],
]

test('every organization is made with the chart, sorted by code ascending', async () => {
  const org = await createOrg(t.app)
  const list = expectStatus(await org.get('/accounting/accounts?limit=100'), 200)
  assert.deepEqual(list.data.map((a: any) => [a.code, a.name, a.type]), CHART)
  assert.ok(list.data.every((a: any) => a.system === true && typeof a.id === 'string' && typeof a.createdAt === 'string'))
  assert.equal(list.meta.total, 13)
  // Descending on request; by name; paging.
  assert.deepEqual(expectStatus(await org.get('/accounting/accounts?limit=2&sortOrder=desc'), 200).data.map((a: any) => a.code), ['5300', '5200'])
  assert.deepEqual(expectStatus(await org.get('/accounting/accounts?sortBy=name&limit=3'), 200).data.map((a: any) => a.name), ['Accounts payable', 'Accounts receivable', 'Bank'])
  const page2 = expectStatus(await org.get('/accounting/accounts?limit=5&page=3'), 200)
  assert.deepEqual(page2.data.map((a: any) => a.code), ['5100', '5200', '5300'])
  assert.equal(page2.meta.totalPages, 3)
  expectStatus(await org.get('/accounting/accounts?sortBy=type'), 400)
})

test('filters: type and search over code and name', async () => {
  const org = await createOrg(t.app)
  assert.deepEqual(expectStatus(await org.get('/accounting/accounts?type=income'), 200).data.map((a: any) => a.code), ['4000'])
  assert.deepEqual(expectStatus(await org.get('/accounting/accounts?type=liability'), 200).data.map((a: any) => a.code), ['2000', '2100', '2200'])
  assert.deepEqual(expectStatus(await org.get('/accounting/accounts?search=receivable'), 200).data.map((a: any) => a.code), ['1100', '1300'])
  assert.deepEqual(expectStatus(await org.get('/accounting/accounts?search=52'), 200).data.map((a: any) => a.code), ['5200'])
  expectStatus(await org.get('/accounting/accounts?type=revenue'), 400)
})

test('create, rename and delete an account; codes are 3 to 10 digits and unique', async () => {
  const org = await createOrg(t.app)
  const rent = expectStatus(await org.post('/accounting/accounts', { code: '6100', name: ' Rent ', type: 'expense' }), 201)
  assert.equal(rent.code, '6100')
  assert.equal(rent.name, 'Rent')
  assert.equal(rent.type, 'expense')
  assert.equal(rent.system, false)
  expectStatus(await org.post('/accounting/accounts', { code: '6100', name: 'Again', type: 'expense' }), 409, 'An account with this code already exists')
  expectStatus(await org.post('/accounting/accounts', { code: '61', name: 'Short', type: 'expense' }), 422)
  expectStatus(await org.post('/accounting/accounts', { code: '12345678901', name: 'Long', type: 'expense' }), 422)
  expectStatus(await org.post('/accounting/accounts', { code: '61a0', name: 'Letters', type: 'expense' }), 422)
  expectStatus(await org.post('/accounting/accounts', { code: '6200', name: 'Kind', type: 'revenue' }), 422)
  expectStatus(await org.post('/accounting/accounts', { code: '6200', name: '   ', type: 'expense' }), 422)
  expectStatus(await org.post('/accounting/accounts', { code: '6200', type: 'expense' }), 422)
  // Another organization may use the same code.
  expectStatus(await (await createOrg(t.app)).post('/accounting/accounts', { code: '6100', name: 'Rent', type: 'expense' }), 201)

  const renamed = expectStatus(await org.patch(`/accounting/accounts/${rent.id}`, { name: 'Office rent' }), 200)
  assert.deepEqual({ ...renamed, name: 'Rent' }, rent)
  expectStatus(await org.patch(`/accounting/accounts/${rent.id}`, { code: '6200' }), 422)
  expectStatus(await org.patch(`/accounting/accounts/${rent.id}`, { type: 'asset' }), 422)
  expectStatus(await org.patch(`/accounting/accounts/${randomUUID()}`, { name: 'x' }), 404)

  const bank = expectStatus(await org.get('/accounting/accounts?search=Bank'), 200).data[0]
  // A system account: renamed, never deleted, its code and type fixed.
  assert.equal(expectStatus(await org.patch(`/accounting/accounts/${bank.id}`, { name: 'Main bank' }), 200).code, '1000')
  expectStatus(await org.del(`/accounting/accounts/${bank.id}`), 409, 'system account')

  // An account with lines cannot go.
  expectStatus(await org.post('/accounting/entries', { date: '2026-02-10', memo: 'Rent', lines: [{ accountId: rent.id, debit: 50000 }, { accountId: bank.id, credit: 50000 }] }), 201)
  expectStatus(await org.del(`/accounting/accounts/${rent.id}`), 409, 'journal lines')

  const spare = expectStatus(await org.post('/accounting/accounts', { code: '6900', name: 'Spare', type: 'expense' }), 201)
  expectStatus(await org.del(`/accounting/accounts/${spare.id}`), 204)
  expectStatus(await org.del(`/accounting/accounts/${spare.id}`), 404)
  assert.equal(expectStatus(await org.get('/accounting/accounts?limit=100'), 200).meta.total, 14)
})

test('roles: admin and member read the chart, only admins change it, others 403', async () => {
  const org = await createOrg(t.app)
  const member = await org.as('member')
  assert.equal(expectStatus(await org.get('/accounting/accounts', member), 200).meta.total, 13)
  expectStatus(await org.post('/accounting/accounts', { code: '6100', name: 'Rent', type: 'expense' }, member), 403)
  const bank = expectStatus(await org.get('/accounting/accounts?search=Bank'), 200).data[0]
  expectStatus(await org.patch(`/accounting/accounts/${bank.id}`, { name: 'x' }, member), 403)
  expectStatus(await org.del(`/accounting/accounts/${bank.id}`, member), 403)
  for (const role of ['support', 'agent', 'customer'] as const) {
    const token = await org.as(role)
    expectStatus(await org.get('/accounting/accounts', token), 403)
    expectStatus(await org.post('/accounting/accounts', { code: '6100', name: 'Rent', type: 'expense' }, token), 403)
  }
})
