import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import { appendFileSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import pg from 'pg'

export interface QueryResult<T> {
  rows: T[]
  rowCount: number
}

/** Anything that runs SQL: the database itself or an open transaction. */
export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>
  /** Set on the `q` of a transaction (Db.tx): runs fn after its COMMIT succeeded, never after a rollback. */
  afterCommit?(fn: () => void): void
}

/**
 * Runs fn once what q wrote is committed: after the COMMIT of a transaction,
 * or at once when q is the database itself (each statement commits as it
 * runs). For wake-ups that need not be durable (a worker's kick, a NOTIFY):
 * the rows they announce are, and a poll finds them if the process dies
 * between the commit and fn.
 */
export function afterCommit(q: Queryable, fn: () => void) {
  if (q.afterCommit) q.afterCommit(fn)
  // In a dry run nothing commits: the wake-up announces nothing (docs/platform.md "Dry runs").
  else if (!inDryRun()) fn()
}

/** Calls the functions registered on a transaction once it committed; one that throws does not stop the others. */
function runAfterCommit(fns: Array<() => void>) {
  for (const fn of fns) {
    try {
      fn()
    } catch (err) {
      console.error('after-commit callback failed', err)
    }
  }
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'pg'
  /**
   * Runs fn in one transaction: committed when fn resolves, rolled back when it
   * throws. On PostgreSQL a transaction aborted by a deadlock or a
   * serialization failure is run again (fn runs at most 3 times), so fn talks
   * only to the database.
   */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>
  /** Runs fn holding a session-level advisory lock (used by migrations). */
  withLock<T>(lockId: number, fn: (q: Queryable) => Promise<T>): Promise<T>
  /**
   * Calls onMessage with the payload of each NOTIFY on channel (from any
   * process on this database). onGap is called when messages may have been
   * missed (the listening connection dropped and came back).
   */
  listen(channel: string, onMessage: (payload: string) => void, onGap: () => void): Promise<void>
  /**
   * Runs fn in one transaction that is always rolled back (`Prefer: dry-run`,
   * core/dry-run.ts): answers fn's result or throws its error, and keeps
   * nothing. Until fn settles, every query, tx and withLock of this Db made
   * from fn's async context runs in that transaction (a tx as a savepoint);
   * callbacks of afterCommit are dropped; a statement sent from that context
   * after the end is refused with DryRunEndedError, never run for real.
   */
  dryRun<T>(fn: () => Promise<T>): Promise<T>
  close(): Promise<void>
  /** PGlite only: the whole data directory as a tarball, which `openDb({ image })` starts from (the tests' migrated database). */
  dumpImage?(): Promise<Blob>
}

// Both drivers return the same JavaScript values: int8 and numeric as numbers
// (money is integer cents, far below 2^53), dates as 'YYYY-MM-DD' strings,
// timestamps as Date.
const INT8 = 20
const NUMERIC = 1700
const DATE = 1082

const toNumber = (v: string) => (v === null ? null : Number(v))
const asIs = (v: string) => v

/**
 * The database cannot be reached, is restarting, or dropped the connection:
 * 503, maintenance or overload (docs/errors.md "Statuses"), not the caller's fault nor a bug. Any
 * statement of the request may or may not have run; the transaction, if any,
 * did not commit.
 */
export class DatabaseUnavailableError extends Error {
  constructor(readonly cause: unknown) {
    super(`database unavailable: ${(cause as Error)?.message ?? cause}`)
  }
}

// SQLSTATE classes and codes of an unreachable or restarting server: connection
// exceptions (08), admin or crash shutdown and "cannot connect now" (57P01-57P04),
// too many connections (53300).
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-4]|53300)$/
const UNAVAILABLE_SYSCALL = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
const UNAVAILABLE_MESSAGE = /Connection terminated|connection timeout|not queryable|timeout exceeded when trying to connect|Cannot use a pool after calling end|PGlite is closed/i

