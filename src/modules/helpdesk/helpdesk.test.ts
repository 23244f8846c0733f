import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { afterTimestamp, expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'
import { createContact } from '../../../test/helpers/sales-fixtures.ts'
import { createSla, createTeam, createTicket, userWithToken } from '../../../test/helpers/helpdesk.ts'

let t: TestApp
let org: TestOrg
let agent: { id: string; name: string; email: string; token: string }
let member: string
let customer: string
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app, 'Help Works Ltd')
  agent = await userWithToken(t.app, org, 'agent')
  member = await org.as('member')
  customer = await org.as('customer')
})
after(() => t.close())

const year = new Date().getUTCFullYear()
const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const HOUR = 3600 * 1000

describe('create and read', () => {
  test('201 new, HD-<year>-<seq> consecutive per organization, priority medium, contact {id, name, email}, no SLA without a policy', async () => {
    const o = await createOrg(t.app)
    const contact = await createContact(o, { name: 'Grace Hopper' })
    const first = expectStatus(await o.post('/helpdesk/tickets', { subject: 'Printer on fire', contactId: contact.id, description: 'Smoke', tags: ['hardware', 'urgent', 'hardware'] }), 201)
    assert.equal(first.ticketNumber, `HD-${year}-00001`)
    assert.equal(first.status, 'new')
    assert.equal(first.priority, 'medium')
    assert.deepEqual(first.contact, { id: contact.id, name: 'Grace Hopper', email: contact.email })
    assert.deepEqual([first.assignee, first.team, first.sla, first.resolution, first.closedAt], [null, null, null, null, null])
    assert.deepEqual(first.tags, ['hardware', 'urgent'])
    assert.equal(first.description, 'Smoke')
    assert.equal(first.organizationId, o.id)
    assert.deepEqual(expectStatus(await o.get(`/helpdesk/tickets/${first.id}`), 200), first)
    assert.equal((await createTicket(o)).ticketNumber, `HD-${year}-00002`)
    assert.equal((await createTicket(o, {}, await o.as('member'))).ticketNumber, `HD-${year}-00003`)
  })

  test('concurrent creations never share a number', async () => {
    const o = await createOrg(t.app)
    const contact = await createContact(o)
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => o.post('/helpdesk/tickets', { subject: `Parallel ${i}`, contactId: contact.id })))
    const numbers = made.map((r) => expectStatus(r, 201).ticketNumber).sort()
    assert.deepEqual(numbers, Array.from({ length: 12 }, (_, i) => `HD-${year}-${String(i + 1).padStart(5, '0')}`))
  })

  test('422 for a missing or blank subject, a missing or unknown contactId, an unknown teamId, an unknown field, a bad priority', async () => {
    const contact = await createContact(org)
    expectStatus(await org.post('/helpdesk/tickets', { contactId: contact.id }), 422)
    expectStatus(await org.post('/helpdesk/tickets', { subject: '   ', contactId: contact.id }), 422)
    expectStatus(await org.post('/helpdesk/tickets', { subject: 'x' }), 422)
    expectStatus(await org.post('/helpdesk/tickets', { subject: 'x', contactId: UNKNOWN }), 422, 'contactId')
    expectStatus(await org.post('/helpdesk/tickets', { subject: 'x', contactId: contact.id, teamId: UNKNOWN }), 422, 'teamId')
    expectStatus(await org.post('/helpdesk/tickets', { subject: 'x', contactId: contact.id, status: 'closed' }), 422)
    expectStatus(await org.post('/helpdesk/tickets', { subject: 'x', contactId: contact.id, priority: 'critical' }), 422)
    expectStatus(await org.post('/helpdesk/tickets', { subject: 'x', contactId: contact.id, ticketNumber: 'HD-1' }), 422)
  })

  test('401 without a credential, 404 for an unknown id, 400 for an id that is not a UUID', async () => {
    expectStatus(await call(t.app, 'GET', '/helpdesk/tickets'), 401)
    expectStatus(await call(t.app, 'POST', '/helpdesk/tickets', { body: { subject: 'x', contactId: UNKNOWN } }), 401)
    expectStatus(await org.get(`/helpdesk/tickets/${UNKNOWN}`), 404, 'Ticket not found')
    expectStatus(await org.get('/helpdesk/tickets/nope'), 400)
  })
})

