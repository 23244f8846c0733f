import { Type, type Static } from 'typebox'
import type { PublicEventType } from '../../core/events.ts'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { ContactRef } from '../../core/documents/index.ts'

const Uuid = (description?: string) => Type.String({ format: 'uuid', maxLength: 36, ...(description ? { description } : {}) })

export const TICKET_STATUSES = ['new', 'in_progress', 'pending_customer', 'resolved', 'closed'] as const
export type TicketStatus = (typeof TICKET_STATUSES)[number]
export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const
export type Priority = (typeof PRIORITIES)[number]
/** The statuses PATCH may set; closed only through close (docs/helpdesk.md "States"). */
export const PATCHABLE_STATUSES = ['new', 'in_progress', 'pending_customer', 'resolved'] as const

const Priority = (description: string) => StringEnum(PRIORITIES, { description })
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description })
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20, description: 'Labels, at most 20 of 50 characters; repeats are kept once' })
const Hours = (description: string) => Type.Number({ exclusiveMinimum: 0, maximum: 87_600, description })

// ---------------------------------------------------------------- tickets

export const UserRef = Named('UserRef', Type.Object({ id: Uuid(), name: Type.String() }))
export const TeamRef = Named('TeamRef', Type.Object({ id: Uuid(), name: Type.String() }))

export const TicketSla = Named('TicketSla', Type.Object({
  policyName: Type.String(),
  firstResponseDeadline: Timestamp,
  firstResponseMet: Nullable(Type.Boolean({ description: 'True once the first public reply of an agent came by the deadline, false when it came later, null before it' })),
  resolutionDeadline: Timestamp,
  resolutionBreached: Type.Boolean({ description: 'True when the ticket was not resolved or closed by the deadline, as of the moment of the answer' }),
}))

