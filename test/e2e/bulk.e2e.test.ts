// In Chromium: bulk actions on lists (docs/dashboard.md "Bulk actions"). An
// admin ticks contacts and deletes them in one go (one is still named by an
// invoice: the API refuses it and the page says so in its words, the others
// go), and ticks every invoice of the page to send the drafts (the one
// already sent is left out and counted). Each result checked through HTTP;
// axe on each state, the bar on a phone, the calls counted.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
let o: TestOrg
before(async () => {
  if (!SKIP_E2E) {
    e = await startE2E()
    o = await createOrg(e.t.app, 'Bulk Goods Co')
  }
})
after(async () => await e?.close())


test('bulk actions: contacts deleted in one go with the refusal said, draft invoices sent and the others left out', { timeout: 180_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const billed = await ok(o.post('/contacts', { name: 'Avery Billed', email: 'avery@billed.example' }))
  await ok(o.post('/contacts', { name: 'Blake Spare', email: 'blake@spare.example' }))
  await ok(o.post('/contacts', { name: 'Casey Spare', email: 'casey@spare.example' }))
  const draft1 = await ok(o.post('/invoices', { contactId: billed.id, lineItems: [{ description: 'Consulting', quantity: 2, unitPrice: 12500 }] }))
  const draft2 = await ok(o.post('/invoices', { contactId: billed.id, lineItems: [{ description: 'Workshop', quantity: 1, unitPrice: 40000 }] }))
  const sent = await ok(o.post('/invoices', { contactId: billed.id, lineItems: [{ description: 'Audit', quantity: 1, unitPrice: 90000 }] }))
  await ok(o.post(`/invoices/${sent.id}/send`, {}), 200)

  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const asked: string[] = []
  // The e2e page accepts every dialog (test/helpers/browser.ts); the questions are recorded.
  page.on('dialog', (d) => void asked.push(d.message()))
  const calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}`)
  })
  await signIn(page, o.adminEmail, o.password)
  await page.waitForLoadState('networkidle')

  // Contacts: all three ticked; the one an invoice names stays, with the API's reason.
  await page.goto(`${e.baseUrl}/contacts`)
  await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor()
  const bar = page.getByRole('group', { name: 'Bulk actions on contacts' })
  await bar.waitFor()
  assert.equal(await bar.getByRole('button', { name: 'Delete' }).isDisabled(), true, 'nothing ticked: nothing to do')
  await page.getByRole('checkbox', { name: 'Select Avery Billed' }).check()
  await page.getByRole('checkbox', { name: 'Select Casey Spare' }).check()
  await expectSoon(() => bar.getByRole('status').innerText(), '2 ticked')
  await bar.getByRole('checkbox', { name: /Tick every contact of this page/ }).check()
  await expectSoon(() => bar.getByRole('status').innerText(), '3 ticked')
  await expectAccessible(page, 'contacts ticked')
  const before = calls.length
  await bar.getByRole('button', { name: 'Delete (3)' }).click()
  await bar.getByRole('alert').filter({ hasText: 'Avery Billed: The record is referenced by other records' }).waitFor()
  await page.getByText('Deleted 2 contacts.').waitFor()
  assert.deepEqual(asked, ['Delete 3 contacts? This cannot be undone.'])
  const deleteCalls = calls.slice(before)
  assert.equal(deleteCalls.filter((c) => c.startsWith('DELETE /api/contacts/')).length, 3, 'one call per ticked row')
  const left = await ok(o.get('/contacts?sortBy=name&sortOrder=asc'), 200)
  assert.deepEqual(
    left.data.map((c: { name: string }) => c.name),
    ['Avery Billed'],
  )
  await expectSoon(async () => (await page.getByRole('table', { name: 'Contacts' }).locator('tbody tr').count()), 1)
  await expectAccessible(page, 'contacts after the bulk delete')

  // Invoices: every invoice of the page ticked; the drafts are sent, the one already sent is left out and said.
  await page.goto(`${e.baseUrl}/invoices`)
  const invoices = page.getByRole('group', { name: 'Bulk actions on invoices' })
  await invoices.waitFor()
  await invoices.getByRole('checkbox', { name: /Tick every invoice of this page/ }).check()
  await expectSoon(() => invoices.getByRole('status').innerText(), '3 ticked')
  await invoices.getByRole('button', { name: 'Send (3)' }).click()
  await page.getByText('Sent 2 invoices.').waitFor()
  await invoices.getByRole('alert').filter({ hasText: '1 ticked was left out: send does not apply to it.' }).waitFor()
  assert.equal(asked.at(-1), 'Send 2 draft invoices to their customers?')
  for (const inv of [draft1, draft2, sent]) assert.equal((await ok(o.get(`/invoices/${inv.id}`), 200)).status, 'sent', inv.number)
  await expectAccessible(page, 'invoices after the bulk send')
  await onPhone(page, 'invoices with the bulk bar', 'bulk-invoices')
  t.diagnostic(`calls to the API: ${calls.length}`)
  assert.ok(calls.length <= 40, `${calls.length} calls`)
})