describe('SLA deadlines', () => {
  test('the oldest policy whose applies holds the priority sets the deadlines from createdAt; sla null when none applies', async () => {
    const o = await createOrg(t.app)
    await createSla(o, { name: 'Gold', firstResponseHours: 1, resolutionHours: 8, applies: ['urgent', 'high'] })
    await createSla(o, { name: 'Silver', firstResponseHours: 4, resolutionHours: 48, applies: ['high', 'medium'] })
    const urgent = await createTicket(o, { priority: 'urgent' })
    const created = Date.parse(urgent.createdAt)
    assert.deepEqual(urgent.sla, {
      policyName: 'Gold',
      firstResponseDeadline: new Date(created + 1 * HOUR).toISOString(),
      firstResponseMet: null,
      resolutionDeadline: new Date(created + 8 * HOUR).toISOString(),
      resolutionBreached: false,
    })
    assert.equal((await createTicket(o, { priority: 'high' })).sla.policyName, 'Gold', 'the oldest of two')
    const medium = await createTicket(o, { priority: 'medium' })
    assert.equal(medium.sla.policyName, 'Silver')
    assert.equal(medium.sla.resolutionDeadline, new Date(Date.parse(medium.createdAt) + 48 * HOUR).toISOString())
    assert.equal((await createTicket(o, { priority: 'low' })).sla, null)
  })

  test('fractional hours; a new priority takes its policy, deadlines still from createdAt; a priority without one drops the SLA', async () => {
    const o = await createOrg(t.app)
    await createSla(o, { name: 'Fast', firstResponseHours: 0.5, resolutionHours: 2.25, applies: ['urgent'] })
    const ticket = await createTicket(o, { priority: 'low' })
    assert.equal(ticket.sla, null)
    const created = Date.parse(ticket.createdAt)
    const urgent = expectStatus(await o.patch(`/helpdesk/tickets/${ticket.id}`, { priority: 'urgent' }), 200)
    assert.equal(urgent.sla.policyName, 'Fast')
    assert.equal(urgent.sla.firstResponseDeadline, new Date(created + 0.5 * HOUR).toISOString())
    assert.equal(urgent.sla.resolutionDeadline, new Date(created + 2.25 * HOUR).toISOString())
    const same = expectStatus(await o.patch(`/helpdesk/tickets/${ticket.id}`, { subject: 'Renamed' }), 200)
    assert.deepEqual(same.sla, urgent.sla)
    assert.equal(expectStatus(await o.patch(`/helpdesk/tickets/${ticket.id}`, { priority: 'medium' }), 200).sla, null)
  })

  test('editing or deleting a policy leaves the deadlines of existing tickets', async () => {
    const o = await createOrg(t.app)
    const policy = await createSla(o, { name: 'Std', applies: ['medium'] })
    const ticket = await createTicket(o)
    expectStatus(await o.patch(`/helpdesk/sla/${policy.id}`, { resolutionHours: 100 }), 200)
    expectStatus(await o.del(`/helpdesk/sla/${policy.id}`), 204)
    assert.deepEqual((await o.get(`/helpdesk/tickets/${ticket.id}`)).body.sla, ticket.sla)
  })

  test('resolutionBreached and firstResponseMet as of the read: open past the deadline, done after it, reply in time or late', async () => {
    const o = await createOrg(t.app)
    await createSla(o, { name: 'Std', firstResponseHours: 2, resolutionHours: 10, applies: ['medium'] })
    // The ticket's whole history moves back by so many hours, as if that much time had passed.
    const back = (id: string, hours: number) => t.app.ctx.db.query(
      `UPDATE helpdesk_tickets SET ${['created_at', 'first_response_deadline', 'resolution_deadline', 'first_response_at', 'done_at', 'closed_at']
        .map((c) => `${c} = ${c} - make_interval(secs => $2 * 3600)`).join(', ')} WHERE id = $1`, [id, hours])
    const late = await createTicket(o)
    await back(late.id, 11)
    const lateNow = (await o.get(`/helpdesk/tickets/${late.id}`)).body
    assert.equal(lateNow.sla.resolutionBreached, true)
    assert.equal(lateNow.sla.firstResponseMet, null)
    // A late first reply: met is false; closing after the deadline keeps it breached.
    expectStatus(await o.post(`/helpdesk/tickets/${late.id}/reply`, { body: 'Looking' }), 201)
    assert.equal((await o.get(`/helpdesk/tickets/${late.id}`)).body.sla.firstResponseMet, false)
    expectStatus(await o.post(`/helpdesk/tickets/${late.id}/close`, { resolution: 'Late' }), 200)
    assert.equal((await o.get(`/helpdesk/tickets/${late.id}`)).body.sla.resolutionBreached, true)

    const onTime = await createTicket(o)
    expectStatus(await o.post(`/helpdesk/tickets/${onTime.id}/reply`, { body: 'On it' }), 201)
    expectStatus(await o.patch(`/helpdesk/tickets/${onTime.id}`, { status: 'resolved' }), 200)
    await back(onTime.id, 11)
    const done = (await o.get(`/helpdesk/tickets/${onTime.id}`)).body
    assert.equal(done.sla.firstResponseMet, true)
    assert.equal(done.sla.resolutionBreached, false, 'resolved before its deadline, which has passed since')
    // Back in the workflow past the deadline: breached again.
    expectStatus(await o.patch(`/helpdesk/tickets/${onTime.id}`, { status: 'in_progress' }), 200)
    assert.equal((await o.get(`/helpdesk/tickets/${onTime.id}`)).body.sla.resolutionBreached, true)
  })
})

