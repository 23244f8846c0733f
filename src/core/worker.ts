import { Type } from 'typebox'
import type { FastifyBaseLogger } from 'fastify'
import { ADMIN, principalOf } from './auth.ts'
import { inDryRun, type Db } from './db.ts'
import type { App } from './http.ts'
import type { JobScope } from './jobs.ts'
import { Named, responses } from './schemas.ts'

/**
 * The kernel's queue worker (docs/architecture.md "Background work"). A
 * module's queue is its own table, whose rows are also API resources (GET
 * /webhook-endpoints/:id/deliveries, /admin/outbox, /reports); the module declares
 * it with a `QueueSpec` and the kernel claims the due rows (FOR UPDATE SKIP
 * LOCKED, then a lease), counts the attempts, records success or failure with
 * one backoff function, renews leases of long work, and runs the loop of every
 * process: woken by NOTIFY of the queue's channel, by a poll for retries and
 * leases that ran out, and by kicks; one claim at a time per queue and
 * process, a bounded number of handlers (in all, and per group), a graceful
 * stop, and metrics (GET /admin/queues).
 *
 * At least once: a handler may run again for a row whose lease ran out
 * (its process died or stalled), so handlers are idempotent.
 */

export interface BackoffOptions {
  /** Exponential: attempt 1 waits baseSeconds, each next attempt twice as long. */
  baseSeconds?: number
  /** An explicit schedule instead: attempt n waits delays[n - 1] (the last one repeats). */
  delays?: readonly number[]
  /** No delay longer than this. */
  maxSeconds?: number
  /** Lengthens the delay by up to this fraction, at random (0.1: up to 10%). */
  jitter?: number
}

/** Seconds before the attempt after the `attempt`-th failed one (1-based): the one backoff of every queue. */
export function backoffSeconds(attempt: number, o: BackoffOptions, random: () => number = Math.random): number {
  const n = Math.max(1, attempt)
  const plain = o.delays ? (o.delays[Math.min(n, o.delays.length) - 1] ?? 0) : (o.baseSeconds ?? 1) * 2 ** (n - 1)
  const capped = Math.min(plain, o.maxSeconds ?? Infinity)
  return o.jitter ? capped * (1 + random() * o.jitter) : capped
}

/** What a handler's work came to, when the module records it itself (no `done`/`failed` in the spec). */
export type Outcome = 'done' | 'failed' | 'skipped'

/** The signal's reason when the process stops a queue whose spec says `onStop: 'abort'`. */
export class WorkerStopping extends Error {
  constructor() {
    super('the worker is stopping')
  }
}
/** The signal's reason when `renew` answers that the row is no longer this claim's. */
export class LeaseLost extends Error {
  constructor() {
    super('the lease was lost')
  }
}

/** Adds a parameter to the statement being built and answers its placeholder ($n). */
export type Bind = (value: unknown) => string

