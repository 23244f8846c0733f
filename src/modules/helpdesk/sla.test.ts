// Helpdesk figures and what runs outside a caller's request: the statistics on a
// hand-computed fixture, the SLA breach job, and the public POST /support.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { expectPage } from '../../../test/helpers/lists.ts'
import { createContact } from '../../../test/helpers/sales-fixtures.ts'
import { captureToken, createSla, createTeam, createTicket, userWithToken } from '../../../test/helpers/helpdesk.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const db = () => t.app.ctx.db

/** Rewrites a ticket's timestamps (UTC), as if its history had happened then. */
async function setTimes(id: string, times: Record<string, string | null>) {
  const columns = Object.keys(times)
  await db().query(
    `UPDATE helpdesk_tickets SET ${columns.map((c, i) => `${c} = $${i + 2}::timestamptz`).join(', ')} WHERE id = $1`,
    [id, ...columns.map((c) => times[c])],
  )
}

describe('stats', () => {
  let o: TestOrg
  let teamId: string
  before(async () => {
    o = await createOrg(t.app)
    await createSla(o, { name: 'Std', firstResponseHours: 1, resolutionHours: 10, applies: ['medium', 'high'] })
    teamId = (await createTeam(o)).id
    const ticket = async (priority: string, team = false) => (await createTicket(o, { priority, ...(team ? { teamId } : {}) })).id as string
    const close = async (id: string) => expectStatus(await o.post(`/helpdesk/tickets/${id}/close`, {}), 200)
    const rate = async (id: string, rating: number, at: string) => {
      expectStatus(await o.post(`/helpdesk/tickets/${id}/rating`, { rating }), 201)
      await db().query(`UPDATE helpdesk_ratings SET created_at = $2 WHERE ticket_id = $1`, [id, at])
    }
    // The period is March 2026. A: high, team, answered in 30 min, closed after 6 h, in time, rated 5.
    const a = await ticket('high', true)
    await close(a)
    await setTimes(a, { created_at: '2026-03-02T10:00:00Z', first_response_at: '2026-03-02T10:30:00Z', done_at: '2026-03-02T16:00:00Z', closed_at: '2026-03-02T16:00:00Z', first_response_deadline: '2026-03-02T11:00:00Z', resolution_deadline: '2026-03-02T20:00:00Z' })
    await rate(a, 5, '2026-03-03T09:00:00Z')
    // B: medium, answered in 45.5 min, closed after 25 h, past its resolution deadline (breached), rated 2.
    const b = await ticket('medium')
    await close(b)
    await setTimes(b, { created_at: '2026-03-05T08:00:00Z', first_response_at: '2026-03-05T08:45:30Z', done_at: '2026-03-06T09:00:00Z', closed_at: '2026-03-06T09:00:00Z', first_response_deadline: '2026-03-05T09:00:00Z', resolution_deadline: '2026-03-05T18:00:00Z' })
    await rate(b, 2, '2026-03-06T10:00:00Z')
    // C: low (no SLA), answered in 20 min, still open.
    const c = await ticket('low')
    await setTimes(c, { created_at: '2026-03-10T12:00:00Z', first_response_at: '2026-03-10T12:20:00Z' })
    // D: urgent (no policy), created in the last second of the period, open.
    const d = await ticket('urgent')
    await setTimes(d, { created_at: '2026-03-31T23:59:59.999Z' })
    // E: high, team, never answered, open past its resolution deadline (breached).
    const e = await ticket('high', true)
    await setTimes(e, { created_at: '2026-03-15T00:00:00Z', first_response_deadline: '2026-03-15T01:00:00Z', resolution_deadline: '2026-03-15T10:00:00Z' })
    // F: created before the period, closed (in time) and rated 4 inside it.
    const f = await ticket('medium')
    await close(f)
    await setTimes(f, { created_at: '2026-02-28T23:59:59Z', done_at: '2026-03-01T01:00:00Z', closed_at: '2026-03-01T01:00:00Z', first_response_deadline: '2026-03-01T00:59:59Z', resolution_deadline: '2026-03-01T09:59:59Z' })
    await rate(f, 4, '2026-03-01T02:00:00Z')
    // G: created the day after the period.
    const g = await ticket('high', true)
    await setTimes(g, { created_at: '2026-04-01T00:00:00Z', first_response_deadline: '2026-04-01T01:00:00Z', resolution_deadline: '2026-04-01T10:00:00Z' })
    // H: low, resolved (not closed) in the period.
    const h = await ticket('low')
    expectStatus(await o.patch(`/helpdesk/tickets/${h}`, { status: 'resolved' }), 200)
    await setTimes(h, { created_at: '2026-03-20T10:00:00Z', done_at: '2026-03-20T11:00:00Z' })
  })

  test('March 2026, every statistics figure as computed by hand', async () => {
    const stats = expectStatus(await o.get('/helpdesk/stats?from=2026-03-01&to=2026-03-31'), 200)
    assert.deepEqual(stats, {
      period: { from: '2026-03-01', to: '2026-03-31' },
      ticketsCreated: 6, // A B C D E H
      ticketsClosed: 3, // A B F (closed on March 2, 6, 1)
      avgFirstResponseMinutes: 31.83, // (30 + 45.5 + 20) / 3 = 31.8333
      avgResolutionHours: 15.5, // closed among the created: A 6 h, B 25 h
      slaBreachRate: 2 / 3, // with an SLA: A B E; breached: B (closed late) and E (open, late)
      csat: 11 / 3, // ratings given in March: 5 (A), 2 (B), 4 (F)
      byPriority: { low: 2, medium: 1, high: 2, urgent: 1 },
    })
  })

  test('one team; a period with nothing; one day', async () => {
    assert.deepEqual(expectStatus(await o.get(`/helpdesk/stats?from=2026-03-01&to=2026-03-31&teamId=${teamId}`), 200), {
      period: { from: '2026-03-01', to: '2026-03-31' },
      ticketsCreated: 2, ticketsClosed: 1, avgFirstResponseMinutes: 30, avgResolutionHours: 6, slaBreachRate: 0.5, csat: 5,
      byPriority: { low: 0, medium: 0, high: 2, urgent: 0 },
    })
    assert.deepEqual(expectStatus(await o.get('/helpdesk/stats?from=2025-01-01&to=2025-01-31'), 200), {
      period: { from: '2025-01-01', to: '2025-01-31' },
      ticketsCreated: 0, ticketsClosed: 0, avgFirstResponseMinutes: null, avgResolutionHours: null, slaBreachRate: 0, csat: null,
      byPriority: { low: 0, medium: 0, high: 0, urgent: 0 },
    })
    const day = expectStatus(await o.get('/helpdesk/stats?from=2026-03-31&to=2026-03-31'), 200)
    assert.deepEqual([day.ticketsCreated, day.byPriority.urgent, day.slaBreachRate], [1, 1, 0])
    // A date-time is read as its UTC day.
    assert.deepEqual(expectStatus(await o.get('/helpdesk/stats?from=2026-03-31T08:00:00Z&to=2026-03-31'), 200).period, { from: '2026-03-31', to: '2026-03-31' })
  })

  test('default period: the last 30 days with today; bad ranges and an unknown team', async () => {
    const fresh = await createOrg(t.app)
    const today = new Date().toISOString().slice(0, 10)
    const first = new Date(Date.parse(today) - 29 * 24 * 3600 * 1000).toISOString().slice(0, 10)
    const now = await createTicket(fresh)
    const edge = await createTicket(fresh)
    const before = await createTicket(fresh)
    await setTimes(edge.id, { created_at: `${first}T00:00:00Z` })
    await setTimes(before.id, { created_at: new Date(Date.parse(`${first}T00:00:00Z`) - 1).toISOString() })
    const stats = expectStatus(await fresh.get('/helpdesk/stats'), 200)
    assert.deepEqual(stats.period, { from: first, to: today })
    assert.equal(stats.ticketsCreated, 2, `${now.id} and ${edge.id}, not ${before.id}`)
    expectStatus(await fresh.get('/helpdesk/stats?from=2026-03-02&to=2026-03-01'), 422)
    expectStatus(await fresh.get('/helpdesk/stats?from=2026-02-30'), 422)
    expectStatus(await fresh.get('/helpdesk/stats?from=yesterday'), 400)
    expectStatus(await fresh.get(`/helpdesk/stats?teamId=${UNKNOWN}`), 404)
    expectStatus(await fresh.get('/helpdesk/stats?extra=1'), 400)
  })
})

