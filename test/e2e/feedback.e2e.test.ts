// In Chromium: what the dashboard says after an action, as
// docs/dashboard.md "Feedback and errors" describes. An over-payment is refused in a sentence with the
// amount as money and no error code; Add user says so in a toast and clears
// the form, password included; making a user admin asks first; Send invoice
// and Send quotation say so; a license is issued to a user picked by name and
// the list shows the holder's name. axe-core on every state.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createOrg, unique, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'
import { createCustomer, createLicensedProduct, type Customer, type LicensedProduct } from '../helpers/licenses.ts'
import type { Page } from 'playwright-core'
import { addUser, expectAccessible, needsBrowser, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
let org: TestOrg
let contactId: string
let productId: string

before(async () => {
  if (SKIP_E2E) return
  e = await startE2E()
  org = await createOrg(e.t.app, 'Feedback Traders')
  contactId = expectStatus(await org.post('/contacts', { name: 'Harbor Goods', email: 'ap@harbor.example', type: 'company' }), 201).id
  productId = expectStatus(await org.post('/products', { name: 'Oak desk', price: 60810, currency: 'usd', type: 'service' }), 201).id
})
after(async () => await e?.close())

/** A draft invoice of one line of 608.10 USD. */
async function draftInvoice() {
  return expectStatus(await org.post('/invoices', { contactId, lineItems: [{ description: 'Oak desk', quantity: 1, unitPrice: 60810 }] }), 201) as { id: string; number: string }
}

/** The text of the toast region once it says `text`. */
async function toastSays(page: Page, text: string | RegExp) {
  const toast = page.locator('.toasts').getByText(text)
  await toast.waitFor()
  return toast
}

test('an over-payment is refused in a sentence with money and no code; a payment and Send invoice say so', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const sent = await draftInvoice()
  expectStatus(await org.post(`/invoices/${sent.id}/send`, {}), 200)
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)

  await page.goto(`/invoices/${sent.id}`)
  await page.getByRole('heading', { name: `Invoice ${sent.number}` }).waitFor()
  const form = page.getByRole('form', { name: 'Record a payment' })
  await form.getByLabel('Amount').fill('700.00')
  await form.getByRole('button', { name: 'Record payment' }).click()
  const refused = form.getByRole('alert')
  await refused.waitFor()
  const text = await refused.innerText()
  assert.match(text, /exceeds amount due \(\$608\.10\)/, text)
  assert.doesNotMatch(text, /VALIDATION_FAILED|60810|\([A-Z_]+\)/, 'no code and no cents')
  await expectAccessible(page, 'invoice (over-payment refused)')

  await form.getByLabel('Amount').fill('608.10')
  await form.getByRole('button', { name: 'Record payment' }).click()
  await toastSays(page, 'Payment recorded: the invoice is paid, $0.00 still due.')
  await page.getByTestId('invoice-status').getByText('paid', { exact: true }).waitFor()
  await expectAccessible(page, 'invoice (payment recorded, toast)')

  const draft = await draftInvoice()
  await page.goto(`/invoices/${draft.id}`)
  await page.getByRole('heading', { name: `Invoice ${draft.number}` }).waitFor()
  await page.getByRole('button', { name: 'Send invoice' }).click()
  const said = await toastSays(page, `Invoice ${draft.number} sent to ap@harbor.example.`)
  assert.equal(await said.locator('xpath=ancestor::*[@role="status"]').getAttribute('aria-live'), 'polite')
  await page.getByTestId('invoice-status').getByText('sent', { exact: true }).waitFor()
  await expectAccessible(page, 'invoice (sent, toast)')
  // The toast can be hidden by hand.
  await page.getByRole('button', { name: 'Hide this message' }).last().click()
  await page.locator('.toasts').getByText(`Invoice ${draft.number} sent`).waitFor({ state: 'detached' })
  assert.equal(expectStatus(await org.get(`/invoices/${draft.id}`), 200).status, 'sent')
  assert.deepEqual(e.errors, [])
})

