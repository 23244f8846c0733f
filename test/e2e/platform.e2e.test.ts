// In Chromium: the platform pages (issue 29, item 4 and "also missing").
// Webhooks: an endpoint added (a refusal of the page and one of the API
// first), its secret shown once and checked against the signature of a real
// delivery, a test sent and retried, the secret rotated, the endpoint edited,
// disabled and deleted. The event feed filtered in the address with a
// payload shown; a contact's timeline after an edit; a report run started,
// followed and downloaded, its CSV checked against the invoices; the
// Contacts and Products lists exported with their filters; the
// organization's address and logo changed, checked through HTTP, and read by
// a member. axe-core on every state, the main pages at 390x844, the calls to
// the API counted.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, rowsBesideSelection as rows, shot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'
import { sampleLogo } from '../helpers/pdf.ts'
import { startReceiver, type Receiver } from '../helpers/webhooks.ts'

let e: E2E
let o: TestOrg
let sink: Receiver
before(async () => {
  if (!SKIP_E2E) {
    // The jobs run (the event dispatcher, the deliveries, the report runs), as in production.
    e = await startE2E({ JOBS: 'on', WEBHOOK_RETRY_DELAYS: '0.2,0.2' })
    o = await createOrg(e.t.app, 'Fjord Office Supply')
    sink = await startReceiver()
  }
})
after(async () => {
  await sink?.close()
  await e?.close()
})

// The cells of each row, without the box that ticks the row for a bulk action (docs/dashboard.md "Bulk actions").

/** The calls a page makes to the API, counted from `reset()`. */
function countCalls(page: Page) {
  let calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}${url.search}`)
  })
  return {
    /** Counts from now, once the calls of the page before have ended. */
    async reset() {
      await page.waitForLoadState('networkidle')
      calls = []
    },
    atMost(n: number, what: string) {
      assert.ok(calls.length <= n, `${what}: ${calls.length} calls to the API:\n${calls.join('\n')}`)
      return calls.length
    },
  }
}

/** Whether `signature` (the webhook-signature header) holds a v1 signature of the delivery by `secret` (docs/webhooks.md "Verifying a delivery (TypeScript)"). */
function signedBy(secret: string, r: { id: string; timestamp: string; body: string; signature: string }) {
  const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${r.id}.${r.timestamp}.${r.body}`).digest('base64')
  return r.signature.split(' ').includes(`v1,${expected}`)
}

