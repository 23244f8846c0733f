// In Chromium: register an organization, make an API key, see its value once,
// use it through the SDK, revoke it and get 401; users and roles; axe-core on
// every page of this part.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ApiError, createSdk } from '../../packages/sdk/src/index.ts'
import { mailTexts, unique } from '../helpers/app.ts'
import { addUser, expectAccessible, expectValue, needsBrowser, screenshot, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
before(async () => {
  if (!SKIP_E2E) e = await startE2E()
})
after(async () => await e?.close())

test('register, create an API key, see it once, use it through the SDK, revoke it: 401', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await page.goto('/')
  await page.waitForURL(/\/sign-in$/)
  await expectAccessible(page, 'sign in')
  await screenshot(page, 'sign-in')
  await page.getByRole('link', { name: 'Create an organization' }).click()
  await expectAccessible(page, 'register')
  const email = `${unique('owner')}@example.com`
  await page.getByLabel('Organization name').fill('Harbor Goods')
  await page.getByLabel('Your name').fill('Hana Harbor')
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill('a-long-password-2026')
  await page.getByRole('button', { name: 'Create organization' }).click()
  await page.getByRole('navigation', { name: 'Main' }).waitFor()
  assert.match(await page.locator('.brand').first().innerText(), /Harbor Goods/)

  await page.getByRole('link', { name: 'API keys' }).click()
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
  await page.getByText('No keys yet').waitFor()
  await expectAccessible(page, 'api keys (empty)')
  await page.getByLabel('Name').fill('Warehouse sync')
  await page.getByLabel('Environment').first().selectOption('test')
  await page.getByRole('button', { name: 'Create key' }).click()
  const shown = page.getByTestId('new-key')
  await shown.waitFor()
  const key = (await shown.innerText()).trim()
  assert.match(key, /^bp_test_/)
  await page.getByRole('button', { name: 'Copy key' }).click()
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key)
  await expectAccessible(page, 'api keys (new key shown)')
  await screenshot(page, 'api-keys')

  // Shown once: after reload only prefix and last four characters remain.
  await page.reload()
  await page.getByRole('cell', { name: 'Warehouse sync', exact: true }).waitFor()
  assert.equal(await page.getByTestId('new-key').count(), 0)
  assert.ok(!(await page.content()).includes(key))
  assert.ok((await page.getByRole('cell', { name: new RegExp(`…${key.slice(-4)}$`) }).count()) === 1)

  // The key works through the SDK...
  const api = createSdk({ baseUrl: e.baseUrl, apiKey: key, maxAttempts: 1 })
  const me = await api.get('/api/auth/me')
  assert.equal(me.user.email, email)

  // ...until it is revoked in the dashboard.
  await page.getByRole('button', { name: 'Revoke Warehouse sync' }).click()
  await page.getByText('No keys yet').waitFor()
  await assert.rejects(api.get('/api/auth/me'), (err: unknown) => err instanceof ApiError && err.status === 401)
  assert.deepEqual(e.errors, [])
})

test('users and roles: an admin adds a user, changes the role; the user signs in and sees the pages of that role', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  const admin = `${unique('admin')}@example.com`
  await page.goto('/register')
  await page.getByLabel('Organization name').fill('Quay Supplies')
  await page.getByLabel('Your name').fill('Quinn Admin')
  await page.getByLabel('E-mail').fill(admin)
  await page.getByLabel('Password').fill('a-long-password-2026')
  await page.getByRole('button', { name: 'Create organization' }).click()
  await page.getByRole('link', { name: 'Users and roles' }).click()
  const email = `${unique('agent')}@example.com`
  await addUser(page, { name: 'Ari Agent', email, password: 'another-password-2026', role: 'member' })
  await page.getByRole('cell', { name: email }).waitFor()
  await page.getByLabel('Role of Ari Agent').selectOption('agent')
  await expectAccessible(page, 'users')
  await screenshot(page, 'users')
  // The role is saved: after a reload the select shows it.
  await page.reload()
  await page.getByRole('cell', { name: email }).waitFor()
  await expectValue(page.getByLabel('Role of Ari Agent'), 'agent')

  const other = await e.page()
  await other.goto('/sign-in')
  await other.getByLabel('E-mail').fill(email)
  await other.getByLabel('Password').fill('wrong-password-2026')
  await other.getByRole('button', { name: 'Sign in' }).click()
  await other.getByRole('alert').waitFor()
  assert.match(await other.getByRole('alert').innerText(), /UNAUTHORIZED|credentials|password/i)
  await other.getByLabel('Password').fill('another-password-2026')
  await other.getByRole('button', { name: 'Sign in' }).click()
  await other.getByRole('navigation', { name: 'Main' }).waitFor()
  assert.equal(await other.getByRole('link', { name: 'Users and roles' }).count(), 0)
  await other.getByRole('button', { name: 'Sign out' }).click()
  await other.getByRole('heading', { name: 'Sign in' }).waitFor()
  assert.deepEqual(e.errors, [])
})

test('forgotten password: ask for the link on the sign-in page, open it, set a new password, sign in with it', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  const email = `${unique('forgetful')}@example.com`
  await page.goto('/register')
  await page.getByLabel('Organization name').fill('Pier Traders')
  await page.getByLabel('Your name').fill('Pat Pier')
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill('the-first-password')
  await page.getByRole('button', { name: 'Create organization' }).click()
  await page.getByRole('navigation', { name: 'Main' }).waitFor()

  const other = await e.page()
  await other.goto('/sign-in')
  await other.getByRole('link', { name: 'Forgot your password?' }).click()
  await other.getByRole('heading', { name: 'Reset your password' }).waitFor()
  await expectAccessible(other, 'forgot password')
  await other.getByLabel('E-mail').fill(email)
  await other.getByRole('button', { name: 'Send the link' }).click()
  await other.getByText('a link to choose a new password is on its way').waitFor()
  const [text] = await mailTexts(e.t.app, 'to_address = $1', [email])
  const link = /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(text ?? '')
  assert.ok(link, 'the mail carries the link')
  await other.goto(`/reset-password?token=${link[1]}`)
  await other.getByRole('heading', { name: 'Choose a new password' }).waitFor()
  await expectAccessible(other, 'reset password')
  await other.getByRole('textbox', { name: 'New password' }).fill('the-second-password')
  await other.getByRole('button', { name: 'Set the password' }).click()
  await other.getByText('Your password is changed').waitFor()

  // The first browser's session ended with the reset: its next call is refused and it lands on sign-in.
  await page.reload()
  await page.waitForURL(/\/sign-in$/)
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill('the-second-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Main' }).waitFor()
  assert.deepEqual(e.errors, [])
})
