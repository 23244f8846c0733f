// End-to-end tests in a real browser: Debian's Chromium (`apt-get install -y
// chromium`) driven by playwright-core against the app on a real port. On a
// machine without Chromium the e2e tests are skipped with a message naming the
// package; everything else still runs.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import type { TestContext } from 'node:test'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'
import { DASHBOARD_DIR } from '../../src/core/dashboard.ts'
import { buildTestApp, type TestApp } from './app.ts'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const SKIP_E2E = existsSync(CHROMIUM) ? false : `e2e skipped: no browser at ${CHROMIUM}; install Debian's package \`chromium\` (apt-get install -y chromium) or set CHROMIUM_PATH`
if (SKIP_E2E) console.log(`# ${SKIP_E2E}`)

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export interface E2E {
  t: TestApp
  baseUrl: string
  browser: Browser
  /** A new page (own context: own storage, so its own session) at 1280x800 that records console errors and failed requests. */
  page(): Promise<Page>
  /** Console errors and page errors seen on any page so far (CSP violations show up here). */
  errors: string[]
  close(): Promise<void>
}

/** The app on a real port, its dashboard built, and Chromium. */
export async function startE2E(env: Record<string, string> = {}): Promise<E2E> {
  if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
    const { NODE_TEST_CONTEXT: _, ...env } = process.env
    const built = spawnSync(process.execPath, ['scripts/build-dashboard.mjs'], { stdio: 'inherit', env })
    assert.equal(built.status, 0, 'building the dashboard failed')
  }
  const t = await buildTestApp(env)
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const address = t.app.server.address()
  assert.ok(address && typeof address === 'object')
  const baseUrl = `http://localhost:${address.port}`
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  })
  const errors: string[] = []
  return {
    t,
    baseUrl,
    browser,
    errors,
    async page() {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: baseUrl, permissions: ['clipboard-read', 'clipboard-write'] })
      const page = await context.newPage()
      page.on('console', (m) => {
        // A 4xx the page asked for and handled (a wrong password, a revoked key) is logged by Chromium as a failed resource: not an error of the page.
        if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) errors.push(m.text())
      })
      page.on('pageerror', (e) => errors.push(e.message))
      page.on('dialog', (d) => void d.accept())
      page.on('request', (r) => {
        const url = new URL(r.url())
        if (url.protocol.startsWith('http') && url.host !== new URL(baseUrl).host) errors.push(`request left the origin: ${r.url()}`)
      })
      return page
    },
    async close() {
      await browser.close()
      await t.close()
    },
  }
}

/** Skips the test when Chromium is missing (the message names the package). */
export function needsBrowser(t: TestContext): boolean {
  if (SKIP_E2E) t.skip(SKIP_E2E)
  return !SKIP_E2E
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function expectAccessible(page: Page, label: string) {
  // Evaluated through the DevTools protocol, so the page's CSP (script-src 'self') does not apply to it.
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')) }))
  })
  const serious = violations.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
  assert.deepEqual(serious, [], `${label}: axe-core violations\n${JSON.stringify(serious, null, 2)}`)
}

/** Writes a 1280x800 screenshot into docs/screenshots/ when SCREENSHOTS=1 (kept in the repository, shown in the README). */
export async function screenshot(page: Page, name: string) {
  if (!process.env.SCREENSHOTS) return
  mkdirSync('docs/screenshots', { recursive: true })
  await page.screenshot({ path: `docs/screenshots/${name}.png` })
}

/** The page does not scroll sideways at the phone's width (wide tables scroll inside their own box). */
export async function fitsPhone(page: Page, label: string) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  // What sticks out, to say where to look when it fails.
  const wide = width <= 390 ? [] : await page.evaluate(() => [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > 391 && !el.parentElement?.closest('.table-wrap, .tabs, .sidebar nav')).slice(0, 8).map((el) => `${el.tagName.toLowerCase()}.${el.className}`))
  assert.ok(width <= 390, `${label}: the page is ${width}px wide at 390px: ${wide.join(', ')}`)
}