test('webhooks: an admin adds an endpoint (its secret shown once), tests it, retries, rotates, edits, disables and deletes it', { timeout: 180_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls = countCalls(page)
  await signIn(page, o.adminEmail, o.password)
  const nav = page.getByRole('navigation', { name: 'Main' })
  await calls.reset()
  await nav.getByRole('link', { name: 'Webhooks', exact: true }).click()
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
  await page.getByText('No endpoints yet.').waitFor()
  await expectAccessible(page, 'webhooks, none yet')

  // No event type chosen: said by the page, nothing sent.
  const form = page.getByRole('form', { name: 'Add a webhook endpoint' })
  await form.getByLabel('URL').fill(sink.url)
  await form.getByRole('button', { name: 'Add endpoint' }).click()
  await form.getByRole('alert').filter({ hasText: 'Events to receive: choose at least one event type, or every type.' }).waitFor()
  // An address the API may not call (plain http to a host that is not loopback): its 422 in its words.
  await form.getByLabel('contact.created').check()
  await form.getByLabel('contact.updated').check()
  await form.getByLabel('URL').fill('http://example.com/hooks')
  await form.getByRole('button', { name: 'Add endpoint' }).click()
  await form.getByRole('alert').filter({ hasText: /https/ }).waitFor()
  assert.equal((await ok(o.get('/webhook-endpoints'), 200)).meta.total, 0)
  await expectAccessible(page, 'webhooks, a refused endpoint')

  await form.getByLabel('URL').fill(sink.url)
  await form.getByLabel('Description').fill('Warehouse sync')
  await form.getByRole('button', { name: 'Add endpoint' }).click()
  const shown = page.getByTestId('webhook-secret')
  await shown.waitFor()
  const secret = await shown.innerText()
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/)
  await page.getByRole('status').filter({ hasText: `Endpoint ${sink.url} added.` }).waitFor()
  const [endpoint] = (await ok(o.get('/webhook-endpoints'), 200)).data
  assert.deepEqual([endpoint.url, endpoint.description, endpoint.enabledEvents, endpoint.enabled, 'secret' in endpoint], [sink.url, 'Warehouse sync', ['contact.created', 'contact.updated'], true, false])
  await expectSoon(async () => (await rows(page, 'Webhook endpoints')).map((r) => r.slice(0, 4)), [[sink.url, 'Warehouse sync', 'contact.created, contact.updated', 'enabled']])
  await page.getByRole('button', { name: 'Copy secret' }).click()
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret)
  await expectAccessible(page, 'webhooks, the secret shown once')
  await shot(page, 'webhooks')
  await onPhone(page, 'webhooks', 'webhooks')
  await page.getByRole('button', { name: 'Done', exact: true }).click()
  assert.equal(await shown.count(), 0)
  calls.atMost(8, 'webhooks list')

  // The endpoint's page: a test delivered and signed with the secret shown, listed as succeeded.
  await calls.reset()
  await page.getByRole('link', { name: sink.url }).click()
  await page.getByRole('heading', { name: `Webhook ${sink.url}`, level: 1 }).waitFor()
  await page.getByText('No deliveries yet').waitFor()
  await page.getByRole('button', { name: 'Send a test' }).click()
  await page.getByRole('status').filter({ hasText: 'Test event sent' }).waitFor()
  const [ping] = await sink.waitFor(1)
  assert.equal(ping!.json.type, 'ping')
  assert.ok(signedBy(secret, ping!), 'the test delivery is signed with the secret the page showed')
  await expectSoon(async () => (await rows(page, 'Deliveries')).map((r) => r.slice(0, 4)), [['ping (a test)', 'succeeded', '1', 'HTTP 200']], 15_000)
  await expectAccessible(page, 'webhook endpoint, a test delivered')
  // An event of a chosen type is delivered too.
  const contact = await ok(o.post('/contacts', { name: 'Wayne Trading', email: 'buy@wayne.example' }))
  const [created] = await sink.waitFor(1, 10_000, (r) => r.json.type === 'contact.created')
  assert.deepEqual([created!.json.data.object.id, signedBy(secret, created!)], [contact.id, true])
  // Retried: a second attempt with the same webhook-id.
  await page.getByRole('button', { name: /^Retry ping/ }).click()
  await page.getByRole('status').filter({ hasText: 'Delivery of ping sent again.' }).waitFor()
  await sink.waitFor(2, 10_000, (r) => r.json.type === 'ping')
  assert.deepEqual(sink.received.filter((r) => r.json.type === 'ping').map((r) => r.id), [ping!.id, ping!.id])
  await page.getByLabel('Status').selectOption('succeeded')
  await expectSoon(async () => (await rows(page, 'Deliveries')).map((r) => [r[0], r[1], r[2]]).sort(), [['contact.created', 'succeeded', '1'], ['ping (a test)', 'succeeded', '2']].sort(), 15_000)
  assert.match(page.url(), /\?status=succeeded$/)
  await page.getByLabel('Status').selectOption('failed')
  await page.getByText('No failed deliveries.').waitFor()
  await page.getByLabel('Status').selectOption('')

  // Rotated: a new secret, shown once, and the next delivery is signed by both.
  await page.getByRole('button', { name: 'Rotate secret' }).click()
  await page.getByRole('status').filter({ hasText: 'Signing secret rotated.' }).waitFor()
  const rotated = await page.getByTestId('webhook-secret').innerText()
  assert.match(rotated, /^whsec_/)
  assert.notEqual(rotated, secret)
  await expectAccessible(page, 'webhook endpoint, the secret rotated')
  await page.getByRole('button', { name: 'Done', exact: true }).click()
  await page.getByRole('button', { name: 'Send a test' }).click()
  const pings = await sink.waitFor(3, 10_000, (r) => r.json.type === 'ping')
  assert.ok(signedBy(rotated, pings[2]!) && signedBy(secret, pings[2]!), 'signed by the new and the previous secret')

  // Edited: only contact.created, a new description.
  const edit = page.getByRole('form', { name: 'Edit the endpoint' })
  await edit.getByLabel('contact.updated').uncheck()
  await edit.getByLabel('Description').fill('Warehouse sync (creations)')
  await edit.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('status').filter({ hasText: 'Changes saved.' }).waitFor()
  let stored = await ok(o.get(`/webhook-endpoints/${endpoint.id}`), 200)
  assert.deepEqual([stored.enabledEvents, stored.description], [['contact.created'], 'Warehouse sync (creations)'])
  // Disabled (confirmed), then deleted (confirmed).
  await page.getByRole('button', { name: 'Disable' }).click()
  await page.getByRole('status').filter({ hasText: 'Endpoint disabled.' }).waitFor()
  await page.getByRole('button', { name: 'Enable' }).waitFor()
  stored = await ok(o.get(`/webhook-endpoints/${endpoint.id}`), 200)
  assert.equal(stored.enabled, false)
  await expectAccessible(page, 'webhook endpoint, disabled')
  await shot(page, 'webhook-endpoint')
  await onPhone(page, 'webhook endpoint', 'webhook-endpoint')
  calls.atMost(30, 'webhook endpoint page')
  await page.getByRole('button', { name: 'Delete endpoint' }).click()
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor()
  await page.getByText(`Endpoint ${sink.url} deleted.`).waitFor()
  await page.getByText('No endpoints yet.').waitFor()
  assert.equal((await o.get(`/webhook-endpoints/${endpoint.id}`)).status, 404)
  await expectAccessible(page, 'webhooks, the endpoint deleted')
  assert.deepEqual(e.errors, [])
  await page.close()
})

