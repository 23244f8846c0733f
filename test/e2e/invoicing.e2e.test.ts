// In Chromium: invoices edited, cancelled and credited, credit notes, sales
// orders (issue 29, item 7). An admin creates a draft invoice in the page,
// edits it (lines changed, previewed, totals checked through HTTP against
// cents computed by hand), sends it, records part of a payment, credits part
// of it, and finds the credit note in its list and linked both ways. Another
// draft is refused an edit once a colleague sent it (the API's sentence) and
// is cancelled; a third is deleted; a confirmed quotation's order is invoiced
// from the Sales orders list. axe-core on every state, the main pages at
// 390x844, the calls to the API counted.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, rows, shot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
let o: TestOrg
let harbor: any, lumen: any, machine: any, beans: any, training: any
before(async () => {
  if (!SKIP_E2E) {
    e = await startE2E()
    o = await createOrg(e.t.app, 'Copper Kettle Roasters')
    harbor = await ok(o.post('/contacts', { name: 'Harbor Cafe', email: 'accounts@harbor-cafe.example' }))
    lumen = await ok(o.post('/contacts', { name: 'Lumen Studio', email: 'hello@lumen-studio.example' }))
    machine = await ok(o.post('/products', { name: 'Espresso machine', sku: 'ESP-2G', price: 129900, currency: 'usd', type: 'storable', uom: 'unit' }))
    beans = await ok(o.post('/products', { name: 'Coffee beans, 1 kg', sku: 'BEAN-1K', price: 2450, currency: 'usd', type: 'storable', uom: 'unit' }))
    training = await ok(o.post('/products', { name: 'Barista training', sku: 'SRV-TRN', price: 8000, currency: 'usd', type: 'service', uom: 'hour' }))
  }
})
after(async () => await e?.close())

const toastSays = (page: Page, words: string) => page.getByRole('status', { name: 'Messages' }).getByText(words).waitFor()