/**
 * SQLSTATEs after which PostgreSQL has rolled the whole transaction back and
 * running it again may well succeed: deadlock_detected (two transactions
 * waited on each other's row locks; PostgreSQL aborted one of them) and
 * serialization_failure. A transaction that meets one is run again from the
 * start, at most TX_ATTEMPTS times in all, as Odoo retries a request on these
 * errors. Safe because a transaction's function only talks to the database:
 * e-mails, events and webhooks are rows it writes (outboxes), and calls to
 * outside services (the payment processor) happen outside transactions.
 */
const RETRYABLE = new Set(['40P01', '40001'])
const TX_ATTEMPTS = 3

/** Whether an error says the database is out of reach (rather than that the statement was wrong). */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true
  const e = err as { code?: unknown; message?: unknown } | null
  if (!e) return false
  if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATE.test(e.code) || UNAVAILABLE_SYSCALL.has(e.code))) return true
  return typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)
}

const unavailable = (err: unknown) => (isDatabaseUnavailable(err) && !(err instanceof DatabaseUnavailableError) ? new DatabaseUnavailableError(err) : err)

/** A statement on one connection, as the drivers run it. */
type Run = <T>(sql: string, params?: unknown[]) => Promise<QueryResult<T>>

/** A driver's Db, and how to have one connection to oneself until fn settles (a dry run's). */
type Driver = Omit<Db, 'dryRun'> & { hold<T>(fn: (run: Run) => Promise<T>): Promise<T> }

/**
 * One dry run in progress (Db.dryRun): the connection of its transaction,
 * the queue its statements take one at a time (one connection cannot
 * interleave two savepoints), and whether it has ended.
 */
interface DryRunScope {
  run: Run
  tail: Promise<unknown>
  savepoints: number
  ended: boolean
}

const dryRuns = new AsyncLocalStorage<DryRunScope>()

/** True in the async context of a dry run (Db.dryRun): nothing done there is kept. */
export function inDryRun(): boolean {
  return dryRuns.getStore() !== undefined
}

/**
 * A statement sent from a dry run's async context after the dry run ended (a
 * promise its request left running). Refused: run on the database it would
 * be kept.
 */
export class DryRunEndedError extends Error {
  constructor() {
    super('a statement of a dry run arrived after the dry run ended; it was not run')
  }
}

/** fn on the scope's connection, after the statements queued before it; refused once the scope ended. */
function inScope<T>(s: DryRunScope, fn: () => Promise<T>): Promise<T> {
  const run = s.tail.then(() => {
    if (s.ended) throw new DryRunEndedError()
    return fn()
  })
  s.tail = run.catch(() => {})
  return run
}

/** The scope's connection for the statements of fn's transaction (already in the queue), refused once the scope ended. */
const scopeRun = (s: DryRunScope): Run => (sql, params) => {
  if (s.ended) return Promise.reject(new DryRunEndedError())
  return s.run(sql, params)
}

/**
 * fn inside SAVEPOINT ... RELEASE: what a transaction is within the dry
 * run's one transaction. A refused change is undone (ROLLBACK TO SAVEPOINT)
 * as its transaction's rollback would undo it, and a deadlock or
 * serialization failure runs fn again, as Db.tx does. What fn registers
 * with afterCommit is dropped: nothing will commit.
 */
async function savepoint<T>(s: DryRunScope, fn: (q: Queryable) => Promise<T>, attempts = TX_ATTEMPTS): Promise<T> {
  const run = scopeRun(s)
  const q: Queryable = { query: run, afterCommit: () => {} }
  for (let attempt = 1; ; attempt++) {
    const name = `dry_run_${++s.savepoints}`
    await run(`SAVEPOINT ${name}`)
    try {
      const result = await fn(q)
      await run(`RELEASE SAVEPOINT ${name}`)
      return result
    } catch (err) {
      await run(`ROLLBACK TO SAVEPOINT ${name}`).then(() => run(`RELEASE SAVEPOINT ${name}`)).catch(() => {})
      if (attempt >= attempts || !RETRYABLE.has((err as { code?: string })?.code ?? '')) throw err
    }
  }
}

/**
 * The Db of a driver, with dry runs: inside one, query, tx and withLock run
 * on the dry run's connection; outside, on the driver's. A statement outside
 * a transaction runs in a savepoint of its own, so that one that fails
 * leaves the dry run's transaction usable, as it would leave the database
 * (each statement commits on its own).
 */