test("events and timeline: a contact's activity after an edit, and the event feed filtered in the address", { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const contact = await ok(o.post('/contacts', { name: 'Baltic Timber', email: 'sales@baltic.example' }))
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls = countCalls(page)
  await signIn(page, o.adminEmail, o.password)

  // The contact's page: created, then changed in the page; the timeline says what changed, newest first.
  await calls.reset()
  await page.goto(`/contacts/${contact.id}`)
  const activity = page.getByRole('list', { name: 'Activity, newest first' })
  await expectSoon(async () => (await activity.getByRole('listitem').allInnerTexts()).map((s) => s.split(' · ')[0]), ['Created the contact'])
  await page.getByLabel('Phone').fill('+48 22 555 01 02')
  await page.getByLabel('City').fill('Gdańsk')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await page.getByText('Changes saved.').waitFor()
  await expectSoon(async () => (await activity.getByRole('listitem').allInnerTexts()).map((s) => s.split(' · ')[0]), ['Changed phone, address', 'Created the contact'])
  const feed = await ok(o.get(`/events?resourceId=${contact.id}`), 200)
  assert.deepEqual(feed.data.map((x: any) => x.type), ['contact.updated', 'contact.created'])
  assert.equal(feed.data[0].data.object.phone, '+48 22 555 01 02')
  await expectAccessible(page, 'contact, with its activity')
  await onPhone(page, 'contact with its activity', 'contact-activity')
  calls.atMost(8, 'contact page with its timeline')

  // "Show more": six more edits, five shown, then the rest.
  for (let i = 1; i <= 6; i++) await ok(o.patch(`/contacts/${contact.id}`, { phone: `+48 22 555 01 1${i}` }), 200)
  await page.reload()
  await expectSoon(async () => await activity.getByRole('listitem').count(), 5)
  await page.getByText('5 of 8').waitFor()
  await page.getByRole('button', { name: 'Show more' }).click()
  await expectSoon(async () => await activity.getByRole('listitem').count(), 8)
  assert.equal(await page.getByRole('button', { name: 'Show more' }).count(), 0)
  assert.deepEqual((await activity.getByRole('listitem').allInnerTexts()).map((s) => s.split(' · ')[0]).slice(0, 2), ['Changed phone', 'Changed phone'])

  // A product has no event types yet: its page says there is no activity.
  const product = await ok(o.post('/products', { name: 'Oak desk', price: 64900, currency: 'usd', type: 'storable' }))
  await page.goto(`/products/${product.id}`)
  await page.getByText('No activity recorded in the last 30 days.').waitFor()
  await expectAccessible(page, 'product, no activity')

  // The event feed: newest first; filtered by type and by resource in the address; a payload as JSON.
  await calls.reset()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events', exact: true }).click()
  await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor()
  const list = page.getByRole('list', { name: 'Events' })
  const all = await ok(o.get('/events'), 200)
  await expectSoon(async () => (await list.locator(':scope > li strong').allInnerTexts()), all.data.map((x: any) => x.type))
  await expectAccessible(page, 'events')
  await page.getByLabel('Type').selectOption('contact.created')
  await expectSoon(async () => (await list.locator(':scope > li strong').allInnerTexts()), ['contact.created', 'contact.created'])
  assert.match(page.url(), /\/settings\/events\?type=contact\.created$/)
  await page.getByRole('button', { name: 'Only this resource Baltic Timber' }).click()
  await expectSoon(async () => (await list.locator(':scope > li strong').allInnerTexts()), ['contact.created'])
  assert.match(page.url(), new RegExp(`type=contact\\.created&resource=${contact.id}$`))
  await list.getByText('Payload').first().click()
  const payload = JSON.parse(await list.getByLabel(/^Payload of contact\.created/).innerText())
  assert.deepEqual([payload.type, payload.data.object.id, payload.data.object.name, payload.data.object.phone], ['contact.created', contact.id, 'Baltic Timber', null])
  await expectAccessible(page, 'events, filtered, a payload open')
  await shot(page, 'events')
  await onPhone(page, 'events', 'events')
  // The address alone gives the same list (a reload, a shared link).
  await page.reload()
  await expectSoon(async () => (await list.locator(':scope > li strong').allInnerTexts()), ['contact.created'])
  await page.getByLabel('Type').selectOption('invoice.paid')
  await page.getByText('No event matches these filters in the last 30 days.').waitFor()
  calls.atMost(10, 'events page')
  assert.deepEqual(e.errors, [])
  await page.close()
})

