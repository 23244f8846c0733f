// In Chromium: the helpdesk from ticket to rating (issue 29, items 4 and 8).
// An admin sets up a team (members picked by name) and SLA policies (hours
// and minutes) in the Helpdesk tabs; a customer opens a request on its
// Support page; staff see it, set its priority and team, assign an agent by
// name (a colleague's ticket taken over only after a confirmation) and
// reply; the customer replies and rates the solved ticket; the statistics
// are checked against hand-computed figures through HTTP and in the page.
// Every step is checked through the API; axe on every state, the main pages
// at 390 px, the calls to the API counted. Error paths: the API's refusals
// as sentences (a closed ticket, a customer without a contact), nothing written.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createOrg, unique, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, expectValue, needsBrowser, ok, onPhone, rows, shot, signIn, SKIP_E2E, startE2E, text, type E2E } from '../helpers/browser.ts'

let e: E2E
let o: TestOrg
before(async () => {
  if (!SKIP_E2E) {
    e = await startE2E()
    o = await createOrg(e.t.app, 'Lumen Software Support')
  }
})
after(async () => await e?.close())

/** Counts the calls a page makes to /api, from now on; `take()` answers them and starts again. */
function counter(page: Page) {
  let calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}`)
  })
  return {
    take(label: string, max: number) {
      const taken = calls
      calls = []
      assert.ok(taken.length <= max, `${label}: ${taken.length} calls to the API (at most ${max}):\n${taken.join('\n')}`)
      return taken
    },
  }
}
/** The questions the browser's confirmation asked (the e2e page accepts them all). */
function dialogs(page: Page) {
  const asked: string[] = []
  page.on('dialog', (d) => void asked.push(d.message()))
  return asked
}
const user = async (name: string, role: string, password = 'a long password 2026') => ({ ...(await ok(o.post('/users', { name, email: `${unique(name.split(' ')[0]!.toLowerCase())}@example.com`, password, role }))), password })
/** Minutes or hours between two instants, rounded to 2 decimals half away from zero as the API does. */
const between = (from: string, to: string, unitMs: number) => Math.round(((new Date(to).getTime() - new Date(from).getTime()) / unitMs) * 100) / 100

test('helpdesk from ticket to rating: teams and SLA set up in the pages, a customer request handled, answered and rated, the statistics as computed by hand', { timeout: 240_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const alex = await user('Alex Agent', 'agent')
  const sam = await user('Sam Support', 'support')
  await user('Mia Member', 'member')
  const maria = await user('Maria Lopez', 'customer')
  const mariaContact = await ok(o.post('/contacts', { name: 'Maria Lopez', email: maria.email }))
  await ok(o.post('/contacts', { name: 'Tom Becker', email: 'tom.becker@example.com' }))

  // ---- The admin sets up the team and the SLA policies in the Helpdesk tabs.
  const admin = await e.page()
  await admin.setViewportSize({ width: 1440, height: 900 })
  const adminAsked = dialogs(admin)
  const adminCalls = counter(admin)
  await signIn(admin, o.adminEmail, o.password)
  await admin.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  await admin.waitForLoadState('networkidle')
  adminCalls.take('sign-in (the admin lands on Overview)', 12)
  await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Helpdesk' }).click()
  await admin.getByRole('heading', { name: 'Helpdesk', level: 1 }).waitFor()
  await admin.getByText('No tickets yet').waitFor()
  await expectAccessible(admin, 'helpdesk, no tickets')
  adminCalls.take('empty inbox', 2)

  const tabs = admin.getByRole('navigation', { name: 'Helpdesk' })
  await tabs.getByRole('link', { name: 'Teams' }).click()
  await admin.getByRole('heading', { name: 'Helpdesk teams', level: 1 }).waitFor()
  await admin.getByText('No teams yet').waitFor()
  await expectAccessible(admin, 'teams, none')
  await admin.getByRole('link', { name: 'New team' }).click()
  const teamForm = admin.getByRole('form', { name: 'New team' })
  // Members picked by name: only the users with an agent role are offered (not the member, not the customer).
  await teamForm.getByLabel('Alex Agent').waitFor()
  assert.deepEqual((await teamForm.locator('label.check').allInnerTexts()).map(text), ['Ada Admin (admin)', 'Alex Agent (agent)', 'Sam Support (support)'])
  await teamForm.getByLabel('Name').fill('Billing')
  await teamForm.getByLabel('Alex Agent').check()
  await teamForm.getByLabel('Sam Support').check()
  await expectAccessible(admin, 'new team')
  await teamForm.getByRole('button', { name: 'Create team' }).click()
  await admin.getByRole('status').filter({ hasText: 'Team Billing created.' }).waitFor()
  await admin.getByRole('link', { name: 'New team' }).click()
  await admin.getByRole('form', { name: 'New team' }).getByLabel('Name').fill('Temporary')
  await admin.getByRole('form', { name: 'New team' }).getByRole('button', { name: 'Create team' }).click()
  await expectSoon(async () => (await rows(admin, 'Teams')).map((r) => r.slice(0, 2)), [
    ['Billing', 'Alex Agent, Sam Support'],
    ['Temporary', 'no members'],
  ])
  const teams = (await ok(o.get('/helpdesk/teams?sortBy=name&sortOrder=asc'), 200)).data
  assert.deepEqual(teams.map((x: any) => [x.name, x.memberIds]), [['Billing', [alex.id, sam.id]], ['Temporary', []]])
  const [billing, temporary] = teams
  // Edited: Sam leaves Billing.
  await admin.getByRole('table', { name: 'Teams' }).getByRole('link', { name: 'Billing' }).click()
  const editTeam = admin.getByRole('form', { name: 'Edit team' })
  await expectSoon(() => editTeam.getByLabel('Sam Support').isChecked(), true)
  await editTeam.getByLabel('Sam Support').uncheck()
  await editTeam.getByRole('button', { name: 'Save changes' }).click()
  await admin.getByRole('status').filter({ hasText: 'Team Billing saved.' }).waitFor()
  assert.deepEqual((await ok(o.get(`/helpdesk/teams/${billing.id}`), 200)).memberIds, [alex.id])
  await expectAccessible(admin, 'team edited')
  // Deleted from the list, after a confirmation.
  await admin.getByRole('link', { name: 'Back to the teams' }).click()
  await admin.getByRole('button', { name: 'Delete Temporary' }).click()
  await admin.getByRole('status').filter({ hasText: 'Team Temporary deleted.' }).waitFor()
  assert.equal(adminAsked.at(-1), 'Delete the team Temporary? Its tickets are left without a team.')
  await ok(o.get(`/helpdesk/teams/${temporary.id}`), 404)
  await expectSoon(async () => (await rows(admin, 'Teams')).map((r) => r.slice(0, 2)), [['Billing', 'Alex Agent']])
  await expectAccessible(admin, 'teams')
  await onPhone(admin, 'teams', 'helpdesk-teams')
  adminCalls.take('teams: create two, edit one, delete one', 25)

  // SLA policies: durations typed as hours and minutes.
  await tabs.getByRole('link', { name: 'SLA policies' }).click()
  await admin.getByRole('heading', { name: 'SLA policies', level: 1 }).waitFor()
  await admin.getByText('No SLA policies yet').waitFor()
  await admin.getByRole('link', { name: 'New policy' }).click()
  const slaForm = admin.getByRole('form', { name: 'New SLA policy' })
  await slaForm.getByLabel('Name').fill('Priority support')
  await slaForm.getByLabel('First response: hours').fill('1')
  await slaForm.getByLabel('First response: minutes').fill('30')
  await slaForm.getByLabel('Resolution: hours').fill('8')
  // No priority chosen: said before anything is sent.
  await slaForm.getByRole('button', { name: 'Create policy' }).click()
  await slaForm.getByRole('alert').filter({ hasText: 'Choose at least one priority the policy applies to.' }).waitFor()
  await expectAccessible(admin, 'new SLA policy, refused')
  await slaForm.getByLabel('high', { exact: true }).check()
  await slaForm.getByLabel('urgent', { exact: true }).check()
  await slaForm.getByRole('button', { name: 'Create policy' }).click()
  await admin.getByRole('status').filter({ hasText: 'SLA policy Priority support created.' }).waitFor()
  await admin.getByRole('link', { name: 'New policy' }).click()
  await admin.getByRole('form', { name: 'New SLA policy' }).getByLabel('Name').fill('Standard')
  await admin.getByRole('form', { name: 'New SLA policy' }).getByLabel('low', { exact: true }).check()
  await admin.getByRole('form', { name: 'New SLA policy' }).getByLabel('medium', { exact: true }).check()
  await admin.getByRole('form', { name: 'New SLA policy' }).getByLabel('First response: hours').fill('4')
  await admin.getByRole('form', { name: 'New SLA policy' }).getByLabel('Resolution: hours').fill('48')
  await admin.getByRole('form', { name: 'New SLA policy' }).getByRole('button', { name: 'Create policy' }).click()
  await admin.getByRole('status').filter({ hasText: 'SLA policy Standard created.' }).waitFor()
  await expectSoon(async () => (await rows(admin, 'SLA policies')).map((r) => r.slice(0, 4)), [
    ['Priority support', 'high urgent', '1 h 30 min', '8 h'],
    ['Standard', 'low medium', '4 h', '48 h'],
  ])
  // Edited: resolution within 6 h 15 min.
  await admin.getByRole('link', { name: 'Priority support' }).click()
  const editSla = admin.getByRole('form', { name: 'Edit SLA policy' })
  await expectValue(editSla.getByLabel('First response: minutes'), '30')
  await editSla.getByLabel('Resolution: hours').fill('6')
  await editSla.getByLabel('Resolution: minutes').fill('15')
  await editSla.getByRole('button', { name: 'Save changes' }).click()
  await admin.getByRole('status').filter({ hasText: 'SLA policy Priority support saved.' }).waitFor()
  await expectAccessible(admin, 'SLA policy edited')
  const policies = await ok(o.get('/helpdesk/sla'), 200)
  assert.deepEqual(policies.map((p: any) => [p.name, p.applies, p.firstResponseHours, p.resolutionHours]), [
    ['Priority support', ['high', 'urgent'], 1.5, 6.25],
    ['Standard', ['low', 'medium'], 4, 48],
  ])
  await admin.getByRole('link', { name: 'Back to the SLA policies' }).click()
  await expectSoon(async () => (await rows(admin, 'SLA policies')).map((r) => r.slice(0, 4)), [
    ['Priority support', 'high urgent', '1 h 30 min', '6 h 15 min'],
    ['Standard', 'low medium', '4 h', '48 h'],
  ])
  await expectAccessible(admin, 'SLA policies')
  await onPhone(admin, 'SLA policies', 'helpdesk-sla')
  adminCalls.take('SLA policies: create two, edit one', 20)

  // ---- The customer opens a request on its Support page.
  const customer = await e.page()
  await customer.setViewportSize({ width: 1440, height: 900 })
  const customerCalls = counter(customer)
  await signIn(customer, maria.email, maria.password)
  await customer.waitForLoadState('networkidle')
  customerCalls.take('customer sign-in (lands on Licenses)', 8)
  const customerNav = customer.getByRole('navigation', { name: 'Main' })
  assert.equal(await customerNav.getByRole('link', { name: 'Helpdesk' }).count(), 0)
  await customerNav.getByRole('link', { name: 'Support' }).click()
  await customer.getByRole('heading', { name: 'Support', level: 1 }).waitFor()
  await customer.getByText('You have no support request yet.').waitFor()
  await expectAccessible(customer, 'support, no requests')
  await onPhone(customer, 'support, no requests', 'support-empty')
  customerCalls.take('empty support page', 1)
  await customer.getByRole('link', { name: 'New request' }).click()
  const request = customer.getByRole('form', { name: 'New support request' })
  await request.getByLabel('Subject').fill('Invoice INV-2026-0042 charged twice')
  await request.getByLabel('Description').fill('My card was charged twice for the November invoice. Please refund one of the charges.')
  await expectAccessible(customer, 'new support request')
  await request.getByRole('button', { name: 'Send request' }).click()
  await customer.getByRole('heading', { name: 'Invoice INV-2026-0042 charged twice', level: 1 }).waitFor()
  const [opened] = (await ok(o.get('/helpdesk/tickets'), 200)).data
  assert.deepEqual([opened.subject, opened.status, opened.priority, opened.contact.id, opened.sla.policyName], ['Invoice INV-2026-0042 charged twice', 'new', 'medium', mariaContact.id, 'Standard'])
  await customer.getByRole('status').filter({ hasText: `Request ${opened.ticketNumber} sent: our team answers here.` }).waitFor()
  await customer.getByText('No answer yet: our team replies here.').waitFor()
  await expectAccessible(customer, 'request opened')
  await onPhone(customer, 'request opened', 'support-ticket')
  customerCalls.take('new request and its page', 6)

  // ---- Staff see it, set priority and team, assign by name, reply.
  await tabs.getByRole('link', { name: 'Tickets' }).click()
  await admin.getByRole('link', { name: opened.subject }).click()
  await admin.getByRole('heading', { name: opened.subject, level: 1 }).waitFor()
  adminCalls.take('inbox and ticket', 8)
  await expectValue(admin.getByLabel('Change priority'), 'medium')
  await admin.getByLabel('Change priority').selectOption('high')
  await admin.getByRole('status').filter({ hasText: `${opened.ticketNumber} is now of high priority; its SLA follows.` }).waitFor()
  let stored = await ok(o.get(`/helpdesk/tickets/${opened.id}`), 200)
  assert.deepEqual([stored.priority, stored.sla.policyName, new Date(stored.sla.resolutionDeadline).getTime() - new Date(stored.createdAt).getTime()], ['high', 'Priority support', 6.25 * 3_600_000])
  await expectSoon(async () => (await admin.getByLabel('Change team').locator('option').allInnerTexts()).map(text), ['no team', 'Billing'])
  await admin.getByLabel('Change team').selectOption({ label: 'Billing' })
  await admin.getByRole('status').filter({ hasText: `${opened.ticketNumber} moved to the team Billing.` }).waitFor()
  assert.equal((await ok(o.get(`/helpdesk/tickets/${opened.id}`), 200)).team.id, billing.id)
  // An agent picked by name; then a colleague's ticket is taken over only after a confirmation.
  assert.deepEqual((await admin.getByLabel('Assign to').locator('option').allInnerTexts()).map(text), ['unassigned', 'me (Ada Admin)', 'Alex Agent', 'Sam Support'])
  await admin.getByLabel('Assign to').selectOption({ label: 'Sam Support' })
  await admin.getByRole('status').filter({ hasText: `${opened.ticketNumber} assigned to Sam Support.` }).waitFor()
  stored = await ok(o.get(`/helpdesk/tickets/${opened.id}`), 200)
  assert.deepEqual([stored.assignee.id, stored.status], [sam.id, 'in_progress'])
  const asked = adminAsked.length
  await admin.getByLabel('Assign to').selectOption({ label: 'Alex Agent' })
  await admin.getByRole('status').filter({ hasText: `${opened.ticketNumber} assigned to Alex Agent.` }).waitFor()
  assert.deepEqual(adminAsked.slice(asked), [`${opened.ticketNumber} is assigned to Sam Support. Assign it to Alex Agent instead?`])
  assert.equal((await ok(o.get(`/helpdesk/tickets/${opened.id}`), 200)).assignee.id, alex.id)
  await expectAccessible(admin, 'ticket, priority, team and assignee set')
  const reply = admin.getByRole('form', { name: 'Reply' })
  await reply.getByLabel('Message').fill('Hello Maria, I see two charges of $120.00: I have refunded the second one. It shows on your card within five days.')
  await reply.getByRole('button', { name: 'Send' }).click()
  await admin.getByRole('article', { name: 'Public reply by Ada Admin' }).waitFor()
  await admin.getByRole('status').filter({ hasText: 'Reply sent to the customer.' }).waitFor()
  await expectAccessible(admin, 'ticket answered')
  await shot(admin, 'helpdesk-ticket')
  await onPhone(admin, 'ticket', 'helpdesk-ticket')
  adminCalls.take('priority, team, two assignments, a reply', 24)

  // ---- The customer reads the answer and replies.
  await customer.reload()
  const answer = customer.getByRole('article', { name: 'Public reply by Ada Admin' })
  await answer.waitFor()
  assert.match(await answer.innerText(), /refunded the second one/)
  assert.match(text(await customer.locator('.ticket-side').innerText()), /Status in progress an agent is working on it Priority high .* Agent Alex Agent/)
  const customerReply = customer.getByRole('form', { name: 'Reply' })
  await customerReply.getByLabel('Message').fill('Thank you, I see the refund pending on my card.')
  await customerReply.getByRole('button', { name: 'Send' }).click()
  await customer.getByRole('article', { name: 'Public reply by Maria Lopez' }).waitFor()
  await customer.getByRole('status').filter({ hasText: 'Reply sent.' }).waitFor()
  await expectAccessible(customer, 'customer replied')
  const thread = (await ok(o.get(`/helpdesk/tickets/${opened.id}/messages`), 200)).data
  assert.deepEqual(thread.map((m: any) => [m.author?.name, m.internal]), [['Ada Admin', false], ['Maria Lopez', false]])
  customerCalls.take('reload, read and reply', 10)

  // ---- Staff resolve it; the customer rates it once.
  await admin.reload()
  await admin.getByRole('article', { name: 'Public reply by Maria Lopez' }).waitFor()
  await admin.getByLabel('Change status').selectOption('resolved')
  await admin.getByRole('status').filter({ hasText: `${opened.ticketNumber} is now resolved.` }).waitFor()
  assert.equal((await ok(o.get(`/helpdesk/tickets/${opened.id}`), 200)).status, 'resolved')
  await customer.reload()
  const rate = customer.getByRole('form', { name: 'Rate the answer' })
  await rate.waitFor()
  await expectAccessible(customer, 'resolved, rating form')
  // The customer may not close, reopen nor change a ticket (agents only): the page offers none of it.
  assert.equal(await customer.getByRole('button', { name: /Close|Reopen/ }).count(), 0)
  assert.equal(await customer.getByLabel('Change status').count(), 0)
  await rate.getByLabel('4', { exact: true }).check()
  await rate.getByLabel('Comment').fill('Quick and clear.')
  await rate.getByRole('button', { name: 'Send rating' }).click()
  await customer.getByText('Thank you: you rated it 4 out of 5 ("Quick and clear.").').waitFor()
  await expectAccessible(customer, 'rated')
  await shot(customer, 'support-ticket')
  // Once only: the API refuses a second rating.
  await ok(o.post(`/helpdesk/tickets/${opened.id}/rating`, { rating: 1 }), 409)
  customerCalls.take('reload and rate', 8)

  // ---- The list of the customer's requests, and the statistics computed by hand.
  await customer.getByRole('link', { name: 'All your requests' }).click()
  await expectSoon(async () => (await rows(customer, 'Your requests')).map((r) => [r[0]!.split(' HD-')[0], r[1], r[2]]), [['Invoice INV-2026-0042 charged twice', 'resolved', 'high']])
  await expectAccessible(customer, 'support, one request')

  // A second ticket opened by the admin in the page for another customer (picked by name), closed through HTTP.
  await tabs.getByRole('link', { name: 'Tickets' }).click()
  await admin.getByRole('link', { name: 'New ticket' }).click()
  const newTicket = admin.getByRole('form', { name: 'New ticket' })
  await newTicket.getByLabel('Find customer').fill('becker')
  await expectSoon(async () => (await newTicket.getByLabel('Customer', { exact: true }).locator('option').allInnerTexts()).length, 2)
  await newTicket.getByLabel('Customer', { exact: true }).selectOption({ label: 'Tom Becker (tom.becker@example.com)' })
  await newTicket.getByLabel('Subject').fill('How do I export my contacts?')
  await newTicket.getByLabel('Priority').selectOption('low')
  await expectAccessible(admin, 'new ticket')
  await newTicket.getByRole('button', { name: 'Open ticket' }).click()
  await admin.getByRole('heading', { name: 'How do I export my contacts?', level: 1 }).waitFor()
  const second = (await ok(o.get('/helpdesk/tickets?priority=low'), 200)).data[0]
  assert.deepEqual([second.contact.name, second.status, second.team, second.sla.policyName], ['Tom Becker', 'new', null, 'Standard'])
  await ok(o.post(`/helpdesk/tickets/${second.id}/close`, { resolution: 'Sent the guide' }), 200)
  const closed = await ok(o.get(`/helpdesk/tickets/${second.id}`), 200)
  stored = await ok(o.get(`/helpdesk/tickets/${opened.id}`), 200)

  // By hand: 2 tickets created (1 high, 1 low), 1 closed (the second), first response of the first only (the admin's
  // reply), resolution of the closed one, no breach (deadlines hours ahead), one rating of 4.
  const firstReply = thread[0]
  const expected = {
    ticketsCreated: 2,
    ticketsClosed: 1,
    avgFirstResponseMinutes: between(stored.createdAt, firstReply.createdAt, 60_000),
    avgResolutionHours: between(closed.createdAt, closed.closedAt, 3_600_000),
    slaBreachRate: 0,
    csat: 4,
    byPriority: { low: 1, medium: 0, high: 1, urgent: 0 },
  }
  const stats = await ok(o.get('/helpdesk/stats'), 200)
  assert.deepEqual({ ...stats, period: undefined }, { ...expected, period: undefined })
  const teamStats = await ok(o.get(`/helpdesk/stats?teamId=${billing.id}`), 200)
  assert.deepEqual([teamStats.ticketsCreated, teamStats.ticketsClosed, teamStats.csat, teamStats.byPriority.low], [1, 0, 4, 0])

  await tabs.getByRole('link', { name: 'Statistics' }).click()
  await admin.getByRole('heading', { name: 'Helpdesk statistics', level: 1 }).waitFor()
  const kpi = (label: string) => admin.getByRole('group', { name: label }).locator('.kpi-value').innerText()
  await expectSoon(() => kpi('Tickets created'), '2')
  assert.equal(await kpi('Tickets closed'), '1')
  assert.equal(await kpi('SLA breached'), '0%')
  assert.equal(await kpi('Customer satisfaction'), '4 / 5')
  assert.equal(await kpi('Average first response'), `${expected.avgFirstResponseMinutes.toLocaleString('en-US', { maximumFractionDigits: 2 })} min`)
  await expectSoon(() => rows(admin, 'Tickets created by priority'), [['low', '1'], ['medium', '0'], ['high', '1'], ['urgent', '0']])
  await expectAccessible(admin, 'statistics')
  await shot(admin, 'helpdesk-stats')
  await onPhone(admin, 'statistics', 'helpdesk-stats')
  // One team: its figures; a period that ends before it starts: the API's refusal as a sentence.
  await admin.getByLabel('Team', { exact: true }).selectOption({ label: 'Billing' })
  await expectSoon(() => kpi('Tickets created'), '1')
  assert.equal(await kpi('Tickets closed'), '0')
  await admin.getByLabel('From', { exact: true }).fill('2026-11-20')
  await admin.getByLabel('To', { exact: true }).fill('2026-11-10')
  await admin.getByRole('alert').waitFor()
  assert.match(await admin.getByRole('alert').innerText(), /from.*to|to.*from/i)
  await expectAccessible(admin, 'statistics, refused period')
  adminCalls.take('new ticket and statistics', 30)
  assert.deepEqual(e.errors, [])
})

test('helpdesk refusals: a change to a ticket closed meanwhile and a reply to it are the API sentences and change nothing; a customer without a contact opens nothing; an agent reads teams and policies without the admin actions', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const org = await createOrg(e.t.app, 'Quill Support')
  const password = 'a long password 2026'
  const mk = async (name: string, role: string) => ok(org.post('/users', { name, email: `${unique(name.split(' ')[0]!.toLowerCase())}@example.com`, password, role }))
  const agent = await mk('Alex Agent', 'agent')
  const buyer = await mk('Noah Buyer', 'customer')
  const lonely = await mk('Lena Lonely', 'customer')
  const contact = await ok(org.post('/contacts', { name: 'Noah Buyer', email: buyer.email }))
  const team = await ok(org.post('/helpdesk/teams', { name: 'Onboarding', memberIds: [agent.id] }))
  await ok(org.post('/helpdesk/sla', { name: 'Standard', firstResponseHours: 4, resolutionHours: 48, applies: ['medium'] }))
  const ticket = await ok(org.post('/helpdesk/tickets', { subject: 'Cannot invite a colleague', contactId: contact.id }))

  // The agent: the ticket open in the page, then closed by someone else; the page's change is refused in words.
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  await signIn(page, agent.email, password)
  await page.getByRole('heading', { name: 'Helpdesk', level: 1 }).waitFor()
  assert.equal(await page.getByRole('link', { name: 'New ticket' }).count(), 0)
  await page.getByRole('link', { name: 'Cannot invite a colleague' }).click()
  await page.getByLabel('Change priority').waitFor()
  assert.equal(await page.getByLabel('Assign to').count(), 0, 'only an admin lists the agents to pick from')
  await ok(org.post(`/helpdesk/tickets/${ticket.id}/close`, {}), 200)
  await page.getByLabel('Change priority').selectOption('urgent')
  await page.getByRole('alert').filter({ hasText: 'A closed ticket cannot be changed; reopen it first.' }).waitFor()
  await page.getByRole('form', { name: 'Reply' }).getByLabel('Message').fill('Hello')
  await page.getByRole('form', { name: 'Reply' }).getByRole('button', { name: 'Send' }).click()
  await page.getByRole('alert').filter({ hasText: 'A closed ticket takes no reply; reopen it first.' }).waitFor()
  await expectAccessible(page, 'ticket closed meanwhile')
  const stored = await ok(org.get(`/helpdesk/tickets/${ticket.id}`), 200)
  assert.deepEqual([stored.priority, stored.status], ['medium', 'closed'])
  assert.equal((await ok(org.get(`/helpdesk/tickets/${ticket.id}/messages`), 200)).meta.total, 0)

  // Teams and policies: read, without New, edit links nor Delete.
  await page.getByRole('link', { name: 'All tickets' }).click()
  const tabs = page.getByRole('navigation', { name: 'Helpdesk' })
  await tabs.getByRole('link', { name: 'Teams' }).click()
  await expectSoon(async () => (await rows(page, 'Teams')).map((r) => r.slice(0, 2)), [['Onboarding', 'Alex Agent']])
  assert.equal(await page.getByRole('link', { name: 'New team' }).count() + (await page.getByRole('link', { name: 'Onboarding' }).count()) + (await page.getByRole('button', { name: /Delete/ }).count()), 0)
  await expectAccessible(page, 'teams, agent')
  await tabs.getByRole('link', { name: 'SLA policies' }).click()
  await expectSoon(async () => (await rows(page, 'SLA policies')).map((r) => r.slice(0, 4)), [['Standard', 'medium', '4 h', '48 h']])
  assert.equal(await page.getByRole('link', { name: 'New policy' }).count(), 0)
  assert.ok(team.id)

  // A customer without a contact of its e-mail: the API's sentence, and no ticket.
  const customer = await e.page()
  await signIn(customer, lonely.email, password)
  await customer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Support' }).click()
  await customer.getByRole('link', { name: 'New request' }).click()
  const form = customer.getByRole('form', { name: 'New support request' })
  await form.getByLabel('Subject').fill('Where is my license key?')
  await form.getByRole('button', { name: 'Send request' }).click()
  await form.getByRole('alert').filter({ hasText: 'You have no contact in this organization (a contact with your e-mail): ask the organization to add one.' }).waitFor()
  await expectAccessible(customer, 'request refused')
  assert.equal((await ok(org.get('/helpdesk/tickets'), 200)).meta.total, 1)

  // The customer of the closed ticket: no reply form, a note instead, and the rating form.
  const buyerPage = await e.page()
  await signIn(buyerPage, buyer.email, password)
  await buyerPage.goto(`/support/${ticket.id}`)
  await buyerPage.getByText('This request is closed: it takes no more replies.').waitFor()
  assert.equal(await buyerPage.getByRole('form', { name: 'Reply' }).count(), 0)
  await buyerPage.getByRole('form', { name: 'Rate the answer' }).waitFor()
  await expectAccessible(buyerPage, 'closed request')
  // Another contact's ticket is not found for this customer.
  const other = await ok(org.post('/contacts', { name: 'Someone Else', email: 'else@example.com' }))
  const theirs = await ok(org.post('/helpdesk/tickets', { subject: 'Not yours', contactId: other.id }))
  await buyerPage.goto(`/support/${theirs.id}`)
  await buyerPage.getByRole('alert').filter({ hasText: 'It was not found' }).waitFor()
  assert.deepEqual(e.errors, [])
})