export const Ticket = Named('Ticket', Type.Object({
  id: Uuid(),
  ticketNumber: Type.String({ description: 'HD-<year>-<sequence>' }),
  subject: Type.String(),
  description: Nullable(Type.String()),
  status: StringEnum(TICKET_STATUSES),
  priority: Priority('low, medium, high or urgent'),
  contact: ContactRef,
  assignee: Nullable(UserRef),
  team: Nullable(TeamRef),
  tags: Type.Array(Type.String()),
  sla: Nullable(TicketSla),
  resolution: Nullable(Type.String({ description: 'Given by close' })),
  closedAt: Nullable(Timestamp),
  organizationId: Uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Ticket = Static<typeof Ticket>
export const TicketList = Named('TicketList', listOf(Ticket))

export const TICKET_SORTABLE = ['createdAt', 'updatedAt', 'ticketNumber'] as const
export const TicketListQuery = listQuery(TICKET_SORTABLE, {
  status: Type.Optional(StringEnum(TICKET_STATUSES)),
  priority: Type.Optional(Priority('Only tickets of this priority')),
  teamId: Type.Optional(Uuid('Only tickets of this team')),
  assigneeId: Type.Optional(Uuid('Only tickets assigned to this user')),
  contactId: Type.Optional(Uuid('Only tickets of this contact')),
  overdueSla: Type.Optional(Type.Boolean({ description: 'true: only tickets whose sla.resolutionBreached is true at the moment of the request; false: only the others (tickets without SLA included)' })),
  from: Type.Optional({ ...TimestampInput, description: 'Created at or after (a date means its midnight UTC)' }),
})
export type TicketListQuery = Static<typeof TicketListQuery>

export const CreateTicketBody = Type.Object(
  {
    subject: Name('Required, not blank'),
    contactId: Type.Optional(Uuid('A contact of the organization; required, except for a customer, whose own contact (the one with its e-mail) it defaults to and who may name no other')),
    description: Type.Optional(Nullable(Type.String({ maxLength: 20_000 }))),
    priority: Type.Optional(Priority('Defaults to medium')),
    teamId: Type.Optional(Nullable(Uuid('A team of the organization'))),
    tags: Type.Optional(Tags),
  },
  { additionalProperties: false },
)
export type CreateTicket = Static<typeof CreateTicketBody>

export const UpdateTicketBody = Type.Object(
  {
    subject: Type.Optional(Name('Not blank')),
    description: Type.Optional(Nullable(Type.String({ maxLength: 20_000 }))),
    priority: Type.Optional(Priority('A new priority takes the SLA policy of that priority; its deadlines count from createdAt')),
    tags: Type.Optional(Tags),
    teamId: Type.Optional(Nullable(Uuid('A team of the organization, or null for none'))),
    status: Type.Optional(StringEnum(PATCHABLE_STATUSES, { description: 'closed only through POST /helpdesk/tickets/:id/close' })),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateTicket = Static<typeof UpdateTicketBody>

export const AssignBody = Type.Object(
  {
    assigneeId: Type.Optional(Uuid('A user of the organization with an agent role (admin, support, agent)')),
    teamId: Type.Optional(Nullable(Uuid('A team of the organization, or null for none'))),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type Assign = Static<typeof AssignBody>

export const CloseBody = Type.Object(
  { resolution: Type.Optional(Nullable(Type.String({ maxLength: 20_000, description: 'How the ticket was resolved' }))) },
  { additionalProperties: false },
)
export type Close = Static<typeof CloseBody>

// ---------------------------------------------------------------- messages

/** 5 MiB of attachments per reply, in base64 at most this many characters. */
export const ATTACHMENTS_MAX_BYTES = 5 * 1024 * 1024
const BASE64_MAX = Math.ceil(ATTACHMENTS_MAX_BYTES / 3) * 4

export const AttachmentInput = Type.Object(
  {
    filename: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
    contentType: Type.String({ minLength: 3, maxLength: 100, pattern: '^[\\w.+-]+/[\\w.+-]+$', description: 'MIME type, e.g. image/png' }),
    contentBase64: Type.String({ maxLength: BASE64_MAX, pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'The file, base64; 5 MiB in all per reply' }),
  },
  { additionalProperties: false },
)

/** A ticket holds at most 50 MiB of attachments in all (more: 413). */
export const TICKET_ATTACHMENTS_MAX_BYTES = 50 * 1024 * 1024

/** An attachment as messages list it: what it is, never its content (GET .../attachments/:attachmentId serves that). */
const attachmentFields = {
  id: Uuid('GET /helpdesk/tickets/{id}/attachments/{attachmentId} serves its content'),
  filename: Type.String(),
  contentType: Type.String({ description: 'As the uploader gave it' }),
  size: Type.Integer({ description: 'Bytes' }),
}
export const Attachment = Named('TicketAttachment', Type.Object(attachmentFields))
export type Attachment = Static<typeof Attachment>

export const AttachmentParams = Type.Object(
  { id: Uuid('The ticket'), attachmentId: Uuid('An attachment of one of its messages') },
  { additionalProperties: false },
)

const messageFields = {
  id: Uuid(),
  ticketId: Uuid(),
  body: Type.String(),
  internal: Type.Boolean({ description: 'An internal note: only agents see it' }),
  author: Nullable(UserRef),
  attachments: Type.Array(Attachment),
  createdAt: Timestamp,
}
export const TicketMessage = Named('TicketMessage', Type.Object(messageFields))
export type TicketMessage = Static<typeof TicketMessage>
export const TicketMessageList = Named('TicketMessageList', listOf(TicketMessage))

/**
 * The reply's own 201 answer (docs/helpdesk.md "Tickets"): each attachment as the
 * list shows it and, for the caller who just sent it, its content in base64.
 * Only this answer carries content; lists never do.
 */
export const PostedAttachment = Named('PostedTicketAttachment', Type.Object({
  ...attachmentFields,
  contentBase64: Type.String({ description: 'The file as the reply sent it' }),
}))
export const PostedMessage = Named('PostedTicketMessage', Type.Object({
  ...messageFields,
  attachments: Type.Array(PostedAttachment),
}))
export type PostedMessage = Static<typeof PostedMessage>
export const MessageListQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000_000, default: 1, description: '1-based page number' }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, at most 100' }),
    sortOrder: StringEnum(['asc', 'desc'] as const, { default: 'asc', description: 'By createdAt; oldest first by default' }),
  },
  { additionalProperties: false },
)
export type MessageListQuery = Static<typeof MessageListQuery>

export const ReplyBody = Type.Object(
  {
    body: Type.String({ minLength: 1, maxLength: 50_000, pattern: '\\S', description: 'Required, not blank' }),
    internal: Type.Optional(Type.Boolean({ default: false, description: 'true makes a note only agents see (agents only)' })),
    attachments: Type.Optional(Type.Array(AttachmentInput, { maxItems: 10 })),
  },
  { additionalProperties: false },
)
export type Reply = Static<typeof ReplyBody>

// ---------------------------------------------------------------- ratings

export const RatingBody = Type.Object(
  {
    rating: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  },
  { additionalProperties: false },
)
export type RatingInput = Static<typeof RatingBody>

export const TicketRating = Named('TicketRating', Type.Object({
  ticketId: Uuid(),
  rating: Type.Integer({ minimum: 1, maximum: 5 }),
  comment: Nullable(Type.String()),
  ratedBy: Nullable(UserRef),
  createdAt: Timestamp,
}))

// ---------------------------------------------------------------- teams

export const Team = Named('HelpdeskTeam', Type.Object({
  id: Uuid(),
  name: Type.String(),
  memberIds: Type.Array(Uuid(), { description: 'Users with an agent role' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Team = Static<typeof Team>
export const TeamList = Named('HelpdeskTeamList', listOf(Team))
export const TEAM_SORTABLE = ['name', 'createdAt'] as const
export const TeamListQuery = listQuery(TEAM_SORTABLE, {})
export type TeamListQuery = Static<typeof TeamListQuery>

const MemberIds = Type.Array(Uuid(), { maxItems: 100, description: 'Users of the organization with an agent role (admin, support, agent)' })
export const CreateTeamBody = Type.Object(
  { name: Name('Required, not blank'), memberIds: Type.Optional(MemberIds) },
  { additionalProperties: false },
)
export type CreateTeam = Static<typeof CreateTeamBody>
export const UpdateTeamBody = Type.Object(
  { name: Type.Optional(Name('Not blank')), memberIds: Type.Optional(MemberIds) },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateTeam = Static<typeof UpdateTeamBody>

// ---------------------------------------------------------------- SLA policies

export const SlaPolicy = Named('SlaPolicy', Type.Object({
  id: Uuid(),
  name: Type.String(),
  firstResponseHours: Type.Number(),
  resolutionHours: Type.Number(),
  applies: Type.Array(StringEnum(PRIORITIES), { description: 'The priorities it applies to' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type SlaPolicy = Static<typeof SlaPolicy>
export const SlaPolicyArray = Named('SlaPolicyArray', Type.Array(SlaPolicy))

const Applies = Type.Array(StringEnum(PRIORITIES), { minItems: 1, maxItems: 4, uniqueItems: true, description: 'Priorities the policy applies to (the oldest policy wins when several hold one)' })
export const CreateSlaBody = Type.Object(
  {
    name: Name('Required, not blank'),
    firstResponseHours: Hours('Hours from creation to the first public reply of an agent'),
    resolutionHours: Hours('Hours from creation to resolved or closed'),
    applies: Applies,
  },
  { additionalProperties: false },
)
export type CreateSla = Static<typeof CreateSlaBody>
export const UpdateSlaBody = Type.Object(
  {
    name: Type.Optional(Name('Not blank')),
    firstResponseHours: Type.Optional(Hours('Hours from creation to the first public reply of an agent')),
    resolutionHours: Type.Optional(Hours('Hours from creation to resolved or closed')),
    applies: Type.Optional(Applies),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateSla = Static<typeof UpdateSlaBody>

// ---------------------------------------------------------------- stats

const Day = (description: string) => ({ ...TimestampInput, description })
export const StatsQuery = Type.Object(
  {
    from: Type.Optional(Day('First day, included (YYYY-MM-DD); defaults to 29 days before `to`')),
    to: Type.Optional(Day('Last day, included (YYYY-MM-DD); defaults to today (UTC)')),
    teamId: Type.Optional(Uuid('Only tickets of this team')),
  },
  { additionalProperties: false },
)
export type StatsQuery = Static<typeof StatsQuery>

export const HelpdeskStats = Named('HelpdeskStats', Type.Object({
  period: Type.Object({ from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }) }),
  ticketsCreated: Type.Integer({ description: 'Tickets created in the period' }),
  ticketsClosed: Type.Integer({ description: 'Tickets closed in the period (and not reopened since)' }),
  avgFirstResponseMinutes: Nullable(Type.Number({ description: 'Mean minutes from creation to the first public agent reply, over tickets created in the period that have one; two decimals; null when none' })),
  avgResolutionHours: Nullable(Type.Number({ description: 'Mean hours from creation to close, over tickets created in the period that are closed; two decimals; null when none' })),
  slaBreachRate: Type.Number({ minimum: 0, maximum: 1, description: 'Among tickets created in the period with an SLA: the share whose resolution deadline is breached (0 when none)' }),
  csat: Nullable(Type.Number({ description: 'Mean rating (1 to 5) of the ratings given in the period; null when none' })),
  byPriority: Type.Object({ low: Type.Integer(), medium: Type.Integer(), high: Type.Integer(), urgent: Type.Integer() }),
}))
export type HelpdeskStats = Static<typeof HelpdeskStats>

// ---------------------------------------------------------------- POST /support

export const SupportBody = Type.Object(
  {
    captureToken: Type.String({ minLength: 1, maxLength: 100, description: "The organization's public token (GET /crm/capture-settings)" }),
    name: Name("The requester's name"),
    email: Type.String({ format: 'email', maxLength: 254 }),
    subject: Name('Required, not blank'),
    description: Type.Optional(Nullable(Type.String({ maxLength: 20_000 }))),
    priority: Type.Optional(Priority('Defaults to medium')),
  },
  { additionalProperties: false },
)
export type SupportRequest = Static<typeof SupportBody>
export const SupportResult = Named('SupportTicketResult', Type.Object({ ticketNumber: Type.String({ description: 'HD-<year>-<sequence>' }) }))

/** The token of a confirmation link: 32 random bytes, base64url (43 characters). */
export const ConfirmationParams = Type.Object(
  { token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', minLength: 43, maxLength: 43, description: 'The token of the link mailed with the acknowledgement' }) },
  { additionalProperties: false },
)
export const HtmlPage = Type.String({ description: 'An HTML page' })

/** Event types of tickets (docs/webhooks.md); data.object is the ticket as GET answers an agent. */
export const helpdeskEventTypes: PublicEventType[] = [
  { type: 'ticket.created', version: 1, object: Ticket, description: 'A ticket was created (POST /helpdesk/tickets or the public support form).' },
  { type: 'ticket.closed', version: 1, object: Ticket, description: 'A ticket was closed.' },
  { type: 'ticket.sla_breached', version: 1, object: Ticket, description: 'A deadline of the ticket\'s SLA passed while it was open (first response or resolution); sent once per deadline.' },
]