/** The rows of a small CSV without quoted commas, as objects by the header. */
function csvRows(csv: string): Record<string, string>[] {
  const [header, ...lines] = csv.trim().split(/\r?\n/)
  const keys = header!.split(',')
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i], v.replace(/^"|"$/g, '')])))
}

test('reports: a member starts an invoices run, follows it and downloads the CSV, whose rows are the invoices', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const acme = await ok(o.post('/contacts', { name: 'Acme Stores', email: 'ap@acme.example' }))
  const one = await ok(o.post('/invoices', { contactId: acme.id, lineItems: [{ description: 'Assembly', quantity: 3, unitPrice: 125050 }] }))
  const two = await ok(o.post('/invoices', { contactId: acme.id, lineItems: [{ description: 'Delivery', quantity: 1, unitPrice: 4999 }] }))
  const email = `mia.${Date.now()}@example.com`
  await ok(o.post('/users', { name: 'Mia Member', email, password: 'a member password', role: 'member' }))
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls = countCalls(page)
  await signIn(page, email, 'a member password')
  const nav = page.getByRole('navigation', { name: 'Main' })
  assert.equal(await nav.getByRole('link', { name: 'Webhooks' }).count(), 0, 'a member has no Webhooks page')

  await calls.reset()
  await nav.getByRole('link', { name: 'Reports', exact: true }).click()
  await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor()
  await page.getByText('No report runs yet.').waitFor()
  await expectAccessible(page, 'reports, none yet')
  // From after to: the API's 422 in its words, nothing queued.
  const form = page.getByRole('form', { name: 'Start a report' })
  await form.getByLabel('From').fill('2026-12-31')
  await form.getByLabel('To').fill('2026-01-01')
  await form.getByRole('button', { name: 'Start report' }).click()
  await form.getByRole('alert').waitFor()
  assert.doesNotMatch(await form.getByRole('alert').innerText(), /VALIDATION_FAILED/)
  assert.equal((await ok(o.get('/reports'), 200)).meta.total, 0)
  await expectAccessible(page, 'reports, a run refused')

  const today = new Date().toISOString().slice(0, 10)
  await form.getByLabel('From').fill(`${today.slice(0, 8)}01`)
  await form.getByLabel('To').fill(today)
  await form.getByRole('button', { name: 'Start report' }).click()
  await page.getByRole('status').filter({ hasText: 'Invoices (by invoice date) requested' }).waitFor()
  // The page looks again while it runs, and stops once it has succeeded.
  await expectSoon(async () => (await rows(page, 'Report runs')).map((r) => [r[0], r[2], r[3], r[4]]), [['Invoices (by invoice date)', 'succeeded', '2', 'Mia Member']], 30_000)
  const [run] = (await ok(o.get('/reports'), 200)).data
  assert.deepEqual([run.type, run.parameters, run.status, run.rows], ['invoices', { from: `${today.slice(0, 8)}01`, to: today }, 'succeeded', 2])
  const settled = calls.atMost(16, 'reports page while a run runs')
  await page.waitForTimeout(2500)
  assert.equal(calls.atMost(16, 'reports page'), settled, 'no call once the run has ended')
  await expectAccessible(page, 'reports, a run succeeded')
  await shot(page, 'reports')
  await onPhone(page, 'reports', 'reports')

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /^Download Invoices/ }).click()])
  assert.equal(download.suggestedFilename(), run.file.filename)
  const csv = csvRows(await readFile((await download.path())!, 'utf8'))
  // 3 x 1,250.50 and 1 x 49.99, no tax: written in major units (docs/analytics.md "Types"); rows of one day in id order.
  assert.deepEqual([one.total, two.total], [375150, 4999])
  assert.deepEqual(
    csv.map((r) => [r.number, r.status, r.contactName, r.contactEmail, r.total, r.amountDue]).sort(),
    [
      [one.number, 'draft', 'Acme Stores', 'ap@acme.example', '3751.50', '3751.50'],
      [two.number, 'draft', 'Acme Stores', 'ap@acme.example', '49.99', '49.99'],
    ].sort(),
  )
  // Filtered in the address.
  await page.getByLabel('Status', { exact: true }).selectOption('failed')
  await page.getByText('No report run matches these filters.').waitFor()
  assert.match(page.url(), /\/reports\?status=failed$/)
  assert.deepEqual(e.errors, [])
  await page.close()
})