describe('transitions', () => {
  const agentOrg = () => org
  const statusOf = async (id: string) => (await org.get(`/helpdesk/tickets/${id}`)).body.status
  const toStatus = async (status: string) => {
    const ticket = await createTicket(org)
    if (status === 'closed') expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/close`, {}), 200)
    else if (status !== 'new') expectStatus(await org.patch(`/helpdesk/tickets/${ticket.id}`, { status }), 200)
    return ticket.id as string
  }

  test('assign: an agent user; new becomes in_progress; team-only keeps new; a member user or unknown user is 422', async () => {
    const o = agentOrg()
    const team = await createTeam(o, { memberIds: [agent.id] })
    const ticket = await createTicket(o)
    const teamOnly = expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/assign`, { teamId: team.id }), 200)
    assert.equal(teamOnly.status, 'new')
    assert.deepEqual(teamOnly.team, { id: team.id, name: team.name })
    const assigned = expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/assign`, { assigneeId: agent.id }), 200)
    assert.equal(assigned.status, 'in_progress')
    assert.deepEqual(assigned.assignee, { id: agent.id, name: agent.name })
    assert.deepEqual(assigned.team, { id: team.id, name: team.name })
    const memberUser = await userWithToken(t.app, o, 'member')
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/assign`, { assigneeId: memberUser.id }), 422, 'role member')
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/assign`, { assigneeId: UNKNOWN }), 422)
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/assign`, { teamId: UNKNOWN }), 422)
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/assign`, {}), 422)
    // pending_customer stays where it is when reassigned.
    expectStatus(await o.patch(`/helpdesk/tickets/${ticket.id}`, { status: 'pending_customer' }), 200)
    assert.equal(expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/assign`, { assigneeId: agent.id }, agent.token), 200).status, 'pending_customer')
    expectStatus(await o.post(`/helpdesk/tickets/${UNKNOWN}/assign`, { assigneeId: agent.id }), 404)
  })

  test('PATCH moves among new, in_progress, pending_customer and resolved; closed is only through close (422)', async () => {
    const id = await toStatus('new')
    for (const status of ['in_progress', 'pending_customer', 'resolved', 'in_progress', 'new', 'resolved', 'pending_customer']) {
      assert.equal(expectStatus(await org.patch(`/helpdesk/tickets/${id}`, { status }), 200).status, status)
    }
    expectStatus(await org.patch(`/helpdesk/tickets/${id}`, { status: 'closed' }), 422)
    expectStatus(await org.patch(`/helpdesk/tickets/${id}`, {}), 422)
    expectStatus(await org.patch(`/helpdesk/tickets/${id}`, { ticketNumber: 'x' }), 422)
    const changed = expectStatus(await org.patch(`/helpdesk/tickets/${id}`, { subject: 'New subject', description: null, tags: ['a'], priority: 'low' }), 200)
    assert.deepEqual([changed.subject, changed.description, changed.tags, changed.priority], ['New subject', null, ['a'], 'low'])
    expectStatus(await org.patch(`/helpdesk/tickets/${UNKNOWN}`, { subject: 'x' }), 404)
  })

  test('close from every status but closed; close of a closed ticket is 400; a closed ticket takes no PATCH, assign or reply (409)', async () => {
    for (const status of ['new', 'in_progress', 'pending_customer', 'resolved']) {
      const id = await toStatus(status)
      const closed = expectStatus(await org.post(`/helpdesk/tickets/${id}/close`, { resolution: `Fixed from ${status}` }), 200)
      assert.equal(closed.status, 'closed')
      assert.equal(closed.resolution, `Fixed from ${status}`)
      assert.ok(closed.closedAt)
      expectStatus(await org.post(`/helpdesk/tickets/${id}/close`, { resolution: 'Again' }), 400, 'already closed')
      assert.equal(await statusOf(id), 'closed')
    }
    const id = await toStatus('closed')
    expectStatus(await org.patch(`/helpdesk/tickets/${id}`, { subject: 'x' }), 409)
    expectStatus(await org.post(`/helpdesk/tickets/${id}/assign`, { assigneeId: agent.id }), 409)
    expectStatus(await org.post(`/helpdesk/tickets/${id}/reply`, { body: 'x' }), 409)
    // No body at all is a close without resolution.
    const bare = await toStatus('in_progress')
    const res = await t.app.inject({ method: 'POST', url: `/api/helpdesk/tickets/${bare}/close`, headers: { authorization: `Bearer ${org.token}` } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(JSON.parse(res.body).resolution, null)
  })

  test('two concurrent closes: one 200, one 400', async () => {
    const id = await toStatus('in_progress')
    const results = await Promise.all([org.post(`/helpdesk/tickets/${id}/close`, {}), org.post(`/helpdesk/tickets/${id}/close`, {})])
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 400])
    const { rows } = await t.app.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM domain_events WHERE resource_id = $1 AND type = 'ticket.closed'`, [id])
    assert.equal(rows[0].n, 1)
  })

  test('reopen: closed with an assignee is in_progress, without one new; any other status is 400', async () => {
    const unassigned = await toStatus('closed')
    const reopened = expectStatus(await org.post(`/helpdesk/tickets/${unassigned}/reopen`, {}), 200)
    assert.equal(reopened.status, 'new')
    assert.deepEqual([reopened.closedAt, reopened.resolution], [null, null])
    const ticket = await createTicket(org)
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/assign`, { assigneeId: agent.id }), 200)
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/close`, {}), 200)
    assert.equal(expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reopen`), 200).status, 'in_progress')
    for (const status of ['new', 'in_progress', 'pending_customer', 'resolved']) {
      const id = await toStatus(status)
      expectStatus(await org.post(`/helpdesk/tickets/${id}/reopen`, {}), 400, 'Only closed tickets')
      assert.equal(await statusOf(id), status)
    }
    expectStatus(await org.post(`/helpdesk/tickets/${UNKNOWN}/reopen`, {}), 404)
  })

  test('rating: 409 before resolved, 201 on resolved or closed, once per ticket; 422 out of 1..5', async () => {
    const open = await toStatus('in_progress')
    expectStatus(await org.post(`/helpdesk/tickets/${open}/rating`, { rating: 5 }), 409)
    const resolved = await toStatus('resolved')
    expectStatus(await org.post(`/helpdesk/tickets/${resolved}/rating`, { rating: 0 }), 422)
    expectStatus(await org.post(`/helpdesk/tickets/${resolved}/rating`, { rating: 6 }), 422)
    expectStatus(await org.post(`/helpdesk/tickets/${resolved}/rating`, { rating: 4.5 }), 422)
    const rating = expectStatus(await org.post(`/helpdesk/tickets/${resolved}/rating`, { rating: 4, comment: 'Quick' }, member), 201)
    assert.deepEqual({ ...rating, createdAt: undefined, ratedBy: undefined }, { ticketId: resolved, rating: 4, comment: 'Quick', createdAt: undefined, ratedBy: undefined })
    expectStatus(await org.post(`/helpdesk/tickets/${resolved}/rating`, { rating: 5 }), 409, 'already rated')
    const closed = await toStatus('closed')
    expectStatus(await org.post(`/helpdesk/tickets/${closed}/rating`, { rating: 1 }), 201)
  })
})

