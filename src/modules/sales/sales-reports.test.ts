import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { createContact, createProduct } from '../../../test/helpers/sales-fixtures.ts'

// One organization with a known set of quotations and orders, all made today:
//   Sam: 1000 usd confirmed, 2000 usd sent, 3000 usd draft -> cancelled
//   Kim: 4000 usd confirmed, 500 eur draft
//   nobody: 700 usd draft
let t: TestApp
let org: TestOrg
const today = new Date().toISOString().slice(0, 10)
const people: Record<string, string> = {}
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  const contact = await createContact(org)
  const product = await createProduct(org)
  people.sam = (await org.post('/employees', { name: 'Sam' })).body.id
  people.kim = (await org.post('/employees', { name: 'Kim' })).body.id
  const quote = async (unitPrice: number, salespersonId?: string, currency = 'usd') =>
    expectStatus(await org.post('/sales/quotations', { contactId: contact.id, salespersonId, currency, lineItems: [{ productId: product.id, quantity: 1, unitPrice }] }), 201).id as string
  await org.post(`/sales/quotations/${await quote(1000, people.sam)}/confirm`)
  await org.post(`/sales/quotations/${await quote(2000, people.sam)}/send`)
  await org.post(`/sales/quotations/${await quote(3000, people.sam)}/cancel`)
  await org.post(`/sales/quotations/${await quote(4000, people.kim)}/confirm`)
  await quote(500, people.kim, 'eur')
  await quote(700)
})
after(() => t.close())

describe('GET /sales/pipeline', () => {
  test('quotations of the period by stage in cents; the open pipeline is draft plus sent', async () => {
    const res = expectStatus(await org.get(`/sales/pipeline?from=${today}&to=${today}`), 200)
    assert.deepEqual(res, {
      stages: [
        { stage: 'draft', count: 1, value: 700 },
        { stage: 'sent', count: 1, value: 2000 },
        { stage: 'confirmed', count: 2, value: 5000 },
        { stage: 'cancelled', count: 1, value: 3000 },
      ],
      totalPipeline: 2700,
      currency: 'usd',
      period: { from: today, to: today },
    })
  })

  test('currency selects the documents; the default period is the year to date', async () => {
    const eur = expectStatus(await org.get('/sales/pipeline?currency=EUR'), 200)
    assert.equal(eur.currency, 'eur')
    assert.deepEqual(eur.stages[0], { stage: 'draft', count: 1, value: 500 })
    assert.equal(eur.totalPipeline, 500)
    assert.deepEqual(eur.period, { from: `${today.slice(0, 4)}-01-01`, to: today })
    const empty = expectStatus(await org.get('/sales/pipeline?from=2001-01-01&to=2001-12-31'), 200)
    assert.equal(empty.totalPipeline, 0)
    assert.equal(empty.currency, 'usd')
  })

  test('bad ranges and values', async () => {
    expectStatus(await org.get('/sales/pipeline?from=2026-02-01&to=2026-01-01'), 422, 'from must not be after to')
    expectStatus(await org.get('/sales/pipeline?from=01/02/2026'), 400)
    expectStatus(await org.get('/sales/pipeline?from=2026-02-30'), 422, 'from is not a valid date')
    const stamped = expectStatus(await org.get(`/sales/pipeline?from=${today}T00:00:00Z&to=${today}T23:59:59Z`), 200)
    assert.deepEqual([stamped.period, stamped.totalPipeline], [{ from: today, to: today }, 2700], 'date-times are read as their UTC day')
    expectStatus(await org.get('/sales/pipeline?stage=draft'), 400)
  })
})

