// In Chromium: the finance pages of the dashboard (issue 17). An organization
// with a few months of business made through the API (contacts, products with
// stock, quotations in every stage, orders, invoices sent, paid, partly paid
// and overdue); then, signed in as its admin: the overview's KPIs and charts,
// the invoice list, an invoice paid in full through the form, its PDF, and a
// quotation created, sent, confirmed and invoiced through the pages. axe-core
// on every page of this part.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, test } from 'node:test'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'
import { expectAccessible, expectSoon, expectValue, needsBrowser, screenshot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
let org: TestOrg
/** The invoice the first test pays: sent, nothing paid yet. */
let target: { id: string; number: string; total: number }

/** Day `d` of the month `monthsBack` months ago, never after today (`YYYY-MM-DD`). */
const day = (monthsBack: number, d: number) => {
  const now = new Date()
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack, d))
  return (at > now && monthsBack >= 0 ? now : at).toISOString().slice(0, 10)
}
const plusDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86400_000).toISOString().slice(0, 10)
const money = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`

async function seed(o: TestOrg) {
  const contacts: Record<string, string> = {}
  for (const [name, email] of [
    ['Acme Corporation', 'billing@acme.example'],
    ['Globex Ltd', 'accounts@globex.example'],
    ['Initech', 'ap@initech.example'],
    ['Umbrella Health', 'finance@umbrella.example'],
    ['Stark Logistics', 'pay@stark.example'],
  ]) contacts[name] = expectStatus(await o.post('/contacts', { name, email, type: 'company' }), 201).id
  const products: Record<string, string> = {}
  for (const [name, sku, price, cost, reorderPoint, stock] of [
    ['Oak standing desk', 'DSK-OAK', 64900, 38000, 5, 3],
    ['Ergonomic chair', 'CHR-ERG', 28900, 15000, 10, 4],
    ['Monitor arm', 'ARM-DUO', 8900, 4200, 20, 32],
    ['Desk lamp', 'LMP-LED', 4500, 1800, 15, 6],
    ['Cable tray', 'CBL-TRY', 1900, 700, 25, 40],
  ] as const) {
    const id = expectStatus(await o.post('/products', { name, sku, price, cost, reorderPoint, currency: 'usd', type: 'storable', uom: 'unit' }), 201).id
    products[name] = id
    expectStatus(await o.post('/inventory/adjustments', { locationId: 'LOC-STOCK', reason: 'Opening count', lines: [{ productId: id, realQty: stock }] }), 201)
  }
  const sellers: string[] = []
  for (const name of ['Maya Patel', 'Jonas Berg']) sellers.push(expectStatus(await o.post('/employees', { name }), 201).id)
  let n = 0
  const quote = async (contact: string, lines: Array<[string, number]>) =>
    expectStatus(
      await o.post('/sales/quotations', { contactId: contacts[contact], salespersonId: sellers[n++ % 2], lineItems: lines.map(([p, quantity]) => ({ productId: products[p], quantity })), validUntil: day(-1, 28) }),
      201,
    ).id as string

  // Orders confirmed over the last six months, each invoiced in its month.
  const history: Array<[number, string, Array<[string, number]>, 'paid' | 'partial' | 'sent' | 'draft']> = [
    [11, 'Globex Ltd', [['Oak standing desk', 3], ['Monitor arm', 6]], 'paid'],
    [9, 'Acme Corporation', [['Ergonomic chair', 8]], 'paid'],
    [8, 'Initech', [['Desk lamp', 20], ['Cable tray', 40]], 'paid'],
    [7, 'Umbrella Health', [['Oak standing desk', 5]], 'paid'],
    [6, 'Stark Logistics', [['Ergonomic chair', 12], ['Monitor arm', 12]], 'paid'],
    [5, 'Acme Corporation', [['Oak standing desk', 4], ['Ergonomic chair', 4]], 'paid'],
    [4, 'Globex Ltd', [['Monitor arm', 12], ['Desk lamp', 12]], 'paid'],
    [4, 'Initech', [['Ergonomic chair', 10]], 'sent'],
    [3, 'Umbrella Health', [['Oak standing desk', 6], ['Cable tray', 20]], 'partial'],
    [2, 'Stark Logistics', [['Ergonomic chair', 6], ['Monitor arm', 6]], 'sent'],
    [1, 'Acme Corporation', [['Oak standing desk', 8]], 'paid'],
    [1, 'Globex Ltd', [['Desk lamp', 30], ['Cable tray', 30]], 'partial'],
    [0, 'Initech', [['Monitor arm', 10]], 'draft'],
  ]
  for (const [monthsBack, contact, lines, state] of history) {
    const q = await quote(contact, lines)
    const order = expectStatus(await o.post(`/sales/quotations/${q}/confirm`), 201)
    // The API dates an order when it is confirmed; the revenue chart needs months of history, so the confirmation is moved back.
    await e.t.app.ctx.db.query('UPDATE orders SET confirmed_at = $1 WHERE id = $2', [`${day(monthsBack, 12)}T10:00:00Z`, order.id])
    const invoiceDate = day(monthsBack, 14)
    const inv = expectStatus(await o.post(`/orders/${order.id}/invoice`, { invoiceDate, dueDate: plusDays(invoiceDate, 45) }), 201)
    if (state === 'draft') continue
    expectStatus(await o.post(`/invoices/${inv.id}/send`, {}), 200)
    if (state === 'paid') expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: inv.total, method: 'bank transfer', paymentDate: day(monthsBack - 1, 2) }), 200)
    if (state === 'partial') expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: Math.round(inv.total * 0.4), method: 'card' }), 200)
  }
  // Open quotations for the pipeline: drafts, sent ones, one cancelled.
  await quote('Stark Logistics', [['Oak standing desk', 2]])
  await quote('Umbrella Health', [['Ergonomic chair', 15], ['Desk lamp', 15]])
  expectStatus(await o.post(`/sales/quotations/${await quote('Globex Ltd', [['Oak standing desk', 10]])}/send`, {}), 200)
  expectStatus(await o.post(`/sales/quotations/${await quote('Acme Corporation', [['Monitor arm', 25]])}/send`, {}), 200)
  expectStatus(await o.post(`/sales/quotations/${await quote('Initech', [['Cable tray', 50]])}/cancel`), 200)
  expectStatus(await o.post('/admin/jobs/invoices-overdue/run'), 200)

  // The invoice the test pays: confirmed and sent today, nothing paid.
  const q = await quote('Umbrella Health', [['Monitor arm', 3], ['Desk lamp', 2]])
  const order = expectStatus(await o.post(`/sales/quotations/${q}/confirm`), 201)
  const inv = expectStatus(await o.post(`/orders/${order.id}/invoice`, {}), 201)
  expectStatus(await o.post(`/invoices/${inv.id}/send`, {}), 200)
  return { id: inv.id as string, number: inv.number as string, total: inv.total as number }
}

before(async () => {
  if (SKIP_E2E) return
  e = await startE2E()
  org = await createOrg(e.t.app, 'Northwind Office Supply')
  target = await seed(org)
})
after(async () => await e?.close())

test('overview, invoices: an admin opens a sent invoice, downloads its PDF, records the full amount due: paid', { timeout: 90_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)
  // The overview is the home of admin and member.
  await page.waitForURL(/\/overview$/)
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  await page.getByRole('region', { name: 'Key figures' }).waitFor()
  await page.getByRole('heading', { name: 'Revenue by month' }).waitFor()
  await page.locator('.recharts-bar-rectangle').first().waitFor()
  // Each chart has a text summary and a table of its figures for assistive technology.
  const pipeline = page.getByRole('table', { name: 'Pipeline by stage' })
  assert.equal(await pipeline.getByRole('row').count(), 5)
  assert.match((await page.getByRole('table', { name: 'Stock below reorder point' }).textContent()) ?? '', /Ergonomic chair/)
  assert.match(await page.locator('figcaption').filter({ hasText: 'products are at or below' }).innerText(), /^3 products/)
  await expectAccessible(page, 'overview')
  await page.mouse.move(1, 1)
  await screenshot(page, 'overview')

  await page.getByRole('link', { name: 'Invoices' }).click()
  await page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor()
  await page.getByRole('link', { name: target.number }).waitFor()
  await screenshot(page, 'invoices')
  // Filters go to the server: only the overdue ones.
  const overdue = expectStatus(await org.get('/invoices?status=overdue'), 200).meta.total
  assert.ok(overdue >= 2)
  await page.getByLabel('Status').selectOption('overdue')
  // Exact: "4 in all" is also a part of the unfiltered list's "14 in all", still shown until the filtered answer comes.
  await page.getByText(`${overdue} in all`, { exact: true }).waitFor()
  assert.equal(await page.locator('tbody tr').count(), overdue)
  assert.equal(await page.getByRole('link', { name: target.number }).count(), 0)
  await page.getByLabel('Status').selectOption('')
  await page.getByRole('link', { name: target.number }).waitFor()
  // The contact is found on the server, then filters the list; the sort is the API's.
  await page.getByLabel('Find contact').fill('acme')
  await page.getByLabel('Contact', { exact: true }).selectOption({ label: 'Acme Corporation (billing@acme.example)' })
  // The choice reaches the page's address first, and the select once React has committed the router's render: wait for each.
  await page.waitForURL(/contactId=/)
  const contactId = new URL(page.url()).searchParams.get('contactId')!
  await expectValue(page.getByLabel('Contact', { exact: true }), contactId)
  const acme = expectStatus(await org.get(`/invoices?contactId=${contactId}&sortBy=amount&sortOrder=asc`), 200)
  await page.getByText(`${acme.meta.total} in all`).waitFor()
  await page.getByLabel('Sort').selectOption('amount:asc')
  await page.waitForURL(/sort=amount%3Aasc|sort=amount:asc/)
  await page.locator('tbody tr').first().getByRole('link', { name: acme.data[0].number }).waitFor()
  await expectSoon(() => page.locator('tbody tr td:nth-child(2)').allInnerTexts(), acme.data.map((i: { number: string }) => i.number))
  await page.getByLabel('Contact', { exact: true }).selectOption('')
  await page.getByLabel('Sort').selectOption('createdAt:desc')
  await page.getByRole('link', { name: target.number }).waitFor()
  await expectAccessible(page, 'invoices')

  await page.getByRole('link', { name: target.number }).click()
  await page.getByRole('heading', { name: `Invoice ${target.number}` }).waitFor()
  assert.equal((await page.getByTestId('invoice-status').innerText()).trim(), 'sent')
  await expectAccessible(page, 'invoice')

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()])
  const pdf = await readFile((await download.path())!)
  assert.equal(pdf.subarray(0, 4).toString(), '%PDF')
  assert.match(download.suggestedFilename(), /\.pdf$/)

  const form = page.getByRole('form', { name: 'Record a payment' })
  assert.equal(await form.getByLabel('Amount').inputValue(), (target.total / 100).toFixed(2), 'the amount defaults to the amount due')
  // More than is due: the API refuses, the form shows its message and nothing changes.
  await form.getByLabel('Amount').fill(((target.total + 100) / 100).toFixed(2))
  await form.getByRole('button', { name: 'Record payment' }).click()
  assert.match(await form.getByRole('alert').innerText(), /VALIDATION_FAILED|amount/i)
  assert.equal((await page.getByTestId('invoice-status').innerText()).trim(), 'sent')
  await form.getByLabel('Amount').fill((target.total / 100).toFixed(2))
  await form.getByLabel('Method').selectOption('card')
  await form.getByLabel('Reference').fill('VISA 4242 auth 81F2')
  await form.getByRole('button', { name: 'Record payment' }).click()
  await page.getByRole('status').filter({ hasText: 'Payment recorded: the invoice is paid' }).waitFor()
  await page.getByTestId('invoice-status').getByText('paid', { exact: true }).waitFor()
  assert.equal((await page.getByTestId('amount-due').innerText()).trim(), money(0))
  await page.getByRole('cell', { name: 'VISA 4242 auth 81F2' }).waitFor()
  assert.equal(await page.getByRole('form', { name: 'Record a payment' }).count(), 0)
  await expectAccessible(page, 'invoice (paid)')
  await screenshot(page, 'invoice')
  const api = expectStatus(await org.get(`/invoices/${target.id}`), 200)
  assert.deepEqual([api.status, api.amountPaid, api.amountDue], ['paid', target.total, 0])
  assert.deepEqual(e.errors, [])
})

test('quotations: create one through the form (contact searched on the server), send it, confirm it, invoice the order', { timeout: 90_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)
  await page.getByRole('link', { name: 'Quotations' }).click()
  await page.getByRole('heading', { name: 'Quotations', level: 1 }).waitFor()
  await page.getByRole('cell', { name: 'Globex Ltd' }).first().waitFor()
  await expectAccessible(page, 'quotations')
  await screenshot(page, 'quotations')

  await page.getByRole('link', { name: 'New quotation' }).click()
  await page.getByRole('heading', { name: 'New quotation' }).waitFor()
  const form = page.getByRole('form', { name: 'New quotation' })
  // Creating without a contact: the form says what is missing.
  await form.getByLabel('Find customer').fill('stark')
  await page.waitForFunction(() => {
    const select = document.querySelector('select[required]') as HTMLSelectElement | null
    return select !== null && select.options.length === 2
  })
  await form.getByLabel('Customer', { exact: true }).selectOption({ label: 'Stark Logistics (pay@stark.example)' })
  await form.getByLabel('Product, line 1').selectOption({ label: 'Oak standing desk (DSK-OAK)' })
  await expectValue(form.getByLabel('Unit price, line 1'), '649.00') // the product price fills the line
  await form.getByLabel('Quantity, line 1').fill('3')
  await form.getByRole('button', { name: 'Add a line' }).click()
  await form.getByLabel('Product, line 2').selectOption({ label: 'Desk lamp (LMP-LED)' })
  await form.getByLabel('Quantity, line 2').fill('3')
  await form.getByLabel('Discount percent, line 2').fill('10')
  await expectAccessible(page, 'new quotation')
  await form.getByRole('button', { name: 'Create quotation' }).click()
  await page.getByRole('heading', { name: /^Quotation QO\// }).waitFor()
  assert.equal((await page.getByTestId('quotation-status').innerText()).trim(), 'draft')
  // 3 x 649.00 + 3 x 45.00 - 10 % = 1,947.00 + 121.50
  await page.getByText(money(206850)).first().waitFor()

  await page.getByRole('button', { name: 'Send quotation' }).click()
  await page.getByRole('button', { name: 'Send again' }).waitFor()
  await page.getByTestId('quotation-status').getByText('sent', { exact: true }).waitFor()
  await page.getByRole('button', { name: 'Confirm' }).click()
  await page.getByRole('button', { name: 'Create invoice' }).waitFor()
  await page.getByTestId('quotation-status').getByText('confirmed', { exact: true }).waitFor()
  assert.equal(await page.getByRole('button', { name: 'Send again' }).count(), 0)
  await expectAccessible(page, 'quotation (confirmed)')
  await page.getByRole('button', { name: 'Create invoice' }).click()
  await page.getByRole('heading', { name: /^Invoice INV\// }).waitFor()
  assert.equal((await page.getByTestId('invoice-status').innerText()).trim(), 'draft')
  await page.getByRole('button', { name: 'Send invoice' }).click()
  await page.getByTestId('invoice-status').getByText('sent', { exact: true }).waitFor()
  assert.equal(await page.getByRole('button', { name: 'Send invoice' }).count(), 0)

  const made = expectStatus(await org.get('/sales/quotations?search=Stark&status=confirmed&sortBy=createdAt&sortOrder=desc'), 200).data[0]
  assert.deepEqual([made.total, made.lineItems.length, made.sentAt !== null, made.orderId !== null], [206850, 2, true, true])
  assert.deepEqual(e.errors, [])
})

test('a new organization: the overview, invoices and quotations say what to do first; a member lands on the overview', { timeout: 60_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const empty = await createOrg(e.t.app, 'Fresh Start Ltd')
  const page = await e.page()
  await signIn(page, empty.adminEmail, empty.password)
  await page.getByText('No invoices yet: create a quotation').waitFor()
  await page.getByText('No revenue in this period').waitFor()
  await page.getByText('Every product is above its reorder point').waitFor()
  await expectAccessible(page, 'overview (empty)')
  await page.getByRole('link', { name: 'Invoices' }).click()
  await page.getByText('No invoices yet').waitFor()
  await page.getByRole('link', { name: 'Quotations' }).click()
  await page.getByText('No quotations yet').waitFor()
  await expectAccessible(page, 'quotations (empty)')

  // A member has the same pages, the overview first; not the admin's users page.
  const email = `member-${Date.now()}@example.com`
  expectStatus(await empty.post('/users', { name: 'Mel Member', email, password: 'member-password-2026', role: 'member' }), 201)
  const member = await e.page()
  await signIn(member, email, 'member-password-2026')
  await member.waitForURL(/\/overview$/)
  await member.getByText('No invoices yet: create a quotation').waitFor()
  for (const name of ['Overview', 'Quotations', 'Invoices']) assert.equal(await member.getByRole('link', { name, exact: true }).count(), 1, name)
  assert.equal(await member.getByRole('link', { name: 'Users and roles' }).count(), 0)
  assert.deepEqual(e.errors, [])
})