export interface QueueSpec<Row> {
  /** Named in metrics and logs. */
  name: string
  /** NOTIFY channel on which a commit that queues a row wakes the workers of every process. */
  channel?: string
  /** false: no loop (declared for metrics and one-pass runs only: mail without SMTP_URL). */
  background?: boolean
  /** Poll for retries that came due and leases that ran out (default 1000 ms). */
  pollMs?: number
  /** The module's table (alias t in every fragment below). */
  table: string
  /** Its key columns with their SQL types: the successes of a batch are recorded in one statement. */
  key: ReadonlyArray<{ column: string; type: string }>
  /**
   * The column of the row's organization (a uuid), in the table and in the claimed row: the
   * statements that record a claimed row's outcome name it (Citus routing, docs/scale-out.md),
   * the successes of a batch one statement per organization. The claim and the metrics read
   * due rows of every organization (by design), or, in a run for one (an admin's), of that one.
   */
  organization?: string
  /** The row waits for an attempt (its status, next_attempt_at): metrics count these. */
  due: string
  /**
   * An extra condition of the claim only: the row is the first pending one of
   * its resource. Say it as `t.seq = (SELECT p.seq ... ORDER BY p.seq LIMIT 1)`,
   * one index probe per candidate, not as NOT EXISTS (an earlier one pending):
   * the planner may turn that into an anti-join that reads every pending row
   * per candidate when its statistics say few are pending (a queue analyzed
   * while empty), and a backlog of thousands then takes seconds per claim.
   */
  ready?: string
  /** When the row became due (metrics: oldest due). */
  dueAt: string
  /** ORDER BY of the claim. */
  order: string
  /** The column that holds the lease (default locked_until): free when null or past. */
  leaseColumn?: string
  leaseSeconds: number
  /** Extra SET of the claim, e.g. "status = 'sending'". */
  onClaim?: string
  /** A SELECT over `claimed` (the claimed rows, w.*) when a handler needs more than the row; in the order to handle them. */
  select?: string
  /**
   * Narrows claims and metrics: this process's subscribers, or one organization's rows (an admin's run)
   * where the spec has no `organization` column (with one, the kernel narrows to the run's organization).
   */
  filter?: (scope: JobScope, bind: Bind) => string | Promise<string>
  /** The module's own claim, where a generic one cannot say it (per-group slot scan, an organization lock). */
  claim?: (limit: number, busy: ReadonlyMap<string, number>, scope: JobScope) => Promise<Row[]>
  /** Rows claimed at once (default 20). */
  batch?: number
  /** Handlers running at once in this process (default `batch`). */
  concurrency?: number
  /**
   * Handlers per group (an endpoint) in this process, counted by the kernel
   * and handed to the module's `claim` as `busy`, which takes at most `max`
   * of a group and skips saturated groups (webhooks).
   */
  group?: { of: (row: Row) => string; max: number }
  /** SET on success (kernel-recorded): the lease column is cleared too. */
  done?: string
  /** Kernel-recorded failures: SET while attempts remain, SET when they run out, and the backoff. */
  failed?: { retry?: string; dead?: string; maxAttempts?: number; backoff: BackoffOptions }
  /** The attempts counter of a claimed row (default row.attempts). */
  attempts?: (row: Row) => number
  /** Keeps the lease of long work: called every leaseSeconds / 4; false aborts the handler (LeaseLost). */
  renew?: (row: Row) => Promise<boolean>
  /** On stop: 'finish' waits for the handlers; 'abort' aborts their signal (WorkerStopping) and waits. */
  onStop?: 'finish' | 'abort'
  /**
   * The work. Resolving records success, throwing records a failure (with
   * `done`/`failed`); without them the handler records its own columns and
   * answers what it came to.
   */
  handle(row: Row, signal: AbortSignal): Promise<void | Outcome>
}

export interface QueueMetrics {
  name: string
  /** Rows due now, not held by a live lease. */
  depth: number
  /** Seconds since the oldest of them became due; 0 when none. */
  oldestDueSeconds: number
  /** The highest attempts count among them. */
  maxAttempts: number
  /** Handlers running in this process. */
  inFlight: number
}

export interface PassResult {
  done: number
  failed: number
}

interface Task {
  promise: Promise<void>
  controller: AbortController
}

/** At most `limit` at once; the others wait in turn. */
class Slots {
  private used = 0
  private readonly waiting: Array<() => void> = []

  constructor(private readonly limit: number) {}

  async take() {
    if (this.used >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.used++
  }

  give() {
    const next = this.waiting.shift()
    if (next) next()
    else this.used--
  }
}

/** The least time between two NOTIFYs of one queue from one process (Queue.wake). */
const NOTIFY_SPACING_MS = 50

const errorText = (err: unknown) => String((err as Error)?.message ?? err).slice(0, 1000)

/** One declared queue and its loop in this process. */
export class Queue<Row extends object> {
  private readonly tasks = new Set<Task>()
  private readonly groups = new Map<string, number>()
  /** Handler slots of the loop (each pass has its own). */
  private readonly slots: Slots
  private running = false
  private listening = false
  private timer?: NodeJS.Timeout
  private claiming: Promise<unknown> = Promise.resolve()
  private looping = false
  private stops = 0
  private again = false
  /** Handlers running now (loop and passes). */
  private handling = 0
  private doneKeys: Row[] = []
  private doneWaiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = []
  private flushing?: Promise<void>
  private notifying = false
  private notifyAgain = false

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    readonly spec: QueueSpec<Row>,
  ) {
    this.slots = new Slots(this.concurrency)
  }

  private get batch() {
    return this.spec.batch ?? 20
  }

  private get concurrency() {
    return this.spec.concurrency ?? this.batch
  }