describe('GET /sales/revenue', () => {
  test('orders per day with empty days as zero, and totals', async () => {
    const from = new Date(Date.now() - 2 * 86400_000).toISOString().slice(0, 10)
    const res = expectStatus(await org.get(`/sales/revenue?from=${from}&to=${today}&groupBy=day`), 200)
    assert.equal(res.data.length, 3)
    assert.deepEqual(res.data[2], { period: today, revenue: 5000, orders: 2 })
    assert.deepEqual(res.data[0], { period: from, revenue: 0, orders: 0 })
    assert.deepEqual(res.total, { revenue: 5000, orders: 2 })
    assert.deepEqual([res.currency, res.groupBy, res.period], ['usd', 'day', { from, to: today }])
  })

  test('weeks start on Monday, months are YYYY-MM; month is the default', async () => {
    const week = expectStatus(await org.get(`/sales/revenue?from=${today}&to=${today}&groupBy=week`), 200)
    assert.equal(week.data.length, 1)
    const monday = new Date(`${today}T00:00:00Z`)
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7))
    assert.deepEqual(week.data[0], { period: monday.toISOString().slice(0, 10), revenue: 5000, orders: 2 })
    const months = expectStatus(await org.get(`/sales/revenue?to=${today}`), 200)
    assert.equal(months.groupBy, 'month')
    assert.equal(months.data.length, Number(today.slice(5, 7)))
    assert.deepEqual(months.data.at(-1), { period: today.slice(0, 7), revenue: 5000, orders: 2 })
    assert.equal(months.data[0].period, `${today.slice(0, 4)}-01`)
  })

  test('invoicing keeps an order counted; other currencies are apart', async () => {
    const order = (await org.get('/orders?limit=1')).body.data[0]
    expectStatus(await org.post(`/orders/${order.id}/invoice`), 201)
    assert.deepEqual(expectStatus(await org.get(`/sales/revenue?from=${today}&to=${today}`), 200).total, { revenue: 5000, orders: 2 })
    const eur = expectStatus(await org.get('/sales/revenue?currency=eur'), 200)
    assert.deepEqual(eur.total, { revenue: 0, orders: 0 })
  })

  test('bad groupBy is 400; too many periods and reversed ranges are 422', async () => {
    expectStatus(await org.get('/sales/revenue?groupBy=year'), 400)
    expectStatus(await org.get('/sales/revenue?from=1990-01-01&to=2026-01-01&groupBy=day'), 422, 'periods')
    expectStatus(await org.get('/sales/revenue?from=2026-03-01&to=2026-01-01'), 422)
  })
})

describe('GET /sales/team', () => {
  test('each salesperson with quotation and order figures, best revenue first', async () => {
    const res = expectStatus(await org.get(`/sales/team?from=${today}&to=${today}`), 200)
    assert.equal(res.currency, 'usd')
    assert.deepEqual(res.data, [
      { salesperson: { id: people.kim, name: 'Kim' }, quotations: 1, quotationsValue: 4000, quotationsConfirmed: 1, conversionRate: 1, orders: 1, revenue: 4000 },
      { salesperson: { id: people.sam, name: 'Sam' }, quotations: 3, quotationsValue: 6000, quotationsConfirmed: 1, conversionRate: 1 / 3, orders: 1, revenue: 1000 },
    ])
    const eur = expectStatus(await org.get('/sales/team?currency=eur'), 200)
    assert.deepEqual(eur.data.map((m: any) => [m.salesperson.name, m.quotations, m.orders]), [['Kim', 1, 0]])
    assert.deepEqual(expectStatus(await org.get('/sales/team?from=2001-01-01&to=2001-01-31'), 200).data, [])
  })

  test('access: 401 without a credential, 403 for customers, empty for another organization', async () => {
    expectStatus(await call(t.app, 'GET', '/sales/team'), 401)
    expectStatus(await org.get('/sales/pipeline', await org.as('customer')), 403)
    expectStatus(await org.get('/sales/revenue', await org.as('member')), 200)
    const other = await createOrg(t.app)
    assert.deepEqual((await other.get('/sales/team')).body.data, [])
    assert.equal((await other.get('/sales/pipeline')).body.totalPipeline, 0)
    assert.deepEqual((await other.get('/sales/revenue')).body.total, { revenue: 0, orders: 0 })
  })
})