function withDryRuns(driver: Driver): Db {
  const { hold, ...db } = driver
  return {
    ...db,
    query: (sql, params) => {
      const s = dryRuns.getStore()
      if (!s) return db.query(sql, params)
      return inScope(s, () => savepoint(s, (q) => q.query(sql, params), 1))
    },
    tx: (fn) => {
      const s = dryRuns.getStore()
      return s ? inScope(s, () => savepoint(s, fn)) : db.tx(fn)
    },
    withLock: (lockId, fn) => {
      const s = dryRuns.getStore()
      return s ? inScope(s, () => fn({ query: scopeRun(s) })) : db.withLock(lockId, fn)
    },
    dryRun: async (fn) => {
      // Within a dry run already: part of it.
      if (dryRuns.getStore()) return fn()
      return hold(async (run) => {
        const s: DryRunScope = { run, tail: Promise.resolve(), savepoints: 0, ended: false }
        await run('BEGIN')
        let outcome: { ok: true; value: Awaited<ReturnType<typeof fn>> } | { ok: false; error: unknown }
        try {
          outcome = { ok: true, value: await dryRuns.run(s, fn) }
        } catch (error) {
          outcome = { ok: false, error }
        }
        // The statements fn left queued run first (inside the transaction); any later one is refused.
        await inScope(s, async () => {
          s.ended = true
        })
        await run('ROLLBACK')
        if (!outcome.ok) throw outcome.error
        return outcome.value
      })
    },
  }
}

/** `image`: an in-memory PGlite starts from this data directory (Db.dumpImage) instead of an empty one. */
export async function openDb(opts: { databaseUrl?: string; dataDir: string; pgPoolSize?: number; image?: Blob }): Promise<Db> {
  return withDryRuns(opts.databaseUrl ? await openPg(opts.databaseUrl, opts.pgPoolSize ?? 10) : await openPglite(opts.dataDir, opts.image))
}

/**
 * A pool of connections to a PostgreSQL server, with the values both drivers
 * return (int8 and numeric as numbers, dates as strings): the primary's
 * (openPg) and each read replica's (core/replicas.ts).
 */
export function pgPool(url: string, poolSize: number, extra: Partial<pg.PoolConfig> = {}): pg.Pool {
  const parsers = { [INT8]: toNumber, [NUMERIC]: toNumber, [DATE]: asIs } as Record<number, (v: string) => unknown>
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: { getTypeParser: ((oid: number, format?: string) => parsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser },
    ...extra,
  })
  // An idle connection the server drops (restart, failover) must not crash the
  // process; the pool replaces it on the next checkout.
  pool.on('error', (err) => console.error(`database connection lost: ${err.message}`))
  // The pool listens for errors of idle connections only. A connection that
  // dies while checked out, or in the instant between its start and its first
  // use (the server's start-up answer and a termination in one packet), must
  // not raise an unhandled 'error' event, which would end the process; the
  // statement that uses it fails instead.
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}

/**
 * SQL_CAPTURE=<folder> (tests and CI only): every distinct SQL text the
 * service sends to PostgreSQL is appended to <folder>/<pid>.sql, one JSON
 * string per line, for scripts/citus-queries.ts. A text sent only by a test
 * file's own fixtures (no frame of the service's code on its stack) is left out.
 */
const CAPTURE = process.env.SQL_CAPTURE
const captured = new Set<string>()
function capture(sql: string) {
  if (captured.has(sql)) return
  captured.add(sql)
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 60
  const frames = (new Error().stack ?? '').split('\n').slice(2)
  Error.stackTraceLimit = limit
  const service = frames.some((f) => /[\\/]src[\\/]/.test(f) && !/[\\/]src[\\/]core[\\/]db\.ts|\.test\.ts/.test(f))
  if (service) appendFileSync(resolve(CAPTURE!, `${process.pid}.sql`), `${JSON.stringify(sql)}\n`)
}

