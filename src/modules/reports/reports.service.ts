import { randomUUID } from 'node:crypto'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { FastifyBaseLogger } from 'fastify'
import type { TSchema } from 'typebox'
import { STAFF, type Principal } from '../../core/auth.ts'
import { csvStringifier } from '../../core/csv.ts'
import { afterCommit, type Db, type Queryable } from '../../core/db.ts'
import { AppError, ForbiddenError, GoneError, NotFoundError, StateConflictError, ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import type { PageParams } from '../../core/pagination.ts'
import { collectGarbage, heapUsed } from '../../core/heap.ts'
import { compileValidator } from '../../core/validation.ts'
import { Queue, WorkerStopping } from '../../core/worker.ts'
import { reportsRepository as repo, toRun, type RunRow } from './reports.repository.ts'
import type { CreateReport, ReportListQuery, ReportRun } from './reports.schemas.ts'

/** A column of a report's CSV: `key` of each row, written under `header` (default the key). */
export interface ReportColumn {
  key: string
  header?: string
  /** Integer cents, written in decimal major units (123450 -> 1234.50); a number column. */
  money?: boolean
  /**
   * A number column (quantities, hours): a negative decimal written as text
   * ("-2.5") is not prefixed with ' like text that could start a formula
   * (src/core/csv.ts). JavaScript numbers never are, in any column.
   */
  number?: boolean
}
type Flat = Record<string, unknown>
/** A row of a report: an object whose fields are the columns (nested objects flatten). */
type Row = object
type Rows = AsyncIterable<Row> | Iterable<Row>

/**
 * A report type, registered with ReportsService.registerType (docs/analytics.md "Report runs").
 * `rows` answers either a stream of rows (read in batches, never all held) or,
 * for a report computed at once, `{ columns, rows }`. A row's nested plain
 * objects flatten to camelCase columns (contact.name -> contactName).
 */
export interface ReportType<P = any> {
  /** One sentence for the OpenAPI description of POST /reports. */
  description: string
  /** TypeBox schema of `parameters`; checked at POST (422). Defaults it declares are applied. */
  parameters: TSchema
  /** Further rules (from after to, a record id of the organization ...): throw ValidationError (422). */
  validate?(params: P, organizationId: string): void | Promise<void>
  /** The CSV columns in order; default: those of the `columns` answered by rows, else the keys of the first row. */
  columns?: ReadonlyArray<string | ReportColumn>
  rows(q: Queryable, organizationId: string, params: P): Rows | Promise<{ columns?: ReadonlyArray<string | ReportColumn>; rows: Rows }>
}

interface Registered {
  type: ReportType
  check: ReturnType<typeof compileValidator>
}

const LEASE_SECONDS = 60
const MAX_ATTEMPTS = 3
/** Runs of one organization running at once, across every process; the others wait, pending (docs/analytics.md "Limits"). */
export const MAX_RUNNING_PER_ORGANIZATION = 2
/** Pending runs one organization may have; past it POST /reports answers 429 QUEUE_FULL. */
export const MAX_PENDING_PER_ORGANIZATION = 20
/** Retry-After of that 429, seconds: about the time a small run takes to be picked up and end. */
const QUEUE_FULL_RETRY_SECONDS = 30
/** Organizations a claim tries before it gives up (all of them at the cap or taken by others). */
const CLAIM_CANDIDATES = 20
/** At most 1 MiB of CSV per stored chunk. */
const CHUNK_BYTES = 1024 * 1024
export const FILE_KEEP_DAYS = 30
const CHANNEL = 'report_runs'

/** The heap's growth during a run past which it is collected (core/heap.ts). */
const HEAP_SLACK = 48 * 1024 * 1024

/** The run stops because this process does (not the report's fault): it goes back to the queue. */
class Interrupted extends Error {}

/** Integer cents as decimal major units, exactly: -5 -> -0.05. */
export function decimalMoney(cents: unknown): unknown {
  if (typeof cents !== 'number' || !Number.isInteger(cents)) return cents
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

const isPlain = (v: unknown): v is Flat => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !Buffer.isBuffer(v)

/** Nested plain objects as camelCase columns: { contact: { id } } -> { contactId }. */
function flatten(row: Row, prefix = '', out: Flat = {}): Flat {
  for (const [k, v] of Object.entries(row)) {
    const key = prefix ? prefix + k[0].toUpperCase() + k.slice(1) : k
    if (isPlain(v)) flatten(v, key, out)
    else out[key] = v
  }
  return out
}

const columnOf = (c: string | ReportColumn): ReportColumn => (typeof c === 'string' ? { key: c } : c)

/**
 * Report runs: a durable queue in report_runs, executed in the background by
 * every process (claims with FOR UPDATE SKIP LOCKED and a lease, woken by
 * NOTIFY), each writing its CSV as chunks in report_file_chunks.
 */
export class ReportsService {
  private readonly types = new Map<string, Registered>()
  /**
   * The runs as a kernel queue (core/worker.ts) with its own claim (the
   * per-organization cap and fairness below): one run at a time per process,
   * its lease renewed while it writes, given back to the queue when the
   * process stops.
   */
  readonly queue: Queue<RunRow>

  constructor(
    private readonly db: Db,
    private readonly deps: Pick<Services, 'identity' | 'mail'>,
    private readonly log: FastifyBaseLogger,
  ) {
    this.queue = new Queue<RunRow>(db, log, {
      name: 'report-runs',
      channel: CHANNEL,
      // A poll for runs whose lease ran out (their process died) and for those the cap held back.
      pollMs: 5_000,
      table: 'report_runs',
      key: [{ column: 'id', type: 'uuid' }],
      // Pending, or running under a lease that ran out (the kernel adds the lease).
      due: `t.status IN ('pending', 'running')`,
      dueAt: 't.created_at',
      order: 't.created_at, t.id',
      // Unscoped (the worker's metrics), the queue spans every organization by design.
      filter: (scope, bind) => (scope.organizationId ? `t.organization_id = ${bind(scope.organizationId)}` : '/* across organizations: the report queue spans every organization */ true'),
      leaseSeconds: LEASE_SECONDS,
      batch: 1,
      concurrency: 1,
      claim: async (_limit, _busy, scope) => {
        const run = await this.claim([...this.types.keys()], scope.organizationId)
        return run ? [run] : []
      },
      renew: (run) => repo.renew(this.db, run.organization_id, run.id, run.attempts, LEASE_SECONDS),
      onStop: 'abort',
      handle: async (run, signal) => {
        const outcome = await this.execute(run, signal)
        return outcome === 'succeeded' ? 'done' : outcome === 'failed' ? 'failed' : 'skipped'
      },
    })
  }

  /**
   * Adds a report type; the types valid at POST /reports are those
   * registered. Call it from a module's register() (the module declares
   * `needs: ['reports']`). A name is registered once.
   */
  registerType<P>(name: string, type: ReportType<P>) {
    if (!/^[a-z][a-z0-9_]{0,49}$/.test(name)) throw new Error(`Report type name "${name}" must be lower snake case, at most 50 characters`)
    if (this.types.has(name)) throw new Error(`Report type "${name}" is registered twice`)
    this.types.set(name, { type, check: compileValidator({ schema: type.parameters, httpPart: 'body', method: 'POST', url: '/reports' } as never) })
  }

  /** The registered types, by name, with their description. */
  typeNames(): string[] {
    return [...this.types.keys()].sort()
  }

  private readable(p: Principal) {
    if (!STAFF.includes(p.role)) throw new ForbiddenError('Only admins and members run reports')
  }

  /** The parameters as the type's schema takes them (its defaults applied), or 422 naming each broken rule. */
  private async parameters(organizationId: string, name: string, given: Record<string, unknown> | undefined) {
    const reg = this.types.get(name)
    if (!reg) throw new ValidationError(`type must be one of: ${this.typeNames().join(', ')}`)
    const params = structuredClone(given ?? {})
    if (!reg.check(params)) {
      throw new ValidationError((reg.check.errors ?? []).map((e) => {
        const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.')
        if (e.keyword === 'required') return `parameters.${(e.params as { missingProperty: string }).missingProperty} is required`
        if (e.keyword === 'additionalProperties') return `parameters.${(e.params as { additionalProperty: string }).additionalProperty} is not taken by type ${name}`
        return `parameters${path ? '.' + path : ''} ${e.message}`
      }))
    }
    await reg.type.validate?.(params, organizationId)
    return params
  }

  async create(p: Principal, input: CreateReport): Promise<ReportRun> {
    this.readable(p)
    const parameters = await this.parameters(p.organizationId, input.type, input.parameters as Record<string, unknown> | undefined)
    const user = p.userId ? await this.deps.identity.findUser(p.organizationId, p.userId) : undefined
    if (!user) throw new ForbiddenError('Report runs are requested by a user (or a key a user made)')
    const row = await this.db.tx(async (q) => {
      // The count and the insert as one step for every process: never more pending than the limit.
      await repo.lockOrganization(q, p.organizationId)
      if ((await repo.pendingCount(q, p.organizationId)) >= MAX_PENDING_PER_ORGANIZATION) {
        throw new AppError(
          'QUEUE_FULL',
          `This organization already has ${MAX_PENDING_PER_ORGANIZATION} report runs waiting, the most it may queue; request more once some have run (GET /reports?status=pending)`,
          { retryAfterSeconds: QUEUE_FULL_RETRY_SECONDS },
        )
      }
      const run = await repo.insert(q, { id: randomUUID(), organizationId: p.organizationId, type: input.type, parameters, requestedBy: user })
      // Wakes a worker of any process once the run is committed.
      afterCommit(q, () => this.queue.wake())
      return run
    })
    return toRun(row)
  }

  list(p: Principal, query: ReportListQuery & PageParams) {
    this.readable(p)
    // The types are registered at start, so the schema cannot list them: an unknown one is 400 here.
    if (query.type !== undefined && !this.types.has(query.type)) throw new AppError('INVALID_PARAMETER', `type must be one of: ${this.typeNames().join(', ')}`)
    return repo.list(this.db, p.organizationId, query)
  }

  async get(p: Principal, id: string): Promise<ReportRun> {
    this.readable(p)
    const row = await repo.find(this.db, p.organizationId, id)
    if (!row) throw new NotFoundError('Report run')
    return toRun(row)
  }

  /** The CSV of a succeeded run, streamed chunk by chunk: 409 before, 410 past its 30 days. */
  async file(p: Principal, id: string): Promise<{ filename: string; size: number; stream: Readable }> {
    this.readable(p)
    const row = await repo.find(this.db, p.organizationId, id)
    if (!row) throw new NotFoundError('Report run')
    if (row.status !== 'succeeded') throw new StateConflictError(`Report run is ${row.status}; its file is ready once it has succeeded`)
    if (row.expired || row.file_deleted_at) throw new GoneError(`The file of this report run was kept ${FILE_KEEP_DAYS} days and is deleted`)
    const db = this.db
    async function* chunks() {
      for (let seq = 0; ; seq++) {
        const data = await repo.chunk(db, row.organization_id, row.id, row.attempts, seq)
        if (!data) return
        yield Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      }
    }
    return { filename: row.filename!, size: row.file_size ?? 0, stream: Readable.from(chunks(), { objectMode: false }) }
  }

  // ---------------------------------------------------------------- execution

  /**
   * Claims a due run under the per-organization cap: the organizations in
   * the order dueOrganizations gives (fewest running, then least recently
   * served), each tried in a transaction that holds its lock, so that no
   * process ever makes more than MAX_RUNNING_PER_ORGANIZATION of its runs
   * run at once. Undefined when no run may start now.
   */
  private async claim(types: string[], organizationId?: string): Promise<RunRow | undefined> {
    for (const org of await repo.dueOrganizations(this.db, types, MAX_RUNNING_PER_ORGANIZATION, organizationId, CLAIM_CANDIDATES)) {
      const run = await this.db.tx(async (q) => {
        await repo.lockOrganization(q, org)
        return repo.claim(q, org, types, LEASE_SECONDS, MAX_RUNNING_PER_ORGANIZATION)
      })
      if (run) return run
    }
    return undefined
  }

  /**
   * Runs due runs one after the other until none may start (none left, or
   * those left wait for their organization's running ones). Of one
   * organization when given (an admin's run of the job), else of all.
   */
  async runDue(organizationId?: string): Promise<{ succeeded: number; failed: number }> {
    const r = await this.queue.drain({ organizationId })
    return { succeeded: r.done, failed: r.failed }
  }

  /** Executes a claimed run; the kernel renews its lease (the signal aborts when it is lost) and aborts it when the process stops. */
  private async execute(run: RunRow, signal: AbortSignal): Promise<'succeeded' | 'failed' | 'lost' | 'interrupted'> {
    if (run.attempts > MAX_ATTEMPTS) return this.finishFailed(run, `The run was interrupted ${MAX_ATTEMPTS} times (its process stopped); request it again`)
    const stopping = () => signal.reason instanceof WorkerStopping
    try {
      const written = await this.write(run, () => {
        if (signal.aborted) throw new Interrupted(stopping() ? 'stopping' : 'lease lost')
      })
      const done = await this.db.tx(async (q) => {
        const row = await repo.succeed(q, run.organization_id, run.id, run.attempts, { rows: written.rows, size: written.size, filename: `${run.type}-${run.id.slice(0, 8)}.csv`, keepDays: FILE_KEEP_DAYS })
        if (row) await this.notify(q, row)
        return row
      })
      if (!done) await repo.dropChunks(this.db, run.organization_id, run.id, run.attempts)
      return done ? 'succeeded' : 'lost'
    } catch (err) {
      if (err instanceof Interrupted) {
        await repo.dropChunks(this.db, run.organization_id, run.id, run.attempts).catch(() => {})
        if (stopping()) await repo.release(this.db, run.organization_id, run.id, run.attempts).catch(() => {})
        return stopping() ? 'interrupted' : 'lost'
      }
      this.log.warn({ err, run: run.id, type: run.type }, 'report run failed')
      return this.finishFailed(run, (err as Error)?.message || String(err))
    }
  }

  private async finishFailed(run: RunRow, error: string) {
    const row = await this.db.tx(async (q) => {
      const failed = await repo.fail(q, run.organization_id, run.id, run.attempts, error)
      if (failed) await this.notify(q, failed)
      return failed
    })
    return row ? ('failed' as const) : ('lost' as const)
  }

  /** The report's rows through the kernel's CSV writer into chunks of about 1 MiB; nothing but one chunk and one batch held. */
  private async write(run: RunRow, check: () => void): Promise<{ rows: number; size: number }> {
    const { type } = this.types.get(run.type)!
    const params = typeof run.parameters === 'string' ? JSON.parse(run.parameters) : run.parameters
    const answer = await type.rows(this.db, run.organization_id, params)
    const source: { columns?: ReadonlyArray<string | ReportColumn>; rows: Rows } = Symbol.asyncIterator in answer || Symbol.iterator in answer ? { rows: answer as Rows } : (answer as { rows: Rows })
    const iterator = (Symbol.asyncIterator in source.rows ? source.rows[Symbol.asyncIterator]() : (source.rows as Iterable<Row>)[Symbol.iterator]()) as AsyncIterator<Row> | Iterator<Row>
    const first = await iterator.next()
    const declared = type.columns ?? source.columns
    const columns = (declared ?? (first.done ? [] : Object.keys(flatten(first.value)))).map(columnOf)
    const money = columns.filter((c) => c.money).map((c) => c.key)
    let rows = 0
    const convert = (row: Row) => {
      const flat = flatten(row)
      for (const key of money) flat[key] = decimalMoney(flat[key])
      rows++
      return flat
    }
    async function* records() {
      if (first.done) return
      yield convert(first.value)
      for (;;) {
        check()
        const next = await iterator.next()
        if (next.done) return
        yield convert(next.value)
      }
    }
    let seq = 0
    let size = 0
    // One buffer, reused for every chunk: the text the CSV writer gives is copied in at once, so
    // that no piece of it lives long enough to reach V8's old space (RSS stays flat on big runs).
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
    let used = 0
    const store = async (data: Buffer) => {
      check()
      await repo.insertChunk(this.db, run.organization_id, run.id, run.attempts, seq++, data)
      size += data.length
    }
    const heapAtStart = heapUsed()
    const flush = async () => {
      if (!used) return
      await store(buffer.subarray(0, used))
      used = 0
      if (heapUsed() > heapAtStart + HEAP_SLACK) collectGarbage()
    }
    const append = async (piece: Buffer | string) => {
      const bytes = typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length
      if (used + bytes > buffer.length) await flush()
      if (bytes > buffer.length) return store(Buffer.from(piece))
      used += typeof piece === 'string' ? buffer.write(piece, used) : piece.copy(buffer, used)
    }
    if (!columns.length) return { rows: 0, size: 0 }
    const sink = new Writable({
      decodeStrings: false,
      write(chunk: Buffer | string, _enc, cb) {
        append(chunk).then(() => cb(), cb)
      },
      final(cb) {
        flush().then(() => cb(), cb)
      },
    })
    await pipeline(
      Readable.from(records()),
      csvStringifier(columns.map((c) => ({ key: c.key, header: c.header, number: c.money || c.number }))),
      sink,
    )
    return { rows, size }
  }

  /** E-mails the requester, in the transaction that ends the run. */
  private async notify(q: Queryable, row: RunRow) {
    const ok = row.status === 'succeeded'
    await this.deps.mail.enqueue(q, {
      organizationId: row.organization_id,
      to: row.requested_by_email,
      subject: `Report ${row.type} ${ok ? 'succeeded' : 'failed'}`,
      text: ok
        ? `Hello ${row.requested_by_name},\n\nyour ${row.type} report is ready: ${row.row_count} rows, ${row.filename}.\nDownload it with GET /api/reports/${row.id}/file within ${FILE_KEEP_DAYS} days.\n`
        : `Hello ${row.requested_by_name},\n\nyour ${row.type} report (run ${row.id}) failed: ${row.error}\n`,
    })
  }

  /** Deletes the files past their 30 days (housekeeping job): of one organization (an admin's run), or of every one. */
  async deleteExpiredFiles(organizationId?: string): Promise<{ deleted: number }> {
    let deleted = 0
    for (;;) {
      const n = await repo.deleteExpired(this.db, 100, organizationId)
      deleted += n
      if (n < 100) return { deleted }
    }
  }

  /** Runs due runs on every commit of a new run (NOTIFY, any process) and polls for leases that ran out. */
  start() {
    return this.queue.start()
  }

  /** Stops taking runs; a run in progress goes back to the queue for another process. */
  stop() {
    return this.queue.stop()
  }
}
