import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { createContact, createProduct } from '../../../test/helpers/sales-fixtures.ts'
import { createVendor } from '../../../test/helpers/purchase.ts'
import { createEmployee, warehouseOf } from '../../../test/helpers/tenancy.ts'
import { createBom, stockUp } from '../../../test/helpers/manufacturing.ts'
import { createProject, createTask } from '../../../test/helpers/projects.ts'
import { createTicket } from '../../../test/helpers/helpdesk.ts'
import pg from 'pg'
import { toCsvRecords } from './index.ts'

// Every expected figure below is worked out by hand from the fixture (see the
// comments), never from the code's own arithmetic. docs/analytics.md.

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const ok = <T = any>(res: { status: number; body: T }, status = 200): T => {
  assert.equal(res.status, status, JSON.stringify(res.body))
  return res.body
}
const today = () => new Date().toISOString().slice(0, 10)
const csv = (o: TestOrg, path: string) => call(t.app, 'GET', path, { token: o.token, headers: { accept: 'text/csv' } })

/** An invoice of one untaxed line (total = amount), sent unless draft. */
async function invoice(o: TestOrg, contactId: string, amount: number, invoiceDate: string, dueDate: string, opts: { currency?: string; draft?: boolean } = {}) {
  const inv = ok(await o.post('/invoices', { contactId, lineItems: [{ description: 'Work', quantity: 1, unitPrice: amount }], currency: opts.currency ?? 'usd', invoiceDate, dueDate }), 201)
  if (!opts.draft) ok(await o.post(`/invoices/${inv.id}/send`, {}))
  return inv.id as string
}
const pay = async (o: TestOrg, id: string, amount: number, paymentDate: string) => ok(await o.post(`/invoices/${id}/pay`, { amount, paymentDate }))