/** One statement on a pool or a connection: parameterized statements are prepared once per connection and reused by name, so the server parses and plans each distinct SQL text once. */
export async function pgQuery<T>(q: pg.Pool | pg.PoolClient, sql: string, params?: unknown[]): Promise<QueryResult<T>> {
  if (CAPTURE) capture(sql)
  const r = params?.length ? await q.query({ name: statementName(sql), text: sql, values: params as any[] }) : await q.query(sql)
  return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 }
}

async function openPg(url: string, poolSize: number): Promise<Driver> {
  const pool = pgPool(url, poolSize)
  const query = pgQuery
  let closed = false
  const listeners = new Set<pg.Client>()
  /**
   * A connection from the pool. When none can be had (the server refuses or is
   * restarting), nothing was sent yet, so it is tried once more on a fresh one.
   */
  const connect = async () => {
    try {
      return await pool.connect()
    } catch (err) {
      if (!isDatabaseUnavailable(err) || closed) throw unavailable(err)
      await new Promise((r) => setTimeout(r, 100))
      try {
        return await pool.connect()
      } catch (again) {
        throw unavailable(again)
      }
    }
  }
  /** Runs fn on one connection; a connection that failed is destroyed, not returned to the pool. */
  const session = async <T>(fn: (c: pg.PoolClient) => Promise<T>) => {
    const client = await connect()
    // A connection lost between two statements (of a transaction) is not used again.
    let lost: Error | undefined
    const onError = (err: Error) => (lost = err)
    client.on('error', onError)
    try {
      const result = await fn(client)
      client.removeListener('error', onError)
      client.release(lost)
      return result
    } catch (err) {
      client.removeListener('error', onError)
      const broken = isDatabaseUnavailable(err) || lost !== undefined
      client.release(broken ? ((lost ?? err) as Error) : undefined)
      if (!broken) throw err
      throw err instanceof DatabaseUnavailableError ? err : new DatabaseUnavailableError(lost ?? err)
    }
  }
  return {
    kind: 'pg',
    query: (sql, params) => session((client) => query(client, sql, params)),
    tx: async (fn) => {
      for (let attempt = 1; ; attempt++) {
        try {
          const committed: Array<() => void> = []
          const result = await session(async (client) => {
            await client.query('BEGIN')
            try {
              const result = await fn({ query: (sql, params) => query(client, sql, params), afterCommit: (f) => committed.push(f) })
              await client.query('COMMIT')
              return result
            } catch (err) {
              await client.query('ROLLBACK').catch(() => {})
              throw err
            }
          })
          runAfterCommit(committed)
          return result
        } catch (err) {
          if (attempt >= TX_ATTEMPTS || !RETRYABLE.has((err as { code?: string })?.code ?? '')) throw err
          // A short random pause, so the transactions that collided do not meet again at once.
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt))
        }
      }
    },
    hold: (fn) => session((client) => fn((sql, params) => query(client, sql, params))),
    withLock: (lockId, fn) =>
      session(async (client) => {
        await client.query('SELECT pg_advisory_lock($1)', [lockId])
        try {
          return await fn({ query: (sql, params) => query(client, sql, params) })
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [lockId])
        }
      }),
    listen: async (channel, onMessage, onGap) => {
      const connect = async (): Promise<void> => {
        const client = new pg.Client({ connectionString: url })
        client.on('notification', (n) => n.channel === channel && onMessage(n.payload ?? ''))
        client.on('error', () => {
          listeners.delete(client)
          client.end().catch(() => {})
          onGap()
          retry()
        })
        await client.connect()
        listeners.add(client)
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
      }
      // Until it is back, every reconnection attempt counts as a gap.
      const retry = () => {
        if (closed) return
        setTimeout(() => connect().catch(() => (onGap(), retry())), 1000).unref()
      }
      await connect()
    },
    close: async () => {
      if (closed) return
      closed = true
      await Promise.all([...listeners].map((c) => c.end().catch(() => {})))
      await pool.end()
    },
  }
}

const statementNames = new Map<string, string>()
function statementName(sql: string) {
  let name = statementNames.get(sql)
  if (!name) {
    name = `s${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`
    if (statementNames.size < 10_000) statementNames.set(sql, name)
  }
  return name
}

