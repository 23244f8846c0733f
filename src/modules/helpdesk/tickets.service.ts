import { randomBytes, randomUUID } from 'node:crypto'
import { hashToken } from '../../core/secrets.ts'
import { AGENTS, type Principal } from '../../core/auth.ts'
import type { Db, Queryable } from '../../core/db.ts'
import type { DomainEvents } from '../../core/events.ts'
import { AppError, ForbiddenError, InvalidStateError, NotFoundError, StateConflictError, ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import type { PageParams } from '../../core/pagination.ts'
import { nextNumber } from '../../core/sequences.ts'
import { parseTimestamp } from '../../core/dates.ts'
import { contactRef } from '../../core/documents/index.ts'
import { messagesRepository } from './messages.repository.ts'
import { ratingsRepository } from './ratings.repository.ts'
import { slaRepository } from './sla.repository.ts'
import { statsRepository } from './stats.repository.ts'
import { teamsRepository } from './teams.repository.ts'
import { ticketsRepository as tickets, toTicket, type SlaTerms, type TicketChanges, type TicketRow } from './tickets.repository.ts'
import {
  ATTACHMENTS_MAX_BYTES, TICKET_ATTACHMENTS_MAX_BYTES, type Assign, type Close, type CreateTicket, type HelpdeskStats, type MessageListQuery, type PostedMessage, type RatingInput, type Reply,
  type Priority, type StatsQuery, type SupportRequest, type Ticket, type TicketListQuery, type TicketStatus, type UpdateTicket,
} from './helpdesk.schemas.ts'
import type { TeamsService } from './teams.service.ts'

export type Deps = Pick<Services, 'contacts' | 'identity' | 'mail' | 'crm'>

export const isAgent = (p: Principal) => AGENTS.includes(p.role)

type TicketEvent = 'ticket.created' | 'ticket.closed' | 'ticket.sla_breached'

const DAY_MS = 24 * 3600 * 1000
const BREACH_BATCH = 200
/** How long the confirmation link of a public-form ticket stays valid. */
const CONFIRMATION_DAYS = 7
const MiB = 1024 * 1024


/**
 * The SLA policy of a ticket of this priority: the oldest policy (policies
 * come in the order they were created) whose applies holds the priority;
 * none when no policy applies. Its deadlines count from the ticket's creation.
 */
export const slaPolicyFor = (priority: Priority, policies: readonly SlaTerms[]) => policies.find((p) => p.applies.includes(priority))

/** Resolved and closed are done: the ticket keeps the moment it first became done (done_at). */
export const isDone = (status: TicketStatus) => status === 'resolved' || status === 'closed'

/** A reopened ticket goes back to in_progress when it has an assignee, else to new. */
export const reopenedStatus = (ticket: Pick<TicketRow, 'assignee_id'>): TicketStatus => (ticket.assignee_id === null ? 'new' : 'in_progress')

/** A customer's public reply moves pending_customer back to in_progress; other statuses stay. */
export const afterCustomerReply = (status: TicketStatus): TicketStatus => (status === 'pending_customer' ? 'in_progress' : status)

/** What a caller may see: everything for staff, the tickets of its own contact for a customer (null: it has none). */
interface Viewer {
  agent: boolean
  /** Set for customers only. */
  contactId?: string | null
}

/**
 * Tickets (docs/helpdesk.md "Tickets"): numbered HD-<year>-<seq>, with the SLA
 * deadlines of the policy of their priority; their replies and internal
 * notes, ratings, statistics, the public POST /support, and the job that
 * records SLA breaches and e-mails whoever must act. docs/helpdesk.md.
 *
 *   new -> in_progress (assign, PATCH) <-> pending_customer -> resolved
 *   any but closed -> closed (close) ; closed -> in_progress | new (reopen)
 */
export class TicketsService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly teams: TeamsService,
    private readonly deps: Deps,
    /** Where the mailed links point: PUBLIC_URL and the API prefix (without PUBLIC_URL, a path only). */
    private readonly linkBase: string,
  ) {}

  private async emit(q: Queryable, type: TicketEvent, ticket: Ticket) {
    await this.events.append(q, { organizationId: ticket.organizationId, type, resource: { type: 'ticket', id: ticket.id }, object: ticket })
    return ticket
  }

  private async load(q: Queryable, organizationId: string, id: string) {
    return toTicket((await tickets.find(q, organizationId, id))!)
  }

  /** A customer's contact: the contact of the organization with the e-mail of the customer's user. */
  private async viewer(p: Principal): Promise<Viewer> {
    if (p.role !== 'customer') return { agent: isAgent(p) }
    const user = p.userId ? await this.deps.identity.findUser(p.organizationId, p.userId) : undefined
    const contact = user ? (await this.deps.contacts.list(p.organizationId, { email: user.email, page: 1, limit: 1, sortOrder: 'asc' })).data[0] : undefined
    return { agent: false, contactId: contact?.id ?? null }
  }

  /** The ticket as the caller may see it: another organization's, or another contact's for a customer, is 404. */
  private async visible(q: Queryable, p: Principal, id: string, viewer?: Viewer, opts: { forUpdate?: boolean } = {}) {
    const row = await tickets.find(q, p.organizationId, id, opts)
    const v = viewer ?? (await this.viewer(p))
    // A customer sees its own contact's tickets, except those of the public form nobody has answered or confirmed yet.
    if (!row || (v.contactId !== undefined && (row.contact_id !== v.contactId || row.portal_hidden))) throw new NotFoundError('Ticket')
    return row
  }

  /** The calling user as an author ({id, name}), null for a credential without a user. */
  private async caller(p: Principal) {
    const user = p.userId ? await this.deps.identity.findUser(p.organizationId, p.userId) : undefined
    return user ? { id: user.id, name: user.name } : null
  }

  // ------------------------------------------------------------ tickets

  async create(p: Principal, input: CreateTicket) {
    const viewer = await this.viewer(p)
    // A customer's ticket is its own contact's: contactId may be left out (a customer cannot list contacts to learn it).
    if (viewer.contactId === null) throw new ValidationError('You have no contact in this organization (a contact with your e-mail): ask the organization to add one')
    if (viewer.contactId !== undefined && input.contactId !== undefined && input.contactId !== viewer.contactId) {
      throw new ValidationError('contactId must name your own contact (the contact with your e-mail)')
    }
    const contactId = viewer.contactId ?? input.contactId
    if (contactId === undefined) throw new ValidationError('contactId is required')
    return this.db.tx(async (q) => {
      const contact = await contactRef(this.deps.contacts, p.organizationId, contactId, q)
      if (input.teamId) await this.teams.referenced(q, p.organizationId, input.teamId)
      return this.insert(q, p.organizationId, {
        subject: input.subject, description: input.description ?? null, priority: input.priority ?? 'medium',
        contact, teamId: input.teamId ?? null, tags: input.tags ?? [], source: 'api',
      })
    })
  }

  private async insert(q: Queryable, organizationId: string, t: Omit<Parameters<typeof tickets.insert>[2], 'id' | 'ticketNumber'>) {
    const id = randomUUID()
    const policy = slaPolicyFor(t.priority, await tickets.slaPolicies(q, organizationId))
    await tickets.insert(q, organizationId, { ...t, id, ticketNumber: await nextNumber(q, organizationId, 'HD', '-'), tags: [...new Set(t.tags)] })
    await tickets.setSla(q, organizationId, id, policy)
    return this.emit(q, 'ticket.created', await this.load(q, organizationId, id))
  }

  async list(p: Principal, query: TicketListQuery & PageParams) {
    const viewer = await this.viewer(p)
    const from = query.from === undefined ? undefined : parseTimestamp(query.from, 'from')
    return tickets.list(this.db, p.organizationId, query, { from, contactOnly: viewer.contactId })
  }

  async get(p: Principal, id: string) {
    return toTicket(await this.visible(this.db, p, id))
  }

  /**
   * Subject, description, priority (the SLA follows: the policy of the new
   * priority, deadlines from createdAt), tags, team, and a status among new,
   * in_progress, pending_customer and resolved. A closed ticket is reopened
   * first (409).
   */
  async update(p: Principal, id: string, patch: UpdateTicket) {
    return this.db.tx(async (q) => {
      const row = await this.visible(q, p, id, { agent: true }, { forUpdate: true })
      if (row.status === 'closed') throw new StateConflictError('A closed ticket cannot be changed; reopen it first')
      if (patch.teamId) await this.teams.referenced(q, p.organizationId, patch.teamId)
      const changes: TicketChanges = {
        subject: patch.subject,
        description: patch.description,
        priority: patch.priority,
        tags: patch.tags && [...new Set(patch.tags)],
        teamId: patch.teamId,
        status: patch.status,
        done: patch.status !== undefined && isDone(patch.status),
      }
      await tickets.update(q, p.organizationId, id, changes)
      // A new priority takes the policy of that priority, deadlines counted from createdAt again.
      if (patch.priority !== undefined && patch.priority !== row.priority) await tickets.setSla(q, p.organizationId, id, slaPolicyFor(patch.priority, await tickets.slaPolicies(q, p.organizationId)))
      return this.load(q, p.organizationId, id)
    })
  }

  /** Sets the assignee (a user with an agent role, else 422) and or the team; an assigned new ticket becomes in_progress. */
  async assign(p: Principal, id: string, input: Assign) {
    let assignee: { id: string; name: string } | undefined
    if (input.assigneeId !== undefined) {
      const user = await this.deps.identity.findUser(p.organizationId, input.assigneeId)
      if (!user) throw new ValidationError('assigneeId does not name a user of this organization')
      if (!AGENTS.includes(user.role)) throw new ValidationError(`assigneeId names a user with role ${user.role}; only admin, support and agent users can be assigned`)
      assignee = { id: user.id, name: user.name }
    }
    return this.db.tx(async (q) => {
      const row = await this.visible(q, p, id, { agent: true }, { forUpdate: true })
      if (row.status === 'closed') throw new StateConflictError('A closed ticket cannot be assigned; reopen it first')
      if (input.teamId) await this.teams.referenced(q, p.organizationId, input.teamId)
      const hasAssignee = assignee !== undefined || row.assignee_id !== null
      await tickets.update(q, p.organizationId, id, { assignee, teamId: input.teamId, status: row.status === 'new' && hasAssignee ? 'in_progress' : undefined })
      return this.load(q, p.organizationId, id)
    })
  }

  /** Any status but closed becomes closed, with the resolution; closing a closed ticket is 400 (docs/helpdesk.md "States"). */
  async close(p: Principal, id: string, input: Close) {
    return this.db.tx(async (q) => {
      const row = await this.visible(q, p, id, { agent: true }, { forUpdate: true })
      if (row.status === 'closed' || !(await tickets.close(q, p.organizationId, id, input.resolution ?? null))) throw new InvalidStateError(`Ticket ${row.ticket_number} is already closed`)
      return this.emit(q, 'ticket.closed', await this.load(q, p.organizationId, id))
    })
  }

  /** Closed goes back to in_progress when it has an assignee, else new; any other status is 400. */
  async reopen(p: Principal, id: string) {
    return this.db.tx(async (q) => {
      const row = await this.visible(q, p, id, { agent: true }, { forUpdate: true })
      if (row.status !== 'closed' || !(await tickets.reopen(q, p.organizationId, id, reopenedStatus(row)))) throw new InvalidStateError(`Only closed tickets can be reopened; ticket ${row.ticket_number} is ${row.status}`)
      return this.load(q, p.organizationId, id)
    })
  }

  // ------------------------------------------------------------ messages

  /**
   * A reply, or with internal an agents-only note. An agent's first public
   * reply is the first response of the SLA; a customer's public reply moves
   * pending_customer to in_progress. Closed tickets take no reply (409).
   */
  async reply(p: Principal, id: string, input: Reply) {
    const internal = input.internal ?? false
    if (internal && !isAgent(p)) throw new ForbiddenError('Only agents (admin, support, agent) may write internal notes')
    const attachments = (input.attachments ?? []).map((a) => ({ filename: a.filename, contentType: a.contentType, content: Buffer.from(a.contentBase64, 'base64') }))
    const size = attachments.reduce((s, a) => s + a.content.length, 0)
    if (size > ATTACHMENTS_MAX_BYTES) throw new ValidationError(`attachments hold ${size} bytes; at most ${ATTACHMENTS_MAX_BYTES} (5 MiB) per reply`)
    const viewer = await this.viewer(p)
    const author = await this.caller(p)
    const message = await this.db.tx(async (q) => {
      const row = await this.visible(q, p, id, viewer, { forUpdate: true })
      if (row.status === 'closed') throw new StateConflictError('A closed ticket takes no reply; reopen it first')
      // The ticket's row lock (above) makes concurrent replies add their attachments one after the other.
      if (size > 0) {
        const held = await messagesRepository.attachmentBytes(q, p.organizationId, id)
        if (held + size > TICKET_ATTACHMENTS_MAX_BYTES) {
          throw new AppError('PAYLOAD_TOO_LARGE', `Ticket attachments are limited to ${TICKET_ATTACHMENTS_MAX_BYTES} bytes (${TICKET_ATTACHMENTS_MAX_BYTES / MiB} MiB) in all; the ticket holds ${held} and this reply adds ${size}`)
        }
      }
      const message = await messagesRepository.insertMessage(q, {
        id: randomUUID(), organizationId: p.organizationId, ticketId: id, body: input.body, internal,
        author: { id: author?.id ?? null, name: author?.name ?? null, role: p.role }, attachments,
      })
      if (!internal && viewer.agent) await tickets.agentReplied(q, p.organizationId, id)
      else if (!internal && p.role === 'customer') await tickets.customerReplied(q, p.organizationId, id, afterCustomerReply(row.status))
      else await tickets.touch(q, p.organizationId, id)
      return message
    })
    // The answer echoes each attachment's content to its sender (listed in the order sent).
    const posted: PostedMessage = { ...message, attachments: message.attachments.map((a, i) => ({ ...a, contentBase64: attachments[i].content.toString('base64') })) }
    return posted
  }

  async messages(p: Principal, id: string, query: MessageListQuery) {
    const viewer = await this.viewer(p)
    await this.visible(this.db, p, id, viewer)
    return messagesRepository.listMessages(this.db, p.organizationId, id, query, viewer.agent)
  }

  /** An attachment's filename and bytes, under the rules of the messages list: an internal note's is 404 for others than agents. */
  async attachment(p: Principal, ticketId: string, attachmentId: string) {
    const viewer = await this.viewer(p)
    await this.visible(this.db, p, ticketId, viewer)
    const found = await messagesRepository.findAttachment(this.db, p.organizationId, ticketId, attachmentId)
    if (!found || (found.internal && !viewer.agent)) throw new NotFoundError('Attachment')
    return { filename: found.filename, content: found.content }
  }

  /** One rating per ticket, once it is resolved or closed (else 409); a second rating is 409. */
  async rate(p: Principal, id: string, input: RatingInput) {
    const viewer = await this.viewer(p)
    const ratedBy = await this.caller(p)
    return this.db.tx(async (q) => {
      const row = await this.visible(q, p, id, viewer, { forUpdate: true })
      if (row.status !== 'resolved' && row.status !== 'closed') throw new StateConflictError(`Only resolved or closed tickets can be rated; ticket ${row.ticket_number} is ${row.status}`)
      const createdAt = await ratingsRepository.insertRating(q, p.organizationId, id, input.rating, input.comment ?? null, ratedBy?.id ?? null)
      if (!createdAt) throw new StateConflictError(`Ticket ${row.ticket_number} is already rated`)
      return { ticketId: id, rating: input.rating, comment: input.comment ?? null, ratedBy, createdAt: createdAt.toISOString() }
    })
  }

  // ------------------------------------------------------------ stats

  /** The statistics of the period (whole UTC days, default the last 30 days with today): docs/helpdesk.md "Statistics". */
  async stats(organizationId: string, query: StatsQuery): Promise<HelpdeskStats> {
    const day = (value: string, field: string) => parseTimestamp(value, field).toISOString().slice(0, 10)
    const to = query.to ? day(query.to, 'to') : new Date().toISOString().slice(0, 10)
    const from = query.from ? day(query.from, 'from') : new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10)
    if (from > to) throw new ValidationError('from must not be after to')
    const period = { from, to }
    if (query.teamId) await this.teams.get(organizationId, query.teamId)
    const [created, ticketsClosed, ratings] = await Promise.all([
      statsRepository.createdStats(this.db, organizationId, period, query.teamId),
      statsRepository.closedCount(this.db, organizationId, period, query.teamId),
      statsRepository.ratings(this.db, organizationId, period, query.teamId),
    ])
    const num = (v: string | null) => (v === null ? null : Number(v))
    return {
      period,
      ticketsCreated: created.created,
      ticketsClosed,
      avgFirstResponseMinutes: num(created.avg_first_response_minutes),
      avgResolutionHours: num(created.avg_resolution_hours),
      slaBreachRate: created.with_sla === 0 ? 0 : created.breached / created.with_sla,
      csat: ratings.n === 0 ? null : ratings.total / ratings.n,
      byPriority: { low: created.low, medium: created.medium, high: created.high, urgent: created.urgent },
    }
  }

  // ------------------------------------------------------------ POST /support

  /**
   * The public form: the capture token names the organization (404 when it
   * names none), the contact is the one with the e-mail or a new one, and the
   * requester gets an acknowledgement through the outbox with the ticket.
   */
  async support(input: SupportRequest) {
    const organizationId = await this.deps.crm.organizationOfCaptureToken(input.captureToken)
    if (!organizationId) throw new NotFoundError('Capture token')
    const contact = await this.deps.contacts.findOrCreateByEmail(organizationId, { name: input.name, email: input.email })
    // Whoever sends the form may give any e-mail: the ticket stays out of that customer's portal
    // until the address confirms it (this link) or an agent answers it publicly.
    const token = randomBytes(32).toString('base64url')
    return this.db.tx(async (q) => {
      const ticket = await this.insert(q, organizationId, {
        subject: input.subject, description: input.description ?? null, priority: input.priority ?? 'medium',
        contact: { id: contact.id, name: contact.name, email: contact.email }, teamId: null, tags: [], source: 'support',
        confirmation: { hash: hashToken(token), validDays: CONFIRMATION_DAYS },
      })
      await this.deps.mail.enqueue(q, {
        organizationId,
        to: input.email,
        subject: `[${ticket.ticketNumber}] We received your request: ${input.subject}`,
        text: `Hello ${input.name},\n\nWe received your request "${input.subject}" and opened ticket ${ticket.ticketNumber}. `
          + `Please quote this number in any message about it.\n\n`
          + `To follow it in your customer portal, confirm that you sent it (the link works once, for ${CONFIRMATION_DAYS} days):\n`
          + `${this.linkBase}/support/confirmations/${token}\n\n`
          + `If you did not send this request, ignore this e-mail: nothing will be shown to you.\n`,
      })
      return { ticketNumber: ticket.ticketNumber }
    })
  }

  /** The ticket number of a confirmation link that is still valid (404 otherwise); reads only. */
  async confirmation(token: string) {
    const ticketNumber = await tickets.findConfirmation(this.db, hashToken(token))
    if (!ticketNumber) throw new NotFoundError('Confirmation')
    return { ticketNumber }
  }

  /** Spends a confirmation link: its ticket shows in the customer portal. A used, expired or unknown link is 404. */
  async confirm(token: string) {
    const ticketNumber = await tickets.confirm(this.db, hashToken(token))
    if (!ticketNumber) throw new NotFoundError('Confirmation')
    return { ticketNumber }
  }

  // ------------------------------------------------------------ SLA breaches

  /**
   * The scheduled job: every deadline passed on an open ticket (first response
   * without an agent's reply, resolution) is recorded once, with a
   * ticket.sla_breached event and an e-mail to the assignee, or to the
   * members of the ticket's team when it has no assignee. The breach row is
   * the guard: a rerun, or another process, finds it and sends nothing.
   */
  /** The SLA breach job: the tickets of one organization (an admin's run), or of every one (organizationId undefined). */
  async recordSlaBreaches(organizationId?: string) {
    let breaches = 0
    let emails = 0
    for (;;) {
      const due = await slaRepository.dueBreaches(this.db, BREACH_BATCH, organizationId)
      for (const b of due) {
        const recipients = await this.recipients(b.organization_id, b.assignee_id, b.team_id)
        const sent = await this.db.tx(async (q) => {
          if (!(await slaRepository.recordBreach(q, { ticketId: b.ticket_id, organizationId: b.organization_id, kind: b.kind, deadline: b.deadline, notified: recipients.length }))) return undefined
          const ticket = await this.emit(q, 'ticket.sla_breached', await this.load(q, b.organization_id, b.ticket_id))
          const what = b.kind === 'first_response' ? 'first response' : 'resolution'
          for (const to of recipients) {
            await this.deps.mail.enqueue(q, {
              organizationId: b.organization_id,
              to,
              subject: `SLA breached: ${what} of ${ticket.ticketNumber} ${ticket.subject}`,
              text: `The ${what} deadline of ticket ${ticket.ticketNumber} ("${ticket.subject}", priority ${ticket.priority}, `
                + `SLA policy ${ticket.sla?.policyName ?? ''}) passed at ${new Date(b.deadline).toISOString()}.\n`,
            })
          }
          return recipients.length
        })
        if (sent !== undefined) {
          breaches++
          emails += sent
        }
      }
      if (due.length < BREACH_BATCH) break
    }
    return { breaches, emails }
  }

  /** The e-mail of the assignee, or of each member of the team when there is no assignee. */
  private async recipients(organizationId: string, assigneeId: string | null, teamId: string | null) {
    const ids = assigneeId ? [assigneeId] : teamId ? await teamsRepository.memberIds(this.db, organizationId, teamId) : []
    const users = await Promise.all(ids.map((id) => this.deps.identity.findUser(organizationId, id)))
    return [...new Set(users.flatMap((u) => (u ? [u.email] : [])))]
  }
}