  /** Rows this process may hold claimed at once: a batch waits for handlers, never more. */
  private get capacity() {
    return Math.max(this.batch, this.concurrency)
  }

  private get lease() {
    return this.spec.leaseColumn ?? 'locked_until'
  }

  /** SET that ends the lease; none when the lease is next_attempt_at itself (the backoff sets it). */
  private get endLease() {
    return this.lease === 'next_attempt_at' ? [] : [`${this.lease} = NULL`]
  }

  private attemptsOf(row: Row) {
    return this.spec.attempts ? this.spec.attempts(row) : (row as { attempts: number }).attempts
  }

  /** Starts the loop: on NOTIFY of the channel (any process), every pollMs, and now. */
  async start() {
    if (this.running || this.spec.background === false) return
    this.running = true
    if (this.spec.channel && !this.listening) {
      this.listening = true
      await this.db.listen(this.spec.channel, () => this.kick(), () => this.kick())
    }
    this.timer = setInterval(() => this.kick(), this.spec.pollMs ?? 1000)
    this.timer.unref()
    this.kick()
  }

  /** Stops claiming; finishes or aborts the handlers in flight (spec.onStop) and waits for them. */
  async stop() {
    this.running = false
    this.stops++
    clearInterval(this.timer)
    // A claim in progress ends first: the rows it took are then among the tasks.
    await this.claiming.catch(() => {})
    if (this.spec.onStop === 'abort') for (const task of this.tasks) task.controller.abort(new WorkerStopping())
    await Promise.allSettled([...this.tasks].map((t) => t.promise))
  }

  /**
   * After a commit that queued rows (core/db.ts `afterCommit`): kicks this
   * process's loop at once and wakes the other processes' by a NOTIFY on the
   * channel, at most one every NOTIFY_SPACING_MS per queue and process (a
   * burst of commits sends one, then one for what came during it). The
   * NOTIFY runs in a statement of its own, outside the writes' transactions:
   * inside them, PostgreSQL's lock on the notification queue would be held
   * through each commit, one commit after another (docs/decisions/0013-write-path.md).
   * In a dry run (core/dry-run.ts) nothing was queued: no kick, no NOTIFY, and
   * the loop is never started in the dry run's async context.
   */
  wake() {
    if (inDryRun()) return
    this.kick()
    if (!this.spec.channel) return
    if (this.notifying) {
      this.notifyAgain = true
      return
    }
    this.notifying = true
    const channel = this.spec.channel
    void (async () => {
      try {
        do {
          this.notifyAgain = false
          await this.db.query('SELECT pg_notify($1, $2)', [channel, ''])
          await new Promise((r) => setTimeout(r, NOTIFY_SPACING_MS).unref())
        } while (this.notifyAgain)
      } catch (err) {
        // The other processes' poll finds the rows; only their wake-up is late.
        this.log.warn({ err, queue: this.spec.name }, 'queue NOTIFY failed')
      } finally {
        this.notifying = false
      }
    })()
  }

  /** A wake-up: claims what is due up to the free capacity; again after a claim that found work or a kick during it. */
  kick() {
    if (!this.running) return
    if (this.looping) {
      this.again = true
      return
    }
    this.looping = true
    void (async () => {
      try {
        do {
          this.again = false
          const started = await this.claimAndStart({}, () => Math.min(this.batch, this.capacity - this.tasks.size), this.slots)
          if (started.length > 0) this.again = true
        } while (this.again && this.running && this.tasks.size < this.capacity)
      } catch (err) {
        this.log.warn({ err, queue: this.spec.name }, 'queue claim failed')
      } finally {
        this.looping = false
      }
    })()
  }

  /**
   * One pass: claims up to a batch of due rows (within `scope`), handles them
   * and answers what they came to. The admin's "run job now" and tests use it.
   */
  async runOnce(scope: JobScope = {}): Promise<PassResult> {
    const { done, failed } = await this.pass(scope)
    return { done, failed }
  }

  /** Passes until one claims nothing or the queue stops (tests, an admin's run of a queue that runs one row at a time). */
  async drain(scope: JobScope = {}): Promise<PassResult> {
    const stops = this.stops
    const total = { done: 0, failed: 0 }
    for (;;) {
      const r = await this.pass(scope)
      total.done += r.done
      total.failed += r.failed
      if (r.claimed === 0 || this.stops !== stops) return total
    }
  }