describe('receivables aging', () => {
  let o: TestOrg
  let a: { id: string; name: string; email: string }
  let b: { id: string; name: string; email: string }
  let c: { id: string; name: string; email: string }
  before(async () => {
    o = await createOrg(t.app)
    a = await createContact(o, { name: 'Alpha Traders' })
    b = await createContact(o, { name: 'Beta, "B" Ltd' })
    c = await createContact(o, { name: 'Charlie GmbH' })
    // Days past due as of 2026-06-30 in brackets.
    await invoice(o, a.id, 10000, '2026-06-01', '2026-07-10') //            #1 (-10) current 10000
    const i2 = await invoice(o, a.id, 20000, '2026-06-01', '2026-06-30') // #2 (0)   current 20000 - 5000
    await pay(o, i2, 5000, '2026-06-15')
    const i3 = await invoice(o, a.id, 30000, '2026-05-15', '2026-06-15') // #3 (15)  paid 10000 on 07-05, after asOf: 30000
    await pay(o, i3, 10000, '2026-07-05')
    const i4 = await invoice(o, b.id, 40000, '2026-04-01', '2026-05-01') // #4 (60)  paid in full on 07-01: 40000 open as of 06-30
    await pay(o, i4, 40000, '2026-07-01')
    const i5 = await invoice(o, b.id, 50000, '2026-03-01', '2026-04-01') // #5 (90)  paid 20000 on 04-10: 30000
    await pay(o, i5, 20000, '2026-04-10')
    await invoice(o, b.id, 60000, '2026-02-01', '2026-03-01') //            #6 (121) over90 60000
    await invoice(o, a.id, 70000, '2026-05-01', '2026-05-31') //            #7 (30)  days1to30 70000
    await invoice(o, b.id, 8000, '2026-05-01', '2026-05-30') //             #8 (31)  days31to60 8000
    await invoice(o, a.id, 90000, '2026-06-01', '2026-06-05', { draft: true }) // draft: never counts
    const cancelled = await invoice(o, a.id, 11000, '2026-06-01', '2026-06-05') // cancelled: never counts
    ok(await o.post(`/invoices/${cancelled}/cancel`, {}))
    const i11 = await invoice(o, a.id, 12000, '2026-06-01', '2026-06-10') // paid in full on 06-20: nothing open
    await pay(o, i11, 12000, '2026-06-20')
    await invoice(o, a.id, 13000, '2026-07-02', '2026-08-01') //            dated after 06-30; current as of 07-31
    await invoice(o, c.id, 25000, '2026-05-20', '2026-06-01', { currency: 'eur' }) // eur (29) days1to30
    // Past-due sent and partly paid invoices become overdue: their status still counts.
    ok(await o.post('/admin/jobs/invoices-overdue/run', {}))
  })

  test('buckets as of 2026-06-30, payments dated after asOf still open, draft, cancelled and other currencies left out', async () => {
    const r = ok(await o.get('/analytics/receivables/aging?asOf=2026-06-30'))
    assert.equal(r.asOf, '2026-06-30')
    assert.equal(r.currency, 'usd')
    assert.deepEqual(r.data, [
      { contact: { id: b.id, name: b.name, email: b.email }, current: 0, days1to30: 0, days31to60: 48000, days61to90: 30000, over90: 60000, total: 138000, invoices: 4 },
      { contact: { id: a.id, name: a.name, email: a.email }, current: 25000, days1to30: 100000, days31to60: 0, days61to90: 0, over90: 0, total: 125000, invoices: 4 },
    ])
    assert.deepEqual(r.totals, { current: 25000, days1to30: 100000, days31to60: 48000, days61to90: 30000, over90: 60000, total: 263000, invoices: 8 })
  })

  test('as of 2026-07-31 the later payments count and the buckets move on', async () => {
    // A: #1 (21) 10000, #2 (31) 15000, #3 (46) 20000, #7 (61) 70000, the 07-02 invoice (-1) 13000.
    // B: #4 paid, #5 (121) 30000, #6 (152) 60000, #8 (62) 8000.
    const r = ok(await o.get('/analytics/receivables/aging?asOf=2026-07-31&currency=USD'))
    assert.deepEqual(r.data.map((d: any) => [d.contact.id, d.current, d.days1to30, d.days31to60, d.days61to90, d.over90, d.total, d.invoices]), [
      [a.id, 13000, 10000, 35000, 70000, 0, 128000, 5],
      [b.id, 0, 0, 0, 8000, 90000, 98000, 3],
    ])
    assert.deepEqual(r.totals, { current: 13000, days1to30: 10000, days31to60: 35000, days61to90: 78000, over90: 90000, total: 226000, invoices: 8 })
  })

  test("the overview's receivables, as of a past to, are these totals (the payments after it added back)", async () => {
    // As of 06-30: 263000 open, 25000 of it current; as of 07-31: 226000, 13000 current.
    const june = ok(await o.get('/analytics/overview?from=2026-06-01&to=2026-06-30'))
    assert.deepEqual(june.receivables, { outstanding: 263000, overdue: 238000 })
    const july = ok(await o.get('/analytics/overview?from=2026-07-01&to=2026-07-31'))
    assert.deepEqual(july.receivables, { outstanding: 226000, overdue: 213000 })
    const eur = ok(await o.get('/analytics/overview?from=2026-06-01&to=2026-06-30&currency=eur'))
    assert.deepEqual(eur.receivables, { outstanding: 25000, overdue: 25000 })
    const early = ok(await o.get('/analytics/overview?from=2026-01-01&to=2026-01-31'))
    assert.deepEqual(early.receivables, { outstanding: 0, overdue: 0 })
  })

  test('another currency, one contact, and a day before every invoice', async () => {
    const eur = ok(await o.get('/analytics/receivables/aging?asOf=2026-06-30&currency=eur'))
    assert.deepEqual(eur.data, [{ contact: { id: c.id, name: c.name, email: c.email }, current: 0, days1to30: 25000, days31to60: 0, days61to90: 0, over90: 0, total: 25000, invoices: 1 }])
    const one = ok(await o.get(`/analytics/receivables/aging?asOf=2026-06-30&contactId=${a.id}`))
    assert.deepEqual(one.data.map((d: any) => d.contact.id), [a.id])
    assert.equal(one.totals.total, 125000)
    const before = ok(await o.get('/analytics/receivables/aging?asOf=2026-01-31'))
    assert.deepEqual(before.data, [])
    assert.deepEqual(before.totals, { current: 0, days1to30: 0, days31to60: 0, days61to90: 0, over90: 0, total: 0, invoices: 0 })
  })

  test('asOf defaults to today', async () => {
    const r = ok(await o.get('/analytics/receivables/aging'))
    assert.equal(r.asOf, today())
    // Every usd invoice is past due by now (their due dates are 2026-08-01 at the latest):
    // open now = 10000 + 15000 + 20000 + 30000 + 60000 + 70000 + 8000 + 13000 = 226000.
    assert.equal(r.totals.total, 226000)
    assert.equal(r.totals.current, 0)
  })

  test('CSV: header, one line per row, decimal money, quoting, a currency column', async () => {
    const res = await csv(o, '/analytics/receivables/aging?asOf=2026-06-30')
    assert.equal(res.status, 200)
    assert.match(String(res.headers['content-type']), /^text\/csv/)
    assert.match(String(res.headers['content-disposition']), /receivables-aging-2026-06-30\.csv/)
    assert.equal(res.body,
      'contactId,contactName,contactEmail,current,days1to30,days31to60,days61to90,over90,total,invoices,currency\n' +
      `${b.id},"Beta, ""B"" Ltd",${b.email},0.00,0.00,480.00,300.00,600.00,1380.00,4,usd\n` +
      `${a.id},Alpha Traders,${a.email},250.00,1000.00,0.00,0.00,0.00,1250.00,4,usd\n`)
    // Without the header the answer stays JSON.
    assert.equal(ok(await o.get('/analytics/receivables/aging?asOf=2026-06-30')).totals.total, 263000)
  })

  test("another organization's contact gives an empty report, and nothing of this organization leaks", async () => {
    const stranger = await createOrg(t.app)
    const theirs = ok(await stranger.get(`/analytics/receivables/aging?asOf=2026-06-30&contactId=${a.id}`))
    assert.deepEqual(theirs.data, [])
    assert.equal(theirs.totals.total, 0)
    const all = ok(await stranger.get('/analytics/receivables/aging?asOf=2026-06-30'))
    assert.deepEqual(all.data, [])
  })
})

