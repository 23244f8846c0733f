// In Chromium, the customer portal: a customer buys a connector in the Store
// through the local payment processor's checkout page, sees the license,
// releases a domain, downloads the build; cancels a subscription at period end;
// adds cards and makes one the default;
// an admin suspends, reinstates and revokes a license. axe-core on every page.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { after, before, test } from 'node:test'
import { call, createOrg, type TestOrg } from '../helpers/app.ts'
import { buyThroughLocalCheckout } from '../helpers/billing.ts'
import { clientCall, clientRequest, issueLicense, multipartForm, type Customer, type LicensedProduct } from '../helpers/licenses.ts'
import { expectAccessible, expectValue, needsBrowser, screenshot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

/** A ZIP (one stored file) of `size` bytes of content: a module build. */
function zipOf(size: number) {
  const data = randomBytes(size)
  const header = Buffer.alloc(30)
  header.writeUInt32LE(0x04034b50, 0)
  header.writeUInt16LE(1, 26)
  header.writeUInt32LE(data.length, 18)
  header.writeUInt32LE(data.length, 22)
  return Buffer.concat([header, Buffer.from('a'), data])
}

let e: E2E
let org: TestOrg
let customer: Customer
let customerPassword: string
const products: Record<string, LicensedProduct> = {}
let latestBuild: Buffer

async function product(name: string, body: Record<string, unknown>) {
  const res = await org.post('/products', { name, type: 'service', currency: 'usd', erpVersion: '19.0', ...body })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body as LicensedProduct
}

async function upload(p: LicensedProduct, version: string, content: Buffer) {
  const form = multipartForm({ version }, { name: 'file', filename: `${p.moduleName}-${version}.zip`, content })
  const res = await org.post(`/products/${p.id}/builds`, form.body, org.token, { 'content-type': form.contentType })
  assert.equal(res.status, 201, JSON.stringify(res.body))
}

before(async () => {
  if (SKIP_E2E) return
  e = await startE2E()
  const app = e.t.app
  org = await createOrg(app, 'Northwind Connectors')
  products.market = await product('Marketplace Connector', { price: 49900, moduleName: 'market_connector', activationsLimit: 3, description: 'Orders, stock and payouts of the big marketplaces' })
  products.market18 = await product('Marketplace Connector', { price: 49900, moduleName: 'market_connector', erpVersion: '18.0', activationsLimit: 3, description: 'Orders, stock and payouts of the big marketplaces' })
  products.shop = await product('Shop Connector', { price: 24900, moduleName: 'shop_connector', description: 'Two-way sync with your web shop' })
  products.sync = await product('Cloud Sync', { price: 1500, moduleName: 'cloud_sync', billing: 'recurring', interval: 'month', activationsLimit: 2, description: 'Hosted nightly sync, billed monthly' })
  // Builds of the Marketplace Connector for ERP 19 (the last one is downloaded and compared), and one of Cloud Sync.
  await upload(products.market, '19.0.1.0.0', zipOf(150_000))
  await upload(products.market, '19.0.1.1.0', zipOf(160_000))
  latestBuild = zipOf(182_345)
  await upload(products.market, '19.0.2.0.0', latestBuild)
  await upload(products.market18, '18.0.2.0.0', zipOf(170_000))
  await upload(products.sync, '19.0.1.0.3', zipOf(90_000))
  customerPassword = 'customer password 123'
  const created = await org.post('/users', { name: 'Carla Jones', email: 'carla.jones@harbor-retail.example', password: customerPassword, role: 'customer' })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  const login = await call(app, 'POST', '/auth/login', { body: { email: 'carla.jones@harbor-retail.example', password: customerPassword } })
  customer = { id: created.body.id, email: 'carla.jones@harbor-retail.example', token: login.body.accessToken }
  // Bought earlier through the API: a subscription, and a card to show; and a license issued by hand.
  await buyThroughLocalCheckout(app, customer.token, [{ productId: products.sync.id, quantity: 1 }])
  assert.equal((await call(app, 'POST', '/billing/payment-methods', { token: customer.token, body: { paymentMethodId: 'pm_card_mastercard' } })).status, 201)
  await issueLicense(org, { productId: products.shop.id, userId: customer.id })
})
after(async () => await e?.close())

const licensesOf = async (token: string) => (await call(e.t.app, 'GET', '/licenses', { token })).body as Array<{ id: string; key: string; productId: string; status: string; activationsCount: number; domains: string[] }>

test('a customer buys a connector in the Store, sees the license, releases a domain, downloads the build and cancels a subscription', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await signIn(page, customer.email, customerPassword)
  // The customer lands on Licenses.
  await page.getByRole('heading', { name: 'Licenses', level: 1 }).waitFor()
  await page.getByRole('heading', { name: 'Cloud Sync' }).waitFor()
  await expectAccessible(page, 'licenses')

  await page.getByRole('link', { name: 'Store' }).click()
  await page.getByRole('button', { name: /^Buy Shop Connector/ }).waitFor()
  await expectAccessible(page, 'store')
  await screenshot(page, 'store')
  // The ERP version filter is applied by the server.
  await page.getByLabel('ERP version').selectOption('18.0')
  await page.getByRole('button', { name: /^Buy Shop Connector/ }).waitFor({ state: 'detached' })
  assert.equal(await page.getByRole('button', { name: /^Buy / }).count(), 1)
  await page.getByRole('button', { name: 'Buy Marketplace Connector for ERP 18.0' }).waitFor()
  await page.getByLabel('ERP version').selectOption('19.0')
  await page.getByRole('button', { name: 'Buy Marketplace Connector for ERP 18.0' }).waitFor({ state: 'detached' })

  // Cancelled on the checkout page: back in the Store with a notice, nothing bought.
  await page.getByRole('button', { name: 'Buy Shop Connector for ERP 19.0' }).click()
  await page.waitForURL(/\/api\/billing\/local\/checkout\/cs_local_/)
  await page.getByRole('button', { name: 'Cancel' }).click()
  await page.waitForURL(/\/store\?checkout=cancelled/)
  await page.getByText('Checkout cancelled: nothing was charged.').waitFor()
  assert.equal((await licensesOf(customer.token)).filter((l) => l.productId === products.shop.id).length, 1)

  await page.getByRole('button', { name: 'Buy Marketplace Connector for ERP 19.0' }).click()

  // The local payment processor's checkout page, served by the service.
  await page.waitForURL(/\/api\/billing\/local\/checkout\/cs_local_/)
  await page.getByRole('heading', { name: 'Checkout' }).waitFor()
  await expectAccessible(page, 'local checkout page')
  await page.getByRole('button', { name: /^Pay/ }).click()

  // Back in the dashboard: the license is there (the local processor delivers its events before redirecting).
  await page.waitForURL(/\/licenses\?checkout=success/)
  await page.getByText('Payment received').waitFor()
  const bought = (await licensesOf(customer.token)).find((l) => l.productId === products.market.id)
  assert.ok(bought, 'the license was issued')
  assert.equal(bought.status, 'active')
  await page.getByText(bought.key).waitFor()

  // The connector activates two shops; the dashboard lists them and releases one.
  for (const domain of ['shop.northwind.example', 'eu.northwind.example']) {
    const res = await clientCall(e.t.app, 'activate', clientRequest(bought.key, products.market, domain))
    assert.equal(res.status, 200, JSON.stringify(res.body))
  }
  await clientCall(e.t.app, 'activate', clientRequest((await licensesOf(customer.token)).find((l) => l.productId === products.sync.id)!.key, products.sync, 'shop.northwind.example'))
  await page.getByRole('button', { name: 'Dismiss' }).click()
  await page.getByRole('button', { name: 'Refresh' }).click()
  await page.getByRole('button', { name: 'Deactivate eu.northwind.example' }).waitFor()
  await expectAccessible(page, 'licenses with domains')
  await screenshot(page, 'licenses')
  await page.getByRole('button', { name: 'Deactivate eu.northwind.example' }).click()
  await page.getByRole('button', { name: 'Deactivate eu.northwind.example' }).waitFor({ state: 'detached' })
  const after = (await licensesOf(customer.token)).find((l) => l.id === bought.id)!
  assert.deepEqual(after.domains, ['shop.northwind.example'])
  assert.equal(after.activationsCount, 1)

  // Downloads: grouped by product and ERP version; the 18.0 build is not offered (no license for it).
  await page.getByRole('link', { name: 'Downloads' }).click()
  await page.getByRole('region', { name: 'Marketplace Connector, ERP 19.0' }).waitFor()
  await page.getByRole('region', { name: 'Cloud Sync, ERP 19.0' }).waitFor()
  assert.equal(await page.getByRole('region', { name: 'Marketplace Connector, ERP 18.0' }).count(), 0)
  await expectAccessible(page, 'downloads')
  await screenshot(page, 'downloads')
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download Marketplace Connector 19.0.2.0.0' }).click()])
  assert.equal(download.suggestedFilename(), 'market_connector-19.0.2.0.0.zip')
  const saved = await download.path()
  assert.ok(saved)
  assert.ok((await readFile(saved)).equals(latestBuild), 'the downloaded file is the uploaded build')

  // Billing: the subscription, cards, orders and invoices; cancel at period end.
  await page.getByRole('link', { name: 'Billing' }).click()
  await page.getByRole('button', { name: 'Cancel at period end Cloud Sync' }).waitFor()
  await page.getByRole('cell', { name: /Mastercard •••• 4444/ }).waitFor()
  await page.getByRole('cell', { name: 'Marketplace Connector', exact: true }).waitFor()
  await expectAccessible(page, 'billing')
  await screenshot(page, 'billing')
  await page.getByRole('button', { name: 'Cancel at period end Cloud Sync' }).click()
  await page.getByText(/^ends /).waitFor()
  const subs = (await call(e.t.app, 'GET', '/billing/subscriptions', { token: customer.token })).body as Array<{ cancelAtPeriodEnd: boolean; license: { status: string } }>
  assert.equal(subs.length, 1)
  assert.equal(subs[0]!.cancelAtPeriodEnd, true)
  assert.equal(subs[0]!.license.status, 'active', 'the license stays active until the period ends')
  await expectAccessible(page, 'billing (cancelled at period end)')

  // A new default card; the processor's billing portal and back.
  const cards = page.getByRole('form', { name: 'Add a card' })
  await cards.getByLabel('Card').selectOption('pm_card_amex')
  await cards.getByLabel('Make it the default').check()
  await cards.getByRole('button', { name: 'Add card' }).click()
  await page.getByRole('button', { name: 'Remove American Express ending 8431' }).waitFor()
  const methods = (await call(e.t.app, 'GET', '/billing/payment-methods', { token: customer.token })).body as Array<{ last4: string; isDefault: boolean }>
  assert.deepEqual(methods.filter((m) => m.isDefault).map((m) => m.last4), ['8431'])
  // Another card, added without the box checked, then made the default in its row.
  await cards.getByLabel('Card').selectOption('pm_card_discover')
  await cards.getByLabel('Make it the default').uncheck()
  await cards.getByRole('button', { name: 'Add card' }).click()
  await page.getByRole('button', { name: 'Make default Discover ending 1117' }).click()
  await page.getByRole('button', { name: 'Make default Discover ending 1117' }).waitFor({ state: 'detached' })
  await page.getByRole('button', { name: 'Make default American Express ending 8431' }).waitFor()
  await page.getByRole('row', { name: /Discover •••• 1117 default/ }).waitFor()
  const defaults = async () => ((await call(e.t.app, 'GET', '/billing/payment-methods', { token: customer.token })).body as Array<{ last4: string; isDefault: boolean }>).filter((m) => m.isDefault).map((m) => m.last4)
  assert.deepEqual(await defaults(), ['1117'])
  await expectAccessible(page, 'billing (new default card)')
  // The previous default may go now; the new one stays while the subscription lasts (docs/billing.md "Billing rules", rule 4).
  await page.getByRole('button', { name: 'Remove American Express ending 8431' }).click()
  await page.getByRole('button', { name: 'Remove American Express ending 8431' }).waitFor({ state: 'detached' })
  await page.getByRole('button', { name: 'Remove Discover ending 1117' }).click()
  await page.getByText('The default payment method cannot be removed while subscriptions are active').waitFor()
  assert.deepEqual(await defaults(), ['1117'])
  await page.getByRole('button', { name: 'Open the billing portal' }).click()
  await page.waitForURL(/\/api\/billing\/local\/portal\/bps_local_/)
  await page.getByText('ends at period end').waitFor()
  await page.getByRole('link', { name: 'Return' }).click()
  await page.waitForURL(/\/billing$/)
  await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor()
  assert.deepEqual(e.errors, [])
})