test('Send quotation says so', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const q = expectStatus(await org.post('/sales/quotations', { contactId, lineItems: [{ productId, quantity: 2 }] }), 201) as { id: string; reference: string }
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)
  await page.goto(`/quotations/${q.id}`)
  await page.getByRole('heading', { name: `Quotation ${q.reference}` }).waitFor()
  await page.getByRole('button', { name: 'Send quotation' }).click()
  await toastSays(page, `Quotation ${q.reference} sent to ap@harbor.example.`)
  await page.getByTestId('quotation-status').getByText('sent', { exact: true }).waitFor()
  await expectAccessible(page, 'quotation (sent, toast)')
  assert.deepEqual(e.errors, [])
})

test('Add user says so and clears the form; making a user admin asks first', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)
  await page.goto('/settings/users')
  await page.getByRole('heading', { name: 'Users and roles', level: 1 }).waitFor()
  const email = `${unique('bea')}@example.com`
  const form = await addUser(page, { name: 'Bea Billing', email, password: 'bea-password-2026', role: 'support' })
  await toastSays(page, `Added Bea Billing (${email}) as support.`)
  // Cleared, the password first of all.
  assert.equal(await form.getByLabel('Initial password').inputValue(), '')
  assert.equal(await form.getByLabel('Name').inputValue(), '')
  assert.equal(await form.getByLabel('E-mail').inputValue(), '')
  assert.equal(await form.getByLabel('Role').inputValue(), 'member')
  await page.getByRole('cell', { name: email }).waitFor()
  await expectAccessible(page, 'users (user added, toast)')

  // Admin gives every right: the page asks (the test's browser agrees), then says what it did.
  const asked: string[] = []
  page.on('dialog', (d) => void asked.push(`${d.type()}: ${d.message()}`))
  await page.getByLabel('Role of Bea Billing').selectOption('agent')
  await toastSays(page, 'Bea Billing is now an agent.')
  assert.deepEqual(asked, [], 'a role other than admin is changed without asking')
  await page.getByLabel('Role of Bea Billing').selectOption('admin')
  await toastSays(page, 'Bea Billing is now an admin.')
  assert.equal(asked.length, 1)
  assert.match(asked[0], /^confirm: Make Bea Billing an admin\?/)
  const users = expectStatus(await org.get(`/users?search=${encodeURIComponent(email)}`), 200) as { data: Array<{ role: string }> }
  assert.equal(users.data[0].role, 'admin')
  await expectAccessible(page, 'users (role changed, toast)')
  assert.deepEqual(e.errors, [])
})

test('a license is issued to a user picked by name; the list shows the holder by name', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const product: LicensedProduct = await createLicensedProduct(org, { name: 'Feedback Connector' })
  const customer: Customer = await createCustomer(e.t.app, org)
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)
  await page.goto('/admin/licenses')
  await page.getByRole('heading', { name: 'Licenses (admin)', level: 1 }).waitFor()
  const form = page.getByRole('form', { name: 'Issue a license' })
  await form.getByLabel('Product').selectOption({ label: 'Feedback Connector (ERP 19.0)' })
  // Found on the server by name; no id is typed anywhere.
  await form.getByLabel('Find a user').fill('carla')
  await form.getByText('1 match').waitFor()
  await form.getByLabel('Holder').selectOption({ label: `Carla Customer (${customer.email}, customer)` })
  await expectAccessible(page, 'licenses (admin, holder picked)')
  await form.getByRole('button', { name: 'Issue license' }).click()
  await page.getByText(/^Issued license/).waitFor()
  const key = (await page.locator('.secret code').innerText()).trim()
  const row = page.getByRole('table', { name: 'Licenses of the organization' }).getByRole('row').filter({ hasText: key })
  await row.getByText('Carla Customer').waitFor()
  assert.doesNotMatch(await row.innerText(), new RegExp(customer.id.slice(0, 8)), 'the holder shows by name, not by id')
  const issued = expectStatus(await org.get(`/admin/licenses?key=${key}`), 200) as { data: Array<{ userId: string; productId: string }> }
  assert.deepEqual(issued.data.map((l) => [l.userId, l.productId]), [[customer.id, product.id]])
  await expectAccessible(page, 'licenses (admin, issued)')
  assert.deepEqual(e.errors, [])
})