test('export: the Contacts and Products lists exported as CSV with their filters, through report runs', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const paper = await ok(o.post('/contacts', { name: 'Nordlys Paper AS', email: 'orders@nordlys.example', vendor: true, address: { lines: ['Fjordgata 1'], city: 'Oslo', postalCode: '0150', country: 'NO' } }))
  await ok(o.post('/contacts', { name: 'Nordlys Print', email: 'hello@nordlys-print.example' }))
  await ok(o.post('/products', { name: 'Nordlys desk', sku: 'NL-DESK', price: 64900, cost: 41000, currency: 'usd', type: 'storable' }))
  const assembly = await ok(o.post('/products', { name: 'Nordlys assembly', sku: 'NL-ASM', price: 4500, currency: 'usd', type: 'service', uom: 'hour' }))
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls = countCalls(page)
  await signIn(page, o.adminEmail, o.password)

  // Contacts: the filters of the address are the run's parameters; the file holds the one vendor the list shows.
  await calls.reset()
  await page.goto('/contacts?search=Nordlys&kind=vendors')
  await expectSoon(async () => (await rows(page, 'Contacts')).map((r) => r[0]), ['Nordlys Paper AS'])
  await expectAccessible(page, 'contacts, before an export')
  const [contactsFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()])
  await page.getByRole('status').filter({ hasText: /^Exported 1 row: .* is saved\.$/ }).waitFor()
  const [contactsRun] = (await ok(o.get('/reports?type=contacts'), 200)).data
  assert.deepEqual([contactsRun.parameters, contactsRun.status, contactsRun.rows, contactsFile.suggestedFilename()], [{ search: 'Nordlys', vendor: true }, 'succeeded', 1, contactsRun.file.filename])
  const contactRows = csvRows(await readFile((await contactsFile.path())!, 'utf8'))
  assert.deepEqual(contactRows.map((r) => [r.id, r.name, r.email, r.vendor, r.street, r.city, r.postalCode, r.country]), [[paper.id, 'Nordlys Paper AS', 'orders@nordlys.example', 'true', 'Fjordgata 1', 'Oslo', '0150', 'NO']])
  await expectAccessible(page, 'contacts, exported')
  await onPhone(page, 'contacts with Export CSV', 'contacts-export')
  calls.atMost(12, 'contacts list and its export')

  // Products: service only; money in major units, no signing secret.
  await calls.reset()
  await page.goto('/products?search=Nordlys&type=service')
  await expectSoon(async () => (await rows(page, 'Products')).map((r) => r[0]), ['Nordlys assembly'])
  const [productsFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()])
  await page.getByRole('status').filter({ hasText: /^Exported 1 row:/ }).waitFor()
  const csv = await readFile((await productsFile.path())!, 'utf8')
  assert.doesNotMatch(csv.split(/\r?\n/)[0]!, /signingSecret/)
  assert.deepEqual(csvRows(csv).map((r) => [r.id, r.name, r.sku, r.type, r.price, r.currency, r.uom]), [[assembly.id, 'Nordlys assembly', 'NL-ASM', 'service', '45.00', 'usd', 'hour']])
  const [productsRun] = (await ok(o.get('/reports?type=products'), 200)).data
  assert.deepEqual(productsRun.parameters, { search: 'Nordlys', productType: 'service' })
  await expectAccessible(page, 'products, exported')
  calls.atMost(12, 'products list and its export')
  assert.deepEqual(e.errors, [])
  await page.close()
})

