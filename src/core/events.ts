import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { TSchema } from 'typebox'
import { afterCommit, type Db, type Queryable } from './db.ts'
import { Queue } from './worker.ts'

/**
 * Domain events: what happened, to which resource, in which organization.
 *
 * A service appends an event with the `q` of the transaction that makes the
 * change, so the event exists if and only if the change does. Two kinds of
 * subscriber:
 *
 * - `subscribe(name, types, handler, { interested })`: durable and after
 *   commit. Appending writes one delivery row per subscriber (whose
 *   `interested` condition holds) in the same statement; the
 *   kernel's queue worker (core/worker.ts), which every process runs, claims
 *   due rows (FOR UPDATE SKIP LOCKED, a lease), calls the handler, and marks
 *   the row done, or retries it with backoff. At least once, so handlers are
 *   idempotent. Deliveries of one
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
  /**
   * A condition on the new event (alias e: its organization_id, type) that the
   * delivery is written only when it holds, in the appending statement: the
   * webhooks module's "an enabled endpoint of the organization takes this
   * type". Without it every event of the subscriber's types gets a delivery.
   * Given `organization`, the SQL value (a parameter) of the event's
   * organization: a table the condition reads is pinned by it (Citus routing,
   * docs/scale-out.md), not by e.organization_id, a column of a CTE.
   */
  interested?: (organization: string) => string
}

const CHANNEL = 'domain_events'
const LEASE_SECONDS = 300
/** Retries after 2 s, 4 s, 8 s ... at most an hour apart. */
const EVENT_BACKOFF = { baseSeconds: 2, maxSeconds: 3600 }
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

