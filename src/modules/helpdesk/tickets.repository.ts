import { iso, type Queryable } from '../../core/db.ts'
import { Where, counterTotal, paginate, type PageParams } from '../../core/pagination.ts'
import type { Priority, Ticket, TicketListQuery, TicketStatus } from './helpdesk.schemas.ts'

export interface TicketRow {
  id: string
  organization_id: string
  ticket_number: string
  subject: string
  description: string | null
  status: TicketStatus
  priority: Priority
  contact_id: string
  contact_name: string
  contact_email: string | null
  assignee_id: string | null
  assignee_name: string | null
  team_id: string | null
  team_name: string | null
  tags: string[]
  sla_policy_name: string | null
  first_response_deadline: Date | null
  resolution_deadline: Date | null
  first_response_at: Date | null
  done_at: Date | null
  closed_at: Date | null
  resolution: string | null
  resolution_breached: boolean
  /** A ticket of the public form that no agent has answered publicly nor the address confirmed: out of the customer portal. */
  portal_hidden: boolean
  created_at: Date
  updated_at: Date
}

/**
 * resolutionBreached (docs/helpdesk.md "SLA"), exact at read time: an open
 * ticket past its deadline, or one resolved or closed after it. The two
 * branches are what the partial indexes of migrations/0090 answer.
 */
const OPEN_LATE = 't.done_at IS NULL AND t.resolution_deadline < now()'
const DONE_LATE = 't.done_at > t.resolution_deadline'
const BREACHED = `((${OPEN_LATE}) OR ${DONE_LATE})`
const OPEN_STATUSES = new Set<TicketStatus>(['new', 'in_progress', 'pending_customer'])

// The team's name is read in the select list, not joined: a join would keep the total
// (count(*) over the same FROM) from being an index-only scan.
export const TICKET_FROM = 'helpdesk_tickets t'
export const TICKET_SELECT = `t.*, (SELECT tm.name FROM helpdesk_teams tm WHERE tm.organization_id = t.organization_id AND tm.id = t.team_id) AS team_name, coalesce(${BREACHED}, false) AS resolution_breached`

export function toTicket(r: TicketRow): Ticket {
  return {
    id: r.id,
    ticketNumber: r.ticket_number,
    subject: r.subject,
    description: r.description,
    status: r.status,
    priority: r.priority,
    contact: { id: r.contact_id, name: r.contact_name, email: r.contact_email },
    assignee: r.assignee_id ? { id: r.assignee_id, name: r.assignee_name ?? '' } : null,
    team: r.team_id ? { id: r.team_id, name: r.team_name ?? '' } : null,
    tags: r.tags,
    sla: r.sla_policy_name === null
      ? null
      : {
          policyName: r.sla_policy_name,
          firstResponseDeadline: iso(r.first_response_deadline!),
          firstResponseMet: r.first_response_at === null ? null : r.first_response_at <= r.first_response_deadline!,
          resolutionDeadline: iso(r.resolution_deadline!),
          resolutionBreached: r.resolution_breached,
        },
    resolution: r.resolution,
    closedAt: iso(r.closed_at),
    organizationId: r.organization_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }
}

/**
 * The overdueSla condition. Only open statuses have done_at null and only
 * resolved and closed have it set (a CHECK of the table), so with a status
 * filter one branch is enough, and it is a range of one partial index.
 */
function overdueCondition(overdue: boolean, status: TicketStatus | undefined) {
  const breached = status === undefined ? BREACHED : OPEN_STATUSES.has(status) ? `(${OPEN_LATE})` : DONE_LATE
  return overdue ? breached : `NOT coalesce(${breached}, false)`
}

/**
 * The exact total of overdueSla=true alone or with an open status, without
 * counting every breached ticket: open tickets with an SLA are counted per
 * status by the list counters (sla_state, migrations/0090), from which the
 * open ones whose deadline is still ahead (the last few hours' tickets) are
 * taken away; without a status, the tickets resolved or closed late are
 * added. Other filters count the rows (undefined).
 */
