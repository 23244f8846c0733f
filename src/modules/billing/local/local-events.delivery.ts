import type { FastifyBaseLogger } from 'fastify'
import type { Db, Queryable } from '../../../core/db.ts'
import { signEvent } from '../processor-events.signature.ts'
import { localId } from './local.repository.ts'

/** Sends one signed event to the receiver; answers the HTTP status. */
export type EventSender = (payload: string, signatureHeader: string) => Promise<number>

const BATCH = 20
const LEASE_SECONDS = 60
/** Retry after the n-th failed attempt: 10 s doubling, at most one hour (Stripe retries for days). */
const retryDelaySeconds = (attempt: number) => Math.min(10 * 2 ** (attempt - 1), 3600)
const API_VERSION = '2025-01-27.acacia'

/**
 * The local processor's outbox of events. Events are written in the
 * transaction of the change they report, then delivered to POST
 * /billing/webhooks signed as Stripe signs them; failures are retried with
 * backoff, so the receiver sees each event at least once, as with Stripe.
 */
export class LocalEventOutbox {
  constructor(
    private readonly db: Db,
    private readonly secret: string,
    private readonly send: EventSender,
    private readonly log: FastifyBaseLogger,
  ) {}

  async add(q: Queryable, type: string, object: Record<string, unknown>): Promise<string> {
    const id = localId('evt')
    const event = {
      id,
      object: 'event',
      api_version: API_VERSION,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      type,
      data: { object },
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
    }
    await q.query('INSERT INTO local_events (id, type, payload) VALUES ($1, $2, $3)', [id, type, JSON.stringify(event)])
    return id
  }

  /**
   * Delivers what is due, oldest first. Several processes may run it: rows
   * are leased with SKIP LOCKED. With `customers` (an admin's run of the job),
   * only the events about those customers (data.object.customer, which every
   * event of the processor names).
   */
  async deliverDue(customers?: readonly string[]): Promise<{ delivered: number; failed: number }> {
    const { rows } = await this.db.query<{ id: string; payload: string; attempts: number; seq: number }>(
      `UPDATE local_events SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $2)
       WHERE id IN (SELECT id FROM local_events WHERE delivered_at IS NULL AND next_attempt_at <= now()
                      AND ($3::text[] IS NULL OR (payload::jsonb #>> '{data,object,customer}') = ANY($3::text[]))
                    ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id, payload, attempts, seq`,
      [BATCH, LEASE_SECONDS, customers ?? null],
    )
    let delivered = 0
    let failed = 0
    for (const e of rows.sort((a, b) => a.seq - b.seq)) {
      let error: string
      try {
        const status = await this.send(e.payload, signEvent(e.payload, this.secret))
        if (status >= 200 && status < 300) {
          await this.db.query('UPDATE local_events SET delivered_at = now(), last_error = NULL WHERE id = $1', [e.id])
          delivered++
          continue
        }
        error = `receiver answered ${status}`
      } catch (err) {
        error = (err as Error).message
      }
      failed++
      this.log.warn({ eventId: e.id, attempt: e.attempts, error }, 'local processor event delivery failed')
      await this.db.query('UPDATE local_events SET last_error = $2, next_attempt_at = now() + make_interval(secs => $3) WHERE id = $1', [e.id, error, retryDelaySeconds(e.attempts)])
    }
    return { delivered, failed }
  }
}
