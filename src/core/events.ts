import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { TSchema } from 'typebox'
import type { Db, Queryable } from './db.ts'

/**
 * Domain events: what happened, to which resource, in which organization.
 *
 * A service appends an event with the `q` of the transaction that makes the
 * change, so the event exists if and only if the change does. Two kinds of
 * subscriber:
 *
 * - `subscribe(name, types, handler)`: durable and after commit. Appending
 *   writes one delivery row per subscriber in the same transaction; a
 *   dispatcher that every process runs claims due rows (FOR UPDATE SKIP
 *   LOCKED, a lease), calls the handler, and marks the row done, or retries it
 *   with backoff. At least once, so handlers are idempotent. Deliveries of one
 *   resource to one subscriber go in the order the events were appended.
 * - `within(types, handler)`: runs inside the appending transaction, for the
 *   rare reaction that must commit or fail with the change itself.
 */

export interface DomainEvent<T = unknown> {
  /** evt_ and 32 hex digits. */
  id: string
  organizationId: string | null
  /** `<resource>.<what happened>`: invoice.paid, order.created. */
  type: string
  resourceType: string
  resourceId: string
  /** The resource as its GET answers an admin at the moment of the event (docs/webhooks.md "The event object"). */
  data: { object: T }
  createdAt: string
}

export interface NewEvent<T = unknown> {
  organizationId: string | null
  type: string
  resource: { type: string; id: string }
  /** The resource as its GET returns it, without secrets. */
  object: T
}

/**
 * A type integrators may subscribe to (outgoing webhooks, GET /events): the
 * module that appends it declares it with `events.declare` from its
 * register(), next to its schemas. Undeclared types (internal reactions such
 * as subscription.renewed) stay inside the service.
 */
export interface PublicEventType {
  /** `<resource>.<what happened>`, as appended. */
  type: string
  /** When it is appended, for docs/webhooks.md and openapi.json's `webhooks`. */
  description: string
  /** The schema of data.object: the resource's named schema, as its GET answers an admin. */
  object: TSchema
  /** Version of the payload; raised (with a new documented shape) when data.object changes incompatibly. */
  version: number
  /** false: documented (openapi.json `webhooks`) but neither subscribable nor in GET /events (ping). */
  subscribable?: boolean
  /**
   * Fields of data.object that GET /events shows to admins only (null for every
   * other reader), e.g. a license's key; webhooks, which only admins configure, carry them.
   */
  adminOnly?: readonly string[]
}

export type EventHandler = (event: DomainEvent) => Promise<void>
export type TransactionalHandler = (q: Queryable, event: DomainEvent) => Promise<void>

interface Subscriber {
  name: string
  /** 'public': every declared type (PublicEventType), whichever module declares it, now or later. */
  types: ReadonlySet<string> | 'public'
  handle: EventHandler
}

const CHANNEL = 'domain_events'
const LEASE_SECONDS = 300
/** Handlers of one dispatch batch running at once (rows of different resources). */
const HANDLER_CONCURRENCY = 8

interface EventRow {
  seq: number
  id: string
  organization_id: string | null
  type: string
  resource_type: string
  resource_id: string
  data: { object: unknown }
  created_at: Date
}

const toEvent = (r: EventRow): DomainEvent => ({
  id: r.id,
  organizationId: r.organization_id,
  type: r.type,
  resourceType: r.resource_type,
  resourceId: r.resource_id,
  data: r.data,
  createdAt: r.created_at.toISOString(),
})

const matches = (types: ReadonlySet<string>, type: string) => types.has('*') || types.has(type)