describe('replies and messages', () => {
  test('201 {id, ticketId, body, internal, author, attachments, createdAt}; agents see notes, members and customers never do', async () => {
    const contact = await createContact(org)
    const ticket = await createTicket(org, { contactId: contact.id })
    const png = Buffer.from('89504e470d0a1a0a', 'hex')
    const reply = expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, {
      body: 'Try turning it off', attachments: [{ filename: 'steps.png', contentType: 'image/png', contentBase64: png.toString('base64') }],
    }, agent.token), 201)
    assert.equal(reply.ticketId, ticket.id)
    assert.equal(reply.body, 'Try turning it off')
    assert.equal(reply.internal, false)
    assert.deepEqual(reply.author, { id: agent.id, name: agent.name })
    assert.deepEqual(reply.attachments, [{ id: reply.attachments[0].id, filename: 'steps.png', contentType: 'image/png', size: 8, contentBase64: png.toString('base64') }])
    const content = await org.get(`/helpdesk/tickets/${ticket.id}/attachments/${reply.attachments[0].id}`, member)
    assert.equal(content.status, 200)
    assert.ok(content.raw.rawPayload.equals(png))
    await afterTimestamp(reply.createdAt)
    const note = expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'Customer sounds angry', internal: true }, agent.token), 201)
    assert.equal(note.internal, true)
    await afterTimestamp(note.createdAt)
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'Thanks' }, member), 201)

    const forAgent = expectPage(await org.get(`/helpdesk/tickets/${ticket.id}/messages`, agent.token), { total: 3, page: 1, limit: 20 })
    assert.deepEqual(forAgent.map((m) => m.body), ['Try turning it off', 'Customer sounds angry', 'Thanks'])
    // Lists carry the attachment's metadata only.
    assert.deepEqual(forAgent[0], { ...reply, attachments: [{ id: reply.attachments[0].id, filename: 'steps.png', contentType: 'image/png', size: 8 }] })
    const forMember = expectPage(await org.get(`/helpdesk/tickets/${ticket.id}/messages`, member), { total: 2, page: 1, limit: 20 })
    assert.deepEqual(forMember.map((m) => m.body), ['Try turning it off', 'Thanks'])
    assert.deepEqual(expectPage(await org.get(`/helpdesk/tickets/${ticket.id}/messages?sortOrder=desc&limit=1`, agent.token), { total: 3, page: 1, limit: 1 }).map((m) => m.body), ['Thanks'])
    expectStatus(await org.get(`/helpdesk/tickets/${UNKNOWN}/messages`), 404)
  })

  test('internal notes by a member or customer are 403; blank body 422; attachments above 5 MiB in all 422', async () => {
    const ticket = await createTicket(org)
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'x', internal: true }, member), 403)
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: ' ' }), 422)
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, {}), 422)
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'x', attachments: [{ filename: 'a', contentType: 'nope', contentBase64: '' }] }), 422)
    const file = (name: string, bytes: number) => ({ filename: name, contentType: 'application/octet-stream', contentBase64: Buffer.alloc(bytes, 1).toString('base64') })
    const MiB = 1024 * 1024
    // 5 MiB and one byte in two files: 422; exactly 5 MiB: 201; far beyond: the body limit (413).
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'x', attachments: [file('a.bin', 3 * MiB), file('b.bin', 2 * MiB + 1)] }), 422, '5 MiB')
    const ok = expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'x', attachments: [file('a.bin', 3 * MiB), file('b.bin', 2 * MiB)] }), 201)
    assert.deepEqual(ok.attachments.map((a: any) => a.size), [3 * MiB, 2 * MiB])
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'x', attachments: [file('a.bin', 4 * MiB), file('b.bin', 4 * MiB)] }), 413)
  })

  test("an agent's public reply is the first response (not a note); a customer's reply moves pending_customer to in_progress", async () => {
    const o = await createOrg(t.app)
    await createSla(o, { applies: ['medium'] })
    const customerUser = await userWithToken(t.app, o, 'customer')
    const contact = await createContact(o, { email: customerUser.email })
    const ticket = await createTicket(o, { contactId: contact.id })
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'note', internal: true }), 201)
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'me too' }, customerUser.token), 201)
    assert.equal((await o.get(`/helpdesk/tickets/${ticket.id}`)).body.sla.firstResponseMet, null)
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'Hello' }), 201)
    assert.equal((await o.get(`/helpdesk/tickets/${ticket.id}`)).body.sla.firstResponseMet, true)
    expectStatus(await o.patch(`/helpdesk/tickets/${ticket.id}`, { status: 'pending_customer' }), 200)
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'More info' }, await o.as('member')), 201)
    assert.equal((await o.get(`/helpdesk/tickets/${ticket.id}`)).body.status, 'pending_customer', "a member's reply is not the customer's")
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'Here it is' }, customerUser.token), 201)
    assert.equal((await o.get(`/helpdesk/tickets/${ticket.id}`)).body.status, 'in_progress')
  })
})

