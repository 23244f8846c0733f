import type { App } from '../../core/module.ts'
import { ADMIN, AGENTS, INTERNAL, ROLES, principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import { optionalBody } from '../../core/optional-body.ts'
import { attachmentDisposition, escapeHtml, htmlPage, sendHtml } from '../../core/html.ts'
import type { TicketsService } from './tickets.service.ts'
import type { SlaService } from './sla.service.ts'
import type { TeamsService } from './teams.service.ts'
import { ATTACHMENTS_MAX_BYTES } from './helpdesk.schemas.ts'
import * as S from './helpdesk.schemas.ts'

const tags = ['helpdesk']
const org = (req: Parameters<typeof principalOf>[0]) => principalOf(req).organizationId
const agentsOnly = { access: { roles: AGENTS } }
// A reply carries up to 5 MiB of attachments in base64 (4/3 larger) besides its text; the
// decoded total is checked by the service (422), a body far beyond it stops here (413).
const REPLY_BODY_LIMIT = Math.ceil(ATTACHMENTS_MAX_BYTES / 3) * 4 + 1024 * 1024

export function helpdeskRoutes(app: App, helpdesk: TicketsService, teams: TeamsService, sla: SlaService) {
  // ---------------------------------------------------------- tickets
  app.get('/helpdesk/tickets', {
    schema: {
      operationId: 'listTickets', tags, summary: 'List tickets',
      description: 'Filters: status, priority, teamId, assigneeId, contactId, overdueSla (true: tickets whose resolution deadline is breached at the moment of the request), from (created at or after). search matches subject, ticket number and contact e-mail. A customer sees the tickets of its own contact only.',
      querystring: S.TicketListQuery, response: responses({ 200: S.TicketList }, [422]),
    },
    config: { access: { roles: ROLES } },
  }, async (req) => helpdesk.list(principalOf(req), req.query))

  app.post('/helpdesk/tickets', {
    schema: {
      operationId: 'createTicket', tags, summary: 'Open a ticket',
      description: 'Status new, number HD-<year>-<sequence>, priority default medium. The oldest SLA policy whose applies holds the priority sets the deadlines from createdAt (sla null when none applies). contactId must name a contact of the organization (422; missing: 422); a customer may leave it out, and may only name its own contact (the one with its e-mail; a customer without one: 422).',
      body: S.CreateTicketBody, response: responses({ 201: S.Ticket }, [422]),
    },
    config: { access: { roles: ROLES } },
  }, async (req, reply) => reply.status(201).send(await helpdesk.create(principalOf(req), req.body)))

  app.get('/helpdesk/tickets/:id', {
    schema: {
      operationId: 'getTicket', tags, summary: 'Get a ticket',
      description: "A ticket of the caller's organization (a customer: of its own contact); any other id gives 404.",
      params: IdParams, response: responses({ 200: S.Ticket }, [404]),
    },
    config: { access: { roles: ROLES } },
  }, async (req) => helpdesk.get(principalOf(req), req.params.id))

  app.patch('/helpdesk/tickets/:id', {
    schema: {
      operationId: 'updateTicket', tags, summary: 'Change a ticket',
      description: 'Agents only. subject, description, priority (the SLA follows the new priority, deadlines from createdAt), tags, teamId, status among new, in_progress, pending_customer and resolved (closed only through close). A closed ticket: 409 (reopen it first).',
      params: IdParams, body: S.UpdateTicketBody, response: responses({ 200: S.Ticket }, [404, 409, 422]),
    },
    config: agentsOnly,
  }, async (req) => helpdesk.update(principalOf(req), req.params.id, req.body))

  app.post('/helpdesk/tickets/:id/assign', {
    schema: {
      operationId: 'assignTicket', tags, summary: 'Assign a ticket',
      description: 'Agents only. assigneeId must name a user with an agent role (admin, support, agent), else 422; teamId a team (null: none). A new ticket that has an assignee becomes in_progress. A closed ticket: 409.',
      params: IdParams, body: S.AssignBody, response: responses({ 200: S.Ticket }, [404, 409, 422]),
    },
    config: agentsOnly,
  }, async (req) => helpdesk.assign(principalOf(req), req.params.id, req.body))

  app.post('/helpdesk/tickets/:id/reply', {
    schema: {
      operationId: 'replyToTicket', tags, summary: 'Reply to a ticket',
      description: "A public reply, or with internal=true a note only agents see (others: 403). Attachments: {filename, contentType, contentBase64}, at most 10 and 5 MiB in all per reply (422 beyond); a ticket holds at most 50 MiB of attachments in all, notes included (413 for the reply that would pass it; nothing is kept). The answer is the message as GET .../messages lists it, each attachment as {id, filename, contentType, size} and, in this answer only, the contentBase64 it was sent with (lists never carry content). An agent's first public reply is the SLA's first response, and shows a ticket of the public form in the customer portal. A customer's public reply moves pending_customer to in_progress. A closed ticket: 409.",
      params: IdParams, body: S.ReplyBody, response: responses({ 201: S.PostedMessage }, [404, 409, 413, 422]),
    },
    config: { access: { roles: ROLES } },
    bodyLimit: REPLY_BODY_LIMIT,
  }, async (req, reply) => reply.status(201).send(await helpdesk.reply(principalOf(req), req.params.id, req.body)))

  app.get('/helpdesk/tickets/:id/messages', {
    schema: {
      operationId: 'listTicketMessages', tags, summary: "List a ticket's messages",
      description: 'The replies the caller may see, oldest first by default: agents see internal notes too, others only public replies. Each attachment is {id, filename, contentType, size}; GET /helpdesk/tickets/{id}/attachments/{attachmentId} serves its content.',
      params: IdParams, querystring: S.MessageListQuery, response: responses({ 200: S.TicketMessageList }, [404]),
    },
    config: { access: { roles: ROLES } },
  }, async (req) => helpdesk.messages(principalOf(req), req.params.id, req.query))

  app.get('/helpdesk/tickets/:id/attachments/:attachmentId', {
    schema: {
      operationId: 'getTicketAttachment', tags, summary: "Download an attachment of a ticket's message",
      description: "The attachment's bytes, as a download: Content-Type application/octet-stream whatever type it was given (the messages list gives that type), Content-Disposition attachment with its filename, X-Content-Type-Options nosniff. Under the rules of the messages list: 404 for an attachment of a message the caller may not see (an internal note for a member or customer), and for a ticket the caller may not see.",
      params: S.AttachmentParams, produces: ['application/octet-stream'],
      response: { ...responses({}, [404]), 200: { description: 'The attachment', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } } },
    },
    config: { access: { roles: ROLES } },
  }, async (req, reply) => {
    const file = await helpdesk.attachment(principalOf(req), req.params.id, req.params.attachmentId)
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', attachmentDisposition(file.filename))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'private, no-store')
      .send(file.content as never) // bytes, not the JSON the type provider expects
  })

  app.post('/helpdesk/tickets/:id/close', {
    schema: {
      operationId: 'closeTicket', tags, summary: 'Close a ticket',
      description: 'Agents only. Any status but closed becomes closed, with the resolution. An already closed ticket: 400.',
      params: IdParams, body: S.CloseBody, response: responses({ 200: S.Ticket }, [404, 422]),
    },
    ...optionalBody,
    config: { ...optionalBody.config, ...agentsOnly },
  }, async (req) => helpdesk.close(principalOf(req), req.params.id, req.body ?? {}))

  app.post('/helpdesk/tickets/:id/reopen', {
    schema: {
      operationId: 'reopenTicket', tags, summary: 'Reopen a closed ticket',
      description: 'Agents only. A closed ticket becomes in_progress when it has an assignee, else new. Any other status: 400. No body.',
      params: IdParams, response: responses({ 200: S.Ticket }, [404]),
    },
    config: agentsOnly,
  }, async (req) => helpdesk.reopen(principalOf(req), req.params.id))

  app.post('/helpdesk/tickets/:id/rating', {
    schema: {
      operationId: 'rateTicket', tags, summary: 'Rate a resolved or closed ticket',
      description: 'rating 1 to 5 and an optional comment, once per ticket. A ticket that is not resolved or closed, or already rated: 409.',
      params: IdParams, body: S.RatingBody, response: responses({ 201: S.TicketRating }, [404, 409, 422]),
    },
    config: { access: { roles: ROLES } },
  }, async (req, reply) => reply.status(201).send(await helpdesk.rate(principalOf(req), req.params.id, req.body)))

  app.get('/helpdesk/stats', {
    schema: {
      operationId: 'getHelpdeskStats', tags, summary: 'Helpdesk statistics of a period',
      description: 'Agents only. from..to are whole UTC days, both included (default: the last 30 days, today included); teamId keeps one team. Figures as defined in docs/helpdesk.md.',
      querystring: S.StatsQuery, response: responses({ 200: S.HelpdeskStats }, [404, 422]),
    },
    config: agentsOnly,
  }, async (req) => helpdesk.stats(org(req), req.query))

  // ---------------------------------------------------------- teams
  app.get('/helpdesk/teams', {
    schema: {
      operationId: 'listHelpdeskTeams', tags, summary: 'List teams',
      description: 'Agents and members. search matches the name.',
      querystring: S.TeamListQuery, response: responses({ 200: S.TeamList }),
    },
    config: { access: { roles: INTERNAL } },
  }, async (req) => teams.list(org(req), req.query))

  app.post('/helpdesk/teams', {
    schema: {
      operationId: 'createHelpdeskTeam', tags, summary: 'Create a team',
      description: 'Admin only. memberIds: users of the organization with an agent role (422 otherwise).',
      body: S.CreateTeamBody, response: responses({ 201: S.Team }, [422]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => reply.status(201).send(await teams.create(org(req), req.body)))

  app.get('/helpdesk/teams/:id', {
    schema: {
      operationId: 'getHelpdeskTeam', tags, summary: 'Get a team',
      description: 'Agents and members.',
      params: IdParams, response: responses({ 200: S.Team }, [404]),
    },
    config: { access: { roles: INTERNAL } },
  }, async (req) => teams.get(org(req), req.params.id))

  app.patch('/helpdesk/teams/:id', {
    schema: {
      operationId: 'updateHelpdeskTeam', tags, summary: 'Change a team',
      description: 'Admin only. name, memberIds (replaces the members).',
      params: IdParams, body: S.UpdateTeamBody, response: responses({ 200: S.Team }, [404, 422]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req) => teams.update(org(req), req.params.id, req.body))

  app.delete('/helpdesk/teams/:id', {
    schema: {
      operationId: 'deleteHelpdeskTeam', tags, summary: 'Delete a team',
      description: 'Admin only. Its tickets are left without a team.',
      params: IdParams, response: responses({ 204: NoContent }, [404]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => {
    await teams.delete(org(req), req.params.id)
    return reply.status(204).send()
  })

  // ---------------------------------------------------------- SLA policies
  app.get('/helpdesk/sla', {
    schema: {
      operationId: 'listSlaPolicies', tags, summary: 'List SLA policies',
      description: 'Agents and members. A bare array (no list envelope), oldest first: the order in which a priority finds its policy.',
      response: responses({ 200: S.SlaPolicyArray }),
    },
    config: { access: { roles: INTERNAL } },
  }, async (req) => sla.list(org(req)))

  app.post('/helpdesk/sla', {
    schema: {
      operationId: 'createSlaPolicy', tags, summary: 'Create an SLA policy',
      description: 'Admin only. New tickets of a priority in applies take the oldest policy that holds it.',
      body: S.CreateSlaBody, response: responses({ 201: S.SlaPolicy }, [422]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => reply.status(201).send(await sla.create(org(req), req.body)))

  app.patch('/helpdesk/sla/:id', {
    schema: {
      operationId: 'updateSlaPolicy', tags, summary: 'Change an SLA policy',
      description: 'Admin only. Tickets already open keep the deadlines they were given.',
      params: IdParams, body: S.UpdateSlaBody, response: responses({ 200: S.SlaPolicy }, [404, 422]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req) => sla.update(org(req), req.params.id, req.body))

  app.delete('/helpdesk/sla/:id', {
    schema: {
      operationId: 'deleteSlaPolicy', tags, summary: 'Delete an SLA policy',
      description: 'Admin only. Tickets keep the policy name and deadlines they were given.',
      params: IdParams, response: responses({ 204: NoContent }, [404]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => {
    await sla.delete(org(req), req.params.id)
    return reply.status(204).send()
  })

  // ---------------------------------------------------------- public form
  app.post('/support', {
    schema: {
      operationId: 'submitSupportRequest', tags, summary: 'Open a ticket from the public support form',
      description: "Public, 5 requests per minute per IP. captureToken is the organization's public token (GET /crm/capture-settings; unknown: 404). The contact is the one with the e-mail, or a new one; the requester is e-mailed an acknowledgement with the ticket number.",
      body: S.SupportBody, response: responses({ 201: S.SupportResult }, [404, 422], { public: true }),
    },
    config: { access: { public: true }, limit: 'support' },
  }, async (req, reply) => reply.status(201).send(await helpdesk.support(req.body)))

  app.get('/support/confirmations/:token', {
    schema: {
      operationId: 'getSupportConfirmationPage', tags, summary: 'The page of a support request\'s confirmation link',
      description: 'Public. The link mailed with the acknowledgement of POST /support opens this HTML page: it changes nothing (mail scanners fetch links) and shows a button that posts to the same address. Used, expired (after 7 days) or unknown: 404.',
      security: [], params: S.ConfirmationParams, produces: ['text/html'],
      response: { ...responses({}, [404], { public: true }), 200: { description: 'An HTML page', content: { 'text/html': { schema: S.HtmlPage } } } },
    },
    config: { access: { public: true } },
  }, async (req, reply) => sendHtml(reply, confirmationPage((await helpdesk.confirmation(req.params.token)).ticketNumber)))

  app.post('/support/confirmations/:token', {
    schema: {
      operationId: 'confirmSupportRequest', tags, summary: 'Confirm a support request from its mailed link',
      description: "Public, 5 requests per minute per IP (like POST /support); no body (the page's button posts an empty form). Spends the link: the ticket shows in the customer portal of the address's customer (tickets of the public form stay out of it until confirmed, or answered publicly by an agent). Answers an HTML page. Used, expired (after 7 days) or unknown: 404.",
      security: [], params: S.ConfirmationParams,
      response: { ...responses({}, [404, 415], { public: true }), 200: { description: 'An HTML page', content: { 'text/html': { schema: S.HtmlPage } } } },
    },
    // A browser's form posts an empty application/x-www-form-urlencoded body: no body.
    onRequest: optionalBody.onRequest,
    config: { access: { public: true }, limit: 'support' },
  }, async (req, reply) => sendHtml(reply, confirmedPage((await helpdesk.confirm(req.params.token)).ticketNumber)))
}

// Only the ticket number: the subject and text are whatever the sender of the form wrote.
const BUTTON_CSS = ' button { background: #3451e0; color: #fff; }'
const confirmationPage = (ticketNumber: string) => htmlPage('Confirm your support request', `<h1>Confirm your support request</h1>
<p>Did you send support request ${escapeHtml(ticketNumber)}? Confirm it to follow it in your customer portal.</p>
<form method="post"><button type="submit">Yes, I sent it</button></form>
<p class="note">If you did not send it, close this page: nothing will be shown to you.</p>`, BUTTON_CSS)

const confirmedPage = (ticketNumber: string) => htmlPage('Support request confirmed', `<h1>Thank you</h1>
<p>Support request ${escapeHtml(ticketNumber)} is confirmed: you can follow it in your customer portal.</p>`)
