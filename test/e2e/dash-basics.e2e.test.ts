// In Chromium: the first fixes of issue 29 (docs/dashboard.md "Request budget",
// "Sorting by name", "Rate limited", "Back to the link after sign-in").
// Names sorted A to Z in the customer picker and the users list; the picker
// finds any of 46 customers by searching the API as one types, with one or two
// calls for a whole name (not one per keystroke), and so does a list's search
// box; a 429 is said with the time to wait, then the page carries on, and a
// 429 that lasts ends in a sentence, not a spinner; a link opened signed out
// is where the sign-in leads.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Locator, Page, Request } from 'playwright-core'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
let org: TestOrg
// 46 customers, as in the issue: the first 20 by name are A to T, so "Wayne" and "Zora" are found only by searching.
const FIRST = ['Abbott', 'Baker', 'Carver', 'Dalton', 'Ellis', 'Fisher', 'Garcia', 'Hughes', 'Ingram', 'Jensen', 'Keller', 'Lopez', 'Murphy', 'Nolan', 'Owens', 'Parker', 'Quinn', 'Reyes', 'Stone', 'Turner', 'Underwood', 'Vance', 'Wayne', 'Xu', 'Young', 'Zora']
const NAMES = [...FIRST.map((n) => `${n} Trading`), ...FIRST.slice(0, 20).map((n) => `${n} Supplies`)]

