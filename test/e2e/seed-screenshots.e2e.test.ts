// In Chromium: the dashboard over the demo company of `npm run seed` (issue
// 29: "the current screenshots show other data than the seed; regenerate them
// from the seed"). The seed's own function (scripts/seed-data.ts) fills this
// test's app; then the seeded admin, customer and support user each sign in
// and visit every link of their menu (read from the page, so a page added to
// the menu is visited without changing this test), at 1440x900 and at 390x844:
// routed for the role, loaded, the seeded records shown (a list page is not
// its empty state), no sideways scroll on the phone, axe-core at both sizes.
// With SCREENSHOTS=1 each page is written to docs/screenshots/seed-<page>.png
// and seed-<page>-phone.png (the customer's as seed-customer-<page>), the
// screenshots of README.md "The dashboard".
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { seed, seedUsers, SEED_PASSWORD } from '../../scripts/seed-data.ts'
import { expectAccessible, expectSoon, fitsPhone, needsBrowser, shot, signIn, SKIP_E2E, startE2E, tablesSettled, type E2E } from '../helpers/browser.ts'

const DESK = { width: 1440, height: 900 }
const PHONE = { width: 390, height: 844 }

let e: E2E
let seedSeconds = 0
const users = Object.fromEntries(seedUsers().map(([role, , email]) => [role, email]))

before(async () => {
  if (SKIP_E2E) return
  e = await startE2E()
  const started = Date.now()
  const { seeded } = await seed(e.t.app, { log: () => {} })
  assert.ok(seeded)
  seedSeconds = (Date.now() - started) / 1000
})
after(async () => await e?.close())

/** The file name of a page: its path's words (`/manufacturing/boms` is `manufacturing-boms`). */
const nameOf = (path: string) => path.split('/').filter(Boolean).join('-')

/** Opens `path` and waits until the page has its title and nothing is loading. */
async function open(page: Page, path: string) {
  await page.goto(path)
  const title = page.locator('main h1').first()
  await title.waitFor()
  assert.notEqual(await title.innerText(), 'Page not found', `${path} is routed for this role`)
  await expectSoon(() => page.locator('main .loading').count(), 0, 15_000)
}

/**
 * Signs in as the seeded user of `role` and visits every link of its menu at both sizes, axe at each; photographs
 * those not in `skip` as `<prefix><page>`. The pages that show an empty state must be those of `expectEmpty`, in the
 * menu's order. Answers the menu's addresses.
 */
async function visitMenu(role: string, prefix: string, expectEmpty: string[], skip: Set<string> = new Set()) {
  const page = await e.page()
  await page.setViewportSize(DESK)
  await signIn(page, users[role], SEED_PASSWORD)
  const nav = page.getByRole('navigation', { name: 'Main' })
  const links = await nav.getByRole('link').evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname))
  assert.ok(links.length > 0, `${role}: the menu has links`)
  const empty: string[] = []
  for (const path of links) {
    await page.setViewportSize(DESK)
    await open(page, path)
    // The overview's charts draw once their figures are in.
    if (path === '/overview') await page.locator('.recharts-bar-rectangle').first().waitFor()
    await tablesSettled(page).catch(() => problems.push(`${role} ${path}: a table box scrolls sideways at 1440 px but cannot be focused`))
    // The seed fills the pages of the menu: only those of `expectEmpty` show their empty state (in part).
    if ((await page.locator('main .empty').count()) > 0) empty.push(`${path}: ${await page.locator('main .empty').first().innerText()}`)
    await expectAccessible(page, `${role} ${path}`)
    await page.mouse.move(0, 0)
    const photo = !skip.has(path)
    if (photo) await shot(page, `${prefix}${nameOf(path)}`)
    await page.setViewportSize(PHONE)
    await page.waitForTimeout(100)
    await tablesSettled(page).catch(() => problems.push(`${role} ${path}: a table box scrolls sideways at 390 px but cannot be focused`))
    await fitsPhone(page, `${role} ${path}`).catch((err: Error) => problems.push(err.message.split('\n')[0]))
    await expectAccessible(page, `${role} ${path} (phone)`)
    if (photo) await shot(page, `${prefix}${nameOf(path)}-phone`)
  }
  assert.deepEqual(empty.map((m) => m.split(':')[0]), expectEmpty, `${role}: the pages in their empty state:\n${empty.join('\n')}`)
  // Each known one by the start of its message (the overview's width depends on its figures).
  assert.deepEqual(problems.splice(0).map((p) => KNOWN[role].find((k) => p.startsWith(k)) ?? p), KNOWN[role], `${role}: layout`)
  await page.close()
  return links
}

let adminLinks: string[] = []
/** What the pages got wrong at a size, said at the end of each role's visit. */
const problems: string[] = []
/**
 * Layout faults this test knows of, by the start of their message, so that any other one fails it. None now: the two
 * it found with the seed's data (the overview's hidden chart tables widening a phone's page, the customer's Downloads
 * box that scrolled without a tabindex) are fixed in Overview.tsx and Downloads.tsx.
 */
const KNOWN: Record<string, string[]> = {
  admin: [],
  customer: [],
  support: [],
}

test('the seeded admin: every page of the menu shows the demo company at 1440x900 and 390x844, axe passes', { timeout: 600_000 }, async (t) => {
  if (!needsBrowser(t)) return
  t.diagnostic(`the seed took ${seedSeconds.toFixed(1)} s`)
  // The seed writes as the admin but buys nothing as the admin (its own licenses, downloads and subscriptions are
  // none), imports nothing, and makes its API key after the seed (scripts/seed.ts).
  // Those portal pages, and the store, are photographed as the customer's (seed-customer-*).
  adminLinks = await visitMenu('admin', 'seed-', ['/licenses', '/downloads', '/billing', '/settings/import', '/settings/api-keys', '/settings/webhooks'], new Set(['/licenses', '/downloads', '/billing', '/store']))
  for (const p of ['/overview', '/quotations', '/invoices', '/contacts', '/products', '/inventory', '/accounting', '/purchase/orders', '/manufacturing/boms', '/helpdesk', '/settings/users']) assert.ok(adminLinks.includes(p), `the admin's menu links ${p}`)
  t.diagnostic(`admin: ${adminLinks.length} pages`)
  assert.deepEqual(e.errors, [])
})

test('the seeded customer and support user: their menus over the demo company, axe passes', { timeout: 300_000 }, async (t) => {
  if (!needsBrowser(t)) return
  // The customer sees its own licenses, downloads and billing: other figures than the admin's, photographed as seed-customer-*.
  // Its purchases are one-time (no subscription: its orders are on the same page); it has no API key.
  const customer = await visitMenu('customer', 'seed-customer-', ['/billing', '/settings/api-keys'], new Set(['/settings/api-keys']))
  assert.deepEqual([...customer].sort(), ['/billing', '/downloads', '/licenses', '/settings/api-keys', '/store', '/support'])
  // Support's pages show what the admin's do (the helpdesk, the license administration): visited and checked, not photographed again.
  const support = await visitMenu('support', 'seed-support-', ['/settings/api-keys'], new Set(adminLinks))
  assert.ok(support.includes('/helpdesk') && support.includes('/admin/licenses'), support.join(', '))
  assert.ok(!support.includes('/overview'))
  t.diagnostic(`customer: ${customer.length} pages; support: ${support.length} pages`)
  assert.deepEqual(e.errors, [])
})
