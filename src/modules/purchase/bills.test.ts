import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { afterTimestamp, expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'
import { createPurchaseOrder, createRfq, createStorable, createVendor } from '../../../test/helpers/purchase.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const year = new Date().getUTCFullYear()
const UNKNOWN = '00000000-0000-4000-8000-000000000000'

describe('bill a purchase order', () => {
  test('201 posted vendor bill BILL/<year>/<seq> with the PO lines and total, nothing paid; linked both ways', async () => {
    const vendor = await createVendor(org, { name: 'Billing Vendor', currency: 'eur' })
    const a = await createStorable(org, { name: 'Gear' })
    const b = await createStorable(org, { name: 'Shaft' })
    const po = await createPurchaseOrder(org, { vendorId: vendor.id, lineItems: [{ productId: a.id, quantity: 3, unitPrice: 1250 }, { productId: b.id, quantity: 0.5, unitPrice: 999 }] })
    const bill = expectStatus(await org.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: 'INV-7781', invoiceDate: '2026-11-20', dueDate: '2026-12-20T12:00:00Z' }), 201)
    assert.match(bill.number, new RegExp(`^BILL/${year}/\\d{5}$`))
    assert.deepEqual({ ...bill, id: undefined, number: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined, number: undefined, createdAt: undefined, updatedAt: undefined,
      purchaseOrderId: po.id,
      vendor: { id: vendor.id, name: 'Billing Vendor', email: vendor.email },
      vendorInvoiceNumber: 'INV-7781',
      lineItems: [
        { productId: a.id, productName: 'Gear', quantity: 3, unitPrice: 1250, total: 3750 },
        // 0.5 * 999 = 499.5 -> 500
        { productId: b.id, productName: 'Shaft', quantity: 0.5, unitPrice: 999, total: 500 },
      ],
      subtotal: 4250,
      total: 4250,
      amountPaid: 0,
      amountDue: 4250,
      currency: 'eur',
      status: 'posted',
      invoiceDate: '2026-11-20T00:00:00.000Z',
      dueDate: '2026-12-20T12:00:00.000Z',
      organizationId: org.id,
    })
    assert.equal(bill.total, po.total)
    assert.deepEqual(expectStatus(await org.get(`/purchase/bills/${bill.id}`), 200), bill)
    assert.equal(expectStatus(await org.get(`/purchase/orders/${po.id}`), 200).billId, bill.id)
    // Billed again: 409, still one bill.
    expectStatus(await org.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: 'INV-7782' }), 409, 'Purchase order already billed')
    assert.equal(expectStatus(await org.get(`/purchase/bills?purchaseOrderId=${po.id}`), 200).meta.total, 1)
  })

  test('defaults: invoiceDate now, dueDate 30 days later; numbers consecutive per organization', async () => {
    const o = await createOrg(t.app)
    const before = Date.now()
    const first = expectStatus(await o.post(`/purchase/orders/${(await createPurchaseOrder(o)).id}/bill`, { vendorInvoiceNumber: 'A' }), 201)
    const invoiceDate = Date.parse(first.invoiceDate)
    assert.ok(invoiceDate >= before - 1000 && invoiceDate <= Date.now() + 1000)
    assert.equal(Date.parse(first.dueDate) - invoiceDate, 30 * 24 * 3600 * 1000)
    assert.equal(first.number, `BILL/${year}/00001`)
    const second = expectStatus(await o.post(`/purchase/orders/${(await createPurchaseOrder(o)).id}/bill`, { vendorInvoiceNumber: 'B', invoiceDate: '2026-01-31' }), 201)
    assert.deepEqual([second.number, second.dueDate], [`BILL/${year}/00002`, '2026-03-02T00:00:00.000Z'])
  })

  test('a received or partly received order is billed for what was ordered', async () => {
    const p = await createStorable(org)
    const po = await createPurchaseOrder(org, { lineItems: [{ productId: p.id, quantity: 8, unitPrice: 100 }] })
    expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: p.id, receivedQty: 5 }] }), 201)
    const bill = expectStatus(await org.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: 'PART' }), 201)
    assert.deepEqual([bill.lineItems[0].quantity, bill.total, bill.amountDue], [8, 800, 800])
    // Receiving goes on after billing.
    expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, { lines: [{ productId: p.id, receivedQty: 3 }] }), 201)
  })

  test('an RFQ not confirmed: 409; unknown: 404; bad body: 422', async () => {
    const draft = await createRfq(org)
    expectStatus(await org.post(`/purchase/orders/${draft.id}/bill`, { vendorInvoiceNumber: 'X' }), 409, 'Only confirmed purchase orders can be billed; this one is draft')
    expectStatus(await org.post(`/purchase/rfqs/${draft.id}/cancel`), 200)
    expectStatus(await org.post(`/purchase/orders/${draft.id}/bill`, { vendorInvoiceNumber: 'X' }), 409, 'this one is cancelled')
    expectStatus(await org.post(`/purchase/orders/${UNKNOWN}/bill`, { vendorInvoiceNumber: 'X' }), 404, 'Purchase order not found')
    const po = await createPurchaseOrder(org)
    const cases: Array<[unknown, string]> = [
      [{}, 'vendorInvoiceNumber is required'],
      [{ vendorInvoiceNumber: '' }, 'vendorInvoiceNumber'],
      [{ vendorInvoiceNumber: 'x'.repeat(101) }, 'vendorInvoiceNumber'],
      [{ vendorInvoiceNumber: 'X', invoiceDate: 'today' }, 'invoiceDate'],
      [{ vendorInvoiceNumber: 'X', invoiceDate: '2026-02-30' }, 'invoiceDate is not a valid date'],
      [{ vendorInvoiceNumber: 'X', invoiceDate: '2026-05-02', dueDate: '2026-05-01' }, 'dueDate must not be before invoiceDate'],
      [{ vendorInvoiceNumber: 'X', total: 1 }, 'total is not allowed'],
      [{ vendorInvoiceNumber: 'X', status: 'paid' }, 'status is not allowed'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post(`/purchase/orders/${po.id}/bill`, body), 422, message)
    assert.equal(expectStatus(await org.get(`/purchase/orders/${po.id}`), 200).billId, null)
    expectStatus(await org.get(`/purchase/bills/${UNKNOWN}`), 404, 'Vendor bill not found')
    expectStatus(await org.get('/purchase/bills/nope'), 400)
  })

  test('parallel bills of one purchase order: exactly one 201, the rest 409, one bill', async () => {
    const po = await createPurchaseOrder(org)
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => org.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: `RACE-${i}` })))
    assert.deepEqual(results.map((r) => r.status).sort(), [201, ...Array(9).fill(409)])
    for (const r of results.filter((x) => x.status === 409)) expectStatus(r, 409, 'already billed')
    const bills = expectPage(await org.get(`/purchase/bills?purchaseOrderId=${po.id}`), { total: 1, page: 1, limit: 20 })
    assert.equal(bills[0].id, results.find((r) => r.status === 201)!.body.id)
    assert.equal(expectStatus(await org.get(`/purchase/orders/${po.id}`), 200).billId, bills[0].id)
  })
})

