// In Chromium: the Purchase pages (issue 29, item 4: from RFQ to paid vendor
// bill without the API). An admin finds the vendor, writes an RFQ with its
// vendor and products picked by name, sends and confirms it, receives the
// goods in two receipts (an over-receipt refused in the API's words), records
// the vendor bill and pays it in two payments; each step checked through HTTP
// (PO status, stock on hand, bill status). axe-core on every state, the main
// pages at 390x844 too, the calls to the API counted.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, rows, shot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
let o: TestOrg
before(async () => {
  if (!SKIP_E2E) {
    e = await startE2E()
    o = await createOrg(e.t.app, 'Fjord Office Supply')
  }
})
after(async () => await e?.close())


test('purchase: an admin goes from RFQ to confirmed purchase order, receives it, bills it and pays the bill in the pages', { timeout: 180_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const vendor = await ok(o.post('/purchase/vendors', { name: 'Nordic Paper AS', email: 'orders@nordic-paper.example', paymentTerms: '30 days net', currency: 'usd', leadTimeDays: 5 }))
  await ok(o.post('/purchase/vendors', { name: 'Baltic Timber', email: 'sales@baltic-timber.example' }))
  const desk = await ok(o.post('/products', { name: 'Oak standing desk', sku: 'DSK-OAK', price: 64900, currency: 'usd', type: 'storable', uom: 'unit' }))
  const paper = await ok(o.post('/products', { name: 'Copy paper, A4 box', sku: 'PAP-A4', price: 4500, currency: 'usd', type: 'storable', uom: 'unit' }))
  await ok(o.post('/products', { name: 'Desk assembly', sku: 'SRV-ASM', price: 4500, currency: 'usd', type: 'service', uom: 'hour' }))
  const other = await ok(o.post('/purchase/rfqs', { vendorId: vendor.id, lineItems: [{ productId: paper.id, quantity: 1, unitPrice: 3000 }] }))

  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}`)
  })
  await signIn(page, o.adminEmail, o.password)
  const nav = page.getByRole('navigation', { name: 'Main' })

  // Vendors, A to Z; a vendor is created on the Contacts page.
  await nav.getByRole('link', { name: 'Vendors', exact: true }).click()
  await page.getByRole('heading', { name: 'Vendors', level: 1 }).waitFor()
  await expectSoon(async () => (await rows(page, 'Vendors')).map((r) => r.slice(0, 5)), [
    ['Baltic Timber', 'sales@baltic-timber.example', '—', '—', '—'],
    ['Nordic Paper AS', 'orders@nordic-paper.example', '30 days net', 'USD', '5 d'],
  ])
  assert.equal(await page.getByRole('link', { name: 'New vendor' }).getAttribute('href'), '/contacts/new')
  await expectAccessible(page, 'vendors')
  await onPhone(page, 'vendors', 'purchase-vendors')

  // A new RFQ: the vendor found by name, the storable products by name (the service is not offered).
  await nav.getByRole('link', { name: 'Purchase orders' }).click()
  await page.getByRole('heading', { name: 'Purchase orders', level: 1 }).waitFor()
  await page.getByRole('link', { name: 'New RFQ', exact: true }).click()
  const form = page.getByRole('form', { name: 'New RFQ' })
  await form.getByLabel('Find vendor').fill('nordic')
  await expectSoon(async () => (await form.getByLabel('Vendor', { exact: true }).locator('option').allInnerTexts()).length, 2)
  await form.getByLabel('Vendor', { exact: true }).selectOption({ label: 'Nordic Paper AS (orders@nordic-paper.example)' })
  await expectSoon(async () => await form.getByLabel('Product, line 1').locator('option').allInnerTexts(), ['choose a product', 'Copy paper, A4 box (PAP-A4)', 'Oak standing desk (DSK-OAK)'])
  await form.getByLabel('Product, line 1').selectOption({ label: 'Oak standing desk (DSK-OAK)' })
  await form.getByLabel('Quantity, line 1').fill('10')
  await form.getByLabel('Unit price, line 1').fill('1,205.50')
  await form.getByRole('button', { name: 'Add a line' }).click()
  await form.getByLabel('Product, line 2').selectOption({ label: 'Copy paper, A4 box (PAP-A4)' })
  await form.getByLabel('Quantity, line 2').fill('5')
  // No price and no pricelist row: the API's refusal in its words, and nothing is created.
  await form.getByRole('button', { name: 'Create RFQ' }).click()
  await form.getByRole('alert').filter({ hasText: 'the vendor has no usd pricelist price for this product' }).waitFor()
  assert.equal((await ok(o.get('/purchase/rfqs'), 200)).meta.total, 1)
  await expectAccessible(page, 'new RFQ, refused')
  await form.getByLabel('Unit price, line 2').fill('30')
  await form.getByLabel('Notes').fill('Deliver to the back door.')
  await form.getByRole('button', { name: 'Create RFQ' }).click()
  const status = page.getByTestId('po-status')
  await status.waitFor()
  const [rfq] = (await ok(o.get(`/purchase/rfqs?vendorId=${vendor.id}&sortBy=createdAt&sortOrder=desc&limit=1`), 200)).data
  assert.deepEqual([rfq.status, rfq.total, rfq.currency, rfq.notes, rfq.lineItems.map((l: any) => [l.productName, l.quantity, l.unitPrice])], ['draft', 10 * 120550 + 5 * 3000, 'usd', 'Deliver to the back door.', [['Oak standing desk', 10, 120550], ['Copy paper, A4 box', 5, 3000]]])
  await page.getByRole('status').filter({ hasText: `RFQ ${rfq.reference} created.` }).waitFor()
  await expectAccessible(page, 'RFQ, draft')

  // Sent to the vendor, then confirmed into a purchase order.
  await page.getByRole('button', { name: 'Send to vendor' }).click()
  await page.getByRole('status').filter({ hasText: `RFQ ${rfq.reference} sent to orders@nordic-paper.example.` }).waitFor()
  await expectSoon(() => status.innerText(), 'sent')
  await page.getByRole('button', { name: 'Confirm order' }).click()
  await page.getByRole('heading', { name: `Purchase order ${rfq.reference}`, level: 1 }).waitFor()
  assert.equal((await ok(o.get(`/purchase/rfqs/${rfq.id}`), 200)).status, 'confirmed')
  assert.equal(await page.getByRole('button', { name: 'Cancel RFQ' }).count(), 0)
  await expectAccessible(page, 'purchase order, confirmed')

  // Received in two receipts: an over-receipt is the API's 400 in its words, and nothing is received by it.
  const receive = page.getByRole('form', { name: 'Receive goods' })
  await receive.getByLabel('Received: Oak standing desk').fill('4')
  await receive.getByRole('button', { name: 'Receive' }).click()
  await page.getByRole('status').filter({ hasText: '6 still to come' }).waitFor()
  await expectSoon(() => page.getByTestId('receipt-status').innerText(), 'partly received')
  assert.equal((await ok(o.get(`/purchase/orders/${rfq.id}`), 200)).receiptStatus, 'partial')
  await receive.getByLabel('Received: Oak standing desk').fill('7')
  await receive.getByRole('button', { name: 'Receive' }).click()
  await receive.getByRole('alert').filter({ hasText: 'Received quantity exceeds ordered quantity' }).waitFor()
  await expectAccessible(page, 'purchase order, partly received, an over-receipt refused')
  await receive.getByLabel('Received: Oak standing desk').fill('6')
  await receive.getByRole('button', { name: 'Receive' }).click()
  await page.getByRole('status').filter({ hasText: 'the order is fully received' }).waitFor()
  await expectSoon(() => page.getByTestId('receipt-status').innerText(), 'received')
  assert.equal(await page.getByRole('form', { name: 'Receive goods' }).count(), 0)
  const po = await ok(o.get(`/purchase/orders/${rfq.id}`), 200)
  assert.deepEqual([po.status, po.receiptStatus, po.receipts.length, po.lineItems.map((l: any) => l.receivedQty)], ['confirmed', 'received', 2, [10, 5]])
  const onHand = async (id: string) => (await ok<{ locationId: string; quantity: number }[]>(o.get(`/inventory/products/${id}/stock`), 200)).find((s) => s.locationId === 'LOC-STOCK')?.quantity
  assert.deepEqual([await onHand(desk.id), await onHand(paper.id)], [10, 5])
  await expectSoon(async () => (await rows(page, `Receipts of ${rfq.reference}`)).map((r) => r[2]), ['4 × Oak standing desk, 5 × Copy paper, A4 box', '6 × Oak standing desk'])
  await expectAccessible(page, 'purchase order, received')
  await shot(page, 'purchase-order')
  await onPhone(page, 'purchase order', 'purchase-order')

  // Billed: the vendor's invoice number; the bill's page.
  await page.getByRole('form', { name: 'Record the vendor bill' }).getByLabel('Vendor invoice number').fill('NP-2026-118')
  await page.getByRole('button', { name: 'Create bill' }).click()
  const billStatus = page.getByTestId('bill-status')
  await billStatus.waitFor()
  const [bill] = (await ok(o.get(`/purchase/bills?purchaseOrderId=${rfq.id}`), 200)).data
  assert.deepEqual([bill.vendorInvoiceNumber, bill.total, bill.amountDue, bill.status], ['NP-2026-118', 1220500, 1220500, 'posted'])
  await page.getByRole('status').filter({ hasText: `Bill ${bill.number} recorded for $12,205.00.` }).waitFor()
  assert.equal(await billStatus.innerText(), 'to pay')
  await expectAccessible(page, 'vendor bill, to pay')

  // Paid as money: more than is due is said before any request; then two payments.
  const pay = page.getByRole('form', { name: 'Pay the bill' })
  assert.equal(await pay.getByLabel('Amount').inputValue(), '12205.00')
  await pay.getByLabel('Amount').fill('12,500')
  await pay.getByRole('button', { name: 'Record payment' }).click()
  await pay.getByRole('alert').filter({ hasText: 'Amount: at most $12,205.00 is due on this bill.' }).waitFor()
  await pay.getByLabel('Amount').fill('5,000')
  await pay.getByLabel('Reference').fill('SEPA-118-1')
  await pay.getByRole('button', { name: 'Record payment' }).click()
  await page.getByRole('status').filter({ hasText: 'Payment recorded: $7,205.00 still due.' }).waitFor()
  await expectSoon(() => page.getByTestId('bill-due').innerText(), '$7,205.00')
  await expectAccessible(page, 'vendor bill, partly paid')
  await page.getByRole('form', { name: 'Pay the bill' }).getByRole('button', { name: 'Record payment' }).click()
  await page.getByRole('status').filter({ hasText: 'Payment recorded: the bill is paid.' }).waitFor()
  await expectSoon(() => billStatus.innerText(), 'paid')
  assert.equal(await page.getByRole('form', { name: 'Pay the bill' }).count(), 0)
  const paid = await ok(o.get(`/purchase/bills/${bill.id}`), 200)
  assert.deepEqual([paid.status, paid.amountPaid, paid.amountDue], ['paid', 1220500, 0])
  await expectAccessible(page, 'vendor bill, paid')

  // The lists: bills by status, purchase orders by status.
  await nav.getByRole('link', { name: 'Vendor bills' }).click()
  await expectSoon(async () => (await rows(page, 'Vendor bills')).map((r) => [r[0], r[1], r[5], r[6]]), [[bill.number, 'Nordic Paper AS', 'paid', '$12,205.00']])
  await page.getByLabel('Status').selectOption('posted')
  await page.getByText('No vendor bill matches these filters.').waitFor()
  await expectAccessible(page, 'vendor bills')
  await page.getByLabel('Status').selectOption('')
  await onPhone(page, 'vendor bills', 'purchase-bills')
  await nav.getByRole('link', { name: 'Purchase orders' }).click()
  await expectSoon(async () => (await rows(page, 'RFQs and purchase orders')).map((r) => [r[0], r[4]]), [[rfq.reference, 'purchase order'], [other.reference, 'draft']])
  await page.getByLabel('Status').selectOption('confirmed')
  await expectSoon(async () => (await rows(page, 'RFQs and purchase orders')).map((r) => [r[0], r[5], r[6]]), [[rfq.reference, 'received', '$12,205.00']])
  assert.match(page.url(), /\/purchase\/orders\?status=confirmed$/)
  await expectAccessible(page, 'purchase orders')
  await page.getByLabel('Status').selectOption('')
  await expectSoon(async () => (await rows(page, 'RFQs and purchase orders')).length, 2)
  await shot(page, 'purchase-orders')
  await onPhone(page, 'purchase orders', 'purchase-orders')

  // The other RFQ, cancelled (confirmed first): it can no longer be sent or confirmed.
  await page.getByRole('link', { name: other.reference }).click()
  await page.getByRole('button', { name: 'Cancel RFQ' }).click()
  await expectSoon(() => page.getByTestId('po-status').innerText(), 'cancelled')
  assert.equal((await ok(o.get(`/purchase/rfqs/${other.id}`), 200)).status, 'cancelled')
  assert.equal(await page.getByRole('button', { name: 'Confirm order' }).count(), 0)
  await expectAccessible(page, 'RFQ, cancelled')

  assert.ok(calls.length <= 60, `${calls.length} calls to the API:\n${calls.join('\n')}`)
  t.diagnostic(`${calls.length} calls to the API in the walk-through`)
  assert.deepEqual(e.errors, [])
  await page.close()
})
