import nodemailer, { type Transporter } from 'nodemailer'
import type { FastifyBaseLogger } from 'fastify'
import type { Db, Queryable } from '../../core/db.ts'
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
export class MailService {
  private readonly transport?: Transporter

  constructor(
    private readonly db: Db,
    smtpUrl: string | undefined,
    private readonly from: string,
    private readonly log: FastifyBaseLogger,
  ) {
    if (smtpUrl) this.transport = nodemailer.createTransport(smtpUrl)
  }

  get delivers() {
    return this.transport !== undefined
  }

  enqueue(q: Queryable, msg: MailMessage): Promise<string> {
    return repo.insert(q, msg)
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
          text: m.text_body,
          html: m.html_body ?? undefined,
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