describe('SLA breach job', () => {
  test('records each passed deadline of an open ticket once, e-mails the assignee or the team, and a rerun sends nothing new', async () => {
    const o = await createOrg(t.app)
    const run = async () => expectStatus(await o.post('/admin/jobs/helpdesk-sla-breaches/run'), 200).result
    await run() // whatever other tests of this file left behind
    await createSla(o, { name: 'Urgent', firstResponseHours: 1, resolutionHours: 2, applies: ['urgent'] })
    const agent = await userWithToken(t.app, o, 'agent')
    const a2 = await userWithToken(t.app, o, 'agent')
    const s1 = await userWithToken(t.app, o, 'support')
    const team = await createTeam(o, { memberIds: [a2.id, s1.id] })
    const past = (id: string, fr: boolean, res: boolean) => db().query(
      `UPDATE helpdesk_tickets SET first_response_deadline = CASE WHEN $2 THEN now() - interval '1 hour' ELSE first_response_deadline END,
              resolution_deadline = CASE WHEN $3 THEN now() - interval '1 minute' ELSE resolution_deadline END WHERE id = $1`, [id, fr, res])

    const x = await createTicket(o, { priority: 'urgent' }) // assigned: both deadlines passed
    expectStatus(await o.post(`/helpdesk/tickets/${x.id}/assign`, { assigneeId: agent.id }), 200)
    await past(x.id, true, true)
    const y = await createTicket(o, { priority: 'urgent', teamId: team.id }) // team only: first response passed
    await past(y.id, true, false)
    const z = await createTicket(o, { priority: 'urgent' }) // nobody to tell: both passed
    await past(z.id, true, true)
    const w = await createTicket(o, { priority: 'urgent' }) // resolved: nothing to act on
    expectStatus(await o.patch(`/helpdesk/tickets/${w.id}`, { status: 'resolved' }), 200)
    await past(w.id, true, true)
    const v = await createTicket(o, { priority: 'urgent' }) // answered: its first response is not late
    expectStatus(await o.post(`/helpdesk/tickets/${v.id}/reply`, { body: 'On it' }), 201)
    await past(v.id, true, false)
    await createTicket(o, { priority: 'low' }) // no SLA

    assert.deepEqual(await run(), { breaches: 5, emails: 4 })
    const toAgent = expectPage(await o.get(`/admin/outbox?to=${encodeURIComponent(agent.email)}`), { total: 2, page: 1, limit: 20 })
    assert.deepEqual(toAgent.map((m) => m.subject).sort(), [`SLA breached: first response of ${x.ticketNumber} ${x.subject}`, `SLA breached: resolution of ${x.ticketNumber} ${x.subject}`])
    for (const member of [a2, s1]) {
      const mails = expectPage(await o.get(`/admin/outbox?to=${encodeURIComponent(member.email)}`), { total: 1, page: 1, limit: 20 })
      assert.equal(mails[0].subject, `SLA breached: first response of ${y.ticketNumber} ${y.subject}`)
    }
    const events = async () => (await db().query<{ resource_id: string; data: any }>(
      `SELECT resource_id, data FROM domain_events WHERE organization_id = $1 AND type = 'ticket.sla_breached' ORDER BY seq`, [o.id])).rows
    const first = await events()
    assert.deepEqual(first.map((e) => e.resource_id).sort(), [x.id, x.id, y.id, z.id, z.id].sort())
    const xEvent = first.find((e) => e.resource_id === x.id)!
    assert.deepEqual(xEvent.data.object, (await o.get(`/helpdesk/tickets/${x.id}`)).body)

    assert.deepEqual(await run(), { breaches: 0, emails: 0 }, 'a rerun sends nothing new')
    assert.equal((await events()).length, 5)
    // A new deadline (the priority changed) is a new breach when it passes too.
    await db().query(`UPDATE helpdesk_tickets SET resolution_deadline = now() - interval '5 seconds' WHERE id = $1`, [x.id])
    assert.deepEqual(await run(), { breaches: 1, emails: 1 })
    expectPage(await o.get(`/admin/outbox?to=${encodeURIComponent(agent.email)}`), { total: 3, page: 1, limit: 20 })
    expectStatus(await o.post('/admin/jobs/helpdesk-sla-breaches/run', {}, agent.token), 403)
  })

  test('concurrent runs record and send each breach once', async () => {
    const o = await createOrg(t.app)
    const run = async () => expectStatus(await o.post('/admin/jobs/helpdesk-sla-breaches/run'), 200).result
    await run()
    await createSla(o, { applies: ['medium'] })
    const agent = await userWithToken(t.app, o, 'agent')
    for (let i = 0; i < 6; i++) {
      const ticket = await createTicket(o)
      expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/assign`, { assigneeId: agent.id }), 200)
      await db().query(`UPDATE helpdesk_tickets SET resolution_deadline = now() - interval '1 minute' WHERE id = $1`, [ticket.id])
    }
    const results = await Promise.all([run(), run(), run()])
    assert.equal(results.reduce((s, r) => s + r.breaches, 0), 6)
    expectPage(await o.get(`/admin/outbox?to=${encodeURIComponent(agent.email)}`), { total: 6, page: 1, limit: 20 })
  })
})

describe('POST /support', () => {
  test('public: 201 {ticketNumber}; the contact is created, the ticket is new, the requester gets an acknowledgement', async () => {
    const o = await createOrg(t.app)
    const token = await captureToken(o)
    const res = await call(t.app, 'POST', '/support', { body: { captureToken: token, name: 'Ada Lovelace', email: 'ada@example.com', subject: 'Cannot log in', description: 'Since Monday', priority: 'high' } })
    const body = expectStatus(res, 201)
    assert.deepEqual(Object.keys(body), ['ticketNumber'])
    assert.match(body.ticketNumber, new RegExp(`^HD-${new Date().getUTCFullYear()}-00001$`))
    const [ticket] = expectPage(await o.get('/helpdesk/tickets'), { total: 1, page: 1, limit: 20 })
    assert.deepEqual([ticket.ticketNumber, ticket.status, ticket.priority, ticket.subject, ticket.description], [body.ticketNumber, 'new', 'high', 'Cannot log in', 'Since Monday'])
    const contacts = expectPage(await o.get('/contacts?email=ada@example.com'), { total: 1, page: 1, limit: 20 })
    assert.deepEqual(ticket.contact, { id: contacts[0].id, name: 'Ada Lovelace', email: 'ada@example.com' })
    const mail = expectPage(await o.get('/admin/outbox?to=ada@example.com'), { total: 1, page: 1, limit: 20 })[0]
    assert.equal(mail.subject, `[${body.ticketNumber}] We received your request: Cannot log in`)
    const { rows } = await db().query<{ type: string }>(`SELECT type FROM domain_events WHERE resource_id = $1`, [ticket.id])
    assert.deepEqual(rows.map((r) => r.type), ['ticket.created'])
  })

  test('an existing contact of the e-mail is reused (any case); priority defaults to medium', async () => {
    const o = await createOrg(t.app)
    const contact = await createContact(o, { name: 'Known Customer', email: 'known@example.com' })
    const body = expectStatus(await call(t.app, 'POST', '/support', { body: { captureToken: await captureToken(o), name: 'Someone', email: 'KNOWN@example.com', subject: 'Hi', description: 'x' } }), 201)
    const [ticket] = expectPage(await o.get('/helpdesk/tickets'), { total: 1, page: 1, limit: 20 })
    assert.equal(ticket.ticketNumber, body.ticketNumber)
    assert.equal(ticket.priority, 'medium')
    assert.deepEqual(ticket.contact, { id: contact.id, name: 'Known Customer', email: 'known@example.com' })
    expectPage(await o.get('/contacts'), { total: 1, page: 1, limit: 20 })
  })

  test('unknown token 404; missing or bad fields 422; a rotated token stops working', async () => {
    const o = await createOrg(t.app)
    const good = { captureToken: await captureToken(o), name: 'N', email: 'n@example.com', subject: 'S', description: 'D' }
    expectStatus(await call(t.app, 'POST', '/support', { body: { ...good, captureToken: 'cap_nope' } }), 404)
    for (const field of ['captureToken', 'name', 'email', 'subject']) {
      const body: Record<string, unknown> = { ...good }
      delete body[field]
      expectStatus(await call(t.app, 'POST', '/support', { body }), 422)
    }
    expectStatus(await call(t.app, 'POST', '/support', { body: { ...good, email: 'not-an-email' } }), 422)
    expectStatus(await call(t.app, 'POST', '/support', { body: { ...good, subject: ' ' } }), 422)
    expectStatus(await call(t.app, 'POST', '/support', { body: { ...good, priority: 'critical' } }), 422)
    expectStatus(await call(t.app, 'POST', '/support', { body: { ...good, contactId: UNKNOWN } }), 422)
    expectStatus(await o.post('/crm/capture-settings/rotate'), 200)
    expectStatus(await call(t.app, 'POST', '/support', { body: good }), 404)
    expectPage(await o.get('/helpdesk/tickets'), { total: 0, page: 1, limit: 20 })
  })

  test('5 requests per minute per IP, then 429 with the throttler message; another IP has its own budget', async () => {
    const limited = await buildTestApp({ RATE_LIMIT: 'on' })
    try {
      const o = await createOrg(limited.app)
      const token = await captureToken(o)
      const post = (ip: string, n: number) => limited.app.inject({
        method: 'POST', url: '/api/support', remoteAddress: ip,
        payload: { captureToken: token, name: 'Flood', email: `flood${n}@example.com`, subject: `Help ${n}`, description: 'x' },
      })
      for (let n = 0; n < 5; n++) {
        const res = await post('203.0.113.9', n)
        assert.equal(res.statusCode, 201, res.body)
        assert.equal(res.headers['x-ratelimit-limit'], '5')
      }
      const refused = await post('203.0.113.9', 5)
      assert.equal(refused.statusCode, 429)
      assert.equal(JSON.parse(refused.body).message, 'ThrottlerException: Too Many Requests')
      assert.equal((await post('198.51.100.3', 6)).statusCode, 201)
    } finally {
      await limited.close()
    }
  })
})