export class DomainEvents {
  private readonly subscribers = new Map<string, Subscriber>()
  private readonly declared = new Map<string, PublicEventType>()
  private readonly inTransaction: Array<{ types: ReadonlySet<string>; handle: TransactionalHandler }> = []
  private running = false
  private pass: Promise<unknown> = Promise.resolve()
  private again = false
  private stopWaking?: () => void

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly opts: { maxAttempts?: number; pollMs?: number } = {},
  ) {}

  /**
   * A durable subscriber; `name` is stored with its deliveries, so it must stay the same across releases.
   * `types` 'public' subscribes to every declared type (outgoing webhooks).
   */
  subscribe(name: string, types: readonly string[] | 'public', handle: EventHandler) {
    if (this.subscribers.has(name)) throw new Error(`Event subscriber "${name}" is registered twice`)
    this.subscribers.set(name, { name, types: types === 'public' ? types : new Set(types), handle })
  }

  /** Declares event types integrators may subscribe to; a type declared twice stops the start. */
  declare(types: readonly PublicEventType[]) {
    for (const t of types) {
      if (this.declared.has(t.type)) throw new Error(`Event type "${t.type}" is declared twice`)
      if (!/^[a-z_]+(\.[a-z_]+)*$/.test(t.type)) throw new Error(`Event type "${t.type}" is not <resource>.<what happened>`)
      this.declared.set(t.type, t)
    }
  }

  /** The declared event types, sorted by name; with `all`, also those not subscribable (ping). */
  publicTypes(all = false): PublicEventType[] {
    return [...this.declared.values()].filter((t) => all || t.subscribable !== false).sort((a, b) => a.type.localeCompare(b.type))
  }

  /** Whether integrators may subscribe to the type (declared and subscribable). */
  isPublic(type: string): boolean {
    return this.declared.get(type)?.subscribable !== false && this.declared.has(type)
  }

  /** A reaction that runs inside the transaction appending the event; its failure rolls the change back. */
  within(types: readonly string[], handle: TransactionalHandler) {
    this.inTransaction.push({ types: new Set(types), handle })
  }

  /** Appends the event in the caller's transaction, with one pending delivery per matching subscriber. */
  async append<T>(q: Queryable, e: NewEvent<T>): Promise<DomainEvent> {
    // The id starts with the sequence number, and created_at is the time of this statement (not of the
    // transaction's start): events of one resource, whose changes are serialized by its row lock, sort
    // by (createdAt, id) in the order they happened, also two in one transaction (GET /events).
    const { rows } = await q.query<EventRow>(
      `INSERT INTO domain_events (seq, id, organization_id, type, resource_type, resource_id, data, created_at)
       SELECT s.seq, 'evt_' || lpad(to_hex(s.seq), 16, '0') || $1, $2, $3, $4, $5, $6, clock_timestamp()
         FROM (SELECT nextval('domain_events_seq_seq') AS seq) s
       RETURNING *`,
      [randomUUID().replace(/-/g, '').slice(0, 16), e.organizationId, e.type, e.resource.type, e.resource.id, JSON.stringify({ object: e.object })],
    )
    const event = toEvent(rows[0])
    const names = [...this.subscribers.values()]
      .filter((s) => (s.types === 'public' ? this.isPublic(e.type) : matches(s.types, e.type)))
      .map((s) => s.name)
    if (names.length) {
      await q.query(
        `INSERT INTO domain_event_deliveries (event_seq, subscriber, resource_key)
         SELECT $1, unnest($2::text[]), $3`,
        [rows[0].seq, names, `${e.resource.type}:${e.resource.id}`],
      )
      // Delivered to listening processes when (and only if) the transaction commits.
      await q.query(`SELECT pg_notify('${CHANNEL}', '')`)
    }
    for (const r of this.inTransaction) if (matches(r.types, e.type)) await r.handle(q, event)
    return event
  }

  /**
   * Claims due deliveries and hands each to its subscriber. Several processes
   * may run this at once: rows are claimed with SKIP LOCKED and a lease, and a
   * delivery waits while an earlier one of the same resource is pending.
   */
  async dispatchDue(limit = 50): Promise<{ delivered: number; failed: number }> {
    // Only this process's subscribers: during a rolling deploy, a subscriber
    // that only newer processes have waits for them instead of failing here.
    const names = [...this.subscribers.keys()]
    if (!names.length) return { delivered: 0, failed: 0 }
    const { rows } = await this.db.query<EventRow & { subscriber: string; attempts: number }>(
      `WITH claimed AS (
         UPDATE domain_event_deliveries d
            SET locked_until = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = d.attempts + 1
          WHERE (d.event_seq, d.subscriber) IN (
            SELECT c.event_seq, c.subscriber FROM domain_event_deliveries c
             WHERE c.status = 'pending' AND c.subscriber = ANY($2::text[])
               AND c.next_attempt_at <= now() AND (c.locked_until IS NULL OR c.locked_until < now())
               AND NOT EXISTS (
                 SELECT 1 FROM domain_event_deliveries p
                  WHERE p.subscriber = c.subscriber AND p.resource_key = c.resource_key
                    AND p.status = 'pending' AND p.event_seq < c.event_seq)
             ORDER BY c.next_attempt_at, c.event_seq
             LIMIT $1
             FOR UPDATE SKIP LOCKED)
          RETURNING d.event_seq, d.subscriber, d.attempts)
       SELECT e.*, claimed.subscriber, claimed.attempts FROM claimed JOIN domain_events e ON e.seq = claimed.event_seq
        ORDER BY e.seq`,
      [limit, names],
    )
    let failed = 0
    const done: typeof rows = []
    // Every claimed row is the earliest pending one of its resource for its subscriber (the claim
    // skips any other), so the rows of one batch are handled concurrently without breaking the
    // per-resource order; the successes are marked done in one statement.
    const handleOne = async (row: (typeof rows)[number]) => {
      const sub = this.subscribers.get(row.subscriber)
      try {
        await sub!.handle(toEvent(row))
        done.push(row)
      } catch (err) {
        failed++
        const dead = row.attempts >= (this.opts.maxAttempts ?? 12)
        this.log[dead ? 'error' : 'warn']({ err, event: row.id, type: row.type, subscriber: row.subscriber, attempts: row.attempts }, dead ? 'event delivery given up' : 'event delivery failed; will retry')
        await this.db.query(
          `UPDATE domain_event_deliveries
              SET status = $3, locked_until = NULL, last_error = $4,
                  next_attempt_at = now() + make_interval(secs => $5)
            WHERE event_seq = $1 AND subscriber = $2`,
          [row.seq, row.subscriber, dead ? 'dead' : 'pending', String((err as Error)?.message ?? err).slice(0, 1000), backoffSeconds(row.attempts)],
        )
      }
    }
    const queue = [...rows]
    await Promise.all(Array.from({ length: Math.min(HANDLER_CONCURRENCY, queue.length) }, async () => {
      for (let row = queue.shift(); row; row = queue.shift()) await handleOne(row)
    }))
    if (done.length) {
      await this.db.query(
        `UPDATE domain_event_deliveries SET status = 'done', done_at = now(), locked_until = NULL, last_error = NULL
          WHERE (event_seq, subscriber) IN (SELECT * FROM unnest($1::bigint[], $2::text[]))`,
        [done.map((r) => r.seq), done.map((r) => r.subscriber)],
      )
    }
    return { delivered: done.length, failed }
  }

  /** Dispatches until nothing is due (tests, shutdown). */
  async drain(): Promise<{ delivered: number; failed: number }> {
    const total = { delivered: 0, failed: 0 }
    for (;;) {
      const r = await this.dispatchDue()
      total.delivered += r.delivered
      total.failed += r.failed
      if (r.delivered + r.failed === 0) return total
    }
  }

  /** Dispatches on every commit that appended an event (NOTIFY, any process) and polls for retries. */
  async start() {
    this.running = true
    this.stopWaking = await wakeOn(this.db, CHANNEL, this.opts.pollMs ?? 1000, () => this.kick())
  }

  async stop() {
    this.running = false
    this.stopWaking?.()
    await this.pass
  }

  /** One dispatch pass at a time per process; a kick during a pass runs one more pass after it. */
  private kick() {
    if (!this.running) return
    if (this.again) return
    this.again = true
    this.pass = this.pass.then(async () => {
      this.again = false
      if (!this.running) return
      try {
        while (this.running && (await this.dispatchDue()).delivered > 0);
      } catch (err) {
        this.log.warn({ err }, 'event dispatch pass failed')
      }
    })
  }
}

/** 2^attempts seconds, at most an hour: 2 s, 4 s, 8 s ... */
export const backoffSeconds = (attempts: number) => Math.min(3600, 2 ** attempts)

/**
 * Calls `wake` on every NOTIFY of `channel` from any process, after a gap in
 * listening (a notification may have been missed), every `pollMs` (due
 * retries) and once now. Answers a function that stops the polling. The
 * event dispatcher and queue workers (webhook deliveries) start this way.
 */
export async function wakeOn(db: Db, channel: string, pollMs: number, wake: () => void): Promise<() => void> {
  await db.listen(channel, wake, wake)
  const timer = setInterval(wake, pollMs)
  timer.unref()
  wake()
  return () => clearInterval(timer)
}