const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`

const matches = (types: ReadonlySet<string>, type: string) => types.has('*') || types.has(type)

export class DomainEvents {
  private readonly subscribers = new Map<string, Subscriber>()
  private readonly declared = new Map<string, PublicEventType>()
  private readonly inTransaction: Array<{ types: ReadonlySet<string>; handle: TransactionalHandler }> = []
  /**
   * The deliveries as a kernel queue (core/worker.ts): claimed with SKIP
   * LOCKED and a lease by every process, a delivery waiting while an earlier
   * one of the same resource to the same subscriber is pending, so that the
   * rows of one batch run concurrently without breaking that order.
   */
  readonly queue: Queue<EventRow & { event_seq: number; subscriber: string; attempts: number }>

  constructor(
    db: Db,
    log: FastifyBaseLogger,
    opts: { maxAttempts?: number; pollMs?: number } = {},
  ) {
    this.queue = new Queue(db, log, {
      name: 'domain-events',
      channel: CHANNEL,
      pollMs: opts.pollMs ?? 1000,
      table: 'domain_event_deliveries',
      key: [{ column: 'event_seq', type: 'bigint' }, { column: 'subscriber', type: 'text' }],
      // A delivery is of its event's organization (domain_event_deliveries_event_seq_fkey); the row handed out is the event's (e.*).
      organization: 'organization_id',
      due: `t.status = 'pending' AND t.next_attempt_at <= now()`,
      // The first pending delivery of its resource to its subscriber: one probe of the resource
      // index per candidate. As NOT EXISTS (an earlier one pending) the planner could make it an
      // anti-join reading every pending row per candidate when its statistics said few are
      // pending (analyzed while the queue was empty): quadratic in a backlog.
      ready: `t.event_seq = (SELECT p.event_seq FROM domain_event_deliveries p
                WHERE p.organization_id = t.organization_id AND p.subscriber = t.subscriber AND p.resource_key = t.resource_key AND p.status = 'pending'
                ORDER BY p.event_seq LIMIT 1)`,
      dueAt: 't.next_attempt_at',
      order: 't.next_attempt_at, t.event_seq',
      // Only this process's subscribers: during a rolling deploy, a subscriber
      // that only newer processes have waits for them instead of failing here.
      filter: (_scope, bind) => `t.subscriber = ANY(${bind([...this.subscribers.keys()])}::text[])`,
      select: 'SELECT e.*, claimed.event_seq, claimed.subscriber, claimed.attempts FROM claimed JOIN domain_events e ON e.organization_id = claimed.organization_id AND e.seq = claimed.event_seq ORDER BY e.seq',
      leaseSeconds: LEASE_SECONDS,
      batch: 50,
      concurrency: HANDLER_CONCURRENCY,
      done: `status = 'done', done_at = now(), last_error = NULL`,
      failed: { retry: `status = 'pending'`, dead: `status = 'dead'`, maxAttempts: opts.maxAttempts ?? 12, backoff: EVENT_BACKOFF },
      onStop: 'finish',
      handle: (row) => this.subscribers.get(row.subscriber)!.handle(toEvent(row)),
    })
  }

  /**
   * A durable subscriber; `name` is stored with its deliveries, so it must stay the same across releases.
   * `types` 'public' subscribes to every declared type (outgoing webhooks).
   */
  subscribe(name: string, types: readonly string[] | 'public', handle: EventHandler, opts: { interested?: (organization: string) => string } = {}) {
    if (this.subscribers.has(name)) throw new Error(`Event subscriber "${name}" is registered twice`)
    this.subscribers.set(name, { name, types: types === 'public' ? types : new Set(types), handle, interested: opts.interested })
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

  /**
   * Appends the event in the caller's transaction, with one pending delivery
   * per matching subscriber: one statement. The workers are woken after the
   * commit (core/worker.ts `wake`), not by a NOTIFY inside the transaction:
   * PostgreSQL holds one server-wide lock from a notifying
   * transaction's commit to its end, which would queue every write behind the
   * others' commits (docs/decisions/0013-write-path.md).
   */
  async append<T>(q: Queryable, e: NewEvent<T>): Promise<DomainEvent> {
    const ev = this.statement(e, 1, '')
    const { rows } = await q.query<{ id: string; created_at: Date; deliveries: number }>(
      `WITH ${ev.ctes} SELECT id, created_at, (SELECT count(*) FROM d)::int AS deliveries FROM e`, ev.params)
    return this.appended(q, e, ev, rows[0])
  }

  /**
   * Appends several events of one type in the caller's transaction, with
   * their deliveries, in one statement (append's, over arrays): a change that
   * makes many resources at once (a transfer's journal entries) pays one
   * round trip, not one per event. Where a reaction (`within`) takes the
   * type, they are appended one by one, as append does.
   */
  async appendAll<T>(q: Queryable, events: ReadonlyArray<NewEvent<T>>): Promise<void> {
    if (events.length === 0) return
    const type = events[0].type
    if (events.some((e) => e.type !== type)) throw new Error('appendAll takes events of one type')
    if (events.length === 1 || this.inTransaction.some((r) => matches(r.types, type))) {
      for (const e of events) await this.append(q, e)
      return
    }
    // One statement per organization: its subscribers' conditions read that organization's rows only.
    const organizations = [...new Set(events.map((e) => e.organizationId))]
    if (organizations.length > 1) {
      for (const o of organizations) await this.appendAll(q, events.filter((e) => e.organizationId === o))
      return
    }
    const subscribers = [...this.subscribers.values()].filter((s) => (s.types === 'public' ? this.isPublic(type) : matches(s.types, type)))
    const plain = subscribers.filter((s) => !s.interested).map((s) => s.name)
    const deliveries = [
      `SELECT e.organization_id, e.seq, n, e.resource_type || ':' || e.resource_id FROM e, unnest($7::text[]) AS n`,
      ...subscribers.filter((s) => s.interested).map((s) => `SELECT e.organization_id, e.seq, ${quoteLiteral(s.name)}, e.resource_type || ':' || e.resource_id FROM e WHERE ${s.interested!('$8::uuid')}`),
    ].join(' UNION ALL ')
    const { rows } = await q.query<{ deliveries: number }>(
      `WITH x AS (SELECT * FROM unnest($1::text[], $2::uuid[], $4::text[], $5::text[], $6::jsonb[]) WITH ORDINALITY AS x(suffix, organization_id, resource_type, resource_id, data, ord)),
       s AS (SELECT x.*, nextval('domain_events_seq_seq') AS seq FROM (SELECT * FROM x ORDER BY ord) x),
       e AS (
         INSERT INTO domain_events (seq, id, organization_id, type, resource_type, resource_id, data, created_at)
         SELECT s.seq, 'evt_' || lpad(to_hex(s.seq), 16, '0') || s.suffix, s.organization_id, $3, s.resource_type, s.resource_id, s.data, clock_timestamp() FROM s
         RETURNING seq, organization_id, type, resource_type, resource_id),
       d AS (
         INSERT INTO domain_event_deliveries (organization_id, event_seq, subscriber, resource_key)
         ${deliveries}
         RETURNING 1)
       SELECT (SELECT count(*) FROM d)::int AS deliveries, (SELECT count(*) FROM e)::int AS events`,
      [
        events.map(() => randomUUID().replace(/-/g, '').slice(0, 16)), events.map((e) => e.organizationId), type,
        events.map((e) => e.resource.type), events.map((e) => e.resource.id), events.map((e) => JSON.stringify({ object: e.object })), plain,
        // $8, the organization, only where a condition reads it (a parameter no statement names is refused).
        ...(subscribers.some((s) => s.interested) ? [organizations[0]] : []),
      ],
    )
    if (rows[0].deliveries > 0) afterCommit(q, () => this.queue.wake())
  }

  /**
   * One statement that inserts a new row and appends its event: atomic on its
   * own, so a create needs no BEGIN and COMMIT around it (one round trip
   * instead of four; docs/decisions/0013-write-path.md). For a create whose
   * API object the service knows before the insert: it chose the id and the
   * timestamps and gives every column, so `e.object` is what the row will
   * be. `insert` is an INSERT ... RETURNING * of exactly one row; answers that
   * row. Where a reaction (`within`) takes the event type, it runs as before:
   * the insert and the append in one transaction, then the reaction.
   */
  async insertWith<Row, T>(db: Db, insert: { sql: string; params: unknown[] }, e: NewEvent<T>): Promise<Row> {
    if (this.inTransaction.some((r) => matches(r.types, e.type))) {
      return db.tx(async (q) => {
        const { rows } = await q.query<Row>(insert.sql, insert.params)
        await this.append(q, e)
        return rows[0]
      })
    }
    const ev = this.statement(e, insert.params.length + 1, 'r, ')
    const { rows } = await db.query<Row & { deliveries_: number }>(
      `WITH r AS (${insert.sql}), ${ev.ctes} SELECT r.*, (SELECT count(*) FROM d)::int AS deliveries_ FROM r`, [...insert.params, ...ev.params])
    const { deliveries_, ...row } = rows[0]
    if (deliveries_ > 0) afterCommit(db, () => this.queue.wake())
    return row as Row
  }

  /**
   * The event's insert and its deliveries' as CTEs (e, d) of one statement, with
   * parameters from $first; `from` joins them to a CTE before them (the
   * inserted row), so that no event is written without it.
   */
  private statement<T>(e: NewEvent<T>, first: number, from: string) {
    const subscribers = [...this.subscribers.values()].filter((s) => (s.types === 'public' ? this.isPublic(e.type) : matches(s.types, e.type)))
    const data = JSON.stringify({ object: e.object })
    const $ = (n: number) => `$${first + n - 1}`
    // Subscribers without a condition in one row set (unnest); each with one, a row set of its own.
    const plain = subscribers.filter((s) => !s.interested).map((s) => s.name)
    const deliveries = [
      `SELECT e.organization_id, e.seq, n, ${$(8)} FROM e, unnest(${$(7)}::text[]) AS n`,
      ...subscribers.filter((s) => s.interested).map((s) => `SELECT e.organization_id, e.seq, ${quoteLiteral(s.name)}, ${$(8)} FROM e WHERE ${s.interested!(`${$(2)}::uuid`)}`),
    ].join(' UNION ALL ')
    // The id starts with the sequence number, and created_at is the time of this statement (not of the
    // transaction's start): events of one resource, whose changes are serialized by its row lock, sort
    // by (createdAt, id) in the order they happened, also two in one transaction (GET /events).
    const ctes = `e AS (
         INSERT INTO domain_events (seq, id, organization_id, type, resource_type, resource_id, data, created_at)
         SELECT s.seq, 'evt_' || lpad(to_hex(s.seq), 16, '0') || ${$(1)}, ${$(2)}::uuid, ${$(3)}, ${$(4)}, ${$(5)}, ${$(6)}::jsonb, clock_timestamp()
           FROM ${from}(SELECT nextval('domain_events_seq_seq') AS seq) s
         RETURNING seq, id, organization_id, type, created_at),
       d AS (
         INSERT INTO domain_event_deliveries (organization_id, event_seq, subscriber, resource_key)
         ${deliveries}
         RETURNING 1)`
    const params = [randomUUID().replace(/-/g, '').slice(0, 16), e.organizationId, e.type, e.resource.type, e.resource.id, data, plain, `${e.resource.type}:${e.resource.id}`]
    return { ctes, params, data }
  }

  private async appended<T>(q: Queryable, e: NewEvent<T>, ev: { data: string }, row: { id: string; created_at: Date; deliveries: number }): Promise<DomainEvent> {
    if (row.deliveries > 0) afterCommit(q, () => this.queue.wake())
    const reactions = this.inTransaction.filter((r) => matches(r.types, e.type))
    const event: DomainEvent = {
      id: row.id,
      organizationId: e.organizationId,
      type: e.type,
      resourceType: e.resource.type,
      resourceId: e.resource.id,
      // For a reaction, as a subscriber reads it from the table: JSON, not the caller's objects.
      data: reactions.length ? JSON.parse(ev.data) : { object: e.object as unknown },
      createdAt: row.created_at.toISOString(),
    }
    for (const r of reactions) await r.handle(q, event)
    return event
  }

  /** Dispatches until nothing is due (tests, shutdown). */
  async drain(): Promise<{ delivered: number; failed: number }> {
    const r = await this.queue.drain()
    return { delivered: r.done, failed: r.failed }
  }

  /** Dispatches after every commit that appended an event (this process at once, the others by NOTIFY) and polls for retries. */
  start() {
    return this.queue.start()
  }

  /** Stops claiming and waits for the handlers in flight. */
  stop() {
    return this.queue.stop()
  }
}