/** Refused when another live process has the embedded database open (two PGlite instances on one folder corrupt it). */
export class DatabaseInUseError extends Error {}

/**
 * Takes the embedded database's folder for this process: a lock file holding
 * our pid, created atomically. A lock left by a process that is gone is taken
 * over; one of a live process is refused with a message saying what to do.
 */
const lockedHere = new Set<string>()

function lockDataDir(dataDir: string): () => void {
  const path = resolve(dataDir, 'bp.lock')
  const inUse = (pid: number) =>
    new DatabaseInUseError(
      `The embedded database in ${dataDir} is in use by process ${pid} (a running \`npm start\`?). ` +
        'Stop that process first, or use a PostgreSQL server (DATABASE_URL) to share one database between processes.',
    )
  if (lockedHere.has(path)) throw inUse(process.pid)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' })
      lockedHere.add(path)
      return () => {
        lockedHere.delete(path)
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) unlinkSync(path)
        } catch {}
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const pid = Number(readFileSync(path, 'utf8'))
      // Our own pid in a lock we did not take is a previous incarnation's (a container's pid 1): stale.
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) throw inUse(pid)
      unlinkSync(path)
    }
  }
  throw new DatabaseInUseError(`Could not lock the embedded database in ${dataDir}`)
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function openPglite(dataDir: string, image?: Blob): Promise<Driver> {
  const memory = dataDir === 'memory://' || dataDir === ''
  if (!memory) mkdirSync(dataDir, { recursive: true })
  const unlock = memory ? () => {} : lockDataDir(dataDir)
  let pglite: PGlite
  try {
    pglite = await PGlite.create(memory ? undefined : dataDir, {
      parsers: { [INT8]: toNumber, [NUMERIC]: toNumber, [DATE]: asIs, [pgliteTypes.TIMESTAMPTZ]: (v: string) => new Date(v) },
      // Trigram indexes answer the lists' search (migrations/0051).
      extensions: { pg_trgm },
      ...(memory && image ? { loadDataDir: image } : {}),
    })
  } catch (err) {
    unlock()
    throw err
  }
  // PGlite is a single connection. Every statement and every transaction goes
  // through one queue, so one request's statements never run inside another
  // request's open transaction.
  let tail: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn)
    tail = run.catch(() => {})
    return run
  }
  const raw: Queryable = {
    async query<T>(sql: string, params?: unknown[]) {
      // Without parameters the simple protocol runs scripts of several statements (migrations).
      const r = params?.length ? await pglite.query<T>(sql, params as any[]) : (await pglite.exec(sql)).at(-1)
      // PGlite reports affectedRows 0 for a SELECT; pg's rowCount is the number of rows returned.
      return { rows: (r?.rows ?? []) as T[], rowCount: Math.max(r?.affectedRows ?? 0, r?.rows.length ?? 0) }
    },
  }
  return {
    kind: 'pglite',
    query: (sql, params) => serial(() => raw.query(sql, params)),
    tx: async (fn) => {
      const committed: Array<() => void> = []
      const result = await serial(async () => {
        await raw.query('BEGIN')
        try {
          const result = await fn({ query: raw.query, afterCommit: (f) => committed.push(f) })
          await raw.query('COMMIT')
          return result
        } catch (err) {
          await raw.query('ROLLBACK').catch(() => {})
          throw err
        }
      })
      runAfterCommit(committed)
      return result
    },
    // One connection in one process: the queue already excludes everything else.
    withLock: (_lockId, fn) => serial(() => fn(raw)),
    hold: (fn) => serial(() => fn(raw.query)),
    listen: async (channel, onMessage) => {
      await serial(() => pglite.listen(channel, onMessage))
    },
    close: () => serial(() => pglite.close()).finally(unlock),
    dumpImage: () => serial(() => pglite.dumpDataDir('none')),
  }
}

/** A timestamp column as the API writes it: ISO 8601 in UTC. */
export function iso(d: Date): string
export function iso(d: Date | null): string | null
export function iso(d: Date | null): string | null {
  return d === null ? null : d.toISOString()
}
