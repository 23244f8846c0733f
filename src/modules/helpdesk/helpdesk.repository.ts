import { randomUUID } from 'node:crypto'
import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import { inDays, type DayRange } from '../../core/dates.ts'
import type { Attachment, CreateSla, Priority, SlaPolicy, Team, TeamListQuery, TicketMessage, UpdateSla } from './helpdesk.schemas.ts'

interface TeamRow {
  id: string
  name: string
  member_ids: string[]
  created_at: Date
  updated_at: Date
}
const toTeam = (r: TeamRow): Team => ({ id: r.id, name: r.name, memberIds: r.member_ids, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at) })
const TEAM_SELECT = `tm.id, tm.name, tm.created_at, tm.updated_at,
  coalesce((SELECT array_agg(m.user_id ORDER BY m.position) FROM helpdesk_team_members m WHERE m.team_id = tm.id), '{}') AS member_ids`

interface SlaRow {
  id: string
  name: string
  first_response_hours: string
  resolution_hours: string
  applies: Priority[]
  created_at: Date
  updated_at: Date
}
const toSla = (r: SlaRow): SlaPolicy => ({
  id: r.id,
  name: r.name,
  firstResponseHours: Number(r.first_response_hours),
  resolutionHours: Number(r.resolution_hours),
  applies: r.applies,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

interface MessageRow {
  id: string
  ticket_id: string
  body: string
  internal: boolean
  author_id: string | null
  author_name: string | null
  attachments: Attachment[] | null
  created_at: Date
}
const toMessage = (r: MessageRow): TicketMessage => ({
  id: r.id,
  ticketId: r.ticket_id,
  body: r.body,
  internal: r.internal,
  author: r.author_id ? { id: r.author_id, name: r.author_name ?? '' } : null,
  attachments: r.attachments ?? [],
  createdAt: iso(r.created_at),
})
// Attachments as metadata only: the content column is never named here, so listing a
// ticket's messages reads none of its bytes (finding 6 of issue 24; migrations/0122).
const MESSAGE_SELECT = `m.id, m.ticket_id, m.body, m.internal, m.author_id, m.author_name, m.created_at,
  (SELECT json_agg(json_build_object('id', a.id, 'filename', a.filename, 'contentType', a.content_type, 'size', a.size) ORDER BY a.position)
   FROM helpdesk_attachments a WHERE a.message_id = m.id) AS attachments`

export interface NewMessage {
  id: string
  organizationId: string
  ticketId: string
  body: string
  internal: boolean
  author: { id: string | null; name: string | null; role: string }
  attachments: Array<{ filename: string; contentType: string; content: Buffer }>
}

/** An attachment with its content, and whether its message is an internal note. */
export interface AttachmentContent {
  filename: string
  content: Buffer
  internal: boolean
}

export interface StatsRow {
  created: number
  low: number
  medium: number
  high: number
  urgent: number
  avg_first_response_minutes: string | null
  avg_resolution_hours: string | null
  with_sla: number
  breached: number
}

export const helpdeskRepository = {
  // ------------------------------------------------------------ teams
  async insertTeam(q: Queryable, organizationId: string, id: string, name: string) {
    await q.query(`INSERT INTO helpdesk_teams (id, organization_id, name) VALUES ($1, $2, $3)`, [id, organizationId, name])
  },

  async updateTeam(q: Queryable, organizationId: string, id: string, name: string | undefined) {
    const { rowCount } = await q.query(
      `UPDATE helpdesk_teams SET name = coalesce($3, name), updated_at = now() WHERE organization_id = $1 AND id = $2`,
      [organizationId, id, name ?? null],
    )
    return rowCount > 0
  },

  async setMembers(q: Queryable, teamId: string, userIds: string[]) {
    await q.query(`DELETE FROM helpdesk_team_members WHERE team_id = $1`, [teamId])
    if (userIds.length) {
      await q.query(
        `INSERT INTO helpdesk_team_members (team_id, position, user_id) SELECT $1, u.n - 1, u.id FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, n)`,
        [teamId, userIds],
      )
    }
  },

  async findTeam(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<TeamRow>(`SELECT ${TEAM_SELECT} FROM helpdesk_teams tm WHERE tm.organization_id = $1 AND tm.id = $2`, [organizationId, id])
    return rows[0] ? toTeam(rows[0]) : undefined
  },

  listTeams(q: Queryable, organizationId: string, query: TeamListQuery & PageParams) {
    const where = new Where().scope('tm.organization_id', organizationId).search(query.search, ['tm.name'])
    return paginate(q, query, {
      from: 'helpdesk_teams tm',
      select: TEAM_SELECT,
      where,
      sortColumns: { name: 'tm.name', createdAt: 'tm.created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'tm.id',
      map: toTeam,
      counter: 'helpdesk_teams',
    })
  },

  async deleteTeam(q: Queryable, organizationId: string, id: string) {
    return (await q.query(`DELETE FROM helpdesk_teams WHERE organization_id = $1 AND id = $2`, [organizationId, id])).rowCount > 0
  },

  /** The user ids of a team's members. */
  async memberIds(q: Queryable, teamId: string) {
    const { rows } = await q.query<{ user_id: string }>(`SELECT user_id FROM helpdesk_team_members WHERE team_id = $1 ORDER BY position`, [teamId])
    return rows.map((r) => r.user_id)
  },

  // ------------------------------------------------------------ SLA policies
  async listSla(q: Queryable, organizationId: string) {
    const { rows } = await q.query<SlaRow>(`SELECT * FROM helpdesk_sla_policies WHERE organization_id = $1 ORDER BY created_at, id`, [organizationId])
    return rows.map(toSla)
  },

  async insertSla(q: Queryable, organizationId: string, id: string, p: CreateSla) {
    const { rows } = await q.query<SlaRow>(
      `INSERT INTO helpdesk_sla_policies (id, organization_id, name, first_response_hours, resolution_hours, applies)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [id, organizationId, p.name, p.firstResponseHours, p.resolutionHours, p.applies],
    )
    return toSla(rows[0])
  },

  async updateSla(q: Queryable, organizationId: string, id: string, p: UpdateSla) {
    const { rows } = await q.query<SlaRow>(
      `UPDATE helpdesk_sla_policies SET name = coalesce($3, name), first_response_hours = coalesce($4, first_response_hours),
              resolution_hours = coalesce($5, resolution_hours), applies = coalesce($6, applies), updated_at = now()
       WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, p.name ?? null, p.firstResponseHours ?? null, p.resolutionHours ?? null, p.applies ?? null],
    )
    return rows[0] ? toSla(rows[0]) : undefined
  },

  async deleteSla(q: Queryable, organizationId: string, id: string) {
    return (await q.query(`DELETE FROM helpdesk_sla_policies WHERE organization_id = $1 AND id = $2`, [organizationId, id])).rowCount > 0
  },

  // ------------------------------------------------------------ messages
  /** The message and its attachments; their bytes go as hex text (see findAttachment). */
  async insertMessage(q: Queryable, m: NewMessage) {
    await q.query(
      `INSERT INTO helpdesk_messages (id, organization_id, ticket_id, body, internal, author_id, author_name, author_role) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [m.id, m.organizationId, m.ticketId, m.body, m.internal, m.author.id, m.author.name, m.author.role],
    )
    for (const [i, a] of m.attachments.entries()) {
      await q.query(
        `INSERT INTO helpdesk_attachments (id, organization_id, ticket_id, message_id, position, filename, content_type, size, content)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, decode($9, 'hex'))`,
        [randomUUID(), m.organizationId, m.ticketId, m.id, i, a.filename, a.contentType, a.content.length, a.content.toString('hex')],
      )
    }
    const { rows } = await q.query<MessageRow>(`SELECT ${MESSAGE_SELECT} FROM helpdesk_messages m WHERE m.id = $1`, [m.id])
    return toMessage(rows[0])
  },

  /** The bytes of attachments the ticket holds (every message, notes included). */
  async attachmentBytes(q: Queryable, ticketId: string) {
    const { rows } = await q.query<{ n: string }>(`SELECT coalesce(sum(size), 0)::text AS n FROM helpdesk_attachments WHERE ticket_id = $1`, [ticketId])
    return Number(rows[0].n)
  },

  /**
   * One attachment of the ticket, with its content. The bytes travel as hex text, which
   * Node converts natively: PGlite's own bytea conversion walks a JavaScript array byte by
   * byte and held the event loop (every request) for seconds per 5 MiB.
   */
  async findAttachment(q: Queryable, organizationId: string, ticketId: string, id: string) {
    const { rows } = await q.query<Omit<AttachmentContent, 'content'> & { content: string }>(
      `SELECT a.filename, encode(a.content, 'hex') AS content, m.internal FROM helpdesk_attachments a JOIN helpdesk_messages m ON m.id = a.message_id
       WHERE a.organization_id = $1 AND a.ticket_id = $2 AND a.id = $3`,
      [organizationId, ticketId, id],
    )
    const row = rows[0]
    return row && { ...row, content: Buffer.from(row.content, 'hex') }
  },

  listMessages(q: Queryable, ticketId: string, page: PageParams, withInternal: boolean) {
    const where = new Where().add('m.ticket_id = ?', ticketId)
    if (!withInternal) where.add('NOT m.internal')
    return paginate(q, page, {
      from: 'helpdesk_messages m',
      select: MESSAGE_SELECT,
      where,
      sortColumns: { createdAt: 'm.created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'm.id',
      map: toMessage,
    })
  },

  // ------------------------------------------------------------ ratings
  /** The rating, or undefined when the ticket was rated already. */
  async insertRating(q: Queryable, organizationId: string, ticketId: string, rating: number, comment: string | null, ratedBy: string | null) {
    const { rows } = await q.query<{ created_at: Date }>(
      `INSERT INTO helpdesk_ratings (ticket_id, organization_id, rating, comment, rated_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (ticket_id) DO NOTHING RETURNING created_at`,
      [ticketId, organizationId, rating, comment, ratedBy],
    )
    return rows[0]?.created_at
  },

  // ------------------------------------------------------------ stats
  /** Figures over the tickets created in the period (whole UTC days), optionally of one team. */
  async createdStats(q: Queryable, organizationId: string, range: DayRange, teamId: string | undefined) {
    const { rows } = await q.query<StatsRow>(
      `SELECT count(*)::int AS created,
              count(*) FILTER (WHERE priority = 'low')::int AS low,
              count(*) FILTER (WHERE priority = 'medium')::int AS medium,
              count(*) FILTER (WHERE priority = 'high')::int AS high,
              count(*) FILTER (WHERE priority = 'urgent')::int AS urgent,
              round(avg(extract(epoch FROM first_response_at - created_at)::numeric / 60), 2)::text AS avg_first_response_minutes,
              round(avg(extract(epoch FROM closed_at - created_at)::numeric / 3600), 2)::text AS avg_resolution_hours,
              count(*) FILTER (WHERE resolution_deadline IS NOT NULL)::int AS with_sla,
              count(*) FILTER (WHERE (done_at IS NULL AND resolution_deadline < now()) OR done_at > resolution_deadline)::int AS breached
       FROM helpdesk_tickets
       WHERE organization_id = $1 AND ${inDays('created_at', '$2', '$3')} AND ($4::uuid IS NULL OR team_id = $4)`,
      [organizationId, range.from, range.to, teamId ?? null],
    )
    return rows[0]
  },

  async closedCount(q: Queryable, organizationId: string, range: DayRange, teamId: string | undefined) {
    const { rows } = await q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM helpdesk_tickets
       WHERE organization_id = $1 AND status = 'closed' AND ${inDays('closed_at', '$2', '$3')} AND ($4::uuid IS NULL OR team_id = $4)`,
      [organizationId, range.from, range.to, teamId ?? null],
    )
    return rows[0].n
  },

  async ratings(q: Queryable, organizationId: string, range: DayRange, teamId: string | undefined) {
    const { rows } = await q.query<{ n: number; total: number }>(
      `SELECT count(*)::int AS n, coalesce(sum(r.rating), 0)::int AS total
       FROM helpdesk_ratings r JOIN helpdesk_tickets t ON t.id = r.ticket_id
       WHERE r.organization_id = $1 AND ${inDays('r.created_at', '$2', '$3')} AND ($4::uuid IS NULL OR t.team_id = $4)`,
      [organizationId, range.from, range.to, teamId ?? null],
    )
    return rows[0]
  },

  // ------------------------------------------------------------ SLA breaches
  /** Deadlines passed on open tickets (first response: with no agent reply yet) that no breach row records, oldest first. */
  /** Passed deadlines not yet recorded, of one organization or (organizationId undefined) of every one. */
  async dueBreaches(q: Queryable, limit: number, organizationId?: string) {
    const { rows } = await q.query<{ ticket_id: string; organization_id: string; kind: 'first_response' | 'resolution'; deadline: string; assignee_id: string | null; team_id: string | null }>(
      // The deadline travels as text: a JavaScript Date would drop its microseconds, and the
      // breach row must name the very deadline it records.
      `SELECT ticket_id, organization_id, kind, deadline::text AS deadline, assignee_id, team_id FROM (
         SELECT t.id AS ticket_id, t.organization_id, 'first_response' AS kind, t.first_response_deadline AS deadline, t.assignee_id, t.team_id
         FROM helpdesk_tickets t
         WHERE t.done_at IS NULL AND t.first_response_at IS NULL AND t.first_response_deadline < now() AND ($2::uuid IS NULL OR t.organization_id = $2)
           AND NOT EXISTS (SELECT 1 FROM helpdesk_sla_breaches b WHERE b.ticket_id = t.id AND b.kind = 'first_response' AND b.deadline = t.first_response_deadline)
         UNION ALL
         SELECT t.id, t.organization_id, 'resolution', t.resolution_deadline, t.assignee_id, t.team_id
         FROM helpdesk_tickets t
         WHERE t.done_at IS NULL AND t.resolution_deadline < now() AND ($2::uuid IS NULL OR t.organization_id = $2)
           AND NOT EXISTS (SELECT 1 FROM helpdesk_sla_breaches b WHERE b.ticket_id = t.id AND b.kind = 'resolution' AND b.deadline = t.resolution_deadline)
       ) d ORDER BY d.deadline LIMIT $1`,
      [limit, organizationId ?? null],
    )
    return rows
  },

  /** Records the breach; false when another run recorded it first. */
  async recordBreach(q: Queryable, b: { ticketId: string; organizationId: string; kind: string; deadline: string; notified: number }) {
    const { rowCount } = await q.query(
      `INSERT INTO helpdesk_sla_breaches (ticket_id, kind, deadline, organization_id, notified) VALUES ($1, $2, $3::timestamptz, $4, $5) ON CONFLICT DO NOTHING`,
      [b.ticketId, b.kind, b.deadline, b.organizationId, b.notified],
    )
    return rowCount > 0
  },
}
