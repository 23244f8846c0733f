// The general ledger's invariants (docs/accounting.md "Invariants"), checked
// after whole business flows driven through HTTP: procure to pay, produce,
// quote to cash with a delivery, a cancellation, a credit note, a stock loss,
// a cost change and a manual entry; then again after 50 parallel payments on
// one invoice and 50 parallel validations of deliveries. For each currency:
// every entry balances; the trial balance's debits equal its credits and its
// balances equal the lines'; 1100 equals the receivables aging total, 2000's
// credit balance the payables aging total, 1200 the stock valuation total;
// assets equal liabilities + equity + earnings; 2200 is back to 0 once the
// purchase order is received and billed.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'
import { balances } from './helpers/ledger.ts'
import { createBom, stockUp } from './helpers/manufacturing.ts'
import { createPurchaseOrder, createStorable, createVendor } from './helpers/purchase.ts'
import { createProduct } from './helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

/** Every invariant, for one currency; answers the ledger's balances by code for further checks. */
async function assertInvariants(o: TestOrg, currency = 'usd') {
  const unbalanced = await t.app.ctx.db.query(
    `SELECT e.number, sum(l.debit) AS debit, sum(l.credit) AS credit FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
      WHERE e.organization_id = $1 GROUP BY e.number HAVING sum(l.debit) <> sum(l.credit) OR count(*) < 2`, [o.id])
  assert.deepEqual(unbalanced.rows, [], 'every entry balances')
  const lines = await balances(t, o.id, currency)
  const tb = expectStatus(await o.get(`/accounting/trial-balance?currency=${currency}`), 200)
  assert.equal(tb.totals.debit, tb.totals.credit, 'trial balance debits = credits')
  assert.deepEqual(Object.fromEntries(tb.data.map((r: any) => [r.account.code, r.balance])), lines, 'trial balance = the lines')
  const receivables = expectStatus(await o.get(`/analytics/receivables/aging?currency=${currency}`), 200)
  assert.equal(lines['1100'] ?? 0, receivables.totals.total, '1100 = receivables aging total')
  const payables = expectStatus(await o.get(`/analytics/payables/aging?currency=${currency}`), 200)
  assert.equal(-(lines['2000'] ?? 0), payables.totals.total, '2000 = payables aging total')
  const valuation = expectStatus(await o.get(`/analytics/stock/valuation?currency=${currency}`), 200)
  assert.equal(lines['1200'] ?? 0, valuation.totals.value, '1200 = stock valuation total')
  const bs = expectStatus(await o.get(`/accounting/balance-sheet?currency=${currency}`), 200)
  assert.equal(bs.totals.assets, bs.totals.liabilitiesAndEquity, 'assets = liabilities + equity + earnings')
  assert.equal(bs.totals.liabilitiesAndEquity, bs.totals.liabilities + bs.totals.equity + bs.totals.earnings)
  return lines
}