  /** A batch with handler slots of its own: passes run beside the loop and beside each other, as another process's would. */
  private async pass(scope: JobScope) {
    const result = { done: 0, failed: 0 }
    const started = await this.claimAndStart(scope, () => this.batch, new Slots(this.concurrency), result)
    await Promise.allSettled(started.map((t) => t.promise))
    return { ...result, claimed: started.length }
  }

  /** Claims (one claim at a time in this process) and starts a handler for each row. */
  private claimAndStart(scope: JobScope, limitNow: () => number, slots: Slots, result?: PassResult): Promise<Task[]> {
    const next = this.claiming.catch(() => {}).then(async () => {
      const limit = limitNow()
      if (limit <= 0) return []
      const rows = this.spec.claim ? await this.spec.claim(limit, this.groups, scope) : await this.claim(limit, scope)
      return rows.map((row) => this.startTask(row, slots, result))
    })
    this.claiming = next
    return next
  }

  /** The placeholder of the organization of a run for one (an admin's), where the spec names the column. */
  private organizationOf(scope: JobScope, bind: Bind): string | undefined {
    return this.spec.organization && scope.organizationId !== undefined ? bind(scope.organizationId) : undefined
  }

  /** The rows of claims and metrics: the spec's filter, and the organization of a run for one (`org`, its placeholder). */
  private async filter(scope: JobScope, bind: Bind, org: string | undefined): Promise<string> {
    const own = this.spec.filter ? await this.spec.filter(scope, bind) : 'true'
    return org ? `t.${this.spec.organization} = ${org} AND (${own})` : own
  }

  /** The generic claim: due, ready and not leased, oldest first, SKIP LOCKED; a lease and one more attempt. */
  private async claim(limit: number, scope: JobScope): Promise<Row[]> {
    const s = this.spec
    const params: unknown[] = [limit, s.leaseSeconds]
    const bind: Bind = (v) => `$${params.push(v)}`
    const org = this.organizationOf(scope, bind)
    const filter = await this.filter(scope, bind, org)
    // With the organization's column known, the rows are matched on it too (the table's key begins with
    // it), and a run for one organization (an admin's) names it: one shard on Citus.
    const columns = [...(s.organization ? [s.organization] : []), ...s.key.map((k) => k.column)]
    const pinned = org ? `w.${s.organization} = ${org} AND ` : ''
    const across = org ? '' : "/* across organizations: a queue's claim of due rows of any organization */ "
    const claimed = `UPDATE ${across}${s.table} w
         SET ${this.lease} = now() + make_interval(secs => $2), attempts = w.attempts + 1${s.onClaim ? `, ${s.onClaim}` : ''}
       WHERE ${pinned}(${columns.map((c) => `w.${c}`).join(', ')}) IN (
         SELECT ${columns.map((c) => `t.${c}`).join(', ')} FROM ${s.table} t
          WHERE (${s.due}) AND (t.${this.lease} IS NULL OR t.${this.lease} < now()) AND (${s.ready ?? 'true'}) AND (${filter})
          ORDER BY ${s.order} LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING w.*`
    // Handed out in claim order (RETURNING has none of its own).
    const { rows } = await this.db.query<Row>(`WITH claimed AS (${claimed}) ${s.select ?? `SELECT * FROM claimed t ORDER BY ${s.order}`}`, params)
    return rows
  }

  private startTask(row: Row, slots: Slots, result?: PassResult): Task {
    const controller = new AbortController()
    const group = this.spec.group?.of(row)
    if (group !== undefined) this.groups.set(group, (this.groups.get(group) ?? 0) + 1)
    const task: Task = { controller, promise: Promise.resolve() }
    task.promise = this.run(row, controller, slots, result)
      .catch((err) => this.log.error({ err, queue: this.spec.name }, 'queue bookkeeping failed'))
      .finally(() => {
        if (group !== undefined) {
          const n = (this.groups.get(group) ?? 1) - 1
          if (n > 0) this.groups.set(group, n)
          else this.groups.delete(group)
        }
        this.tasks.delete(task)
        // Claims again once fewer rows are in hand than handlers: a batch at a time, or one by one
        // where every claimed row has a handler of its own (webhooks).
        if (this.tasks.size < this.concurrency) this.kick()
      })
    this.tasks.add(task)
    return task
  }