describe('roles', () => {
  test('agent-only routes give 403 to members and customers; support and agent users may use them', async () => {
    const ticket = await createTicket(org)
    for (const token of [member, customer]) {
      expectStatus(await org.patch(`/helpdesk/tickets/${ticket.id}`, { subject: 'x' }, token), 403)
      expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/assign`, { assigneeId: agent.id }, token), 403)
      expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/close`, {}, token), 403)
      expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/reopen`, {}, token), 403)
      expectStatus(await org.get('/helpdesk/stats', token), 403)
      expectStatus(await org.post('/helpdesk/teams', { name: 'x' }, token), 403)
      expectStatus(await org.post('/helpdesk/sla', { name: 'x', firstResponseHours: 1, resolutionHours: 2, applies: ['low'] }, token), 403)
    }
    const support = await org.as('support')
    expectStatus(await org.patch(`/helpdesk/tickets/${ticket.id}`, { subject: 'By support' }, support), 200)
    expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/assign`, { assigneeId: agent.id }, agent.token), 200)
    expectStatus(await org.get('/helpdesk/stats', agent.token), 200)
    // Teams and SLA policies: admin manages, agents and members read, customers do not.
    for (const token of [support, agent.token]) {
      expectStatus(await org.post('/helpdesk/teams', { name: 'x' }, token), 403)
      expectStatus(await org.post('/helpdesk/sla', { name: 'x', firstResponseHours: 1, resolutionHours: 2, applies: ['low'] }, token), 403)
    }
    for (const token of [support, agent.token, member]) {
      expectStatus(await org.get('/helpdesk/teams', token), 200)
      assert.ok(Array.isArray(expectStatus(await org.get('/helpdesk/sla', token), 200)))
    }
    expectStatus(await org.get('/helpdesk/teams', customer), 403)
    expectStatus(await org.get('/helpdesk/sla', customer), 403)
  })

  test("a customer sees, opens and answers only its own contact's tickets, and never an internal note", async () => {
    const o = await createOrg(t.app)
    const cust = await userWithToken(t.app, o, 'customer')
    const own = await createContact(o, { email: cust.email.toUpperCase() })
    const mine = await createTicket(o, { contactId: own.id })
    const theirs = await createTicket(o)
    expectStatus(await o.post(`/helpdesk/tickets/${mine.id}/reply`, { body: 'Internal view', internal: true }), 201)
    expectStatus(await o.post(`/helpdesk/tickets/${mine.id}/reply`, { body: 'Public answer' }), 201)

    const list = expectPage(await o.get('/helpdesk/tickets', cust.token), { total: 1, page: 1, limit: 20 })
    assert.deepEqual(list.map((x) => x.id), [mine.id])
    expectPage(await o.get(`/helpdesk/tickets?contactId=${theirs.contact.id}`, cust.token), { total: 0, page: 1, limit: 20 })
    expectStatus(await o.get(`/helpdesk/tickets/${mine.id}`, cust.token), 200)
    expectStatus(await o.get(`/helpdesk/tickets/${theirs.id}`, cust.token), 404)
    expectStatus(await o.get(`/helpdesk/tickets/${theirs.id}/messages`, cust.token), 404)
    expectStatus(await o.post(`/helpdesk/tickets/${theirs.id}/reply`, { body: 'x' }, cust.token), 404)
    const messages = expectPage(await o.get(`/helpdesk/tickets/${mine.id}/messages`, cust.token), { total: 1, page: 1, limit: 20 })
    assert.deepEqual(messages.map((m) => m.body), ['Public answer'])
    expectStatus(await o.post(`/helpdesk/tickets/${mine.id}/reply`, { body: 'x', internal: true }, cust.token), 403)

    const opened = expectStatus(await o.post('/helpdesk/tickets', { subject: 'Mine too', contactId: own.id }, cust.token), 201)
    assert.equal(opened.contact.id, own.id)
    expectStatus(await o.post('/helpdesk/tickets', { subject: 'Not mine', contactId: theirs.contact.id }, cust.token), 422, 'your own contact')
    // A customer may leave contactId out (it cannot list contacts): the ticket is its own contact's; staff may not.
    const implicit = expectStatus(await o.post('/helpdesk/tickets', { subject: 'No contact named' }, cust.token), 201)
    assert.equal(implicit.contact.id, own.id)
    expectStatus(await o.post('/helpdesk/tickets', { subject: 'Whose?' }), 422, 'contactId is required')
    // A customer without a contact of its e-mail sees nothing and opens nothing.
    const lonely = await userWithToken(t.app, o, 'customer')
    expectPage(await o.get('/helpdesk/tickets', lonely.token), { total: 0, page: 1, limit: 20 })
    expectStatus(await o.post('/helpdesk/tickets', { subject: 'Lonely' }, lonely.token), 422, 'You have no contact')
    expectStatus(await o.post('/helpdesk/tickets', { subject: 'Lonely', contactId: own.id }, lonely.token), 422, 'You have no contact')
  })
})

