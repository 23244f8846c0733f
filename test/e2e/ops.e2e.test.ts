// In Chromium: the Inventory page (stock per product, transfers to validate,
// a transfer's moves) and the Helpdesk inbox (tickets with SLA badges, a
// ticket's thread: an agent answers, notes and closes). Data is made through
// the API; what the pages did is checked through the API too.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, test } from 'node:test'
import { createOrg, unique, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, expectValue, needsBrowser, ok, screenshot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'

let e: E2E
before(async () => {
  if (!SKIP_E2E) e = await startE2E()
})
after(async () => await e?.close())


const transfer = (o: TestOrg, type: string, from: string, to: string, moves: { productId: string; demandQty: number }[], extra: Record<string, unknown> = {}) =>
  ok(o.post('/inventory/transfers', { type, sourceLocationId: from, destinationLocationId: to, moves, ...extra }))

test('inventory: stock per product and location, a ready delivery validated in the page moves the stock, short stock shows the API error', { timeout: 60_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const o = await createOrg(e.t.app, 'Harbor Furniture')
  await ok(o.post('/inventory/locations', { code: 'B', name: 'Back room', type: 'internal', warehouseId: (await ok(o.get('/inventory/locations/LOC-STOCK'), 200)).warehouseId }))
  const product = (name: string, sku: string, reorderPoint = 0, uom = 'unit') => ok(o.post('/products', { name, sku, price: 12900, currency: 'usd', type: 'storable', reorderPoint, uom }))
  const desk = await product('Oak desk', 'DESK-OAK', 5)
  const chair = await product('Office chair', 'CHAIR-ERG', 8)
  const lamp = await product('Desk lamp', 'LAMP-LED', 10)
  const shelf = await product('Steel shelf', 'SHELF-ST', 2)
  const arm = await product('Monitor arm', 'ARM-DUAL', 4)
  await product('Cable tray', 'TRAY-CBL')
  const stock: [string, number, string][] = [[desk.id, 40, 'LOC-STOCK'], [desk.id, 6, 'LOC-B'], [chair.id, 24, 'LOC-STOCK'], [lamp.id, 7, 'LOC-STOCK'], [shelf.id, 12, 'LOC-B'], [arm.id, 3, 'LOC-STOCK']]
  for (const [productId, demandQty, to] of stock) {
    const r = await transfer(o, 'receipt', 'LOC-SUPPLIER', to, [{ productId, demandQty }], { origin: 'PO/2026/00031' })
    await ok(o.post(`/inventory/transfers/${r.id}/validate`, {}), 200)
  }
  // Ready deliveries reserve their demand; a draft one asks more lamps than there are.
  const delivery = await transfer(o, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: desk.id, demandQty: 5 }, { productId: chair.id, demandQty: 10 }], { origin: 'SO/2026/00012', scheduledDate: '2026-12-01' })
  await ok(o.post(`/inventory/transfers/${delivery.id}/confirm`), 200)
  const second = await transfer(o, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: chair.id, demandQty: 4 }], { origin: 'SO/2026/00015', scheduledDate: '2026-12-03' })
  await ok(o.post(`/inventory/transfers/${second.id}/confirm`), 200)
  const restock = await transfer(o, 'receipt', 'LOC-SUPPLIER', 'LOC-STOCK', [{ productId: lamp.id, demandQty: 30 }, { productId: arm.id, demandQty: 10 }], { origin: 'PO/2026/00040', scheduledDate: '2026-12-02' })
  await ok(o.post(`/inventory/transfers/${restock.id}/confirm`), 200)
  const short = await transfer(o, 'delivery', 'LOC-STOCK', 'LOC-CUSTOMER', [{ productId: lamp.id, demandQty: 50 }], { origin: 'SO/2026/00016' })

  const page = await e.page()
  await signIn(page, o.adminEmail, o.password)
  await page.getByRole('link', { name: 'Inventory' }).click()
  await page.getByRole('heading', { name: 'Inventory', level: 1 }).waitFor()
  const deskRow = page.getByRole('row', { name: /Oak desk/ })
  await deskRow.waitFor()
  const cells = async (row: typeof deskRow) => (await row.getByRole('cell').allInnerTexts()).map((s) => s.trim())
  // On hand over both internal locations (40 + 6), 5 reserved by the ready delivery.
  assert.deepEqual((await cells(deskRow)).slice(0, 5), ['Oak desk', 'DESK-OAK', '46 unit', '5', '41'])
  assert.match((await cells(page.getByRole('row', { name: /Desk lamp/ })))[6]!, /Reorder/)
  await expectAccessible(page, 'inventory stock')
  await screenshot(page, 'inventory')

  await page.getByRole('button', { name: 'Show locations of Oak desk' }).click()
  const locations = page.getByRole('table', { name: 'Stock of Oak desk per location' })
  await locations.waitFor()
  assert.deepEqual((await locations.getByRole('row').allInnerTexts()).slice(1).map((r) => r.replace(/\s+/g, ' ').trim()), ['Back room LOC-B 6 unit', 'WH/Stock LOC-STOCK 40 unit'].sort())

  // Server-side filter: below reorder point (available <= reorderPoint > 0): the lamps (7 <= 10), the arms (3 <= 4), the chairs (24 - 14 = 10 > 8: no).
  await page.getByLabel('Below reorder point only').check()
  await page.getByRole('row', { name: /Oak desk/ }).waitFor({ state: 'detached' })
  assert.deepEqual((await page.getByRole('table', { name: 'Stock per product' }).locator('tbody tr td:first-child').allInnerTexts()).sort(), ['Desk lamp', 'Monitor arm'])
  await page.getByLabel('Below reorder point only').uncheck()

  await page.getByRole('navigation', { name: 'Inventory' }).getByRole('link', { name: 'Transfers' }).click()
  const validate = page.getByRole('button', { name: `Validate ${delivery.reference}` })
  await validate.waitFor()
  await expectValue(page.getByLabel('Status'), 'ready')
  await expectSoon(() => page.getByRole('table', { name: 'Transfers' }).locator('tbody tr').count(), 3)
  await expectAccessible(page, 'transfers')
  await validate.click()
  await page.getByRole('status').filter({ hasText: `${delivery.reference} validated` }).waitFor()
  await validate.waitFor({ state: 'detached' })
  assert.equal((await ok(o.get(`/inventory/transfers/${delivery.id}`), 200)).status, 'done')

  // A draft delivery of more than there is: the API's error, nothing changes.
  await page.getByLabel('Status').selectOption('draft')
  await page.getByRole('button', { name: `Validate ${short.reference}` }).click()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  assert.match(await alert.innerText(), new RegExp(`^${short.reference} was not validated: Insufficient stock for Desk lamp\\.$`))
  assert.equal((await ok(o.get(`/inventory/transfers/${short.id}`), 200)).status, 'draft')

  // The transfer's page: its moves, and what its source holds now.
  await page.getByLabel('Status').selectOption('ready')
  await page.getByRole('link', { name: second.reference }).click()
  await page.getByRole('heading', { name: `Transfer ${second.reference}` }).waitFor()
  const moves = page.getByRole('table', { name: `Moves of ${second.reference}` })
  await moves.getByRole('columnheader', { name: 'At WH/Stock now' }).waitFor()
  assert.deepEqual(await cells(moves.getByRole('row', { name: /Office chair/ })), ['Office chair', '4', '0', '4', '14'])
  await expectAccessible(page, 'transfer')

  // Back on the stock: the validated delivery took 5 desks from on hand and from reserved.
  await page.getByRole('navigation', { name: 'Inventory' }).getByRole('link', { name: 'Stock' }).click()
  await page.getByRole('row', { name: /Oak desk/ }).waitFor()
  assert.deepEqual((await cells(page.getByRole('row', { name: /Oak desk/ }))).slice(2, 5), ['41 unit', '0', '41'])
  assert.deepEqual((await cells(page.getByRole('row', { name: /Office chair/ }))).slice(2, 5), ['14 unit', '4', '10'])
  assert.deepEqual(e.errors, [])
})