test('organization: an admin changes the address and the logo, checked through HTTP; a member reads them', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls = countCalls(page)
  await signIn(page, o.adminEmail, o.password)
  await calls.reset()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organization', exact: true }).click()
  await page.getByRole('heading', { name: 'Organization', level: 1 }).waitFor()
  const form = page.getByRole('form', { name: 'Organization profile' })
  await page.getByText('No logo: documents print the name alone.').waitFor()
  await expectAccessible(page, 'organization')

  // A country that is not two letters: said by the page, nothing sent.
  await form.getByLabel('Street').fill('ul. Długa 12\nbuilding B')
  await form.getByLabel('City').fill('Gdańsk')
  await form.getByLabel('Postal code').fill('80-831')
  await form.getByLabel('Country').fill('P1')
  await form.getByRole('button', { name: 'Save changes' }).click()
  await form.getByRole('alert').filter({ hasText: 'Country: two letters, e.g. PL.' }).waitFor()
  assert.equal((await ok(o.get('/organization'), 200)).address, null)
  await form.getByLabel('Country').fill('pl')
  await form.getByLabel('Tax id').fill('PL5832001234')
  await form.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('status').filter({ hasText: 'Changes saved: new documents print them.' }).waitFor()
  const profile = await ok(o.get('/organization'), 200)
  assert.deepEqual([profile.address, profile.taxId, profile.name, profile.lockDate], [{ lines: ['ul. Długa 12', 'building B'], city: 'Gdańsk', postalCode: '80-831', country: 'PL' }, 'PL5832001234', 'Fjord Office Supply', null])
  await expectSoon(() => form.getByLabel('Country').inputValue(), 'PL')

  // The logo: a file that is not an image is the API's 422 in its words; a PNG is shown and served.
  const dir = tmpdir()
  await writeFile(join(dir, 'not-a-logo.png'), 'not an image at all')
  await writeFile(join(dir, 'logo.png'), sampleLogo())
  const upload = page.getByRole('form', { name: 'Upload a logo' })
  await upload.getByLabel('Logo file').setInputFiles(join(dir, 'not-a-logo.png'))
  await upload.getByRole('button', { name: 'Upload logo' }).click()
  await upload.getByRole('alert').waitFor()
  assert.equal((await ok(o.get('/organization'), 200)).logo, null)
  await expectAccessible(page, 'organization, a logo refused')
  await upload.getByLabel('Logo file').setInputFiles(join(dir, 'logo.png'))
  await upload.getByRole('button', { name: 'Upload logo' }).click()
  await page.getByRole('status').filter({ hasText: 'Logo saved' }).waitFor()
  await page.getByRole('img', { name: 'Logo of Fjord Office Supply' }).waitFor()
  assert.deepEqual((await ok(o.get('/organization'), 200)).logo, { contentType: 'image/png', size: sampleLogo().length, width: 240, height: 80, url: '/api/organization/logo' })
  await page.getByText('PNG, 240 × 80 pixels').waitFor()
  await expectAccessible(page, 'organization, with its logo')
  await shot(page, 'organization')
  await onPhone(page, 'organization', 'organization')
  calls.atMost(10, 'organization page')

  // A member reads the profile, without a form.
  const email = `max.${Date.now()}@example.com`
  await ok(o.post('/users', { name: 'Max Member', email, password: 'a member password', role: 'member' }))
  const member = await e.page()
  await signIn(member, email, 'a member password')
  await member.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organization', exact: true }).click()
  await member.getByText('Only an admin may change it.').waitFor()
  await member.getByText('ul. Długa 12, building B, 80-831 Gdańsk, PL').waitFor()
  await member.getByRole('img', { name: 'Logo of Fjord Office Supply' }).waitFor()
  assert.equal(await member.getByRole('form').count(), 0)
  await expectAccessible(member, 'organization, read by a member')

  // Removed (confirmed).
  await page.getByRole('button', { name: 'Remove logo' }).click()
  await page.getByText('No logo: documents print the name alone.').waitFor()
  assert.equal((await ok(o.get('/organization'), 200)).logo, null)
  assert.deepEqual(e.errors, [])
  await member.close()
  await page.close()
})