/** Counts the page's calls to /api (method and path). */
function countCalls(page: Page) {
  const calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}`)
  })
  return calls
}

test('invoicing: a draft invoice created, edited, sent, paid in part and credited in part in the pages; its credit note listed and linked', { timeout: 240_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const asked: string[] = []
  page.on('dialog', (d) => void asked.push(d.message()))
  const calls = countCalls(page)
  await signIn(page, o.adminEmail, o.password)
  const nav = page.getByRole('navigation', { name: 'Main' })

  // A new draft invoice, in the form that exists: one espresso machine at 20 % tax.
  await nav.getByRole('link', { name: 'Invoices', exact: true }).click()
  await page.getByRole('link', { name: 'New invoice', exact: true }).click()
  const create = page.getByRole('form', { name: 'New invoice' })
  await create.getByLabel('Find customer').fill('harbor')
  await expectSoon(async () => (await create.getByLabel('Customer', { exact: true }).locator('option').allInnerTexts()).length, 2)
  await create.getByLabel('Customer', { exact: true }).selectOption(harbor.id)
  await expectSoon(async () => await create.getByLabel('Product, line 1').locator('option').count(), 4)
  await create.getByLabel('Product, line 1').selectOption({ label: 'Espresso machine (ESP-2G)' })
  await create.getByLabel('Tax percent, line 1').fill('20')
  await create.getByRole('button', { name: 'Create draft invoice' }).click()
  const status = page.getByTestId('invoice-status')
  await status.waitFor()
  const [made] = (await ok(o.get(`/invoices?contactId=${harbor.id}`), 200)).data
  // 1 x 1,299.00 = 129900; tax round(129900 x 20 %) = 25980.
  assert.deepEqual([made.status, made.subtotal, made.taxAmount, made.total], ['draft', 129900, 25980, 155880])
  await page.getByRole('heading', { name: `Invoice ${made.number}`, level: 1 }).waitFor()
  await expectAccessible(page, 'invoice, draft')

  // Edited: two machines at 10 % off, a line of beans at a price of our own with 7 % tax, a due date, notes.
  await page.getByRole('link', { name: 'Edit draft' }).click()
  const edit = page.getByRole('form', { name: `Edit invoice ${made.number}` })
  await expectSoon(() => edit.getByLabel('Customer', { exact: true }).inputValue(), harbor.id)
  await expectSoon(() => edit.getByLabel('Product, line 1').inputValue(), machine.id)
  assert.deepEqual([await edit.getByLabel('Unit price, line 1').inputValue(), await edit.getByLabel('Tax percent, line 1').inputValue()], ['1299.00', '20'])
  await expectAccessible(page, 'invoice, edit')
  await edit.getByLabel('Quantity, line 1').fill('2')
  await edit.getByLabel('Discount percent, line 1').fill('10')
  await edit.getByRole('button', { name: 'Add a line' }).click()
  await edit.getByLabel('Product, line 2').selectOption({ label: 'Coffee beans, 1 kg (BEAN-1K)' })
  assert.equal(await edit.getByLabel('Unit price, line 2').inputValue(), '24.50')
  await edit.getByLabel('Quantity, line 2').fill('12')
  await edit.getByLabel('Unit price, line 2').fill('22.75')
  await edit.getByLabel('Tax percent, line 2').fill('7')
  const invoiceDay = made.invoiceDate.slice(0, 10)
  const dueDay = new Date(Date.parse(made.invoiceDate) + 15 * 86_400_000).toISOString().slice(0, 10)
  await edit.getByLabel('Due date').fill(dueDay)
  await edit.getByLabel('Notes').fill('Net 15. Thank you for your order.')
  // Lines: 2 x 129900 x 90 % = 233820, tax 46764; 12 x 2275 = 27300, tax round(1911.0) = 1911.
  const subtotal = 233820 + 27300
  const tax = 46764 + 1911
  const total = subtotal + tax // 309795
  await edit.getByRole('button', { name: 'Preview' }).click()
  await page.getByText(`nothing was created. Total $3,097.95.`).waitFor()
  assert.equal((await ok(o.get(`/invoices/${made.id}`), 200)).total, 155880, 'the preview changed nothing')
  await expectAccessible(page, 'invoice, edit, previewed')
  await onPhone(page, 'invoice edit', 'invoice-edit')
  await edit.getByRole('button', { name: 'Save changes' }).click()
  await toastSays(page, `Invoice ${made.number} saved: total $3,097.95.`)
  await page.getByRole('heading', { name: `Invoice ${made.number}`, level: 1 }).waitFor()
  const edited = await ok(o.get(`/invoices/${made.id}`), 200)
  assert.deepEqual(
    [edited.status, edited.subtotal, edited.taxAmount, edited.total, edited.dueDate.slice(0, 10), edited.invoiceDate.slice(0, 10), edited.notes, edited.contact.id],
    ['draft', subtotal, tax, total, dueDay, invoiceDay, 'Net 15. Thank you for your order.', harbor.id],
  )
  assert.deepEqual(edited.lineItems.map((l: any) => [l.productId, l.description, l.quantity, l.unitPrice, l.discount, l.taxRate, l.total]), [
    [machine.id, 'Espresso machine', 2, 129900, 10, 20, 233820],
    [beans.id, 'Coffee beans, 1 kg', 12, 2275, 0, 7, 27300],
  ])
  await expectSoon(async () => (await rows(page, `Lines of invoice ${made.number}`)).map((r) => r.at(-1)), ['$2,338.20', '$273.00'])
  await expectAccessible(page, 'invoice, edited')

  // Sent, then paid in part: no Cancel once there is a payment (a credit note cancels it).
  await page.getByRole('button', { name: 'Send invoice' }).click()
  await toastSays(page, `Invoice ${made.number} sent to accounts@harbor-cafe.example.`)
  await expectSoon(() => status.innerText(), 'sent')
  assert.equal(await page.getByRole('link', { name: 'Edit draft' }).count(), 0)
  const pay = page.getByRole('form', { name: 'Record a payment' })
  await pay.getByLabel('Amount').fill('1000.00')
  await pay.getByRole('button', { name: 'Record payment' }).click()
  await toastSays(page, 'Payment recorded: the invoice is partially paid, $2,097.95 still due.')
  await expectSoon(() => page.getByTestId('amount-due').innerText(), '$2,097.95')
  assert.equal(await page.getByRole('button', { name: 'Cancel invoice' }).count(), 0)
  const paid = await ok(o.get(`/invoices/${made.id}`), 200)
  assert.deepEqual([paid.status, paid.amountPaid, paid.amountDue], ['partial_paid', 100000, total - 100000])
  await expectAccessible(page, 'invoice, partly paid')
  await shot(page, 'invoice-credit', 'form[aria-label="Issue a credit note"]')
  await onPhone(page, 'invoice, partly paid', 'invoice-credit')

  // Credited in part: more than the total is said before any request; then what is still due, with a reason.
  const credit = page.getByRole('form', { name: 'Issue a credit note' })
  assert.equal(await credit.getByLabel('Credit amount').inputValue(), '3097.95')
  await credit.getByLabel('Credit amount').fill('3,500')
  await credit.getByRole('button', { name: 'Issue credit note' }).click()
  await credit.getByRole('alert').filter({ hasText: "Amount: at most $3,097.95, the invoice's total." }).waitFor()
  assert.equal((await ok(o.get('/credit-notes'), 200)).meta.total, 0)
  await expectAccessible(page, 'invoice, a credit above the total refused')
  await credit.getByLabel('Credit amount').fill('2,097.95')
  await credit.getByLabel('Reason').fill('One machine returned in its original packaging.')
  await credit.getByRole('button', { name: 'Issue credit note' }).click()
  await expectSoon(() => status.innerText(), 'cancelled')
  const [note] = (await ok(o.get(`/credit-notes?invoiceId=${made.id}`), 200)).data
  await toastSays(page, `Credit note ${note.number} issued for $2,097.95: invoice ${made.number} is cancelled.`)
  assert.ok(asked.includes(`Issue a credit note of $2,097.95 for invoice ${made.number}? The invoice will be cancelled.`), asked.join('\n'))
  assert.deepEqual([note.amount, note.currency, note.reason, note.invoiceNumber, note.contact.name], [209795, 'usd', 'One machine returned in its original packaging.', made.number, 'Harbor Cafe'])
  const credited = await ok(o.get(`/invoices/${made.id}`), 200)
  assert.deepEqual([credited.status, credited.amountPaid, credited.amountDue], ['cancelled', 100000, 0])
  await expectSoon(async () => (await rows(page, `Credit notes of invoice ${made.number}`)).map((r) => [r[0], r[2], r[3]]), [[note.number, 'One machine returned in its original packaging.', '$2,097.95']])
  assert.equal(await page.getByRole('form', { name: 'Issue a credit note' }).count(), 0)
  await expectAccessible(page, 'invoice, credited')

  // The credit note in its list (filters in the address), its page, and back to the invoice.
  await nav.getByRole('link', { name: 'Credit notes', exact: true }).click()
  await page.getByRole('heading', { name: 'Credit notes', level: 1 }).waitFor()
  await expectSoon(async () => (await rows(page, 'Credit notes')).map((r) => [r[0], r[1], r[2], r[5]]), [[note.number, made.number, 'Harbor Cafe', '$2,097.95']])
  await page.getByRole('searchbox', { name: 'Search' }).fill('no such number')
  await page.getByText('No credit note matches these filters.').waitFor()
  assert.match(page.url(), /\/credit-notes\?search=no\+such\+number$/)
  await expectAccessible(page, 'credit notes, nothing found')
  await page.getByRole('searchbox', { name: 'Search' }).fill(made.number)
  await expectSoon(async () => (await rows(page, 'Credit notes')).map((r) => r[0]), [note.number])
  await page.getByLabel('Sort').selectOption('amount:desc')
  await expectSoon(async () => new URL(page.url()).searchParams.get('sort'), 'amount:desc')
  await expectAccessible(page, 'credit notes')
  await shot(page, 'credit-notes')
  await onPhone(page, 'credit notes', 'credit-notes')
  await page.getByRole('link', { name: note.number }).click()
  await page.getByRole('heading', { name: `Credit note ${note.number}`, level: 1 }).waitFor()
  assert.equal(await page.getByTestId('credit-amount').innerText(), '$2,097.95')
  await expectAccessible(page, 'credit note')
  await onPhone(page, 'credit note', 'credit-note')
  await page.getByRole('link', { name: made.number }).click()
  await page.getByRole('heading', { name: `Invoice ${made.number}`, level: 1 }).waitFor()
  await page.getByRole('link', { name: note.number }).waitFor()

  assert.equal(asked.length, 1, asked.join('\n'))
  assert.ok(calls.length <= 60, `${calls.length} calls to the API:\n${calls.join('\n')}`)
  t.diagnostic(`${calls.length} calls to the API in the walk-through`)
  assert.deepEqual(e.errors, [])
  await page.close()
})

test('invoicing: an edit refused once a colleague sent the draft, said in a sentence; a sent invoice cancelled, a draft deleted; a sales order invoiced', { timeout: 240_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const other = await ok(o.post('/invoices', { contactId: lumen.id, lineItems: [{ productId: training.id, quantity: 3 }] }))
  const spare = await ok(o.post('/invoices', { contactId: lumen.id, lineItems: [{ description: 'Cupping session, on site', quantity: 1, unitPrice: 15000 }] }))
  const quotation = await ok(o.post('/sales/quotations', { contactId: harbor.id, lineItems: [{ productId: beans.id, quantity: 40, discount: 5 }] }))
  const order = await ok(o.post(`/sales/quotations/${quotation.id}/confirm`))
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const asked: string[] = []
  page.on('dialog', (d) => void asked.push(d.message()))
  const calls = countCalls(page)
  await signIn(page, o.adminEmail, o.password)
  const nav = page.getByRole('navigation', { name: 'Main' })

  // The edit page of a draft; meanwhile a colleague sends it: Save is refused in the API's words, nothing changes.
  await page.goto(`/invoices/${other.id}/edit`)
  const edit = page.getByRole('form', { name: `Edit invoice ${other.number}` })
  await expectSoon(() => edit.getByLabel('Product, line 1').inputValue(), training.id)
  await edit.getByLabel('Quantity, line 1').fill('4')
  await ok(o.post(`/invoices/${other.id}/send`, {}), 200)
  await edit.getByRole('button', { name: 'Save changes' }).click()
  await edit.getByRole('alert').filter({ hasText: 'Only draft invoices can be updated.' }).waitFor()
  assert.doesNotMatch(await edit.getByRole('alert').innerText(), /INVALID_STATE|400/)
  const unchanged = await ok(o.get(`/invoices/${other.id}`), 200)
  assert.deepEqual([unchanged.status, unchanged.total, unchanged.lineItems[0].quantity], ['sent', 3 * 8000, 3])
  await expectAccessible(page, 'invoice edit, refused')
  // Opened again, the page says a sent invoice is not edited.
  await page.reload()
  await page.getByText(`Invoice ${other.number} is sent: only a draft can be edited.`).waitFor()
  assert.equal(await page.getByRole('form', { name: `Edit invoice ${other.number}` }).count(), 0)
  await expectAccessible(page, 'invoice edit, not a draft')

  // That sent invoice, with no payment, is cancelled after a confirmation.
  await page.getByRole('link', { name: 'Open the invoice' }).click()
  await page.getByRole('button', { name: 'Cancel invoice' }).click()
  await toastSays(page, `Invoice ${other.number} cancelled.`)
  assert.deepEqual(asked, [`Cancel invoice ${other.number}? It can no longer be sent or paid, and the $240.00 due is no longer owed.`])
  await expectSoon(() => page.getByTestId('invoice-status').innerText(), 'cancelled')
  const cancelled = await ok(o.get(`/invoices/${other.id}`), 200)
  assert.deepEqual([cancelled.status, cancelled.amountDue], ['cancelled', 0])
  await page.getByText('No credit note: this invoice was cancelled without one.').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Cancel invoice' }).count(), 0)
  assert.equal(await page.getByRole('form', { name: 'Issue a credit note' }).count(), 0)
  await expectAccessible(page, 'invoice, cancelled')

  // A draft whose line names no product (made through the API): edited as a line of text, its wording kept.
  await page.goto(`/invoices/${spare.id}/edit`)
  const text = page.getByRole('form', { name: `Edit invoice ${spare.number}` })
  await expectSoon(() => text.getByLabel('Description, line 1').inputValue(), 'Cupping session, on site')
  assert.equal(await text.getByLabel('Unit price, line 1').inputValue(), '150.00')
  await text.getByLabel('Description, line 1').fill('Cupping session, on site, two hours')
  await text.getByLabel('Unit price, line 1').fill('162.50')
  await expectAccessible(page, 'invoice edit, a line of text')
  await text.getByRole('button', { name: 'Save changes' }).click()
  await toastSays(page, `Invoice ${spare.number} saved: total $162.50.`)
  const retold = await ok(o.get(`/invoices/${spare.id}`), 200)
  assert.deepEqual(retold.lineItems.map((l: any) => [l.productId, l.description, l.quantity, l.unitPrice, l.total]), [[null, 'Cupping session, on site, two hours', 1, 16250, 16250]])

  // A draft deleted after a confirmation: back to the list, and gone.
  await page.getByRole('button', { name: 'Delete draft' }).click()
  await toastSays(page, `Draft invoice ${spare.number} deleted.`)
  await page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor()
  assert.equal(asked.at(-1), `Delete the draft invoice ${spare.number}? This cannot be undone.`)
  assert.equal((await o.get(`/invoices/${spare.id}`)).status, 404)
  await expectAccessible(page, 'invoices, a draft deleted')

  // Sales orders: the confirmed quotation's order, invoiced from the list.
  await nav.getByRole('link', { name: 'Sales orders', exact: true }).click()
  await page.getByRole('heading', { name: 'Sales orders', level: 1 }).waitFor()
  // 40 x 24.50 x 95 % = 93100.
  await expectSoon(async () => (await rows(page, 'Sales orders')).map((r) => [r[0], r[1], r[4], r[5], r[6]]), [[order.reference, 'Harbor Cafe', 'confirmed', '$931.00', `Invoice this order ${order.reference}`]])
  await expectAccessible(page, 'sales orders')
  await shot(page, 'sales-orders')
  await onPhone(page, 'sales orders', 'sales-orders')
  await page.getByLabel('Status').selectOption('invoiced')
  await page.getByText('No sales order matches these filters.').waitFor()
  assert.match(page.url(), /\/sales\/orders\?status=invoiced$/)
  await page.getByLabel('Status').selectOption('')
  await page.getByRole('button', { name: `Invoice this order ${order.reference}` }).click()
  await toastSays(page, `Order ${order.reference} invoiced: a draft invoice to check and send.`)
  await expectSoon(() => page.getByTestId('invoice-status').innerText(), 'draft')
  const invoiced = await ok(o.get(`/orders/${order.id}`), 200)
  assert.equal(invoiced.status, 'invoiced')
  const fromOrder = await ok(o.get(`/invoices/${invoiced.invoiceId}`), 200)
  assert.deepEqual([fromOrder.orderId, fromOrder.total, fromOrder.status], [order.id, 93100, 'draft'])
  await page.getByRole('heading', { name: `Invoice ${fromOrder.number}`, level: 1 }).waitFor()
  await expectAccessible(page, 'invoice from an order')
  // The invoice links its order, the order its quotation and invoice, the quotation its order.
  await page.getByRole('link', { name: 'Open the order' }).click()
  await page.getByRole('heading', { name: `Sales order ${order.reference}`, level: 1 }).waitFor()
  await expectSoon(() => page.getByTestId('order-status').innerText(), 'invoiced')
  assert.equal(await page.getByRole('button', { name: /Invoice this order/ }).count(), 0)
  await expectAccessible(page, 'sales order, invoiced')
  await onPhone(page, 'sales order', 'sales-order')
  await page.getByRole('link', { name: 'Open the quotation' }).click()
  await page.getByRole('heading', { name: `Quotation ${quotation.reference}`, level: 1 }).waitFor()
  await page.getByRole('link', { name: order.reference }).click()
  await page.getByRole('heading', { name: `Sales order ${order.reference}`, level: 1 }).waitFor()
  await page.getByRole('link', { name: 'Open the invoice' }).click()
  await page.getByRole('heading', { name: `Invoice ${fromOrder.number}`, level: 1 }).waitFor()

  assert.equal(asked.length, 2, asked.join('\n'))
  assert.ok(calls.length <= 60, `${calls.length} calls to the API:\n${calls.join('\n')}`)
  t.diagnostic(`${calls.length} calls to the API in the walk-through`)
  assert.deepEqual(e.errors, [])
  await page.close()
})