test('an admin issues, suspends, reinstates and revokes licenses; the customer sees the status', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)
  await page.getByRole('link', { name: 'Licenses (admin)' }).click()
  await page.getByRole('heading', { name: 'Licenses (admin)', level: 1 }).waitFor()
  await page.getByRole('table', { name: 'Licenses of the organization' }).waitFor()
  await expectAccessible(page, 'licenses (admin)')

  const form = page.getByRole('form', { name: 'Issue a license' })
  await form.getByLabel('Product').selectOption({ label: 'Shop Connector (ERP 19.0)' })
  await form.getByLabel('Holder').selectOption({ label: `Carla Jones (${customer.email}, customer)` })
  await form.getByLabel('Activations limit').fill('5')
  // The API's message when it refuses: an expiry in the past.
  await form.getByLabel('Expires on').fill('2020-01-31')
  await form.getByRole('button', { name: 'Issue license' }).click()
  assert.match(await form.getByRole('alert').innerText(), /expiresAt|past/i)
  await form.getByLabel('Expires on').fill('')
  await form.getByRole('button', { name: 'Issue license' }).click()
  await page.getByText(/^Issued license/).waitFor()
  const issued = (await licensesOf(customer.token)).filter((l) => l.productId === products.shop.id)
  assert.equal(issued.length, 2)
  const key = (await page.locator('.secret code').innerText()).trim()
  const license = issued.find((l) => l.key === key)!
  assert.ok(license)

  // Server-side filters: the exact key.
  const rows = page.getByRole('table', { name: 'Licenses of the organization' }).locator('tbody tr')
  await rows.nth(3).waitFor()
  await page.getByLabel('Key').fill(key.toLowerCase())
  await rows.nth(1).waitFor({ state: 'detached' })
  assert.equal(await rows.count(), 1)
  await page.getByRole('button', { name: `Suspend ${key}` }).waitFor()
  await page.getByRole('button', { name: `Suspend ${key}` }).click()
  await page.getByRole('button', { name: `Reinstate ${key}` }).waitFor()
  assert.equal((await call(e.t.app, 'GET', `/admin/licenses/${license.id}`, { token: org.token })).body.status, 'suspended')
  await page.getByRole('button', { name: `Reinstate ${key}` }).click()
  await page.getByRole('button', { name: `Suspend ${key}` }).waitFor()
  await page.getByRole('button', { name: `Revoke ${key}` }).click()
  await page.getByRole('cell', { name: 'revoked' }).waitFor()
  assert.equal(await page.getByRole('button', { name: `Revoke ${key}` }).count(), 0)
  assert.equal((await call(e.t.app, 'GET', `/admin/licenses/${license.id}`, { token: org.token })).body.status, 'revoked')
  // Status filter.
  await page.getByLabel('Key').fill('')
  await rows.nth(3).waitFor()
  await page.getByLabel('Status').selectOption('revoked')
  await rows.nth(1).waitFor({ state: 'detached' })
  assert.equal(await rows.count(), 1)
  await rows.getByRole('cell', { name: key }).waitFor()
  await expectAccessible(page, 'licenses (admin, filtered)')
  // The filter is in the address; the old address (the dashboard once said "licences") still opens the page, filter kept.
  assert.equal(new URL(page.url()).search, '?status=revoked')
  await page.goto('/admin/licences?status=revoked')
  await page.waitForURL(/\/admin\/licenses\?status=revoked$/)
  await page.getByRole('heading', { name: 'Licenses (admin)', level: 1 }).waitFor()
  await rows.getByRole('cell', { name: key }).waitFor()
  await expectValue(page.getByLabel('Status'), 'revoked')
  assert.equal(await rows.count(), 1)
  await page.getByLabel('Status').selectOption('')
  await rows.nth(3).waitFor()
  await page.getByRole('heading', { name: 'Licenses (admin)', level: 1 }).click()
  await screenshot(page, 'licenses-admin')

  // Support uses the same page; it may not list users, so it finds the holder among the customer accounts (GET /admin/license-holders).
  const support = await org.post('/users', { name: 'Sam Support', email: 'sam.support@northwind.example', password: 'support password 123', role: 'support' })
  assert.equal(support.status, 201)
  const desk = await e.page()
  await signIn(desk, 'sam.support@northwind.example', 'support password 123')
  assert.equal(await desk.getByRole('link', { name: 'Store' }).count(), 0)
  await desk.getByRole('link', { name: 'Licenses (admin)' }).click()
  await desk.getByRole('cell', { name: key }).waitFor()
  const deskForm = desk.getByRole('form', { name: 'Issue a license' })
  await deskForm.getByLabel('Product').selectOption({ label: 'Marketplace Connector (ERP 18.0)' })
  await deskForm.getByLabel('Find a customer').fill('carla')
  await deskForm.getByLabel('Holder').selectOption({ label: `Carla Jones (${customer.email})` })
  await deskForm.getByRole('button', { name: 'Issue license' }).click()
  await desk.getByText(/^Issued license/).waitFor()
  await expectAccessible(desk, 'licenses (admin) as support')
  assert.equal((await licensesOf(customer.token)).filter((l) => l.productId === products.market18.id).length, 1)

  // The customer's Licenses page shows it revoked; its client calls are refused.
  const refused = await clientCall(e.t.app, 'validate', clientRequest(key, products.shop))
  assert.equal(refused.body.code, 'LICENSE_INACTIVE')
  const other = await e.page()
  await signIn(other, customer.email, customerPassword)
  await other.getByText(key).waitFor()
  assert.deepEqual(e.errors, [])
})