describe('identical reports at the same time (core/coalesce.ts)', () => {
  const aging = (who: TestOrg) => who.get('/analytics/receivables/aging')

  test('requests in flight together answer exactly, each as of its arrival, per organization and format', async () => {
    const o = await createOrg(t.app)
    const x = await createContact(o, { name: 'Xavier & Co' })
    const inv = await invoice(o, x.id, 100000, today(), '2099-12-31') // current: 100000 open
    const other = await createOrg(t.app)
    const y = await createContact(other, { name: 'Yolanda' })
    await invoice(other, y.id, 7000, today(), '2099-12-31')
    for (let k = 1; k <= 3; k++) {
      const inFlight = [aging(o), aging(o), aging(other)]
      await pay(o, inv, 1000, today())
      const after = await Promise.all([aging(o), aging(o), aging(other), csv(o, '/analytics/receivables/aging')])
      for (const r of after.slice(0, 2)) assert.equal(ok(r).totals.current, 100000 - 1000 * k, `after payment ${k}`)
      assert.equal(ok(after[2]).totals.total, 7000)
      assert.match(String(after[3].headers['content-type']), /^text\/csv/)
      assert.match(String(after[3].body), new RegExp(`\\n${x.id},Xavier & Co,[^,]*,${(100000 - 1000 * k) / 100}\\.00,`))
      const before = await Promise.all(inFlight)
      for (const r of before.slice(0, 2)) assert.ok([100000 - 1000 * (k - 1), 100000 - 1000 * k].includes(ok(r).totals.current))
      assert.equal(ok(before[2]).totals.total, 7000)
    }
  })

  // A run slow enough to be caught in progress needs volume: 150,000 open invoices by SQL.
  test('a run in progress is never shared with a request that arrives after it began; waiting requests share by organization, format and query', { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL (a second connection watching the first run)' }, async () => {
    const o = await createOrg(t.app)
    const x = await createContact(o, { name: 'Xavier & Co' })
    const inv = await invoice(o, x.id, 100000, today(), '2099-12-31')
    const bulk = await createContact(o, { name: 'Bulk Buyer' })
    // Without the list counters' row trigger (session_replication_role, this transaction only):
    // 150,000 updates of the same counter row in one transaction take half a minute, and this
    // organization's invoice list is not read here.
    await t.app.ctx.db.tx(async (q) => {
      await q.query("SELECT set_config('session_replication_role', 'replica', true)")
      await q.query(
        `INSERT INTO invoices (id, organization_id, number, status, contact_id, contact_name, line_items, subtotal, tax_amount, total, amount_paid, currency, invoice_date, due_date)
         SELECT gen_random_uuid(), $1, 'BULK/' || g, 'sent', $2, 'Bulk Buyer', '[]', 100, 0, 100, 0, 'usd', now() - interval '1 day', now() + interval '30 days'
         FROM generate_series(1, 150000) g`,
        [o.id, bulk.id],
      )
    })
    await t.app.ctx.db.query('ANALYZE invoices')
    const other = await createOrg(t.app)
    const y = await createContact(other, { name: 'Yolanda' })
    await invoice(other, y.id, 7000, today(), '2099-12-31')
    const watcher = new pg.Client({ connectionString: t.config.databaseUrl })
    await watcher.connect()
    try {
      const yesterday = new Date(Date.now() - 86400_000).toISOString().slice(0, 10)
      const running = async () => (await watcher.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE 'WITH later AS%'`,
      )).rows[0].n
      const open = (r: { status: number; body: any }) => ok(r).data.find((d: any) => d.contact.id === x.id)?.total
      // Catch a first run in progress (one that ends before it is seen, or before the payment
      // commits, is tried again), commit a payment meanwhile, then ask again.
      let paid = 0
      for (let attempt = 1; ; attempt++) {
        assert.ok(attempt <= 20, 'a run in progress was never caught')
        let settled = false
        const first = aging(o)
        void first.then(() => (settled = true))
        while (!settled && (await running()) === 0) await new Promise((resolve) => setImmediate(resolve))
        if (settled) continue
        // Written on the watcher's connection as the pay route writes it (a payment row and the
        // invoice's amount_paid), so that it lands within the first run.
        await watcher.query('BEGIN')
        await watcher.query(
          `INSERT INTO invoice_payments (id, organization_id, invoice_id, amount, currency, payment_date) VALUES (gen_random_uuid(), $1, $2, 1000, 'usd', now())`,
          [o.id, inv],
        )
        await watcher.query(`UPDATE invoices SET amount_paid = amount_paid + 1000, status = 'partial_paid' WHERE id = $1`, [inv])
        await watcher.query('COMMIT')
        paid++
        const caught = (await running()) === 1 && !settled
        const [same1, same2, theirs, asCsv, pastDay] = await Promise.all([
          aging(o), aging(o), aging(other), csv(o, '/analytics/receivables/aging'), o.get(`/analytics/receivables/aging?asOf=${yesterday}`),
        ])
        const before = 100000 - 1000 * (paid - 1)
        const now = 100000 - 1000 * paid
        assert.ok([before, now].includes(open(await first)))
        assert.equal(open(same1), now)
        assert.equal(open(same2), now)
        assert.equal(ok(theirs).totals.total, 7000)
        assert.match(String(asCsv.headers['content-type']), /^text\/csv/)
        assert.equal(ok(pastDay).asOf, yesterday)
        if (caught) break
      }
    } finally {
      await watcher.end()
    }
  })
})

describe('payables aging', () => {
  test('bills in buckets, a bill dated after asOf, another currency, CSV and vendor filter', async () => {
    const o = await createOrg(t.app)
    const v1 = await createVendor(o, { name: 'Vendor One' })
    const v2 = await createVendor(o, { name: 'Vendor Two' })
    const product = await createProduct(o, { type: 'storable' })
    const bill = async (vendorId: string, unitPrice: number, invoiceDate: string, dueDate: string, currency = 'usd') => {
      const rfq = ok(await o.post('/purchase/rfqs', { vendorId, currency, lineItems: [{ productId: product.id, quantity: 10, unitPrice }] }), 201)
      ok(await o.post(`/purchase/rfqs/${rfq.id}/confirm`, {}))
      return ok(await o.post(`/purchase/orders/${rfq.id}/bill`, { vendorInvoiceNumber: `V-${unitPrice}-${invoiceDate}`, invoiceDate, dueDate }), 201)
    }
    // As of 2026-06-30 (days past due):
    await bill(v1.id, 1000, '2026-06-01', '2026-07-01') // 10000 (-1) current
    await bill(v1.id, 500, '2026-04-01', '2026-05-01') //  5000 (60) days31to60
    await bill(v2.id, 700, '2026-02-01', '2026-03-01') //  7000 (121) over90
    await bill(v2.id, 300, '2026-07-15', '2026-08-15') //  dated after asOf
    await bill(v1.id, 400, '2026-06-01', '2026-06-10', 'eur') // 4000 eur (20) days1to30
    const r = ok(await o.get('/analytics/payables/aging?asOf=2026-06-30'))
    assert.deepEqual(r.data, [
      { vendor: { id: v1.id, name: 'Vendor One', email: v1.email }, current: 10000, days1to30: 0, days31to60: 5000, days61to90: 0, over90: 0, total: 15000, invoices: 2 },
      { vendor: { id: v2.id, name: 'Vendor Two', email: v2.email }, current: 0, days1to30: 0, days31to60: 0, days61to90: 0, over90: 7000, total: 7000, invoices: 1 },
    ])
    assert.deepEqual(r.totals, { current: 10000, days1to30: 0, days31to60: 5000, days61to90: 0, over90: 7000, total: 22000, invoices: 3 })
    const eur = ok(await o.get('/analytics/payables/aging?asOf=2026-06-30&currency=eur'))
    assert.deepEqual(eur.totals, { current: 0, days1to30: 4000, days31to60: 0, days61to90: 0, over90: 0, total: 4000, invoices: 1 })
    const one = ok(await o.get(`/analytics/payables/aging?asOf=2026-06-30&vendorId=${v2.id}`))
    assert.deepEqual(one.data.map((d: any) => d.vendor.id), [v2.id])
    const res = await csv(o, '/analytics/payables/aging?asOf=2026-06-30')
    assert.deepEqual(String(res.body).trimEnd().split('\n'), [
      'vendorId,vendorName,vendorEmail,current,days1to30,days31to60,days61to90,over90,total,invoices,currency',
      `${v1.id},Vendor One,${v1.email},100.00,0.00,50.00,0.00,0.00,150.00,2,usd`,
      `${v2.id},Vendor Two,${v2.email},0.00,0.00,0.00,0.00,70.00,70.00,1,usd`,
    ])
    const stranger = await createOrg(t.app)
    assert.deepEqual(ok(await stranger.get(`/analytics/payables/aging?asOf=2026-06-30&vendorId=${v1.id}`)).data, [])
  })
})

describe('stock valuation', () => {
  test('as of a past day between two moves, per warehouse, in another currency, and CSV', async () => {
    const o = await createOrg(t.app)
    const p1 = await createProduct(o, { name: 'Bolt', sku: 'BOLT', type: 'storable', cost: 250 })
    const p2 = await createProduct(o, { name: 'Nut', sku: 'NUT', type: 'storable', cost: 333 })
    const p3 = await createProduct(o, { name: 'Schraube', type: 'storable', cost: 100, currency: 'eur' })
    ok(await o.post('/inventory/locations', { code: 'SHELF', name: 'Shelf outside any warehouse', type: 'internal' }), 201)
    const adjust = async (locationId: string, date: string, lines: Array<{ productId: string; realQty: number }>) =>
      ok(await o.post('/inventory/adjustments', { locationId, date, lines }), 201)
    await adjust('LOC-STOCK', '2026-03-01', [{ productId: p1.id, realQty: 10 }, { productId: p2.id, realQty: 3 }, { productId: p3.id, realQty: 5 }])
    await adjust('LOC-SHELF', '2026-04-01', [{ productId: p1.id, realQty: 2 }])
    await adjust('LOC-STOCK', '2026-05-01', [{ productId: p1.id, realQty: 4 }, { productId: p2.id, realQty: 7.5 }])

    // 2026-04-15: Bolt 10 + 2 = 12 x 250 = 3000; Nut 3 x 333 = 999.
    const mid = ok(await o.get('/analytics/stock/valuation?asOf=2026-04-15'))
    assert.deepEqual(mid, {
      asOf: '2026-04-15', currency: 'usd',
      data: [
        { product: { id: p1.id, name: 'Bolt', sku: 'BOLT' }, quantity: 12, unitCost: 250, value: 3000 },
        { product: { id: p2.id, name: 'Nut', sku: 'NUT' }, quantity: 3, unitCost: 333, value: 999 },
      ],
      totals: { value: 3999 },
    })
    // The main warehouse only: the shelf has no warehouse. Bolt 10 x 250 = 2500.
    const warehouse = await warehouseOf(o)
    const wh = ok(await o.get(`/analytics/stock/valuation?asOf=2026-04-15&warehouseId=${warehouse}`))
    assert.deepEqual(wh.data.map((r: any) => [r.product.sku, r.quantity, r.value]), [['BOLT', 10, 2500], ['NUT', 3, 999]])
    assert.equal(wh.totals.value, 3499)
    // After the second count: Nut 7.5 x 333 = 2497.5 -> 2498 (half away from zero); Bolt 4 + 2 = 6 x 250 = 1500.
    const now = ok(await o.get('/analytics/stock/valuation'))
    assert.equal(now.asOf, today())
    assert.deepEqual(now.data.map((r: any) => [r.product.sku, r.quantity, r.value]), [['NUT', 7.5, 2498], ['BOLT', 6, 1500]])
    assert.equal(now.totals.value, 3998)
    assert.deepEqual(ok(await o.get('/analytics/stock/valuation?asOf=2026-02-28')).data, [])
    const eur = ok(await o.get('/analytics/stock/valuation?asOf=2026-04-15&currency=eur'))
    assert.deepEqual(eur.data, [{ product: { id: p3.id, name: 'Schraube', sku: null }, quantity: 5, unitCost: 100, value: 500 }])
    const res = await csv(o, '/analytics/stock/valuation')
    assert.deepEqual(String(res.body).trimEnd().split('\n'), [
      'productId,productName,productSku,quantity,unitCost,value,currency',
      `${p2.id},Nut,NUT,7.5,3.33,24.98,usd`,
      `${p1.id},Bolt,BOLT,6,2.50,15.00,usd`,
    ])
    const stranger = await createOrg(t.app)
    assert.deepEqual(ok(await stranger.get(`/analytics/stock/valuation?warehouseId=${warehouse}`)).data, [])
  })
})

describe('sales breakdown', () => {
  let o: TestOrg
  let c1: { id: string; name: string }
  let c2: { id: string; name: string }
  let s1: { id: string; name: string }
  let s2: { id: string; name: string }
  let x: { id: string; name: string }
  let y: { id: string; name: string }
  const day = today()
  before(async () => {
    o = await createOrg(t.app)
    c1 = await createContact(o, { name: 'Customer One' })
    c2 = await createContact(o, { name: 'Customer Two' })
    s1 = await createEmployee(o, { name: 'Sal One' })
    s2 = await createEmployee(o, { name: 'Sam Two' })
    x = await createProduct(o, { name: 'Widget X', price: 1000 })
    y = await createProduct(o, { name: 'Widget Y', price: 5000 })
    const order = async (body: Record<string, unknown>, confirm = true) => {
      const q = ok(await o.post('/sales/quotations', body), 201)
      if (confirm) ok(await o.post(`/sales/quotations/${q.id}/confirm`), 201)
    }
    // O1: X 2 x 1000 = 2000, Y 1 x 5000 - 10 % = 4500: 6500
    await order({ contactId: c1.id, salespersonId: s1.id, lineItems: [{ productId: x.id, quantity: 2, unitPrice: 1000 }, { productId: y.id, quantity: 1, unitPrice: 5000, discount: 10 }] })
    // O2: X 3 x 1000 = 3000
    await order({ contactId: c2.id, salespersonId: s2.id, lineItems: [{ productId: x.id, quantity: 3, unitPrice: 1000 }] })
    // O3, no salesperson: Y 2 x 5000 = 10000, X 1 x 700 = 700: 10700
    await order({ contactId: c1.id, lineItems: [{ productId: y.id, quantity: 2, unitPrice: 5000 }, { productId: x.id, quantity: 1, unitPrice: 700 }] })
    // Not counted: an eur order, a quotation never confirmed.
    await order({ contactId: c2.id, salespersonId: s1.id, currency: 'eur', lineItems: [{ productId: x.id, quantity: 1, unitPrice: 9999 }] })
    await order({ contactId: c2.id, salespersonId: s1.id, lineItems: [{ productId: x.id, quantity: 50, unitPrice: 1000 }] }, false)
  })

  test('by product, customer and salesperson; totals equal GET /sales/revenue', async () => {
    const revenue = ok(await o.get(`/sales/revenue?from=${day}&to=${day}&groupBy=day&currency=usd`))
    assert.deepEqual(revenue.total, { revenue: 20200, orders: 3 })
    const by = async (groupBy: string, extra = '') => ok(await o.get(`/analytics/sales?from=${day}&to=${day}&groupBy=${groupBy}${extra}`))
    const product = await by('product')
    assert.deepEqual(product.period, { from: day, to: day })
    assert.equal(product.groupBy, 'product')
    assert.deepEqual(product.data, [
      { key: { id: y.id, name: 'Widget Y' }, revenue: 14500, orders: 2, quantity: 3 },
      { key: { id: x.id, name: 'Widget X' }, revenue: 5700, orders: 3, quantity: 6 },
    ])
    const customer = await by('customer')
    assert.deepEqual(customer.data, [
      { key: { id: c1.id, name: 'Customer One' }, revenue: 17200, orders: 2 },
      { key: { id: c2.id, name: 'Customer Two' }, revenue: 3000, orders: 1 },
    ])
    const salesperson = await by('salesperson')
    assert.deepEqual(salesperson.data, [
      { key: { id: null, name: 'No salesperson' }, revenue: 10700, orders: 1 },
      { key: { id: s1.id, name: 'Sal One' }, revenue: 6500, orders: 1 },
      { key: { id: s2.id, name: 'Sam Two' }, revenue: 3000, orders: 1 },
    ])
    for (const r of [product, customer, salesperson]) assert.deepEqual(r.totals, revenue.total)
    // limit shows the first groups; the totals still count every group.
    const top = await by('product', '&limit=1')
    assert.deepEqual(top.data.map((d: any) => d.key.id), [y.id])
    assert.deepEqual(top.totals, { revenue: 20200, orders: 3 })
    // Defaults: the current month to today.
    const month = ok(await o.get('/analytics/sales?groupBy=customer'))
    assert.deepEqual(month.period, { from: `${day.slice(0, 8)}01`, to: day })
    assert.deepEqual(month.totals, { revenue: 20200, orders: 3 })
    const eur = await by('product', '&currency=eur')
    assert.deepEqual(eur.totals, { revenue: 9999, orders: 1 })
  })

  test('CSV with and without the quantity column', async () => {
    const product = await csv(o, `/analytics/sales?from=${day}&to=${day}&groupBy=product`)
    assert.deepEqual(String(product.body).trimEnd().split('\n'), [
      'keyId,keyName,revenue,orders,quantity,currency',
      `${y.id},Widget Y,145.00,2,3,usd`,
      `${x.id},Widget X,57.00,3,6,usd`,
    ])
    const customer = await csv(o, `/analytics/sales?from=${day}&to=${day}&groupBy=customer`)
    assert.deepEqual(String(customer.body).trimEnd().split('\n'), [
      'keyId,keyName,revenue,orders,currency',
      `${c1.id},Customer One,172.00,2,usd`,
      `${c2.id},Customer Two,30.00,1,usd`,
    ])
  })

  test('a taxed order: revenue is net of tax', async () => {
    const org = await createOrg(t.app)
    const contact = await createContact(org)
    const product = await createProduct(org)
    const q = ok(await org.post('/sales/quotations', { contactId: contact.id, lineItems: [{ productId: product.id, quantity: 1, unitPrice: 1000, taxRate: 20 }] }), 201)
    ok(await org.post(`/sales/quotations/${q.id}/confirm`), 201)
    const r = ok(await org.get(`/analytics/sales?from=${day}&to=${day}&groupBy=customer`))
    assert.deepEqual(r.totals, { revenue: 1000, orders: 1 })
    assert.deepEqual(ok(await org.get(`/sales/revenue?from=${day}&to=${day}&groupBy=day&currency=usd`)).total, { revenue: 1200, orders: 1 })
  })

  test('no other organization sees these sales', async () => {
    const stranger = await createOrg(t.app)
    const r = ok(await stranger.get(`/analytics/sales?from=${day}&to=${day}&groupBy=customer`))
    assert.deepEqual(r.data, [])
    assert.deepEqual(r.totals, { revenue: 0, orders: 0 })
  })
})

describe('overview', () => {
  test('every figure equals the owning endpoint for the same period', async () => {
    const o = await createOrg(t.app)
    const day = today()
    const from = `${day.slice(0, 8)}01`
    // Receivables: 30000 due in 30 days (current), 20000 overdue since 2026-01-31.
    const contact = await createContact(o)
    await invoice(o, contact.id, 30000, day, new Date(Date.now() + 30 * 86400_000).toISOString().slice(0, 10))
    await invoice(o, contact.id, 20000, '2026-01-01', '2026-01-31')
    // Payables: one bill of 10 x 250 = 2500.
    const vendor = await createVendor(o)
    const bolt = await createProduct(o, { type: 'storable', cost: 120, reorderPoint: 5 })
    const rfq = ok(await o.post('/purchase/rfqs', { vendorId: vendor.id, lineItems: [{ productId: bolt.id, quantity: 10, unitPrice: 250 }] }), 201)
    ok(await o.post(`/purchase/rfqs/${rfq.id}/confirm`, {}))
    ok(await o.post(`/purchase/orders/${rfq.id}/bill`, { vendorInvoiceNumber: 'V-1', invoiceDate: day }), 201)
    // Stock: 3 bolts (below their reorder point of 5) at 120 = 360; a BOM's product made twice (one order done).
    await stockUp(o, bolt.id, 3)
    const bom = await createBom(o)
    for (const c of bom.components) await stockUp(o, c.product?.id ?? c.productId, 100)
    const mo = ok(await o.post('/manufacturing/orders', { productId: bom.product.id, bomId: bom.id, quantity: 2 }), 201)
    ok(await o.post(`/manufacturing/orders/${mo.id}/confirm`, {}))
    ok(await o.post(`/manufacturing/orders/${mo.id}/produce`, { qty: 2 }))
    // Sales: one order of 3 x 2500 - 10 % = 6750, from one of two quotations.
    const employee = await createEmployee(o)
    const q1 = ok(await o.post('/sales/quotations', { contactId: contact.id, salespersonId: employee.id, lineItems: [{ productId: bolt.id, quantity: 3, unitPrice: 2500, discount: 10 }] }), 201)
    ok(await o.post('/sales/quotations', { contactId: contact.id, salespersonId: employee.id, lineItems: [{ productId: bolt.id, quantity: 1, unitPrice: 100 }] }), 201)
    ok(await o.post(`/sales/quotations/${q1.id}/confirm`), 201)
    // Projects: 3.5 billable and 1.25 non-billable hours today.
    const project = await createProject(o, { billable: true })
    const task = await createTask(o, project.id)
    ok(await o.post(`/projects/${project.id}/tasks/${task.id}/timesheets`, { employeeId: employee.id, date: day, hours: 3.5 }), 201)
    ok(await o.post(`/projects/${project.id}/tasks/${task.id}/timesheets`, { employeeId: employee.id, date: day, hours: 1.25, billable: false }), 201)
    // Helpdesk: two tickets, one closed.
    await createTicket(o)
    const closed = await createTicket(o)
    ok(await o.post(`/helpdesk/tickets/${closed.id}/close`, {}))

    const r = ok(await o.get('/analytics/overview'))
    assert.deepEqual(r.period, { from, to: day })
    const range = `from=${from}&to=${day}`
    const sales = ok(await o.get(`/analytics/sales?${range}&groupBy=product`))
    const team = ok(await o.get(`/sales/team?${range}&currency=usd`))
    const aging = ok(await o.get(`/analytics/receivables/aging?asOf=${day}`))
    const payables = ok(await o.get(`/analytics/payables/aging?asOf=${day}`))
    const valuation = ok(await o.get(`/analytics/stock/valuation?asOf=${day}`))
    const reorder = ok(await o.get('/inventory/products?belowReorder=true'))
    const stats = ok(await o.get(`/helpdesk/stats?${range}`))
    const sheet = ok(await o.get(`/projects/${project.id}/timesheets?${range}`))
    const done = ok(await o.get('/manufacturing/orders?status=done'))

    assert.deepEqual(r.sales, {
      revenue: sales.totals.revenue, orders: sales.totals.orders,
      quotations: team.data[0].quotations, conversionRate: team.data[0].conversionRate,
    })
    assert.deepEqual(r.sales, { revenue: 6750, orders: 1, quotations: 2, conversionRate: 0.5 })
    assert.deepEqual(r.receivables, { outstanding: aging.totals.total, overdue: aging.totals.total - aging.totals.current })
    assert.deepEqual(r.receivables, { outstanding: 50000, overdue: 20000 })
    assert.deepEqual(r.payables, { outstanding: payables.totals.total })
    assert.deepEqual(r.payables, { outstanding: 2500 })
    assert.deepEqual(r.inventory, { stockValue: valuation.totals.value, belowReorder: reorder.meta.total })
    assert.equal(r.inventory.belowReorder, 1)
    assert.deepEqual(r.manufacturing, { ordersDone: done.meta.total, unitsProduced: done.data[0].producedQty ?? 2 })
    assert.deepEqual(r.manufacturing, { ordersDone: 1, unitsProduced: 2 })
    assert.deepEqual(r.projects, { hoursLogged: sheet.totalHours, billableHours: sheet.billableHours })
    assert.deepEqual(r.projects, { hoursLogged: 4.75, billableHours: 3.5 })
    assert.deepEqual(r.helpdesk, { ticketsCreated: stats.ticketsCreated, ticketsClosed: stats.ticketsClosed, slaBreachRate: stats.slaBreachRate })
    assert.deepEqual(r.helpdesk, { ticketsCreated: 2, ticketsClosed: 1, slaBreachRate: 0 })

    // Another organization sees none of it.
    const stranger = await createOrg(t.app)
    const theirs = ok(await stranger.get('/analytics/overview'))
    assert.deepEqual({ ...theirs, period: undefined, currency: undefined }, {
      period: undefined, currency: undefined,
      sales: { revenue: 0, orders: 0, quotations: 0, conversionRate: 0 }, receivables: { outstanding: 0, overdue: 0 }, payables: { outstanding: 0 },
      inventory: { stockValue: 0, belowReorder: 0 }, manufacturing: { ordersDone: 0, unitsProduced: 0 }, projects: { hoursLogged: 0, billableHours: 0 },
      helpdesk: { ticketsCreated: 0, ticketsClosed: 0, slaBreachRate: 0 },
    })
  })
})

describe('parameters and roles', () => {
  let o: TestOrg
  before(async () => {
    o = await createOrg(t.app)
  })

  test('bad dates and ranges are 422, unknown enum values 400, a missing groupBy 422', async () => {
    for (const path of [
      '/analytics/receivables/aging?asOf=2026-02-30',
      '/analytics/receivables/aging?asOf=30.06.2026',
      '/analytics/payables/aging?asOf=10000-01-01',
      '/analytics/stock/valuation?asOf=2026-06-30T00:00:00Z',
      '/analytics/overview?from=2026-06-02&to=2026-06-01',
      '/analytics/sales?groupBy=product&from=2026-13-01',
      '/analytics/sales',
    ]) {
      const res = await o.get(path)
      assert.equal(res.status, 422, `${path}: ${JSON.stringify(res.body)}`)
      assert.equal(res.body.code, 'VALIDATION_FAILED')
      assert.ok(Array.isArray(res.body.message))
    }
    for (const path of ['/analytics/sales?groupBy=region', '/analytics/sales?groupBy=product&limit=101', '/analytics/receivables/aging?currency=dollars', '/analytics/overview?foo=1']) {
      const res = await o.get(path)
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`)
    }
  })

  test('admin and member read; support, agent and customer get 403; no credential 401', async () => {
    const paths = ['/analytics/receivables/aging', '/analytics/payables/aging', '/analytics/stock/valuation', '/analytics/sales?groupBy=product', '/analytics/overview']
    for (const path of paths) {
      assert.equal((await o.get(path, await o.as('member'))).status, 200, path)
      for (const role of ['support', 'agent', 'customer'] as const) {
        const res = await o.get(path, await o.as(role))
        assert.equal(res.status, 403, `${role} ${path}`)
        assert.equal(res.body.code, 'FORBIDDEN')
      }
      assert.equal((await call(t.app, 'GET', path)).status, 401)
    }
  })

  test('the service checks parameters itself (report runs call it directly)', async () => {
    const analytics = t.app.services.analytics!
    await assert.rejects(analytics.sales(o.id, { groupBy: 'region' }), /groupBy must be one of/)
    await assert.rejects(analytics.sales(o.id, {}), /groupBy is required/)
    await assert.rejects(analytics.sales(o.id, { groupBy: 'product', limit: 0 }), /limit must be an integer from 1 to 100/)
    await assert.rejects(analytics.sales(o.id, { groupBy: 'product', from: '2026-02-01', to: '2026-01-31' }), /from must not be after to/)
    assert.equal((await analytics.sales(o.id, { groupBy: 'product', limit: '5' })).groupBy, 'product')
    await assert.rejects(analytics.receivablesAging(o.id, { contactId: 'nope' }), /contactId must be a UUID/)
    await assert.rejects(analytics.stockValuation(o.id, { asOf: '2026-02-29' }), /asOf must be a date/)
  })

  test('toCsvRecords flattens an answer without I/O', () => {
    const records = toCsvRecords({ type: 'stock_valuation', answer: { asOf: '2026-01-01', currency: 'eur', data: [{ product: { id: 'p', name: 'N', sku: null }, quantity: 1.5, unitCost: 5, value: 8 }], totals: { value: 8 } } })
    assert.deepEqual(records, {
      columns: [{ key: 'productId' }, { key: 'productName' }, { key: 'productSku' }, { key: 'quantity', number: true }, { key: 'unitCost', number: true }, { key: 'value', number: true }, { key: 'currency' }],
      rows: [['p', 'N', '', 1.5, '0.05', '0.08', 'eur']],
    })
  })
})