before(async () => {
  if (SKIP_E2E) return
  e = await startE2E()
  org = await createOrg(e.t.app)
  for (let i = 0; i < NAMES.length; i += 8) {
    await Promise.all(
      NAMES.slice(i, i + 8).map(async (name) => {
        const res = await org.post('/contacts', { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`, type: 'company' })
        assert.equal(res.status, 201, JSON.stringify(res.body))
      }),
    )
  }
  for (const name of ['Zoe Zimmer', 'Bob Brown', 'Mia Moss']) {
    const res = await org.post('/users', { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`, password: 'correct horse battery', role: 'member' })
    assert.equal(res.status, 201, JSON.stringify(res.body))
  }
})
after(async () => await e?.close())

/** The calls the page makes to `path` (under /api) from now on, with their query. */
function recordCalls(page: Page, path: string) {
  const calls: URLSearchParams[] = []
  const listener = (r: Request) => {
    const url = new URL(r.url())
    if (url.pathname === `/api${path}`) calls.push(url.searchParams)
  }
  page.on('request', listener)
  return { calls, stop: () => page.off('request', listener) }
}

const optionLabels = (select: Locator) => select.evaluate((el) => [...(el as HTMLSelectElement).options].slice(1).map((o) => o.text))

test('names run A to Z; the customer picker finds any customer by name with one or two calls while typing', { timeout: 90_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)

  const picker = recordCalls(page, '/contacts')
  await page.goto('/quotations/new')
  const form = page.getByRole('form', { name: 'New quotation' })
  const customer = form.getByLabel('Customer', { exact: true })
  await customer.locator('option', { hasText: 'Abbott Supplies' }).waitFor({ state: 'attached' })
  const shown = await optionLabels(customer)
  assert.equal(shown.length, 20)
  const names = shown.map((s) => s.replace(/ \(.*\)$/, ''))
  assert.deepEqual(names, [...NAMES].sort((a, b) => a.localeCompare(b)).slice(0, 20), 'the first 20 customers, A to Z')
  assert.ok(picker.calls.every((q) => q.get('sortBy') === 'name' && q.get('sortOrder') === 'asc'), 'sorted by name, ascending')
  await expectAccessible(page, 'new quotation, picker sorted')

  // Typing a name at 60 ms a keystroke (faster than the 300 ms pause) costs one search, not one per letter.
  picker.calls.length = 0
  await form.getByLabel('Find customer').pressSequentially('Wayne Trading', { delay: 60 })
  await expectSoon(async () => (await optionLabels(customer)).length, 1, 8_000)
  await page.waitForTimeout(600)
  const searches = picker.calls.filter((q) => q.has('search'))
  assert.ok(searches.length >= 1 && searches.length <= 2, `${searches.length} calls while typing 13 characters`)
  assert.equal(searches.at(-1)!.get('search'), 'Wayne Trading')
  await customer.selectOption({ label: 'Wayne Trading (wayne.trading@example.com)' })
  assert.match(await form.getByText(/1 match/).innerText(), /1 match/)
  // A customer past the first 20 (Z) is as easy to find.
  await form.getByLabel('Find customer').fill('zora')
  await customer.locator('option', { hasText: 'Zora Trading' }).waitFor({ state: 'attached' })
  picker.stop()

  // The users list, sorted by name: A to Z.
  await page.goto('/settings/users')
  await page.getByRole('cell', { name: 'Zoe Zimmer', exact: true }).waitFor()
  const users = (await page.getByRole('table', { name: 'Users' }).locator('tbody tr td:first-child').allInnerTexts()).map((s) => s.trim().split('\n')[0])
  assert.deepEqual(users, [...users].sort((a, b) => a.localeCompare(b)))
  assert.equal(users[0], 'Ada Admin')
  assert.equal(users.at(-1), 'Zoe Zimmer')
  await page.close()
})

test("a list's search box (the kit's SearchInput) sends one search for a whole word, and the address follows", { timeout: 60_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)
  await page.goto('/settings/users')
  await page.getByRole('cell', { name: 'Zoe Zimmer', exact: true }).waitFor()
  const list = recordCalls(page, '/users')
  await page.getByRole('searchbox').first().pressSequentially('zimmer', { delay: 60 })
  await page.waitForURL(/search=zimmer/)
  await expectSoon(() => page.getByRole('table', { name: 'Users' }).locator('tbody tr').count(), 1)
  await page.waitForTimeout(600)
  const searches = list.calls.filter((q) => q.has('search'))
  assert.ok(searches.length >= 1 && searches.length <= 2, `${searches.length} calls while typing 6 characters`)
  assert.equal(searches.at(-1)!.get('search'), 'zimmer')
  // The menu's link starts the list afresh: the box shows the address (empty), and the old search is not sent again.
  list.calls.length = 0
  await page.getByRole('link', { name: 'Users and roles' }).click()
  await page.waitForURL((url) => url.pathname === '/settings/users' && url.search === '')
  await expectSoon(() => page.getByRole('searchbox').first().inputValue(), '')
  await expectSoon(() => page.getByRole('table', { name: 'Users' }).locator('tbody tr').count(), 4)
  await page.waitForTimeout(600)
  list.stop()
  assert.deepEqual(list.calls.map((q) => q.get('search')), [null])
  await page.close()
})

test('a 429 is said with the time to wait, then the page carries on; one that lasts ends in a sentence, never an endless spinner', { timeout: 60_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await signIn(page, org.adminEmail, org.password)

  // The first call of the users list is refused for 3 seconds, as the API's rate limit does.
  let refused = 0
  await page.route('**/api/users?*', async (route) => {
    if (refused++ > 0) return route.continue()
    await route.fulfill({ status: 429, contentType: 'application/json', headers: { 'retry-after': '3', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3) }, body: JSON.stringify({ statusCode: 429, code: 'RATE_LIMITED', message: 'ThrottlerException: Too Many Requests' }) })
  })
  await page.goto('/settings/users')
  const notice = page.getByRole('status').filter({ hasText: /^Too many requests/ })
  await notice.waitFor()
  assert.match(await notice.innerText(), /carries on by itself in [1-3] s/)
  await page.getByText(/Waiting for the API: too many requests, [1-3] s left/).waitFor()
  await expectAccessible(page, 'users, rate limited')
  // The SDK waits and asks again: the list shows and the notice goes.
  await page.getByRole('cell', { name: 'Zoe Zimmer', exact: true }).waitFor({ timeout: 10_000 })
  await notice.waitFor({ state: 'detached' })
  assert.equal(refused, 2)
  await page.unroute('**/api/users?*')

  // Refused every time: after the SDK's three attempts, the error as a sentence with the time to wait.
  await page.route('**/api/users?*', (route) =>
    route.fulfill({ status: 429, contentType: 'application/json', headers: { 'retry-after': '1' }, body: JSON.stringify({ statusCode: 429, code: 'RATE_LIMITED', message: 'ThrottlerException: Too Many Requests' }) }),
  )
  await page.getByRole('searchbox').first().fill('bob')
  const alert = page.getByRole('alert').filter({ hasText: 'Too many requests' })
  await alert.waitFor({ timeout: 15_000 })
  assert.match(await alert.innerText(), /^Too many requests: the API's budget for this minute is spent\. Try again in 1 s\.$/)
  assert.equal(await page.locator('.loading').count(), 0, 'no spinner left')
  await page.close()
})

test('a link opened while signed out is where the sign-in leads; without one, the role\'s home', { timeout: 60_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await page.goto('/settings/users?search=zoe#top')
  await page.waitForURL(/\/sign-in$/)
  await page.getByLabel('E-mail').fill(org.adminEmail)
  await page.getByLabel('Password').fill(org.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((url) => url.pathname === '/settings/users' && url.search === '?search=zoe' && url.hash === '#top')
  await page.getByRole('cell', { name: 'Zoe Zimmer', exact: true }).waitFor()
  assert.equal(await page.getByRole('table', { name: 'Users' }).locator('tbody tr').count(), 1)

  // Signed out from there and in again on the sign-in page: back to the same page (the address it was at).
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL(/\/sign-in$/)
  await page.getByLabel('E-mail').fill(org.adminEmail)
  await page.getByLabel('Password').fill(org.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((url) => url.pathname === '/settings/users')

  // The sign-in page opened by itself: the role's home page.
  const fresh = await e.page()
  await fresh.goto('/sign-in')
  await fresh.getByLabel('E-mail').fill(org.adminEmail)
  await fresh.getByLabel('Password').fill(org.password)
  await fresh.getByRole('button', { name: 'Sign in' }).click()
  await fresh.waitForURL((url) => url.pathname === '/overview')

  // A target that is not a path of the dashboard (another host, a full URL) is not followed: the role's home.
  for (const [from, lands] of [['/settings/users', '/settings/users'], ['//evil.example/x', '/overview'], ['https://evil.example/', '/overview'], ['/\\evil.example', '/overview'], [42, '/overview']] as const) {
    const other = await e.page()
    await other.goto('/sign-in')
    await other.evaluate((from) => history.replaceState({ usr: { from }, key: 'x', idx: 0 }, '', '/sign-in'), from)
    await other.reload()
    await other.getByLabel('E-mail').fill(org.adminEmail)
    await other.getByLabel('Password').fill(org.password)
    await other.getByRole('button', { name: 'Sign in' }).click()
    await other.waitForURL((url) => url.origin === e.baseUrl && url.pathname === lands)
    await other.close()
  }
  assert.deepEqual(e.errors, [])
  await page.close()
  await fresh.close()
})
