import { randomUUID } from 'node:crypto'
import nodemailer, { type Transporter } from 'nodemailer'
import type { FastifyBaseLogger } from 'fastify'
import { afterCommit, type Db, type Queryable } from '../../core/db.ts'
import { sealColumns, type SecretBox } from '../../core/secrets.ts'
import { Queue } from '../../core/worker.ts'
import { mailRepository as repo, type OutboxListQuery, type OutboxRow } from './mail.repository.ts'
import type { MailMessage } from './mail.types.ts'

const BATCH = 20
const LEASE_SECONDS = 120
export const MAX_ATTEMPTS = 10

/** Retry delay after the n-th failed attempt: 30 s doubling, at most one hour. */
const MAIL_BACKOFF = { baseSeconds: 30, maxSeconds: 3600 }
/** Wakes the delivery workers of every process when a message is queued (Queue.wake after commit). */
const CHANNEL = 'outbox'

/**
 * E-mail through a durable outbox. Callers enqueue inside the transaction of
 * the business change; delivery happens later, over SMTP when SMTP_URL is set.
 * Without it messages stay queued and admins read them at GET /admin/outbox.
 */
const textContext = (id: string) => `outbox.text_body:${id}`
const htmlContext = (id: string) => `outbox.html_body:${id}`

export class MailService {
  private readonly transport?: Transporter
  /** The outbox as a kernel queue (core/worker.ts): claimed with SKIP LOCKED and a lease, retried with backoff. */
  readonly queue: Queue<OutboxRow>

  constructor(
    private readonly db: Db,
    smtpUrl: string | undefined,
    private readonly from: string,
    log: FastifyBaseLogger,
    private readonly secrets: SecretBox,
  ) {
    if (smtpUrl) this.transport = nodemailer.createTransport(smtpUrl)
    this.queue = new Queue<OutboxRow>(db, log, {
      name: 'mail-outbox',
      // Delivered in the background only with SMTP_URL; without, messages stay queued (GET /admin/outbox).
      background: this.transport !== undefined,
      channel: CHANNEL,
      pollMs: 5_000,
      table: 'outbox',
      key: [{ column: 'id', type: 'uuid' }],
      organization: 'organization_id',
      // Queued and due, or sending under a lease that ran out (its sender died).
      due: `(t.status = 'queued' AND t.next_attempt_at <= now()) OR t.status = 'sending'`,
      dueAt: 't.next_attempt_at',
      order: 't.next_attempt_at',
      leaseSeconds: LEASE_SECONDS,
      onClaim: `status = 'sending'`,
      batch: BATCH,
      concurrency: 1,
      done: `status = 'sent', sent_at = now(), last_error = NULL`,
      failed: { retry: `status = 'queued'`, dead: `status = 'failed'`, maxAttempts: MAX_ATTEMPTS, backoff: MAIL_BACKOFF },
      onStop: 'finish',
      handle: (m) => this.send(m),
    })
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
    if (this.transport) afterCommit(q, () => this.queue.wake())
    return id
  }

  list(organizationId: string, query: OutboxListQuery) {
    return repo.list(this.db, organizationId, query)
  }

  /**
   * Sends one pass of what is due; a failure is retried with backoff and
   * never loses the message. With an organization (an admin's run of the
   * job), only that organization's messages are sent and counted; without
   * (the scheduled run), every organization's and those of none.
   */
  async deliverDue(organizationId?: string): Promise<{ sent: number; failed: number }> {
    if (!this.transport) return { sent: 0, failed: 0 }
    const r = await this.queue.runOnce({ organizationId })
    return { sent: r.done, failed: r.failed }
  }

  private async send(m: OutboxRow) {
    const attachments = await repo.attachments(this.db, m.organization_id, [m.id])
    await this.transport!.sendMail({
      from: this.from,
      to: m.to_address,
      subject: m.subject,
      text: this.secrets.unseal(m.text_body, textContext(m.id)),
      html: m.html_body === null ? undefined : this.secrets.unseal(m.html_body, htmlContext(m.id)),
      attachments: attachments.get(m.id)?.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
    })
  }

  close() {
    this.transport?.close()
  }
}
