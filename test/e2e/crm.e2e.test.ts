// In Chromium: the Leads page (issue 29, item 4: CRM leads without the API).
// Leads captured through the public form are listed, searched and filtered in
// the address; one is converted into a new contact, one into the contact that
// already has its e-mail, one converted meanwhile is refused in the API's words
// (no second contact), one is deleted (its contact stays); each checked
// through HTTP. The pipeline shows the quotations by stage with figures
// computed by hand. An admin rotates the capture token (confirmed, the new one
// shown with Copy; the old one refused by the API); a member sees the leads and
// the pipeline but not the capture settings. axe-core on every state, the pages
// at 390x844, the calls to the API counted.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { call, createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, rows, shot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'
import { createContact, createProduct, createQuotation } from '../helpers/sales-fixtures.ts'

let e: E2E
let o: TestOrg
before(async () => {
  if (!SKIP_E2E) {
    e = await startE2E()
    o = await createOrg(e.t.app, 'Harbour Lights Ltd')
  }
})
after(async () => await e?.close())

const said = (page: Page, words: string) => page.getByRole('status').filter({ hasText: words }).first().waitFor()

test('crm: leads listed, converted (new and existing contact), refused, deleted; the pipeline; the capture token rotated; a member without the settings', { timeout: 240_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const { captureToken: oldToken } = await ok(o.get('/crm/capture-settings'), 200)
  // Public captures, as the web form sends them (no credential).
  const capture = (body: Record<string, unknown>, token = oldToken) => call(e.t.app, 'POST', '/crm/capture', { body: { captureToken: token, ...body } })
  await ok(capture({ name: 'Grace Hopper', email: 'grace@navy.example', phone: '+1 555 0100', company: 'US Navy', source: 'contact page', message: 'We need 40 licences for the fleet.' }))
  await ok(capture({ name: 'Alan Turing', email: 'alan@bletchley.example', company: 'Bletchley Park', source: 'pricing page' }))
  await ok(capture({ name: 'Ada Lovelace', email: 'ADA@engines.example', company: 'Analytical Engines', source: 'contact page' }))
  const ada = await createContact(o, { name: 'Ada L. (Analytical Engines)', email: 'ada@engines.example' })
  const leadId = async (name: string) => (await ok(o.get(`/crm/leads?search=${encodeURIComponent(name)}`), 200)).data[0].id as string
  // The pipeline: a draft quotation of 3 x $25.00 less 10 % = $67.50, a sent one of 2 x $100.00 = $200.00.
  await createQuotation(o)
  const licence = await createProduct(o, { name: 'Fleet licence', price: 10000 })
  const sent = await createQuotation(o, { lineItems: [{ productId: licence.id, quantity: 2, unitPrice: 10000 }] })
  await ok(o.post(`/sales/quotations/${sent.id}/send`, {}), 200)

  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}`)
  })
  await signIn(page, o.adminEmail, o.password)
  const nav = page.getByRole('navigation', { name: 'Main' })

  // The list: A to Z on request, searched (one request once the typing pauses), filtered by status, in the address.
  await nav.getByRole('link', { name: 'Leads', exact: true }).click()
  await page.getByRole('heading', { name: 'Leads', level: 1 }).waitFor()
  await expectSoon(async () => (await rows(page, 'Leads')).length, 3)
  await page.getByLabel('Sort').selectOption('name')
  await expectSoon(async () => (await rows(page, 'Leads')).map((r) => [...r.slice(0, 4), ...r.slice(5, 7)]), [
    ['Ada Lovelace', 'ADA@engines.example', 'Analytical Engines', 'contact page', 'new', '—'],
    ['Alan Turing', 'alan@bletchley.example', 'Bletchley Park', 'pricing page', 'new', '—'],
    ['Grace Hopper', 'grace@navy.example', 'US Navy', 'contact page', 'new', '—'],
  ])
  const searches = calls.length
  await page.getByLabel('Search').pressSequentially('bletchley', { delay: 40 })
  await expectSoon(async () => (await rows(page, 'Leads')).map((r) => r[0]), ['Alan Turing'])
  assert.ok(calls.length - searches <= 2, `typing a search: ${calls.slice(searches).join(', ')}`)
  assert.match(page.url(), /\/crm\/leads\?sort=name&search=bletchley$/)
  await page.getByLabel('Search').fill('')
  await page.getByLabel('Status').selectOption('converted')
  await page.getByText('No lead matches these filters.').waitFor()
  await expectAccessible(page, 'leads, filtered')
  await page.getByLabel('Status').selectOption('')
  await expectSoon(async () => (await rows(page, 'Leads')).length, 3)
  await expectAccessible(page, 'leads')
  await shot(page, 'leads')
  await onPhone(page, 'leads', 'leads')

  // Grace: converted into a new contact, an individual with her name, e-mail and phone.
  let before = calls.length
  await page.getByRole('link', { name: 'Grace Hopper' }).click()
  const status = page.getByTestId('lead-status')
  await expectSoon(() => status.innerText(), 'new')
  assert.ok(calls.length - before <= 1, `a lead's page: ${calls.slice(before).join(', ')}`)
  await page.getByText('We need 40 licences for the fleet.').waitFor()
  await expectAccessible(page, 'lead, new')
  await onPhone(page, 'lead', 'lead')
  await page.getByRole('button', { name: 'Convert to contact' }).click()
  await said(page, 'Lead converted: Grace Hopper is linked to the contact Grace Hopper.')
  await expectSoon(() => status.innerText(), 'converted')
  const grace = await ok(o.get(`/crm/leads/${await leadId('Grace Hopper')}`), 200)
  const contact = await ok(o.get(`/contacts/${grace.contactId}`), 200)
  assert.deepEqual([grace.status, contact.name, contact.email, contact.phone, contact.type], ['converted', 'Grace Hopper', 'grace@navy.example', '+1 555 0100', 'individual'])
  assert.equal(await page.getByTestId('lead-contact').getByRole('link', { name: 'Grace Hopper' }).getAttribute('href'), `/contacts/${contact.id}`)
  assert.equal(await page.getByRole('button', { name: 'Convert to contact' }).count(), 0)
  await expectAccessible(page, 'lead, converted')
  await shot(page, 'lead')

  // Ada: linked to the contact that already has her e-mail (whatever its case); no contact is made.
  const contactsBefore = (await ok(o.get('/contacts'), 200)).meta.total
  await page.getByRole('link', { name: 'All leads' }).click()
  await page.getByRole('link', { name: 'Ada Lovelace' }).click()
  await page.getByRole('button', { name: 'Convert to contact' }).click()
  await said(page, 'Lead converted: Ada Lovelace is linked to the contact Ada L. (Analytical Engines).')
  await expectSoon(() => status.innerText(), 'converted')
  assert.equal((await ok(o.get(`/crm/leads/${await leadId('Ada Lovelace')}`), 200)).contactId, ada.id)
  assert.equal((await ok(o.get('/contacts'), 200)).meta.total, contactsBefore)

  // Alan: converted through the API while his page is open: Convert is refused in the API's words, and no second contact is made.
  await page.getByRole('link', { name: 'All leads' }).click()
  await page.getByRole('link', { name: 'Alan Turing' }).click()
  await expectSoon(() => status.innerText(), 'new')
  const alanId = await leadId('Alan Turing')
  const alan = await ok(o.post(`/crm/leads/${alanId}/convert`), 200)
  await page.getByRole('button', { name: 'Convert to contact' }).click()
  await page.getByRole('alert').filter({ hasText: 'Lead already converted.' }).waitFor()
  assert.equal((await ok(o.get('/contacts?search=alan%40bletchley.example'), 200)).meta.total, 1)
  await expectAccessible(page, 'lead, convert refused')

  // Alan deleted from the list (confirmed first); his contact stays.
  await page.getByRole('link', { name: 'All leads' }).click()
  await expectSoon(async () => (await rows(page, 'Leads')).map((r) => [r[0], r[5]]), [['Ada Lovelace', 'converted'], ['Alan Turing', 'converted'], ['Grace Hopper', 'converted']])
  await page.getByRole('button', { name: 'Delete Alan Turing' }).click()
  await said(page, 'The lead Alan Turing deleted.')
  await expectSoon(async () => (await rows(page, 'Leads')).map((r) => r[0]), ['Ada Lovelace', 'Grace Hopper'])
  assert.equal((await o.get(`/crm/leads/${alanId}`)).status, 404)
  assert.equal((await o.get(`/contacts/${alan.contactId}`)).status, 200)
  await page.getByLabel('Status').selectOption('converted')
  await expectSoon(async () => (await rows(page, 'Leads')).length, 2)
  assert.equal(await page.getByRole('link', { name: 'Open the contact of Grace Hopper' }).getAttribute('href'), `/contacts/${contact.id}`)
  await expectAccessible(page, 'leads, converted')

  // The pipeline: $67.50 draft, $200.00 sent, open pipeline $267.50.
  before = calls.length
  await page.getByRole('navigation', { name: 'Leads' }).getByRole('link', { name: 'Pipeline' }).click()
  await expectSoon(() => page.getByTestId('pipeline-open').innerText(), '$267.50')
  assert.ok(calls.length - before <= 1, `the pipeline: ${calls.slice(before).join(', ')}`)
  const pipeline = await ok(o.get('/sales/pipeline'), 200)
  assert.equal(pipeline.totalPipeline, 6750 + 20000)
  await expectSoon(() => rows(page, 'Pipeline by stage'), [
    ['draft', '1', '$67.50'],
    ['sent', '1', '$200.00'],
    ['confirmed', '0', '$0.00'],
    ['cancelled', '0', '$0.00'],
  ])
  await expectAccessible(page, 'pipeline')
  await shot(page, 'leads-pipeline')
  await onPhone(page, 'pipeline', 'leads-pipeline')

  // The capture form (admins): the token the API answers; rotated after a confirmation, the new one shown with Copy.
  await page.getByRole('navigation', { name: 'Leads' }).getByRole('link', { name: 'Capture form' }).click()
  await expectSoon(() => page.getByTestId('capture-token').innerText(), oldToken)
  await expectAccessible(page, 'capture form')
  await onPhone(page, 'capture form', 'leads-capture')
  await page.getByRole('button', { name: 'Rotate token' }).click()
  await said(page, 'Capture token rotated: the old one no longer works.')
  const newToken = await page.getByTestId('new-capture-token').innerText()
  assert.notEqual(newToken, oldToken)
  assert.equal((await ok(o.get('/crm/capture-settings'), 200)).captureToken, newToken)
  await page.getByRole('button', { name: 'Copy new token' }).click()
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), newToken)
  assert.equal((await capture({ name: 'Old form', email: 'old@example.com' })).status, 404)
  await ok(capture({ name: 'New form', email: 'new@example.com' }, newToken))
  await expectAccessible(page, 'capture form, rotated')
  await shot(page, 'leads-capture')

  assert.ok(calls.length <= 45, `${calls.length} calls to the API:\n${calls.join('\n')}`)
  t.diagnostic(`${calls.length} calls to the API as an admin`)

  // A member: the leads and the pipeline, not the capture settings (GET /crm/capture-settings is for admins).
  await ok(o.post('/users', { name: 'Mo Member', email: 'mo.member@harbour.example', password: 'member password 1', role: 'member' }))
  const member = await e.page()
  await member.setViewportSize({ width: 1440, height: 900 })
  await signIn(member, 'mo.member@harbour.example', 'member password 1')
  const memberNav = member.getByRole('navigation', { name: 'Main' })
  for (const name of ['Bills of materials', 'Production', 'Leads']) await memberNav.getByRole('link', { name, exact: true }).waitFor()
  await memberNav.getByRole('link', { name: 'Leads', exact: true }).click()
  await expectSoon(async () => (await rows(member, 'Leads')).length, 3)
  assert.deepEqual(await member.getByRole('navigation', { name: 'Leads' }).getByRole('link').allInnerTexts(), ['Leads', 'Pipeline'])
  await member.goto('/crm/leads/capture')
  await member.getByText("The capture form's settings are for admins of the organization.").waitFor()
  assert.equal(await member.getByTestId('capture-token').count(), 0)
  await expectAccessible(member, 'capture form, as a member')

  assert.deepEqual(e.errors, [])
  await page.close()
  await member.close()
})