  /** Waits for a handler slot (spec.concurrency), runs the handler under lease renewal, records what it came to. */
  private async run(row: Row, controller: AbortController, slots: Slots, result?: PassResult) {
    await slots.take()
    this.handling++
    const renewal = this.spec.renew && setInterval(() => {
      this.spec.renew!(row).then(
        (held) => held || controller.abort(new LeaseLost()),
        (err) => this.log.warn({ err, queue: this.spec.name }, 'lease renewal failed'),
      )
    }, (this.spec.leaseSeconds * 1000) / 4)
    if (renewal) renewal.unref()
    let outcome: Outcome
    let recorded: Promise<void> | undefined
    try {
      try {
        outcome = (await this.spec.handle(row, controller.signal)) ?? 'done'
        if (outcome === 'done' && this.spec.done) recorded = this.markDone(row)
      } catch (err) {
        if (!this.spec.failed) throw err
        outcome = 'failed'
        await this.recordFailure(row, err)
      }
    } finally {
      clearInterval(renewal)
      this.handling--
      // Before the next handler takes the slot: a queue of one handler records each success at once.
      if (this.doneKeys.length && (this.handling === 0 || this.doneKeys.length >= this.batch)) void this.flush().catch(() => {})
      slots.give()
    }
    await recorded
    if (result && outcome !== 'skipped') result[outcome]++
  }

  /**
   * A success waits to be recorded with the others: one statement once a
   * batch of them is in, or once no handler is running: at once where
   * handlers run one at a time (mail: a message is marked sent right after
   * it is sent, as before).
   */
  private markDone(row: Row): Promise<void> {
    this.doneKeys.push(row)
    return new Promise((resolve, reject) => this.doneWaiters.push({ resolve, reject }))
  }

  /** Records the successes waiting, after the statement in progress. */
  private flush(): Promise<void> {
    const next = (this.flushing ?? Promise.resolve()).catch(() => {}).then(async () => {
      const rows = this.doneKeys
      const waiters = this.doneWaiters
      if (!rows.length) return
      this.doneKeys = []
      this.doneWaiters = []
      const s = this.spec
      const cols = s.key.map((k) => k.column)
      const keys = `(${cols.join(', ')}) IN (SELECT * FROM unnest(${s.key.map((k, i) => `$${i + 1}::${k.type}[]`).join(', ')}))`
      const values = (of: Row[]) => cols.map((c) => of.map((r) => (r as Record<string, unknown>)[c]))
      try {
        if (s.organization) {
          // One statement per organization of the batch (most often one).
          const byOrganization = new Map<unknown, Row[]>()
          for (const r of rows) {
            const o = (r as Record<string, unknown>)[s.organization]
            byOrganization.set(o, [...(byOrganization.get(o) ?? []), r])
          }
          for (const [o, of] of byOrganization) {
            await this.db.query(
              `UPDATE ${s.table} SET ${[s.done, ...this.endLease].join(', ')} WHERE ${s.organization} = $${cols.length + 1}::uuid AND ${keys}`,
              [...values(of), o],
            )
          }
        } else {
          await this.db.query(`UPDATE ${s.table} SET ${[s.done, ...this.endLease].join(', ')} WHERE ${keys}`, values(rows))
        }
      } catch (err) {
        for (const w of waiters) w.reject(err)
        throw err
      }
      for (const w of waiters) w.resolve()
    })
    this.flushing = next
    return next
  }

  private async recordFailure(row: Row, err: unknown) {
    const f = this.spec.failed!
    const attempts = this.attemptsOf(row)
    const dead = f.maxAttempts !== undefined && attempts >= f.maxAttempts
    this.log[dead ? 'error' : 'warn']({ err, queue: this.spec.name, attempts }, dead ? 'queued work given up' : 'queued work failed; will retry')
    const s = this.spec
    const params: unknown[] = [errorText(err), backoffSeconds(attempts, f.backoff)]
    const where = [...(s.organization ? [s.organization] : []), ...s.key.map((k) => k.column)]
      .map((c) => `${c} = $${params.push((row as Record<string, unknown>)[c])}`).join(' AND ')
    const set = [dead ? f.dead : f.retry, ...this.endLease, 'last_error = $1', 'next_attempt_at = now() + make_interval(secs => $2)'].filter(Boolean)
    await this.db.query(`UPDATE ${s.table} SET ${set.join(', ')} WHERE ${where}`, params)
  }

