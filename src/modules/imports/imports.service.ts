import { randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import type { TSchema } from 'typebox'
import type { Principal } from '../../core/auth.ts'
import { afterCommit, type Db, type Queryable } from '../../core/db.ts'
import { validationDetails } from '../../core/error-handler.ts'
import { AppError, NotFoundError, ValidationError, isUniqueViolation, uniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { heapGuard } from '../../core/heap.ts'
import { compileValidator } from '../../core/validation.ts'
import { Queue } from '../../core/worker.ts'
import type { ImportTarget, Planned } from './import-targets.adapter.ts'
import { CHUNK_ROWS, NotCsvError, TooManyRowsError, UploadError, cellsToValues, csvBatches } from './imports.lib.ts'
import { importsRepository as repo, toImport, type ImportRow } from './imports.repository.ts'
import { IMPORT_MODES, IMPORT_RESOURCES, type CreateImport, type ImportError, type ImportListQuery, type ImportMode, type ImportResource } from './imports.schemas.ts'

/** Row errors an import lists (docs/imports.md "Errors"). */
export const MAX_LISTED_ERRORS = 1000
const LEASE_SECONDS = 60
/** Claims of an import whose write failed for no fault of its rows (the database out of reach) before it is failed. */
const MAX_ATTEMPTS = 3
const CHANNEL = 'imports'
/** Staged rows without an import this long after they were staged belong to an upload whose process died. */
export const ABANDONED_SECONDS = 3600
/** The heap's growth during an import past which it is collected (core/heap.ts): RSS stays flat over 50,000 rows. */
const HEAP_SLACK = 32 * 1024 * 1024

/** The multipart form of an upload, as read by the route. */
export interface ImportForm {
  resource?: string
  mode?: string
  dryRun?: string
}

type Check = ReturnType<typeof compileValidator>
const validator = (schema: TSchema): Check => compileValidator({ schema, httpPart: 'body', method: 'POST', url: '/imports' } as never) as Check

/** The checks of one pass over the rows: the errors so far and the keys seen (two rows of one key). */
class Pass {
  readonly errors: ImportError[] = []
  failed = 0
  readonly seen = new Map<string, number>()
  add(e: ImportError) {
    this.failed++
    if (this.errors.length < MAX_LISTED_ERRORS) this.errors.push(e)
  }
  /** The errors listed, by row (stable: a row's errors in the order found). */
  listed() {
    return [...this.errors].sort((a, b) => a.row - b.row)
  }
}

/** The write was a dry run: the transaction is rolled back with its counts. */
class DryRunDone extends Error {
  constructor(readonly counts: { created: number; updated: number }) {
    super('dry run')
  }
}
/** Rows broke a rule in the write's own check (a concurrent import took a key): nothing written. */
class RowsFailed extends Error {
  constructor(readonly pass: Pass) {
    super('row errors')
  }
}

/**
 * Imports (docs/imports.md): rows staged at upload, then checked and written
 * all or nothing by the queue worker of any process.
 */
export class ImportsService {
  readonly queue: Queue<ImportRow>
  private readonly checks = new Map<TSchema, Check>()

  constructor(
    private readonly db: Db,
    private readonly targets: Record<ImportResource, ImportTarget>,
    log: FastifyBaseLogger,
  ) {
    this.queue = new Queue<ImportRow>(db, log, {
      name: 'imports',
      channel: CHANNEL,
      pollMs: 5_000,
      table: 'imports',
      key: [{ column: 'id', type: 'uuid' }],
      organization: 'organization_id',
      due: `t.status IN ('pending', 'running')`,
      dueAt: 't.created_at',
      order: 't.created_at, t.id',
      onClaim: `status = 'running'`,
      leaseSeconds: LEASE_SECONDS,
      batch: 1,
      concurrency: 1,
      renew: (imp) => repo.renew(this.db, imp.organization_id, imp.id, imp.attempts, LEASE_SECONDS),
      handle: (imp) => this.execute(imp),
    })
  }

  private check(schema: TSchema) {
    let c = this.checks.get(schema)
    if (!c) this.checks.set(schema, (c = validator(schema)))
    return c
  }

  /** resource and mode of a request: 422 at once (docs/imports.md "Errors"). */
  private target(resource: unknown, mode: unknown): { resource: ImportResource; mode: ImportMode } {
    const problems: string[] = []
    if (!IMPORT_RESOURCES.includes(resource as ImportResource)) problems.push(`resource must be one of: ${IMPORT_RESOURCES.join(', ')}`)
    if (mode !== undefined && !IMPORT_MODES.includes(mode as ImportMode)) problems.push(`mode must be one of: ${IMPORT_MODES.join(', ')}`)
    if (problems.length) throw new ValidationError(problems)
    return { resource: resource as ImportResource, mode: (mode as ImportMode | undefined) ?? 'insert' }
  }

  /** A JSON import: its rows staged, the import queued (202). */
  async createFromRows(p: Principal, body: CreateImport) {
    const { resource, mode } = this.target(body.resource, body.mode)
    const id = randomUUID()
    return this.db.tx(async (q) => {
      for (let i = 0; i < body.rows.length; i += CHUNK_ROWS) await repo.stage(q, p.organizationId, id, i + 1, body.rows.slice(i, i + CHUNK_ROWS))
      return this.queued(q, { id, organizationId: p.organizationId, resource, mode, dryRun: body.dryRun ?? false, csv: false, totalRows: body.rows.length, requestedBy: p.id })
    })
  }

  /**
   * A CSV upload: the file is parsed as it streams in and its rows staged in
   * batches (one statement each), then the import is queued (202). Not CSV,
   * too many rows, a bad resource or mode: 422, and its staged rows go.
   */
  async createFromFile(p: Principal, form: ImportForm, file: Readable | undefined, rest: () => Promise<ImportForm>, uploadError: (err: unknown) => unknown) {
    const id = randomUUID()
    let total = 0
    try {
      // Fields sent before the file are checked before it is read.
      if (form.resource !== undefined) this.target(form.resource, form.mode)
      if (!file) throw new ValidationError('file is required: a CSV file (multipart/form-data field file)')
      for await (const batch of csvBatches(file)) {
        await repo.stage(this.db, p.organizationId, id, total + 1, batch)
        total += batch.length
      }
      Object.assign(form, await rest())
      const { resource, mode } = this.target(form.resource, form.mode)
      const dryRun = parseDryRun(form.dryRun)
      if (total === 0) throw new ValidationError('The file has no data rows')
      return await this.db.tx((q) =>
        this.queued(q, { id, organizationId: p.organizationId, resource, mode, dryRun, csv: true, totalRows: total, requestedBy: p.id }))
    } catch (err) {
      file?.resume()
      await repo.dropStaged(this.db, p.organizationId, id)
      if (err instanceof NotCsvError || err instanceof TooManyRowsError) throw new ValidationError(`file: ${err.message}`)
      if (err instanceof UploadError) throw uploadError(err.cause)
      throw err
    }
  }

  private async queued(q: Queryable, v: Parameters<typeof repo.insert>[1]) {
    const row = await repo.insert(q, v)
    afterCommit(q, () => this.queue.wake())
    return toImport(row)
  }

  async get(p: Principal, id: string) {
    const row = await repo.find(this.db, p.organizationId, id)
    if (!row) throw new NotFoundError('Import')
    return toImport(row)
  }

  list(p: Principal, query: ImportListQuery & PageParams) {
    return repo.list(this.db, p.organizationId, query)
  }

  /** Deletes the staged rows of uploads whose process died before the import was inserted (an hour on). */
  async dropAbandoned(organizationId?: string) {
    return { deleted: await repo.dropAbandoned(this.db, ABANDONED_SECONDS, organizationId) }
  }

  /** Runs the due imports (a job's pass: tests and the admin's run). */
  async runDue(organizationId?: string) {
    return this.queue.drain({ organizationId })
  }

  /**
   * One import: every row checked in chunks, the progress committed after
   * each (outside any transaction: PGlite has one connection); then, if no
   * row failed, every row written in one transaction that checks them again
   * under the lock of the resource (a concurrent import of the same keys),
   * rolled back for a dry run.
   */
  private async execute(imp: ImportRow) {
    const target = this.targets[imp.resource]
    const done = (v: { status: 'succeeded' | 'failed'; created?: number; updated?: number; errors?: ImportError[] }) =>
      repo.finish(this.db, imp.organization_id, imp.id, imp.attempts, { processed: imp.total_rows, created: 0, updated: 0, errors: [], ...v })
    const heapCheck = heapGuard(HEAP_SLACK)
    const checked = new Pass()
    let processed = 0
    for (let after = 0; ;) {
      const staged = await repo.staged(this.db, imp.organization_id, imp.id, after, CHUNK_ROWS)
      if (staged.length === 0) break
      await this.plan(this.db, imp, target, staged, checked)
      after = staged[staged.length - 1].row
      processed += staged.length
      await repo.progress(this.db, imp.organization_id, imp.id, imp.attempts, processed)
      heapCheck()
    }
    if (checked.failed) return void (await done({ status: 'failed', errors: checked.listed() }))
    try {
      const counts = await this.db.tx(async (q) => {
        await repo.lockResource(q, imp.organization_id, imp.resource)
        // The keys that exist now, under the lock, all looked up before the first write: a lookup after
        // writes in this transaction would read what it wrote (and the planner's statistics do not know of them).
        const existing = new Map<string, string>()
        for (let after = 0; ;) {
          const staged = await repo.staged(q, imp.organization_id, imp.id, after, CHUNK_ROWS)
          if (staged.length === 0) break
          const keys = [...new Set(staged.flatMap((r) => target.keyOf(this.input(imp, target, r.data)) ?? []))]
          if (keys.length) for (const [key, id] of await target.existing(q, imp.organization_id, keys)) existing.set(key, id)
          after = staged[staged.length - 1].row
        }
        const pass = new Pass()
        const counts = { created: 0, updated: 0 }
        for (let after = 0; ;) {
          const staged = await repo.staged(q, imp.organization_id, imp.id, after, CHUNK_ROWS)
          if (staged.length === 0) break
          const planned = await this.plan(q, imp, target, staged, pass, existing)
          if (!pass.failed) {
            const n = await target.write(q, imp.organization_id, planned.inserts, planned.updates)
            counts.created += n.created
            counts.updated += n.updated
          }
          heapCheck()
          after = staged[staged.length - 1].row
        }
        if (pass.failed) throw new RowsFailed(pass)
        if (imp.dry_run) throw new DryRunDone(counts)
        return counts
      })
      await done({ status: 'succeeded', ...counts })
    } catch (err) {
      if (err instanceof DryRunDone) return void (await done({ status: 'succeeded', ...err.counts }))
      if (err instanceof RowsFailed) return void (await done({ status: 'failed', errors: err.pass.listed() }))
      // A rule broken between the check and the write (a concurrent single request took a key, a product changed):
      // the import fails as a whole (row 0), nothing written. Anything else (the database out of reach) is tried again.
      const whole = wholeImportError(err)
      if (whole === undefined && imp.attempts < MAX_ATTEMPTS) throw err
      return void (await done({ status: 'failed', errors: [{ row: 0, field: '', message: whole ?? 'The rows could not be written (the database failed at every attempt); import them again' }] }))
    }
  }

  /** A staged row as the values of a JSON row (a CSV row's cells turned into values). */
  private input(imp: ImportRow, target: ImportTarget, data: Record<string, unknown>) {
    return imp.csv ? cellsToValues(data, target.create) : data
  }

  /**
   * Checks a chunk of rows as the single routes do (docs/imports.md "Checks"):
   * a row whose key exists is a PATCH (upsert; insert: the POST's message of
   * a taken key), any other a POST, each checked by that route's schema with
   * its messages, then by the service rules; a key seen on an earlier row is
   * an error. Answers the rows to write. The write's pass gives the keys
   * found before it (`known`) and skips the service rules (checked before).
   */
  private async plan(q: Queryable, imp: ImportRow, target: ImportTarget, staged: Array<{ row: number; data: Record<string, unknown> }>, pass: Pass, known?: Map<string, string>) {
    const rows = staged.map(({ row, data }) => ({ row, input: this.input(imp, target, data), key: undefined as string | undefined }))
    const keys: string[] = []
    const fresh = rows.filter((r) => {
      r.key = target.keyOf(r.input)
      if (r.key === undefined) return true
      const first = pass.seen.get(r.key)
      if (first !== undefined) {
        pass.add({ row: r.row, field: target.keyField, message: `Row ${first} has the same ${target.keyLabel ?? target.keyField}` })
        return false
      }
      pass.seen.set(r.key, r.row)
      keys.push(r.key)
      return true
    })
    const existing = known ?? (keys.length ? await target.existing(q, imp.organization_id, keys) : new Map<string, string>())
    const inserts: Planned[] = []
    const updates: Planned[] = []
    for (const r of fresh) {
      const id = r.key === undefined ? undefined : existing.get(r.key)
      if (id !== undefined && imp.mode === 'insert') {
        pass.add({ row: r.row, field: target.keyField, message: target.takenMessage })
        continue
      }
      const check = this.check(id === undefined ? target.create : target.update)
      if (!check(r.input)) {
        for (const d of validationDetails(check.errors ?? [])) pass.add({ row: r.row, ...d })
        continue
      }
      ;(id === undefined ? inserts : updates).push({ row: r.row, input: r.input, id })
    }
    // The service rules run in the check phase only: some read through their module's db (identity's users), which the
    // write's transaction would wait for on PGlite's one connection. A reference that changes in between fails the write.
    if (!known && target.check) for (const e of await target.check(q, imp.organization_id, [...inserts, ...updates])) pass.add(e)
    return { inserts, updates }
  }
}

/** The message of a refusal met while writing, or undefined when the error is no refusal (to try again). */
function wholeImportError(err: unknown): string | undefined {
  if (err instanceof AppError) return err.message
  if (isUniqueViolation(err)) return uniqueMessage((err as { constraint?: string }).constraint)
  if ((err as { code?: string }).code === '23503') return 'A record the rows refer to was deleted meanwhile'
  return undefined
}

/** dryRun of a form: true or false (absent: false). */
function parseDryRun(v: string | undefined) {
  if (v === undefined || v === 'false') return false
  if (v === 'true') return true
  throw new ValidationError('dryRun must be boolean')
}