function overdueTotal(organizationId: string, query: TicketListQuery, contactOnly: string | null | undefined) {
  const others = [query.priority, query.teamId, query.assigneeId, query.contactId, query.from, query.search || undefined, contactOnly]
  if (query.overdueSla !== true || others.some((v) => v !== undefined)) return undefined
  if (query.status !== undefined && !OPEN_STATUSES.has(query.status)) return undefined
  const statuses = query.status ? [query.status] : [...OPEN_STATUSES]
  return async (q: Queryable) => {
    const count = async (sql: string, params: unknown[]) => (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM helpdesk_tickets WHERE organization_id = $1 AND ${sql}`, [organizationId, ...params])).rows[0].n
    const [withSla, ahead, doneLate] = await Promise.all([
      counterTotal(q, 'helpdesk_tickets', organizationId, statuses.map((s) => `sla_state=${s}`)),
      query.status
        ? count('status = $2 AND done_at IS NULL AND resolution_deadline >= now()', [query.status])
        : count('done_at IS NULL AND resolution_deadline >= now()', []),
      query.status ? 0 : count('done_at > resolution_deadline', []),
    ])
    return withSla - ahead + doneLate
  }
}

export interface NewTicket {
  id: string
  ticketNumber: string
  subject: string
  description: string | null
  priority: Priority
  contact: { id: string; name: string; email: string | null }
  teamId: string | null
  tags: string[]
  source: 'api' | 'support'
  /** Public-form tickets: kept out of the customer portal until confirmed by the token of this hash, or answered by an agent. */
  confirmation?: { hash: string; validDays: number }
}

export interface TicketChanges {
  subject?: string
  description?: string | null
  priority?: Priority
  tags?: string[]
  teamId?: string | null
  status?: TicketStatus
  assignee?: { id: string; name: string }
  /** With status: whether the new status is a done one (done_at kept from the first time, else cleared). */
  done?: boolean
}

/** An SLA policy as a ticket takes it (hours as the database holds them: numeric text). */
export interface SlaTerms {
  id: string
  name: string
  first_response_hours: string
  resolution_hours: string
  applies: Priority[]
}

export const ticketsRepository = {
  async find(q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
    const { rows } = await q.query<TicketRow>(
      `SELECT ${TICKET_SELECT} FROM ${TICKET_FROM} WHERE t.organization_id = $1 AND t.id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`,
      [organizationId, id],
    )
    return rows[0]
  },

  async insert(q: Queryable, organizationId: string, t: NewTicket) {
    await q.query(
      `INSERT INTO helpdesk_tickets (id, organization_id, ticket_number, subject, description, priority, contact_id, contact_name, contact_email, team_id, tags, source,
                                     portal_hidden, confirmation_hash, confirmation_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now() + make_interval(days => $15))`,
      [t.id, organizationId, t.ticketNumber, t.subject, t.description, t.priority, t.contact.id, t.contact.name, t.contact.email, t.teamId, t.tags, t.source,
        t.confirmation !== undefined, t.confirmation?.hash ?? null, t.confirmation?.validDays ?? null],
    )
  },

  /**
   * The organization's SLA policies in the order they were created, each
   * locked against deletion (FOR KEY SHARE) until the transaction ends, so
   * that the one a ticket takes still exists when it is written.
   */
  async slaPolicies(q: Queryable, organizationId: string) {
    const { rows } = await q.query<SlaTerms>(
      `SELECT id, name, first_response_hours::text AS first_response_hours, resolution_hours::text AS resolution_hours, applies FROM helpdesk_sla_policies
       WHERE organization_id = $1 ORDER BY created_at, id FOR KEY SHARE`,
      [organizationId],
    )
    return rows
  },

  /** Writes the policy the service chose and its deadlines, hours after created_at; all null without a policy. */
  async setSla(q: Queryable, organizationId: string, id: string, policy: SlaTerms | undefined) {
    await q.query(
      `UPDATE helpdesk_tickets SET sla_policy_id = $2, sla_policy_name = $3,
         first_response_deadline = created_at + $4::numeric * interval '1 hour', resolution_deadline = created_at + $5::numeric * interval '1 hour'
       WHERE organization_id = $6 AND id = $1`,
      [id, policy?.id ?? null, policy?.name ?? null, policy?.first_response_hours ?? null, policy?.resolution_hours ?? null, organizationId],
    )
  },

  /** Applies the changes; a status sets done_at as `done` says (a done status keeps the first moment) and clears closed_at. */
  async update(q: Queryable, organizationId: string, id: string, c: TicketChanges) {
    const sets: string[] = ['updated_at = now()']
    const params: unknown[] = [id, organizationId]
    const set = (column: string, value: unknown) => {
      params.push(value)
      sets.push(`${column} = $${params.length}`)
    }
    if (c.subject !== undefined) set('subject', c.subject)
    if (c.description !== undefined) set('description', c.description)
    if (c.priority !== undefined) set('priority', c.priority)
    if (c.tags !== undefined) set('tags', c.tags)
    if (c.teamId !== undefined) set('team_id', c.teamId)
    if (c.assignee !== undefined) {
      set('assignee_id', c.assignee.id)
      set('assignee_name', c.assignee.name)
    }
    if (c.status !== undefined) {
      set('status', c.status)
      sets.push(c.done ? 'done_at = coalesce(done_at, now())' : 'done_at = NULL')
      sets.push(`closed_at = NULL`)
    }
    await q.query(`UPDATE helpdesk_tickets SET ${sets.join(', ')} WHERE organization_id = $2 AND id = $1`, params)
  },

  /** Closes the ticket with the resolution; false when it was closed already (a race guard: the service checked it). */
  async close(q: Queryable, organizationId: string, id: string, resolution: string | null) {
    const { rowCount } = await q.query(
      `UPDATE helpdesk_tickets SET status = 'closed', done_at = coalesce(done_at, now()), closed_at = now(), resolution = $2, updated_at = now()
       WHERE organization_id = $3 AND id = $1 AND status <> 'closed'`,
      [id, resolution, organizationId],
    )
    return rowCount > 0
  },

  /** A closed ticket takes the status the service chose, without done_at, closed_at and resolution; false when it was not closed (race guard). */
  async reopen(q: Queryable, organizationId: string, id: string, status: TicketStatus) {
    const { rowCount } = await q.query(
      `UPDATE helpdesk_tickets SET status = $2, done_at = NULL, closed_at = NULL, resolution = NULL, updated_at = now()
       WHERE organization_id = $3 AND id = $1 AND status = 'closed'`,
      [id, status, organizationId],
    )
    return rowCount > 0
  },

  /** An agent's public reply: the first one sets the first response, and the ticket shows in the customer portal. */
  async agentReplied(q: Queryable, organizationId: string, id: string) {
    await q.query(
      `UPDATE helpdesk_tickets SET first_response_at = coalesce(first_response_at, now()), portal_hidden = false, updated_at = now()
       WHERE organization_id = $2 AND id = $1`,
      [id, organizationId],
    )
  },

  /** The number of the ticket whose confirmation link has this hash and is still valid. */
  async findConfirmation(q: Queryable, hash: string) {
    const { rows } = await q.query<{ ticket_number: string }>(
      `SELECT /* across organizations: a confirmation link's token names its ticket before the organization is known */ ticket_number FROM helpdesk_tickets WHERE confirmation_hash = $1 AND confirmation_expires_at > now()`,
      [hash],
    )
    return rows[0]?.ticket_number
  },

  /** Spends the confirmation link of this hash (once, while valid): the ticket shows in the portal. Its number, or undefined. */
  async confirm(q: Queryable, hash: string) {
    const { rows } = await q.query<{ ticket_number: string }>(
      `UPDATE /* across organizations: a confirmation link's token names its ticket before the organization is known */ helpdesk_tickets SET portal_hidden = false, confirmation_hash = NULL, confirmation_expires_at = NULL
       WHERE confirmation_hash = $1 AND confirmation_expires_at > now() RETURNING ticket_number`,
      [hash],
    )
    return rows[0]?.ticket_number
  },

  /** A customer's public reply: the ticket takes the status the service chose. */
  async customerReplied(q: Queryable, organizationId: string, id: string, status: TicketStatus) {
    await q.query(`UPDATE helpdesk_tickets SET status = $2, updated_at = now() WHERE organization_id = $3 AND id = $1`, [id, status, organizationId])
  },

  touch(q: Queryable, organizationId: string, id: string) {
    return q.query(`UPDATE helpdesk_tickets SET updated_at = now() WHERE organization_id = $2 AND id = $1`, [id, organizationId])
  },

  list(q: Queryable, organizationId: string, query: TicketListQuery & PageParams, opts: { from?: Date; contactOnly?: string | null }) {
    const where = new Where()
      .scope('t.organization_id', organizationId)
      .counted('t.status', query.status)
      .counted('t.priority', query.priority)
      .maybe(query.teamId, 't.team_id = ?')
      .maybe(query.assigneeId, 't.assignee_id = ?')
      .maybe(query.contactId, 't.contact_id = ?')
      .maybe(opts.from, 't.created_at >= ?')
      .search(query.search, ['t.subject', 't.ticket_number', 't.contact_email'])
    // A customer sees the tickets of its own contact only (none without one), and not those
    // of the public form that are not answered or confirmed yet (portal_hidden).
    if (opts.contactOnly !== undefined) where.add(opts.contactOnly === null ? 'FALSE' : 't.contact_id = ? AND NOT t.portal_hidden', ...(opts.contactOnly === null ? [] : [opts.contactOnly]))
    if (query.overdueSla !== undefined) where.add(overdueCondition(query.overdueSla, query.status))
    return paginate(q, query, {
      from: TICKET_FROM,
      select: TICKET_SELECT,
      where,
      sortColumns: { createdAt: 't.created_at', updatedAt: 't.updated_at', ticketNumber: 't.ticket_number' },
      defaultSort: 'createdAt',
      tieBreaker: 't.id',
      map: toTicket,
      counter: 'helpdesk_tickets',
      total: overdueTotal(organizationId, query, opts.contactOnly),
    })
  },
}