test('helpdesk: an agent sees SLA badges, answers publicly, adds an internal note and closes the ticket', { timeout: 60_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const o = await createOrg(e.t.app, 'Northwind Support')
  // Urgent and high tickets must be resolved within seconds (so that they are overdue by the time the page shows them); the others within a day.
  await ok(o.post('/helpdesk/sla', { name: 'Critical', firstResponseHours: 0.0002, resolutionHours: 0.0003, applies: ['urgent', 'high'] }))
  await ok(o.post('/helpdesk/sla', { name: 'Standard', firstResponseHours: 4, resolutionHours: 24, applies: ['medium', 'low'] }))
  const password = 'agent-password-2026'
  const agent = await ok(o.post('/users', { name: 'Alex Agent', email: `${unique('alex')}@example.com`, password, role: 'agent' }))
  const member = await o.as('member')
  const contact = (name: string, email: string) => ok(o.post('/contacts', { name, email: `${email}@example.com` }))
  const maria = await contact('Maria Lopez', 'maria.lopez')
  const tom = await contact('Tom Becker', 'tom.becker')
  const yuki = await contact('Yuki Tanaka', 'yuki.tanaka')
  const ticket = (contactId: string, subject: string, priority: string, description?: string) => ok(o.post('/helpdesk/tickets', { contactId, subject, priority, ...(description ? { description } : {}) }, member))
  const csv = await ticket(yuki.id, 'Feature request: export contacts to CSV', 'low')
  const refund = await ticket(tom.id, 'Refund for order SO/2026/00009', 'medium')
  await ok(o.post(`/helpdesk/tickets/${refund.id}/assign`, { assigneeId: agent.id }), 200)
  await ok(o.post(`/helpdesk/tickets/${refund.id}/close`, { resolution: 'Refund sent' }), 200)
  const waiting = await ticket(maria.id, 'Licence key not accepted', 'medium')
  await ok(o.post(`/helpdesk/tickets/${waiting.id}/assign`, { assigneeId: agent.id }), 200)
  await ok(o.patch(`/helpdesk/tickets/${waiting.id}`, { status: 'pending_customer' }), 200)
  const signin = await ticket(maria.id, 'Cannot sign in after the password reset', 'medium', 'The reset e-mail arrives, but the new password is refused.\nBrowser: Firefox 133.')
  const invoice = await ticket(tom.id, 'Invoice PDF shows the wrong VAT rate', 'high')
  const damaged = await ticket(yuki.id, 'Shipment arrived damaged', 'urgent', 'Two of the five chairs have broken armrests.')
  assert.ok(invoice.sla && csv.sla)
  // 0.0003 hours is about 1.1 seconds.
  await new Promise((r) => setTimeout(r, Math.max(0, new Date(damaged.sla.resolutionDeadline).getTime() + 200 - Date.now())))

  const page = await e.page()
  await signIn(page, agent.email, password)
  await page.getByRole('heading', { name: 'Helpdesk', level: 1 }).waitFor()
  const row = (subject: string) => page.getByRole('row', { name: new RegExp(subject) })
  await row('Shipment arrived damaged').waitFor()
  assert.match(await row('Shipment arrived damaged').innerText(), /SLA breached/)
  assert.match(await row('Invoice PDF').innerText(), /SLA breached/)
  assert.match(await row('Cannot sign in').innerText(), /First response due in \d+ (hr|hours?)/)
  assert.match(await row('Refund for order').innerText(), /Resolved in time/)
  await expectAccessible(page, 'helpdesk list')
  await screenshot(page, 'helpdesk')

  // Server-side filters: overdue only, then assigned to me.
  const subjects = async () => (await page.getByRole('table', { name: 'Tickets' }).locator('tbody tr td:first-child a').allInnerTexts()).sort()
  // The list shows the previous answer until the new one arrives: wait for the rows to become the expected ones.
  const expectSubjects = async (expected: string[]) => {
    for (let i = 0; i < 100 && JSON.stringify(await subjects()) !== JSON.stringify(expected); i++) await page.waitForTimeout(100)
    assert.deepEqual(await subjects(), expected)
  }
  await page.getByLabel('SLA').selectOption('true')
  await expectSubjects(['Invoice PDF shows the wrong VAT rate', 'Shipment arrived damaged'])
  await page.getByLabel('SLA').selectOption('')
  await page.getByLabel('Assignee').selectOption(agent.id)
  await expectSubjects(['Licence key not accepted', 'Refund for order SO/2026/00009'])
  await page.getByLabel('Assignee').selectOption('')

  await page.getByRole('link', { name: 'Cannot sign in after the password reset' }).click()
  await page.getByRole('heading', { name: 'Cannot sign in after the password reset', level: 1 }).waitFor()
  await page.getByRole('button', { name: 'Assign to me' }).click()
  await page.getByRole('button', { name: 'Assign to me' }).waitFor({ state: 'detached' })
  await expectValue(page.getByLabel('Change status'), 'in_progress')

  const reply = page.getByRole('form', { name: 'Reply' })
  await reply.getByLabel('Message').fill('Hi Maria, I have reset your account: please use the new link we just sent. It is valid for one hour.')
  await reply.getByRole('button', { name: 'Send' }).click()
  await page.getByRole('article', { name: 'Public reply by Alex Agent' }).waitFor()
  await reply.getByLabel('Message').fill('Her account was locked after five failed attempts; unlocked by hand. Check the lockout setting.')
  await reply.getByLabel('Internal note (agents only)').check()
  await reply.getByRole('button', { name: 'Send' }).click()
  await page.getByRole('article', { name: 'Internal note by Alex Agent' }).waitFor()
  assert.match(await page.locator('.ticket-side').innerText(), /answered in time/)
  await expectAccessible(page, 'ticket')
  await screenshot(page, 'ticket')

  await page.getByRole('form', { name: 'Close the ticket' }).getByLabel('Resolution').fill('Account unlocked and a new reset link sent.')
  await page.getByRole('button', { name: 'Close ticket' }).click()
  await page.getByRole('button', { name: 'Reopen' }).waitFor()
  assert.equal(await page.getByRole('form', { name: 'Reply' }).count(), 0)
  await expectAccessible(page, 'closed ticket')

  // Stored: the public reply, the internal note (hidden from a member), the closed status and its resolution.
  const stored = await ok(o.get(`/helpdesk/tickets/${signin.id}`), 200)
  assert.deepEqual([stored.status, stored.resolution, stored.assignee?.id, stored.sla.firstResponseMet], ['closed', 'Account unlocked and a new reset link sent.', agent.id, true])
  const messages = (await ok(o.get(`/helpdesk/tickets/${signin.id}/messages`), 200)).data
  assert.deepEqual(
    messages.map((m: any) => [m.internal, m.author?.name, m.body.slice(0, 20)]),
    [
      [false, 'Alex Agent', 'Hi Maria, I have res'],
      [true, 'Alex Agent', 'Her account was lock'],
    ],
  )
  assert.deepEqual((await ok(o.get(`/helpdesk/tickets/${signin.id}/messages`, member), 200)).data.map((m: any) => m.internal), [false])

  // Reopened: back in progress (it has an assignee), and it can be answered again.
  await page.getByRole('button', { name: 'Reopen' }).click()
  await page.getByRole('form', { name: 'Reply' }).waitFor()
  await expectValue(page.getByLabel('Change status'), 'in_progress')
  assert.equal((await ok(o.get(`/helpdesk/tickets/${signin.id}`), 200)).status, 'in_progress')

  // An attachment is downloaded through its own route: the messages list carries only what it is.
  const log = Buffer.from('Licence check failed: signature mismatch\n')
  await ok(o.post(`/helpdesk/tickets/${waiting.id}/reply`, { body: 'Here is the activation log.', attachments: [{ filename: 'activation.log', contentType: 'text/plain', contentBase64: log.toString('base64') }] }, member))
  await page.getByRole('link', { name: 'All tickets' }).click()
  await page.getByRole('link', { name: 'Licence key not accepted' }).click()
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'activation.log' }).click()])
  assert.equal(download.suggestedFilename(), 'activation.log')
  assert.deepEqual(await readFile((await download.path())!), log)
  assert.deepEqual(e.errors, [])
})

