import { randomUUID } from 'node:crypto'
import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Attachment, TicketMessage } from './helpdesk.schemas.ts'

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
   FROM helpdesk_attachments a WHERE a.organization_id = m.organization_id AND a.message_id = m.id) AS attachments`

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

/** A ticket's messages (replies and internal notes) and their attachments. */
export const messagesRepository = {
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
    const { rows } = await q.query<MessageRow>(`SELECT ${MESSAGE_SELECT} FROM helpdesk_messages m WHERE m.organization_id = $1 AND m.id = $2`, [m.organizationId, m.id])
    return toMessage(rows[0])
  },

  /** The bytes of attachments the ticket holds (every message, notes included). */
  async attachmentBytes(q: Queryable, organizationId: string, ticketId: string) {
    const { rows } = await q.query<{ n: string }>(
      `SELECT coalesce(sum(size), 0)::text AS n FROM helpdesk_attachments WHERE organization_id = $1 AND ticket_id = $2`,
      [organizationId, ticketId],
    )
    return Number(rows[0].n)
  },

  /**
   * One attachment of the ticket, with its content. The bytes travel as hex text, which
   * Node converts natively: PGlite's own bytea conversion walks a JavaScript array byte by
   * byte and held the event loop (every request) for seconds per 5 MiB.
   */
  async findAttachment(q: Queryable, organizationId: string, ticketId: string, id: string) {
    const { rows } = await q.query<Omit<AttachmentContent, 'content'> & { content: string }>(
      `SELECT a.filename, encode(a.content, 'hex') AS content, m.internal FROM helpdesk_attachments a JOIN helpdesk_messages m ON m.organization_id = a.organization_id AND m.id = a.message_id
       WHERE a.organization_id = $1 AND a.ticket_id = $2 AND a.id = $3`,
      [organizationId, ticketId, id],
    )
    const row = rows[0]
    return row && { ...row, content: Buffer.from(row.content, 'hex') }
  },

  listMessages(q: Queryable, organizationId: string, ticketId: string, page: PageParams, withInternal: boolean) {
    const where = new Where().scope('m.organization_id', organizationId).add('m.ticket_id = ?', ticketId)
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
}
