import type { FastifyBaseLogger } from 'fastify'
import type { Db, Queryable } from '../../../core/db.ts'
import { Queue } from '../../../core/worker.ts'
import { signEvent } from '../processor-events.signature.ts'
import { localId } from './local.repository.ts'

/** Sends one signed event to the receiver; answers the HTTP status. */
export type EventSender = (payload: string, signatureHeader: string) => Promise<number>

const BATCH = 20
const LEASE_SECONDS = 60
/** Retry after the n-th failed attempt: 10 s doubling, at most one hour (Stripe retries for days). */
const BACKOFF = { baseSeconds: 10, maxSeconds: 3600 }
const API_VERSION = '2025-01-27.acacia'

interface EventRow {
  id: string
  seq: number
  payload: string
  attempts: number
}

/**
 * The local processor's outbox of events. Events are written in the
 * transaction of the change they report, then delivered to POST
 * /billing/webhooks signed as Stripe signs them; failures are retried with
 * backoff, so the receiver sees each event at least once, as with Stripe.
 * A kernel queue (core/worker.ts): several processes share it, rows leased
 * with SKIP LOCKED (next_attempt_at is the lease), one event at a time.
 */
export class LocalEventOutbox {
  readonly queue: Queue<EventRow>

  constructor(
    db: Db,
    private readonly secret: string,
    private readonly send: EventSender,
    log: FastifyBaseLogger,
    /** The processor's customers of an organization: an admin's run delivers only the events about them (data.object.customer). */
    customersOf: (organizationId: string) => Promise<string[]>,
  ) {
    this.queue = new Queue<EventRow>(db, log, {
      name: 'local-payment-events',
      pollMs: 5_000,
      table: 'local_events',
      key: [{ column: 'id', type: 'text' }],
      due: 't.delivered_at IS NULL AND t.next_attempt_at <= now()',
      dueAt: 't.next_attempt_at',
      order: 't.seq',
      filter: async (scope, bind) => (scope.organizationId === undefined ? 'true'
        : `(t.payload::jsonb #>> '{data,object,customer}') = ANY(${bind(await customersOf(scope.organizationId))}::text[])`),
      leaseColumn: 'next_attempt_at',
      leaseSeconds: LEASE_SECONDS,
      batch: BATCH,
      concurrency: 1,
      done: 'delivered_at = now(), last_error = NULL',
      failed: { backoff: BACKOFF },
      onStop: 'finish',
      handle: (e) => this.deliver(e),
    })
  }

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
   * Delivers one pass of what is due, oldest first. With an organization (an
   * admin's run of the job), only the events about its buyers.
   */
  async deliverDue(organizationId?: string): Promise<{ delivered: number; failed: number }> {
    const r = await this.queue.runOnce({ organizationId })
    return { delivered: r.done, failed: r.failed }
  }

  private async deliver(e: EventRow) {
    const status = await this.send(e.payload, signEvent(e.payload, this.secret))
    if (status < 200 || status >= 300) throw new Error(`receiver answered ${status}`)
  }
}