describe('GET /purchase/bills', () => {
  test('envelope; filters status, vendorId, purchaseOrderId, from/to, search; sorts; bad values 400; other organizations see none', async () => {
    const o = await createOrg(t.app)
    const v = await createVendor(o, { name: 'Zeta Parts' })
    const bill = async (vendorId: string | undefined, unitPrice: number, invoiceDate: string, dueDate: string, vendorInvoiceNumber: string) => {
      const po = await createPurchaseOrder(o, { ...(vendorId ? { vendorId } : {}), lineItems: [{ productId: (await createStorable(o)).id, quantity: 1, unitPrice }] })
      return expectStatus(await o.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber, invoiceDate, dueDate }), 201)
    }
    const a = await bill(v.id, 300, '2026-01-10', '2026-02-10', 'ZP-100')
    await afterTimestamp(a.createdAt)
    const b = await bill(undefined, 100, '2026-03-05', '2026-03-20', 'OTHER-7')
    await afterTimestamp(b.createdAt)
    const c = await bill(v.id, 200, '2026-02-01', '2026-04-01', 'ZP-101')
    const ids = (res: any) => res.body.data.map((x: any) => x.id)
    assert.deepEqual(ids(await o.get('/purchase/bills')), [c.id, b.id, a.id])
    expectPage(await o.get('/purchase/bills?limit=2&page=2'), { total: 3, page: 2, limit: 2 })
    assert.equal((await o.get('/purchase/bills?status=posted')).body.meta.total, 3)
    assert.equal((await o.get('/purchase/bills?status=paid')).body.meta.total, 0)
    assert.deepEqual(ids(await o.get(`/purchase/bills?vendorId=${v.id}`)), [c.id, a.id])
    assert.deepEqual(ids(await o.get(`/purchase/bills?purchaseOrderId=${b.purchaseOrderId}`)), [b.id])
    assert.deepEqual(idsOf(await o.get('/purchase/bills?from=2026-02-01&to=2026-03-04')), [c.id])
    assert.deepEqual(idsOf(await o.get('/purchase/bills?to=2026-02-01')), [a.id, c.id].sort())
    expectStatus(await o.get('/purchase/bills?from=2026-03-01&to=2026-01-01'), 422, 'from must not be after to')
    assert.deepEqual(idsOf(await o.get('/purchase/bills?search=zp-10')), [a.id, c.id].sort())
    assert.deepEqual(idsOf(await o.get('/purchase/bills?search=zeta')), [a.id, c.id].sort())
    assert.deepEqual(ids(await o.get(`/purchase/bills?search=${encodeURIComponent(b.number)}`)), [b.id])
    for (const field of ['createdAt', 'number', 'invoiceDate', 'dueDate', 'total']) await expectSortable((p) => o.get(p), '/purchase/bills', field)
    assert.deepEqual((await o.get('/purchase/bills?sortBy=invoiceDate&sortOrder=asc')).body.data.map((x: any) => x.id), [a.id, c.id, b.id])
    await expectListQueryRules((p) => o.get(p), '/purchase/bills', 'vendorInvoiceNumber')
    expectStatus(await o.get('/purchase/bills?status=open'), 400)
    expectStatus(await o.get('/purchase/bills?purchaseOrderId=x'), 400)
    const stranger = await createOrg(t.app)
    expectPage(await stranger.get('/purchase/bills'), { total: 0, page: 1, limit: 20 })
    expectStatus(await stranger.get(`/purchase/bills/${a.id}`), 404, 'Vendor bill not found')
  })
})