test('helpdesk: the filters live in the address, so Back from a ticket, Back from another page and a reload show the same list', { timeout: 60_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const o = await createOrg(e.t.app, 'Contoso Support')
  const member = await o.as('member')
  const ada = await ok(o.post('/contacts', { name: 'Ada Byrne', email: 'ada.byrne@example.com' }))
  const ticket = (subject: string, priority: string) => ok(o.post('/helpdesk/tickets', { contactId: ada.id, subject, priority }, member))
  const waiting = ['VAT number missing on invoice', 'Which plan includes SSO?']
  for (const subject of waiting) await ok(o.patch(`/helpdesk/tickets/${(await ticket(subject, 'medium')).id}`, { status: 'pending_customer' }), 200)
  await ticket('Export stops at 10,000 rows', 'high')
  await ticket('Dark mode request', 'low')

  const page = await e.page()
  await signIn(page, o.adminEmail, o.password)
  await page.getByRole('link', { name: 'Helpdesk' }).click()
  const subjects = async () => (await page.getByRole('table', { name: 'Tickets' }).locator('tbody tr td:first-child a').allInnerTexts()).sort()
  await expectSoon(subjects, ['Dark mode request', 'Export stops at 10,000 rows', ...waiting])

  // Waiting on the customer, sorted by number: the address says so.
  await page.getByLabel('Status').selectOption('pending_customer')
  await page.getByLabel('Sort by').selectOption('ticketNumber')
  await expectSoon(subjects, waiting)
  await page.waitForURL(/\/helpdesk\?/)
  const query = () => Object.fromEntries(new URL(page.url()).searchParams)
  assert.deepEqual(query(), { status: 'pending_customer', sort: 'ticketNumber' })
  const restored = async () => {
    await expectValue(page.getByLabel('Status'), 'pending_customer')
    await expectValue(page.getByLabel('Sort by'), 'ticketNumber')
    await expectSoon(subjects, waiting)
    assert.deepEqual(query(), { status: 'pending_customer', sort: 'ticketNumber' })
  }

  // A ticket, then Back.
  await page.getByRole('link', { name: waiting[0] }).click()
  await page.getByRole('heading', { name: waiting[0], level: 1 }).waitFor()
  await page.goBack()
  await page.getByRole('heading', { name: 'Helpdesk', level: 1 }).waitFor()
  await restored()

  // Another page of the menu, then Back; then a reload.
  await page.getByRole('link', { name: 'Users and roles' }).click()
  await page.getByRole('heading', { name: 'Users and roles', level: 1 }).waitFor()
  await page.goBack()
  await restored()
  await page.reload()
  await restored()

  // A search typed in the box joins the address and the list; the menu's link starts afresh.
  await page.getByLabel('Search').fill('VAT')
  await expectSoon(subjects, ['VAT number missing on invoice'])
  await expectSoon(async () => query(), { status: 'pending_customer', sort: 'ticketNumber', search: 'VAT' })
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Helpdesk' }).click()
  await expectValue(page.getByLabel('Search'), '')
  await expectValue(page.getByLabel('Status'), '')
  await expectSoon(subjects, ['Dark mode request', 'Export stops at 10,000 rows', ...waiting])
  assert.deepEqual(e.errors, [])
})