/** A screenshot without the focus ring of the last control used, from the top of the page or from the element `from`. */
export async function shot(page: Page, name: string, from?: string) {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
  if (from) await page.locator(from).first().evaluate((el) => el.scrollIntoView({ block: 'start' }))
  else await page.evaluate(() => window.scrollTo(0, 0))
  await screenshot(page, name)
}

/**
 * After a resize, waits (up to 5 s) until every table box that now scrolls sideways can be focused: the kit's Table
 * learns that it overflows from a ResizeObserver, a frame or more after the resize on a busy machine, and axe must
 * not look before.
 */
export async function tablesSettled(page: Page) {
  await page.waitForFunction(() => [...document.querySelectorAll('.table-wrap')].every((el) => el.scrollWidth <= el.clientWidth || el.hasAttribute('tabindex')), null, { timeout: 5_000 })
}

/** The same page at 390x844: it does not scroll sideways, axe passes, photographed (`<name>-phone`); then back to the size it had. */
export async function onPhone(page: Page, label: string, name: string, from?: string) {
  const desk = page.viewportSize() ?? { width: 1440, height: 900 }
  await page.setViewportSize({ width: 390, height: 844 })
  await page.waitForTimeout(100)
  await tablesSettled(page)
  await fitsPhone(page, label)
  await expectAccessible(page, `${label} (phone)`)
  await shot(page, `${name}-phone`, from)
  await page.setViewportSize(desk)
}

/**
 * Reads `read()` until it deep-equals `expected` (within `timeout` ms), else
 * fails with the last value read. For what the page shows once React has
 * committed a render: a controlled select shows a choice after the page's
 * address does (the router renders in a transition), and a re-sorted table
 * may still show the previous order when its first row happens to match.
 */
/** The body of a call made with the test app's client, once its status is the one expected (201 unless said). */
export async function ok<T = any>(res: Promise<{ status: number; body: T }>, status = 201): Promise<T> {
  const r = await res
  assert.equal(r.status, status, JSON.stringify(r.body))
  return r.body
}

/** Text as a person reads it: runs of white space as one space, none at the ends. */
export const text = (s: string) => s.replace(/\s+/g, ' ').trim()

/** The cells of the rows of the table of that accessible name, as text. */
export const rows = async (page: Page, name: string) =>
  Promise.all((await page.getByRole('table', { name, exact: true }).locator('tbody tr').all()).map(async (r) => (await r.getByRole('cell').allInnerTexts()).map(text)))

/** As rows, without the cell of the box that ticks a row for a bulk action (docs/dashboard.md "Bulk actions"). */
export const rowsBesideSelection = async (page: Page, name: string) =>
  Promise.all(
    (await page.getByRole('table', { name, exact: true }).locator('tbody tr').all()).map(async (r) =>
      (await r.locator('td:not(:has(> input[type=checkbox][aria-label^="Select "]))').allInnerTexts()).map(text),
    ),
  )

export async function expectSoon<T>(read: () => Promise<T>, expected: T, timeout = 10_000) {
  const until = Date.now() + timeout
  let value = await read()
  while (!isDeepStrictEqual(value, expected) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50))
    value = await read()
  }
  assert.deepEqual(value, expected)
}

/** expectSoon for the value of an input or select. */
export const expectValue = (field: Locator, expected: string) => expectSoon(() => field.inputValue(), expected)

/** Signs in through the sign-in page. */
export async function signIn(page: Page, email: string, password: string) {
  await page.goto('/sign-in')
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Main' }).waitFor()
  // The landing page's code (a chunk of its menu group) and its reads are done: calls counted from here are the next page's.
  await page.locator('main h1').first().waitFor()
  await page.waitForLoadState('networkidle')
}

/** Fills the Users page's "Add a user" form and submits it; answers the form. */
export async function addUser(page: Page, user: { name: string; email: string; password: string; role: string }) {
  const form = page.getByRole('form', { name: 'Add a user' })
  await form.getByLabel('Name').fill(user.name)
  await form.getByLabel('E-mail').fill(user.email)
  await form.getByLabel('Initial password').fill(user.password)
  await form.getByLabel('Role').selectOption(user.role)
  await form.getByRole('button', { name: 'Add user' }).click()
  return form
}
