// In Chromium, the layout from 360 px up (docs/dashboard.md "Layout"): every
// page of the dashboard's router, as an admin (every staff page, a detail of
// each kind) and as a customer (the portal), at 1440x900 and 390x844 (and 360 px wide): the
// page never scrolls sideways (a wide table scrolls in its own box), axe-core
// passes at both sizes; on the phone the sidebar is a bar with a Menu button
// that opens the menu, and closes it on Escape and once a link is chosen.
// Screenshots of a few pages at both sizes (SCREENSHOTS=1).
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, fitsPhone, needsBrowser, ok, shot, signIn, SKIP_E2E, startE2E, tablesSettled, type E2E } from '../helpers/browser.ts'
import { createCustomer, createLicensedProduct, issueLicense } from '../helpers/licenses.ts'
import { createTicket } from '../helpers/helpdesk.ts'

const DESK = { width: 1440, height: 900 }
const PHONE = { width: 390, height: 844 }
const NARROW = { width: 360, height: 740 }

let e: E2E
let o: TestOrg
let customer: { email: string; password: string }
/** The addresses below the menu's pages (details, tabs, forms), with the ids of the records made in `before`. */
let details: string[]


before(async () => {
  if (SKIP_E2E) return
  e = await startE2E({ JOBS: 'on' })
  o = await createOrg(e.t.app, 'Harbor Retail Group International')
  // Long names and numbers, so that a cell or a field that does not wrap shows at 390 px.
  const acme = await ok(o.post('/contacts', { name: 'Acme Corporation Worldwide Distribution', email: 'accounts.payable@acme-worldwide.example', type: 'company' }))
  const desk = await ok(o.post('/products', { name: 'Oak standing desk, motorised, 160 x 80 cm', sku: 'DSK-OAK-160', price: 64900, currency: 'usd', type: 'storable', uom: 'unit' }))
  const quotation = await ok(o.post('/sales/quotations', { contactId: acme.id, lineItems: [{ productId: desk.id, quantity: 12, unitPrice: 64900, discount: 5 }] }))
  const invoice = await ok(o.post('/invoices', { contactId: acme.id, lineItems: [{ description: 'Installation and assembly on site, two technicians', quantity: 3, unitPrice: 125000 }] }))
  const receipt = await ok(o.post('/inventory/transfers', { type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK', moves: [{ productId: desk.id, demandQty: 40 }], origin: 'PO/2026/00031' }))
  await ok(o.post(`/inventory/transfers/${receipt.id}/validate`, {}), 200)
  const delivery = await ok(o.post('/inventory/transfers', { type: 'delivery', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-CUSTOMER', moves: [{ productId: desk.id, demandQty: 12 }], origin: 'SO/2026/00012' }))
  const chart = (await ok(o.get('/accounting/accounts?limit=100'), 200)).data as { id: string; code: string }[]
  const acc = Object.fromEntries(chart.map((a) => [a.code, a.id]))
  const entry = await ok(o.post('/accounting/entries', { date: new Date().toISOString().slice(0, 10), currency: 'usd', memo: "Owner's capital paid into the operating account", lines: [{ accountId: acc['1000'], debit: 5_000_000 }, { accountId: acc['3000'], credit: 5_000_000 }] }))
  const ticket = await createTicket(o, { contactId: acme.id, subject: 'The motorised desk stops halfway up and shows error E-47 on its panel', description: 'Since Monday, every desk of the second floor.' })
  const run = await ok(o.post('/imports', { resource: 'contacts', mode: 'upsert', dryRun: true, rows: [{ name: 'Globex Corporation', email: 'billing@globex.example' }] }), 202)
  details = [
    '/contacts/new',
    `/contacts/${acme.id}`,
    '/products/new',
    `/products/${desk.id}`,
    '/quotations/new',
    `/quotations/${quotation.id}`,
    '/invoices/new',
    `/invoices/${invoice.id}`,
    '/inventory/transfers',
    `/inventory/transfers/${delivery.id}`,
    '/accounting/entries/new',
    `/accounting/entries/${entry.id}`,
    '/accounting/accounts',
    `/accounting/accounts/${acc['1000']}`,
    '/accounting/trial-balance',
    '/accounting/profit-and-loss',
    '/accounting/balance-sheet',
    '/accounting/lock-date',
    `/helpdesk/${ticket.id}`,
    `/settings/import/${run.id}`,
  ]
  // The customer of the portal, with a license of their own.
  const buyer = await createCustomer(e.t.app, o)
  const connector = await createLicensedProduct(o, { name: 'Marketplace Connector for ERP 19' })
  await issueLicense(o, { productId: connector.id, userId: buyer.id, activationsLimit: 3 })
  customer = { email: buyer.email, password: 'customer password 123' }
})
after(async () => await e?.close())

const menuButton = (page: Page) => page.getByRole('button', { name: 'Menu' })
const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' })

/** The addresses the menu links to, read from the page (so a page added to the menu is visited without changing this test). */
async function menuLinks(page: Page) {
  const hrefs = await mainNav(page).getByRole('link').evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname))
  assert.ok(hrefs.length > 0, 'the menu has links')
  return hrefs
}

/** A page signed in at the desk's size, and the addresses of its menu. */
async function signedIn(email: string, password: string) {
  const page = await e.page()
  await page.setViewportSize(DESK)
  await signIn(page, email, password)
  return { page, links: await menuLinks(page) }
}

/** Opens `path` and waits until the page has its title and nothing is loading. */
async function open(page: Page, path: string) {
  await page.goto(path)
  const title = page.locator('main h1').first()
  await title.waitFor()
  assert.notEqual(await title.innerText(), 'Page not found', `${path} is routed for this role`)
  await expectSoon(() => page.locator('main .loading').count(), 0, 10_000)
}

/** The page does not scroll sideways at the desk's width either. */
async function fitsDesk(page: Page, label: string) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  assert.ok(width <= DESK.width, `${label}: the page is ${width}px wide at ${DESK.width}px`)
}

/** A name for a screenshot: `layout-` and the path's words, without the ids. */
const shotName = (path: string) => `layout-${path.split('/').filter((s) => s && !/^[0-9a-f-]{36}$/.test(s)).join('-')}${/[0-9a-f-]{36}/.test(path) ? '-detail' : ''}`

/** Each page at both sizes: no sideways scroll, axe; a screenshot at both sizes of those in `photographed`. */
async function visitAll(page: Page, paths: string[], who: string, photographed: Set<string>) {
  for (const path of paths) {
    await page.setViewportSize(DESK)
    await open(page, path)
    await fitsDesk(page, `${who} ${path}`)
    await expectAccessible(page, `${who} ${path}`)
    // The sidebar: the menu is shown, the button is not.
    assert.ok(await mainNav(page).isVisible(), `${path}: the menu is shown at the desk`)
    assert.equal(await menuButton(page).isVisible(), false, `${path}: no menu button at the desk`)
    const photo = photographed.has(path.replace(/[0-9a-f-]{36}/, ':id'))
    if (photo) await shot(page, shotName(path))
    await page.setViewportSize(PHONE)
    await menuButton(page).waitFor()
    assert.equal(await mainNav(page).isVisible(), false, `${path}: the menu is closed on the phone`)
    await fitsPhone(page, `${who} ${path}`)
    await tablesSettled(page)
    await expectAccessible(page, `${who} ${path} (phone)`)
    if (photo) await shot(page, `${shotName(path)}-phone`)
    // And at 360 px, the narrowest screen the layout is for.
    await page.setViewportSize(NARROW)
    await page.waitForTimeout(100)
    const narrow = await page.evaluate(() => document.documentElement.scrollWidth)
    assert.ok(narrow <= NARROW.width, `${who} ${path}: the page is ${narrow}px wide at ${NARROW.width}px`)
  }
}

test('admin: every page of the router fits 1440, 390 and 360 px, axe passes at both; the menu opens and closes on the phone', { timeout: 300_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const { page, links } = await signedIn(o.adminEmail, o.password)
  for (const p of ['/overview', '/contacts', '/products', '/quotations', '/invoices', '/inventory', '/accounting', '/helpdesk', '/settings/import', '/settings/users']) assert.ok(links.includes(p), `the menu links ${p}`)
  await visitAll(page, [...links, ...details], 'admin', new Set(['/overview', '/invoices', '/quotations/new', '/helpdesk/:id', '/accounting/balance-sheet']))

  // The lines of a new quotation or invoice are cards on the phone: their box does not scroll sideways either.
  await page.setViewportSize(PHONE)
  for (const path of ['/quotations/new', '/invoices/new']) {
    await open(page, path)
    const box = page.locator('fieldset.lines .table-wrap')
    await box.waitFor()
    const [scroll, client] = await box.evaluate((el) => [el.scrollWidth, el.clientWidth])
    assert.ok(scroll <= client, `${path}: the lines are ${scroll}px wide in ${client}px`)
  }

  // The menu on the phone: a button that says whether it is open, the keyboard's Enter opens it, Escape closes it and gives the focus back.
  await page.setViewportSize(PHONE)
  await open(page, '/invoices')
  const button = menuButton(page)
  assert.equal(await button.getAttribute('aria-expanded'), 'false')
  assert.equal(await button.getAttribute('aria-controls'), 'main-menu')
  await button.focus()
  await page.keyboard.press('Enter')
  await mainNav(page).waitFor()
  assert.equal(await button.getAttribute('aria-expanded'), 'true')
  await fitsPhone(page, 'menu open')
  await expectAccessible(page, 'menu open (phone)')
  await shot(page, 'layout-menu-phone')
  // Tab goes from the button into the menu's first link.
  await page.keyboard.press('Tab')
  assert.equal(await page.evaluate(() => document.activeElement?.closest('nav')?.getAttribute('aria-label')), 'Main')
  await page.keyboard.press('Escape')
  await mainNav(page).waitFor({ state: 'hidden' })
  assert.equal(await button.getAttribute('aria-expanded'), 'false')
  assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Menu')
  // A link chosen: its page, and the menu closed.
  await button.click()
  await mainNav(page).getByRole('link', { name: 'Helpdesk' }).click()
  await page.waitForURL((url) => url.pathname === '/helpdesk')
  await mainNav(page).waitFor({ state: 'hidden' })
  assert.equal(await button.getAttribute('aria-expanded'), 'false')
  // The link of the page already shown closes it too (the address does not change).
  await button.click()
  await mainNav(page).getByRole('link', { name: 'Helpdesk' }).click()
  await mainNav(page).waitFor({ state: 'hidden' })
  // Signing out is in the menu on the phone.
  await button.click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  // Wider again: the sidebar, whatever the menu's state was.
  await page.setViewportSize(DESK)
  await mainNav(page).waitFor()
  assert.equal(await button.isVisible(), false)
  assert.deepEqual(e.errors, [])
  await page.close()
})

test('customer: every portal page fits 1440, 390 and 360 px, axe passes at both', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const { page, links } = await signedIn(customer.email, customer.password)
  assert.deepEqual([...links].sort(), ['/billing', '/downloads', '/licenses', '/settings/api-keys', '/store', '/support'])
  await visitAll(page, links, 'customer', new Set(['/licenses', '/store']))
  assert.deepEqual(e.errors, [])
  await page.close()
})