describe('list', () => {
  test('envelope, every filter, sort and search', async () => {
    const o = await createOrg(t.app)
    const a1 = await userWithToken(t.app, o, 'agent')
    await createSla(o, { name: 'Std', applies: ['high'] })
    const team = await createTeam(o, { memberIds: [a1.id] })
    const c1 = await createContact(o, { email: 'alpha@example.com' })
    const c2 = await createContact(o)
    const low = await createTicket(o, { contactId: c1.id, priority: 'low', subject: 'Keyboard sticky' })
    await afterTimestamp(low.createdAt)
    const high = await createTicket(o, { contactId: c2.id, priority: 'high', teamId: team.id, subject: 'Server down' })
    await afterTimestamp(high.createdAt)
    const assigned = await createTicket(o, { contactId: c2.id, priority: 'urgent' })
    expectStatus(await o.post(`/helpdesk/tickets/${assigned.id}/assign`, { assigneeId: a1.id }), 200)
    const closed = await createTicket(o, { contactId: c1.id, priority: 'high' })
    expectStatus(await o.post(`/helpdesk/tickets/${closed.id}/close`, {}), 200)
    // high breaches its resolution deadline while open; closed was closed after its deadline.
    await t.app.ctx.db.query(`UPDATE helpdesk_tickets SET resolution_deadline = now() - interval '1 minute' WHERE id = $1`, [high.id])
    await t.app.ctx.db.query(`UPDATE helpdesk_tickets SET resolution_deadline = done_at - interval '1 minute' WHERE id = $1`, [closed.id])

    const get = (q: string) => o.get(`/helpdesk/tickets${q}`)
    const ids = async (q: string) => {
      const res = await get(q)
      expectStatus(res, 200)
      return idsOf(res)
    }
    const all = expectPage(await get(''), { total: 4, page: 1, limit: 20 })
    assert.deepEqual(all.map((x) => x.id), [closed.id, assigned.id, high.id, low.id], 'newest first by default')
    assert.deepEqual(await ids('?status=new'), [low.id, high.id].sort())
    assert.deepEqual(await ids('?status=in_progress'), [assigned.id])
    assert.deepEqual(await ids('?status=closed'), [closed.id])
    assert.deepEqual(await ids('?priority=high'), [high.id, closed.id].sort())
    assert.deepEqual(await ids(`?teamId=${team.id}`), [high.id])
    assert.deepEqual(await ids(`?assigneeId=${a1.id}`), [assigned.id])
    assert.deepEqual(await ids(`?contactId=${c1.id}`), [low.id, closed.id].sort())
    assert.deepEqual(await ids('?overdueSla=true'), [high.id, closed.id].sort())
    assert.deepEqual(await ids('?overdueSla=false'), [low.id, assigned.id].sort())
    assert.deepEqual(await ids('?overdueSla=true&status=new'), [high.id])
    assert.deepEqual(await ids('?overdueSla=true&status=closed'), [closed.id])
    assert.deepEqual(await ids('?overdueSla=true&status=in_progress'), [])
    assert.deepEqual(await ids('?overdueSla=false&status=new'), [low.id])
    assert.deepEqual(await ids(`?overdueSla=true&priority=high&contactId=${c2.id}`), [high.id])
    assert.equal(expectStatus(await get('?overdueSla=true'), 200).data.every((x: any) => x.sla.resolutionBreached), true)
    assert.deepEqual(await ids(`?from=${encodeURIComponent(high.createdAt)}`), [high.id, assigned.id, closed.id].sort())
    assert.deepEqual(await ids('?from=2100-01-01'), [])
    assert.deepEqual(await ids('?search=server'), [high.id])
    assert.deepEqual(await ids('?search=alpha@'), [low.id, closed.id].sort())
    assert.deepEqual(await ids(`?search=${low.ticketNumber}`), [low.id])
    expectPage(await get('?limit=3&page=2'), { total: 4, page: 2, limit: 3 })
    for (const field of ['createdAt', 'updatedAt', 'ticketNumber']) await expectSortable((p) => o.get(p), '/helpdesk/tickets', field)
    for (const bad of ['status=open', 'priority=critical', 'overdueSla=maybe', 'teamId=nope', 'from=yesterday']) expectStatus(await get(`?${bad}`), 400)
    await expectListQueryRules((p) => o.get(p), '/helpdesk/tickets', 'subject')
  })

  test('overdueSla totals are exact through every change (the counters of open tickets with an SLA, minus those still ahead)', async () => {
    const o = await createOrg(t.app)
    await createSla(o, { name: 'Std', applies: ['medium', 'high'] })
    const pastDue = (id: string) => t.app.ctx.db.query(`UPDATE helpdesk_tickets SET resolution_deadline = now() - interval '1 minute' WHERE id = $1`, [id])
    const made: Array<{ id: string }> = []
    for (const [priority, status, due] of [
      ['medium', 'new', true], ['medium', 'new', false], ['high', 'in_progress', true], ['high', 'in_progress', true], ['medium', 'in_progress', false],
      ['low', 'in_progress', false], ['medium', 'pending_customer', true], ['high', 'resolved', false], ['medium', 'new', true],
    ] as const) {
      const ticket = await createTicket(o, { priority })
      if (status !== 'new') expectStatus(await o.patch(`/helpdesk/tickets/${ticket.id}`, { status }), 200)
      if (due) await pastDue(ticket.id)
      made.push(ticket)
    }
    // A ticket resolved after its deadline; one closed late then reopened (open and overdue again).
    const late = await createTicket(o)
    await pastDue(late.id)
    expectStatus(await o.patch(`/helpdesk/tickets/${late.id}`, { status: 'resolved' }), 200)
    const reopened = await createTicket(o)
    await pastDue(reopened.id)
    expectStatus(await o.post(`/helpdesk/tickets/${reopened.id}/close`, {}), 200)
    expectStatus(await o.post(`/helpdesk/tickets/${reopened.id}/reopen`), 200)
    // Overdue, then its priority loses the SLA: no longer counted; another one's priority gains it back in time.
    const dropped = made[0]
    expectStatus(await o.patch(`/helpdesk/tickets/${dropped.id}`, { priority: 'low' }), 200)
    expectStatus(await o.patch(`/helpdesk/tickets/${made[5].id}`, { priority: 'high' }), 200)
    const check = async () => {
      for (const q of ['', '&status=new', '&status=in_progress', '&status=pending_customer', '&status=resolved', '&status=closed']) {
        const res = expectStatus(await o.get(`/helpdesk/tickets?overdueSla=true&limit=100${q}`), 200)
        assert.equal(res.meta.total, res.data.length, `overdueSla=true${q}`)
        assert.ok(res.data.every((x: any) => x.sla.resolutionBreached), `overdueSla=true${q}`)
        const all = expectStatus(await o.get(`/helpdesk/tickets?limit=100${q}`), 200)
        assert.equal(res.meta.total, all.data.filter((x: any) => x.sla?.resolutionBreached).length, `overdueSla=true${q} against the full list`)
      }
    }
    await check()
    // Overdue: new (the last made), in_progress (two), pending_customer, resolved late, reopened (new).
    assert.equal(expectStatus(await o.get('/helpdesk/tickets?overdueSla=true'), 200).meta.total, 6)
    // Closing an overdue ticket keeps it overdue (closed late), now among the closed ones.
    expectStatus(await o.post(`/helpdesk/tickets/${made[2].id}/close`, {}), 200)
    await check()
    assert.equal(expectStatus(await o.get('/helpdesk/tickets?overdueSla=true&status=in_progress'), 200).meta.total, 1)
    assert.equal(expectStatus(await o.get('/helpdesk/tickets?overdueSla=true&status=closed'), 200).meta.total, 1)
    assert.equal(expectStatus(await o.get('/helpdesk/tickets?overdueSla=true'), 200).meta.total, 6)
  })
})