test('procure to pay, produce, quote to cash, cancellations, a loss, a cost change and a manual entry keep every invariant', async () => {
  // Owner's capital, by hand.
  const bank = (expectStatus(await org.get('/accounting/accounts?search=Bank'), 200).data as any[]).find((a) => a.code === '1000')
  const equity = (expectStatus(await org.get('/accounting/accounts?type=equity'), 200).data as any[]).find((a) => a.code === '3000')
  expectStatus(await org.post('/accounting/entries', { date: new Date().toISOString().slice(0, 10), currency: 'usd', memo: 'Capital',
    lines: [{ accountId: bank.id, debit: 1_000_000, credit: 0 }, { accountId: equity.id, debit: 0, credit: 1_000_000 }] }), 201)

  // Procure to pay: 10 A at 750 (cost 700: 500 to purchase price difference) and 20 B at 250 (cost 250).
  const a = await createStorable(org, { name: 'Widget A', price: 1200, cost: 700 })
  const b = await createStorable(org, { name: 'Component B', price: 400, cost: 250 })
  const vendor = await createVendor(org)
  const po = await createPurchaseOrder(org, { vendorId: vendor.id, lineItems: [{ productId: a.id, quantity: 10, unitPrice: 750 }, { productId: b.id, quantity: 20, unitPrice: 250 }] })
  expectStatus(await org.post(`/purchase/orders/${po.id}/receive`, {}), 201)
  const bill = expectStatus(await org.post(`/purchase/orders/${po.id}/bill`, { vendorInvoiceNumber: 'V-1' }), 201)
  let lines = await assertInvariants(org)
  assert.equal(lines['2200'] ?? 0, 0, '2200 is back to 0 once received and billed')
  expectStatus(await org.post(`/purchase/bills/${bill.id}/pay`, { amount: 5000 }), 200)

  // Produce 3 C from 2 B each (C's cost 600).
  const c = await createStorable(org, { name: 'Assembly C', price: 2000, cost: 600 })
  const bom = await createBom(org, { productId: c.id, components: [{ productId: b.id, quantity: 2 }] })
  const mo = expectStatus(await org.post('/manufacturing/orders', { productId: c.id, bomId: bom.id, quantity: 3 }), 201)
  expectStatus(await org.post(`/manufacturing/orders/${mo.id}/confirm`), 200)
  expectStatus(await org.post(`/manufacturing/orders/${mo.id}/produce`, { qty: 3 }), 200)
  await assertInvariants(org)

  // Quote to cash: 4 A and a service; delivered, invoiced, half paid.
  const customer = expectStatus(await org.post('/contacts', { name: 'Customer', email: 'customer@example.com' }), 201)
  const service = await createProduct(org, { type: 'service', price: 1999 })
  const quotation = expectStatus(await org.post('/sales/quotations', { contactId: customer.id, lineItems: [{ productId: a.id, quantity: 4, taxRate: 20 }, { productId: service.id, quantity: 1, taxRate: 20 }] }), 201)
  const order = expectStatus(await org.post(`/sales/quotations/${quotation.id}/confirm`), 200)
  const delivery = expectStatus(await org.post('/inventory/transfers', { type: 'delivery', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-CUSTOMER', moves: [{ productId: a.id, demandQty: 4 }] }), 201)
  expectStatus(await org.post(`/inventory/transfers/${delivery.id}/validate`), 200)
  const invoice = expectStatus(await org.post(`/orders/${order.id}/invoice`, {}), 201)
  if (invoice.status === 'draft') expectStatus(await org.post(`/invoices/${invoice.id}/send`, {}), 200)
  expectStatus(await org.post(`/invoices/${invoice.id}/pay`, { amount: Math.floor(invoice.total / 2) }), 200)
  await assertInvariants(org)

  // An invoice cancelled after a partial payment, and one credited in full.
  for (const how of ['cancel', 'credit-note'] as const) {
    const inv = expectStatus(await org.post('/invoices', { contactId: customer.id, lineItems: [{ productId: service.id, quantity: 3, taxRate: 7 }] }), 201)
    expectStatus(await org.post(`/invoices/${inv.id}/send`, {}), 200)
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 1001 }), 200)
    if (how === 'cancel') expectStatus(await org.post(`/invoices/${inv.id}/cancel`, {}), 200)
    else expectStatus(await org.post(`/invoices/${inv.id}/credit-note`, {}), 201)
  }
  await assertInvariants(org)

  // A loss found by a count, then A's cost raised while on hand (6 left... minus the loss).
  expectStatus(await org.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: a.id, realQty: 5 }] }), 201)
  expectStatus(await org.patch(`/products/${a.id}`, { cost: 733 }), 200)
  lines = await assertInvariants(org)
  // On hand: A 5 x 733 + B 14 x 250 + C 3 x 600 = 3665 + 3500 + 1800.
  assert.equal(lines['1200'], 8965)
})

test('50 parallel payments on one invoice and 50 parallel delivery validations keep every invariant', async () => {
  const o = await createOrg(t.app)
  const customer = expectStatus(await o.post('/contacts', { name: 'Customer', email: 'c@example.com' }), 201)
  const service = await createProduct(o, { type: 'service', price: 5000 })
  const inv = expectStatus(await o.post('/invoices', { contactId: customer.id, lineItems: [{ productId: service.id, quantity: 1, taxRate: 0 }] }), 201)
  expectStatus(await o.post(`/invoices/${inv.id}/send`, {}), 200)
  // 50 payments of 120 on 5000: 41 fit (4920), the others are refused (422), never an overpayment.
  const pays = await Promise.all(Array.from({ length: 50 }, () => o.post(`/invoices/${inv.id}/pay`, { amount: 120 })))
  assert.deepEqual(pays.map((r) => r.status).sort(), [...Array(41).fill(200), ...Array(9).fill(422)].sort())
  const a = await createStorable(o, { name: 'Widget', price: 1000, cost: 321 })
  await stockUp(o, a.id, 60)
  const deliveries = await Promise.all(Array.from({ length: 50 }, () => o.post('/inventory/transfers', {
    type: 'delivery', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-CUSTOMER', moves: [{ productId: a.id, demandQty: 1 }] })))
  const validated = await Promise.all(deliveries.map((d) => o.post(`/inventory/transfers/${expectStatus(d, 201).id}/validate`)))
  assert.deepEqual([...new Set(validated.map((r) => r.status))], [200])
  const lines = await assertInvariants(o)
  // By hand: receivables 5000 - 41 x 120 = 80; inventory (60 - 50) x 321 = 3210; COGS 50 x 321 = 16050; bank 4920.
  assert.deepEqual([lines['1100'], lines['1200'], lines['5000'], lines['1000']], [80, 3210, 16050, 4920])
})
