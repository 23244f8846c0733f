import { randomUUID } from 'node:crypto'
import nodemailer, { type Transporter } from 'nodemailer'
import type { FastifyBaseLogger } from 'fastify'
import type { Db, Queryable } from '../../core/db.ts'
import { sealColumns, type SecretBox } from '../../core/secrets.ts'
import { mailRepository as repo, type OutboxListQuery } from './mail.repository.ts'
import type { MailMessage } from './mail.types.ts'

const BATCH = 20
const LEASE_SECONDS = 120
export const MAX_ATTEMPTS = 10

/** Retry delay after the n-th failed attempt: 30 s doubling, at most one hour. */
export const retryDelaySeconds = (attempt: number) => Math.min(30 * 2 ** (attempt - 1), 3600)

/**
 * E-mail through a durable outbox. Callers enqueue inside the transaction of
 * the business change; delivery happens later, over SMTP when SMTP_URL is set.
 * Without it messages stay queued and admins read them at GET /admin/outbox.
 */
const textContext = (id: string) => `outbox.text_body:${id}`
const htmlContext = (id: string) => `outbox.html_body:${id}`

export class MailService {
  private readonly transport?: Transporter

  constructor(
    private readonly db: Db,
    smtpUrl: string | undefined,
    private readonly from: string,
    private readonly log: FastifyBaseLogger,
    private readonly secrets: SecretBox,
  ) {
    if (smtpUrl) this.transport = nodemailer.createTransport(smtpUrl)
  }

  /**
   * Bodies carry single-use links (password reset, ticket confirmation) and
   * are kept sealed with SECRET_KEY (docs/secrets.md); GET /admin/outbox never
   * shows them. At start, bodies of an earlier version are sealed and those
   * of SECRET_KEY_PREVIOUS sealed again.
   */
  async init() {
    await sealColumns(this.db, this.secrets, { table: 'outbox', id: 'id', columns: [{ name: 'text_body', context: textContext }, { name: 'html_body', context: htmlContext }] })
  }

  get delivers() {
    return this.transport !== undefined
  }

  async enqueue(q: Queryable, msg: MailMessage): Promise<string> {
    const id = randomUUID()
    const html = msg.html === undefined ? undefined : this.secrets.seal(msg.html, htmlContext(id))
    await repo.insert(q, id, { ...msg, text: this.secrets.seal(msg.text, textContext(id)), html })
    return id
  }

  list(organizationId: string, query: OutboxListQuery) {
    return repo.list(this.db, organizationId, query)
  }

  /**
   * Sends what is due; a failure is retried with backoff and never loses the
   * message. With an organization (an admin's run of the job), only that
   * organization's messages are sent and counted; without (the scheduled
   * run), every organization's and those of none.
   */
  async deliverDue(organizationId?: string): Promise<{ sent: number; failed: number }> {
    if (!this.transport) return { sent: 0, failed: 0 }
    const due = await repo.claimDue(this.db, BATCH, LEASE_SECONDS, organizationId)
    if (due.length === 0) return { sent: 0, failed: 0 }
    const attachments = await repo.attachments(this.db, due.map((m) => m.id))
    let sent = 0
    let failed = 0
    for (const m of due) {
      try {
        await this.transport.sendMail({
          from: this.from,
          to: m.to_address,
          subject: m.subject,
          text: this.secrets.unseal(m.text_body, textContext(m.id)),
          html: m.html_body === null ? undefined : this.secrets.unseal(m.html_body, htmlContext(m.id)),
          attachments: attachments.get(m.id)?.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
        })
        await repo.markSent(this.db, m.id)
        sent++
      } catch (err) {
        failed++
        this.log.warn({ err, outboxId: m.id, attempt: m.attempts }, 'mail delivery failed')
        await repo.markFailed(this.db, m.id, (err as Error).message, retryDelaySeconds(m.attempts), MAX_ATTEMPTS)
      }
    }
    return { sent, failed }
  }

  close() {
    this.transport?.close()
  }
}