describe('teams and SLA policies', () => {
  test('teams: 201 {id, name, memberIds}, envelope, get, patch, delete (its tickets keep no team); members must be agents', async () => {
    const o = await createOrg(t.app)
    const a = await userWithToken(t.app, o, 'agent')
    const s = await userWithToken(t.app, o, 'support')
    const m = await userWithToken(t.app, o, 'member')
    const team = expectStatus(await o.post('/helpdesk/teams', { name: 'Tier 1', memberIds: [a.id, s.id, a.id] }), 201)
    assert.deepEqual({ name: team.name, memberIds: team.memberIds }, { name: 'Tier 1', memberIds: [a.id, s.id] })
    expectStatus(await o.post('/helpdesk/teams', { name: 'Bad', memberIds: [m.id] }), 422, 'role member')
    expectStatus(await o.post('/helpdesk/teams', { name: 'Bad', memberIds: [UNKNOWN] }), 422)
    expectStatus(await o.post('/helpdesk/teams', { name: 'Bad', memberIds: [agent.id] }), 422, 'does not name a user of this organization')
    expectStatus(await o.post('/helpdesk/teams', { name: '' }), 422)
    expectStatus(await o.post('/helpdesk/teams', { memberIds: [] }), 422)
    const other = expectStatus(await o.post('/helpdesk/teams', { name: 'Alpha' }), 201)
    assert.deepEqual(other.memberIds, [])
    expectPage(await o.get('/helpdesk/teams'), { total: 2, page: 1, limit: 20 })
    assert.deepEqual(expectStatus(await o.get('/helpdesk/teams?sortBy=name&sortOrder=asc'), 200).data.map((x: any) => x.name), ['Alpha', 'Tier 1'])
    assert.deepEqual(expectStatus(await o.get('/helpdesk/teams?search=tier'), 200).data.map((x: any) => x.id), [team.id])
    assert.deepEqual(expectStatus(await o.get(`/helpdesk/teams/${team.id}`), 200), team)
    const renamed = expectStatus(await o.patch(`/helpdesk/teams/${team.id}`, { name: 'Tier One', memberIds: [s.id] }), 200)
    assert.deepEqual([renamed.name, renamed.memberIds], ['Tier One', [s.id]])
    expectStatus(await o.patch(`/helpdesk/teams/${team.id}`, { memberIds: [m.id] }), 422)
    expectStatus(await o.patch(`/helpdesk/teams/${UNKNOWN}`, { name: 'x' }), 404)
    const ticket = await createTicket(o, { teamId: team.id })
    assert.deepEqual(ticket.team, { id: team.id, name: 'Tier One' })
    expectStatus(await o.del(`/helpdesk/teams/${team.id}`), 204)
    expectStatus(await o.get(`/helpdesk/teams/${team.id}`), 404)
    expectStatus(await o.del(`/helpdesk/teams/${team.id}`), 404)
    assert.equal((await o.get(`/helpdesk/tickets/${ticket.id}`)).body.team, null)
  })

  test('SLA policies: a bare array oldest first, create, patch, delete; bad hours or priorities are 422', async () => {
    const o = await createOrg(t.app)
    const gold = expectStatus(await o.post('/helpdesk/sla', { name: 'Gold', firstResponseHours: 1, resolutionHours: 4.5, applies: ['urgent'] }), 201)
    assert.deepEqual({ ...gold, id: undefined, createdAt: undefined, updatedAt: undefined }, { id: undefined, name: 'Gold', firstResponseHours: 1, resolutionHours: 4.5, applies: ['urgent'], createdAt: undefined, updatedAt: undefined })
    await afterTimestamp(gold.createdAt)
    const silver = await createSla(o, { name: 'Silver' })
    assert.deepEqual(expectStatus(await o.get('/helpdesk/sla'), 200).map((p: any) => p.id), [gold.id, silver.id])
    for (const bad of [{ firstResponseHours: 0 }, { resolutionHours: -1 }, { applies: [] }, { applies: ['high', 'high'] }, { applies: ['critical'] }, { name: '' }, { extra: 1 }]) {
      expectStatus(await o.post('/helpdesk/sla', { name: 'X', firstResponseHours: 1, resolutionHours: 2, applies: ['low'], ...bad }), 422)
    }
    const changed = expectStatus(await o.patch(`/helpdesk/sla/${gold.id}`, { applies: ['urgent', 'high'], name: 'Gold+' }), 200)
    assert.deepEqual([changed.name, changed.applies, changed.resolutionHours], ['Gold+', ['urgent', 'high'], 4.5])
    expectStatus(await o.patch(`/helpdesk/sla/${UNKNOWN}`, { name: 'x' }), 404)
    expectStatus(await o.del(`/helpdesk/sla/${gold.id}`), 204)
    expectStatus(await o.del(`/helpdesk/sla/${gold.id}`), 404)
    assert.deepEqual(expectStatus(await o.get('/helpdesk/sla'), 200).map((p: any) => p.id), [silver.id])
  })
})

describe('events', () => {
  test('ticket.created and ticket.closed carry the ticket as GET answers an admin', async () => {
    const ticket = await createTicket(org)
    const closed = expectStatus(await org.post(`/helpdesk/tickets/${ticket.id}/close`, { resolution: 'Done' }), 200)
    const { rows } = await t.app.ctx.db.query<{ type: string; data: any }>(`SELECT type, data FROM domain_events WHERE resource_id = $1 ORDER BY seq`, [ticket.id])
    assert.deepEqual(rows.map((r) => r.type), ['ticket.created', 'ticket.closed'])
    assert.deepEqual(rows[0].data.object, ticket)
    assert.deepEqual(rows[1].data.object, closed)
  })
})