  /** Depth, oldest due and attempts of the due rows (within `scope`), and the handlers running here. */
  async metrics(scope: JobScope = {}): Promise<QueueMetrics> {
    const s = this.spec
    const params: unknown[] = []
    const bind: Bind = (v) => `$${params.push(v)}`
    const org = this.organizationOf(scope, bind)
    const filter = await this.filter(scope, bind, org)
    const across = org ? '' : "/* across organizations: a queue's depth over every organization (but an admin's, by its filter) */ "
    const { rows } = await this.db.query<{ depth: number; oldest: number | null; max_attempts: number }>(
      `SELECT ${across}count(*)::int AS depth, extract(epoch FROM now() - min(${s.dueAt}))::float8 AS oldest, coalesce(max(t.attempts), 0)::int AS max_attempts
         FROM ${s.table} t
        WHERE (${s.due}) AND (t.${this.lease} IS NULL OR t.${this.lease} < now()) AND (${filter})`,
      params,
    )
    const r = rows[0]
    return { name: s.name, depth: r.depth, oldestDueSeconds: Math.max(0, Math.round(r.oldest ?? 0)), maxAttempts: r.max_attempts, inFlight: this.tasks.size }
  }
}

/** Every queue of the process: modules declare theirs, the app starts and stops them with the jobs. */
export class Worker {
  private readonly queues = new Map<string, Queue<object>>()

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Declares a queue (or adopts one built with `new Queue`, the domain events'); `start` runs its loop when the process runs background work (JOBS=on). */
  add<Row extends object>(spec: QueueSpec<Row> | Queue<Row>): Queue<Row> {
    const queue = spec instanceof Queue ? spec : new Queue<Row>(this.db, this.log, spec)
    if (this.queues.has(queue.spec.name)) throw new Error(`Queue "${queue.spec.name}" is declared twice`)
    this.queues.set(queue.spec.name, queue as unknown as Queue<object>)
    return queue
  }

  list(): Queue<object>[] {
    return [...this.queues.values()]
  }

  async start() {
    for (const q of this.queues.values()) await q.start()
  }

  async stop() {
    await Promise.all([...this.queues.values()].map((q) => q.stop()))
  }

  /** Metrics of every queue, by name; with an organization, of its rows only. */
  async metrics(scope: JobScope = {}): Promise<QueueMetrics[]> {
    const out: QueueMetrics[] = []
    for (const q of [...this.queues.values()].sort((a, b) => a.spec.name.localeCompare(b.spec.name))) out.push(await q.metrics(scope))
    return out
  }
}

const QueueInfo = Named('Queue', Type.Object({
  name: Type.String({ description: 'The queue (every declared one is listed; see the operation)' }),
  depth: Type.Integer({ description: "Rows of the caller's organization due now and not being worked on" }),
  oldestDueSeconds: Type.Integer({ description: 'Seconds since the oldest of them became due; 0 when none' }),
  maxAttempts: Type.Integer({ description: 'The most attempts any of them has had (a row failing again and again shows here)' }),
}))

/** GET /admin/queues: what an operator watches; installed after every module, so the description names every queue. */
export function queueRoutes(app: App, worker: Worker) {
  app.get('/admin/queues', {
    schema: {
      operationId: 'listQueues', tags: ['system'], summary: 'Background queues and their backlog',
      description: "Each queue of the background worker with its rows of the caller's organization that are due (depth), " +
        'how long the oldest has waited and the most attempts among them; a growing depth or age means the work is not keeping up, ' +
        `a high attempts count a receiver that keeps failing. Queues: ${worker.list().map((q) => `\`${q.spec.name}\``).sort().join(', ')}.`,
      response: responses({ 200: Type.Array(QueueInfo) }),
    },
    config: { access: { roles: ADMIN } },
  }, async (req) => (await worker.metrics({ organizationId: principalOf(req).organizationId }))
    // inFlight counts every organization's rows: not for a tenant's admin.
    .map(({ name, depth, oldestDueSeconds, maxAttempts }) => ({ name, depth, oldestDueSeconds, maxAttempts })))
}
