// Tenancy contract fixtures of the helpdesk module (see test/helpers/tenancy.ts).
import { unique, type TestOrg } from '../../../test/helpers/app.ts'
import { createSla, createTeam, createTicket } from '../../../test/helpers/helpdesk.ts'
import { createContact } from '../../../test/helpers/sales-fixtures.ts'
import { createUser, defineTenancyFixtures, foreignContact, type ForeignRecord } from '../../../test/helpers/tenancy.ts'

const ticket = async (o: TestOrg) => ({ id: (await createTicket(o)).id as string })
const closedTicket = async (o: TestOrg) => {
  const t = await createTicket(o)
  await o.post(`/helpdesk/tickets/${t.id}/close`, {})
  return { id: t.id as string }
}
const attachment = async (o: TestOrg) => {
  const t = await createTicket(o)
  const reply = await o.post(`/helpdesk/tickets/${t.id}/reply`, { body: 'See attached', attachments: [{ filename: 'notes.txt', contentType: 'text/plain', contentBase64: Buffer.from('secret notes').toString('base64') }] })
  if (reply.status !== 201) throw new Error(`reply: ${reply.status} ${JSON.stringify(reply.body)}`)
  return { id: t.id as string, attachmentId: reply.body.attachments[0].id as string }
}
const team = async (o: TestOrg) => ({ id: (await createTeam(o)).id })
const sla = async (o: TestOrg) => ({ id: (await createSla(o)).id })

const foreignTeam = async (other: TestOrg): Promise<ForeignRecord> => {
  const t = await createTeam(other, { name: unique('Secret team ') })
  return { id: t.id, secrets: [t.name] }
}
const foreignAgent = async (other: TestOrg): Promise<ForeignRecord> => {
  const u = await createUser(other, 'agent')
  return { id: u.id, secrets: [u.name, u.email] }
}

export default defineTenancyFixtures({
  paths: {
    '/helpdesk/tickets/:id': ticket,
    '/helpdesk/tickets/:id/assign': ticket,
    '/helpdesk/tickets/:id/reply': ticket,
    '/helpdesk/tickets/:id/messages': ticket,
    '/helpdesk/tickets/:id/attachments/:attachmentId': attachment,
    '/helpdesk/tickets/:id/close': ticket,
    '/helpdesk/tickets/:id/reopen': closedTicket,
    '/helpdesk/tickets/:id/rating': closedTicket,
    '/helpdesk/teams/:id': team,
    '/helpdesk/sla/:id': sla,
  },
  bodies: {
    'PATCH /helpdesk/tickets/:id': { subject: 'Changed' },
    'POST /helpdesk/tickets/:id/assign': { teamId: null },
    'POST /helpdesk/tickets/:id/reply': { body: 'Hello' },
    'POST /helpdesk/tickets/:id/rating': { rating: 5 },
    'PATCH /helpdesk/teams/:id': { name: 'Renamed' },
    'PATCH /helpdesk/sla/:id': { name: 'Renamed' },
  },
  references: {
    'POST /helpdesk/tickets': {
      body: async (o) => ({ subject: 'Help', contactId: (await createContact(o)).id, teamId: (await createTeam(o)).id }),
      unchanged: '/helpdesk/tickets',
      fields: { contactId: { status: 422, foreign: foreignContact }, teamId: { status: 422, foreign: foreignTeam } },
    },
    'PATCH /helpdesk/tickets/:id': {
      params: ticket,
      body: async (o) => ({ teamId: (await createTeam(o)).id }),
      unchanged: '/helpdesk/tickets/:id',
      fields: { teamId: { status: 422, foreign: foreignTeam } },
    },
    'POST /helpdesk/tickets/:id/assign': {
      params: ticket,
      body: async (o) => ({ assigneeId: (await createUser(o, 'agent')).id, teamId: (await createTeam(o)).id }),
      unchanged: '/helpdesk/tickets/:id',
      fields: { assigneeId: { status: 422, foreign: foreignAgent }, teamId: { status: 422, foreign: foreignTeam } },
    },
  },
  lists: {
    '/helpdesk/tickets': async (o) => {
      const subject = unique('Ticket ')
      const t = await createTicket(o, { subject })
      return [t.id, subject, t.ticketNumber]
    },
    '/helpdesk/teams': async (o) => {
      const t = await createTeam(o)
      return [t.id, t.name]
    },
    '/helpdesk/sla': async (o) => {
      const p = await createSla(o)
      return [p.id, p.name]
    },
    // Not a list: the statistics count the organization's tickets only.
    '/helpdesk/stats': {
      make: async (o) => {
        await createTicket(o)
        return []
      },
      count: (body) => body.ticketsCreated,
    },
  },
})
