import { randomUUID } from 'node:crypto'
import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { MailAttachment, MailMessage } from './mail.types.ts'

export interface OutboxRow {
  id: string
  /** NOT NULL since migration 0133. */
  organization_id: string
  to_address: string
  subject: string
  text_body: string
  html_body: string | null
  status: 'queued' | 'sending' | 'sent' | 'failed'
  attempts: number
  last_error: string | null
  created_at: Date
  sent_at: Date | null
}

export interface OutboxListQuery extends PageParams {
  status?: OutboxRow['status']
  to?: string
}

export const mailRepository = {
  /** `msg.text` and `msg.html` arrive sealed (MailService): stored as given. */
  async insert(q: Queryable, id: string, msg: MailMessage) {
    await q.query(
      `INSERT INTO outbox (id, organization_id, to_address, subject, text_body, html_body) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, msg.organizationId, msg.to, msg.subject, msg.text, msg.html ?? null],
    )
    for (const [position, a] of (msg.attachments ?? []).entries()) {
      await q.query(
        `INSERT INTO outbox_attachments (id, organization_id, outbox_id, position, filename, content_type, content) VALUES ($1, $7, $2, $3, $4, $5, $6)`,
        [randomUUID(), id, position, a.filename, a.contentType, a.content, msg.organizationId],
      )
    }
    return id
  },

  async attachments(q: Queryable, organizationId: string, outboxIds: string[]) {
    const { rows } = await q.query<{ outbox_id: string; filename: string; content_type: string; content: Uint8Array }>(
      `SELECT outbox_id, filename, content_type, content FROM outbox_attachments WHERE organization_id = $2 AND outbox_id = ANY($1::uuid[]) ORDER BY position`,
      [outboxIds, organizationId],
    )
    const byId = new Map<string, MailAttachment[]>()
    for (const r of rows) {
      const list = byId.get(r.outbox_id) ?? []
      list.push({ filename: r.filename, contentType: r.content_type, content: Buffer.from(r.content) })
      byId.set(r.outbox_id, list)
    }
    return byId
  },

  list(q: Queryable, organizationId: string, query: OutboxListQuery) {
    const where = new Where()
      .scope('o.organization_id', organizationId)
      .counted('o.status', query.status)
      .maybe(query.to, 'lower(o.to_address) = lower(?)')
      .search(query.search, ['o.subject', 'o.to_address'])
    return paginate(q, query, {
      from: 'outbox o',
      select: `o.*, coalesce((SELECT json_agg(json_build_object('filename', a.filename, 'contentType', a.content_type, 'size', octet_length(a.content)) ORDER BY a.position)
                 FROM outbox_attachments a WHERE a.organization_id = o.organization_id AND a.outbox_id = o.id), '[]'::json) AS attachment_list`,
      where,
      sortColumns: { createdAt: 'o.created_at', sentAt: 'o.sent_at', status: 'o.status' },
      defaultSort: 'createdAt',
      tieBreaker: 'o.id',
      counter: 'outbox',
      map: (r: OutboxRow & { attachment_list: { filename: string; contentType: string; size: number }[] | string }) => ({
        id: r.id,
        to: r.to_address,
        subject: r.subject,
        status: r.status,
        attempts: r.attempts,
        lastError: r.last_error,
        attachments: typeof r.attachment_list === 'string' ? JSON.parse(r.attachment_list) : r.attachment_list,
        createdAt: iso(r.created_at),
        sentAt: iso(r.sent_at),
      }),
    })
  },
}
