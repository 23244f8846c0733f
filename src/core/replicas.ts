import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify'
import { Redis } from 'ioredis'
import type pg from 'pg'
import { inDryRun, isDatabaseUnavailable, pgPool, pgQuery, type Db, type Queryable } from './db.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Whether the route's reads may go to a read replica (docs/scale-out.md "Read replicas").
     * Unset: decided by lagTolerant (lists, analytics, report runs, the event feed, PDFs).
     */
    replica?: boolean
  }
}

/** How often each replica's replay position (and the primary's) is read. */
const POLL_MS = 200
/** How long a credential's write is remembered: past it, every replica in use has replayed it (a replica further behind is skipped). */
const REMEMBER_MS = 60_000

/** A WAL position (`16/B374D848`) as a number of bytes. */
export function lsn(text: string | null | undefined): bigint {
  if (!text) return 0n
  const [hi, lo] = text.split('/')
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`)
}

interface Replica {
  url: string
  pool: pg.Pool
  /** Its last read replay position; 0 while it has not answered. */
  replayed: bigint
  /** Whether its last poll answered. */
  up: boolean
  /** How far behind the primary it was at its last poll, in milliseconds (Infinity while unknown). */
  lagMs: number
  /** Statements it answered (GET /ready shows the figures; the tests read them). */
  reads: number
}

export interface ReplicaStatus {
  /** The address without its password. */
  url: string
  up: boolean
  lagMs: number | null
  reads: number
}

/** The reads of a lag-tolerant request: the least WAL position a replica must have replayed to answer them. */
const scope = new AsyncLocalStorage<{ after: bigint }>()

/**
 * The read replicas of DATABASE_REPLICA_URL (docs/scale-out.md "Read replicas").
 * Every POLL_MS it reads the primary's WAL position and each replica's
 * replay position; a replica that does not answer, or that is more than
 * maxLagMs behind, is skipped until a poll finds it back. Which replica
 * answers a read: the next in turn among those that have replayed the
 * caller's last write.
 */
export class Replicas {
  private readonly replicas: Replica[]
  /** Primary positions of the last polls, oldest first, with their times: how far behind a replica is. */
  private readonly history: Array<{ at: number; position: bigint }> = []
  private timer?: NodeJS.Timeout
  private turn = 0
  private readonly writes = new Map<string, { position: bigint; until: number }>()
  private readonly redis?: Redis
  private readonly maxLagMs: number

  constructor(
    urls: string[],
    private readonly primary: Db,
    private readonly log: FastifyBaseLogger,
    opts: { poolSize: number; maxLagMs: number; redisUrl?: string },
  ) {
    this.maxLagMs = opts.maxLagMs
    // A replica out of reach must cost little: a short wait for a connection, a statement time limit.
    this.replicas = urls.map((url) => ({ url, pool: pgPool(url, opts.poolSize, { connectionTimeoutMillis: 1000, statement_timeout: 30_000 }), replayed: 0n, up: false, lagMs: Infinity, reads: 0 }))
    // Several processes share what each credential last wrote through Redis (docs/scale-out.md "Read replicas").
    if (opts.redisUrl) this.redis = new Redis(opts.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false })
    this.redis?.on('error', () => {})
  }

  async start() {
    await this.poll()
    this.timer = setInterval(() => void this.poll(), POLL_MS)
    this.timer.unref()
  }

  private async poll() {
    const now = Date.now()
    try {
      const { rows } = await this.primary.query<{ p: string }>('SELECT pg_current_wal_lsn()::text AS p')
      this.history.push({ at: now, position: lsn(rows[0].p) })
      while (this.history.length > 2 && this.history[1].at < now - 10 * 60_000) this.history.shift()
    } catch {
      // The primary's own trouble shows in its requests.
    }
    await Promise.all(
      this.replicas.map(async (r) => {
        try {
          const { rows } = await pgQuery<{ r: string | null }>(r.pool, 'SELECT pg_last_wal_replay_lsn()::text AS r')
          if (!rows[0].r) throw new Error('not a standby (pg_last_wal_replay_lsn() is null)')
          r.replayed = lsn(rows[0].r)
          if (!r.up) this.log.info({ replica: redact(r.url) }, 'read replica in use')
          r.up = true
          r.lagMs = this.lagOf(r.replayed, now)
        } catch (err) {
          if (r.up) this.log.warn({ replica: redact(r.url), err: (err as Error).message }, 'read replica out of use: reads go to the primary')
          r.up = false
        }
      }),
    )
  }

  /** How long ago the primary was where the replica is now: 0 when it has replayed the last position read. */
  private lagOf(replayed: bigint, now: number): number {
    const newest = this.history.at(-1)
    if (!newest || replayed >= newest.position) return 0
    // The oldest poll whose position the replica has not reached: it is behind since then.
    const behindSince = this.history.find((h) => h.position > replayed)
    return behindSince ? now - behindSince.at : Infinity
  }

  /** Where the credential's last write ended, when it is recent: its reads must see at least that. */
  async lastWrite(credential: string): Promise<bigint> {
    const now = Date.now()
    const local = this.writes.get(credential)
    let position = local && local.until > now ? local.position : 0n
    if (this.redis) {
      try {
        position = maxOf(position, lsn(await this.redis.get(`bp:rw:${credential}`)))
      } catch {
        // Redis out of reach: this process's own memory alone (docs/scale-out.md "Read replicas").
      }
    }
    return position
  }

  /** Notes that the credential wrote: the primary's position now, which its next reads must have. */
  async wrote(credential: string) {
    const { rows } = await this.primary.query<{ p: string }>('SELECT pg_current_wal_lsn()::text AS p')
    const position = lsn(rows[0].p)
    this.writes.set(credential, { position, until: Date.now() + REMEMBER_MS })
    if (this.writes.size > 100_000) for (const [k, v] of this.writes) if (v.until <= Date.now()) this.writes.delete(k)
    await this.redis?.set(`bp:rw:${credential}`, rows[0].p, 'PX', REMEMBER_MS).catch(() => {})
  }

  /** A replica that may answer a read needing `after`, in turn; none when every one is out of use, too far behind, or short of `after`. */
  private pick(after: bigint): Replica | undefined {
    for (let i = 0; i < this.replicas.length; i++) {
      const r = this.replicas[(this.turn + i) % this.replicas.length]
      if (r.up && r.lagMs <= this.maxLagMs && r.replayed >= after) {
        this.turn = (this.turn + i + 1) % this.replicas.length
        return r
      }
    }
    return undefined
  }

  /** A statement of a lag-tolerant request on a replica; on the primary when none may answer or the one chosen fails to. */
  async query<T>(after: bigint, sql: string, params?: unknown[]) {
    const r = this.pick(after)
    if (!r) return this.primary.query<T>(sql, params)
    try {
      const result = await pgQuery<T>(r.pool, sql, params)
      r.reads++
      return result
    } catch (err) {
      this.toPrimary(r, err)
      return this.primary.query<T>(sql, params)
    }
  }

  /**
   * A transaction of a lag-tolerant request (a search's planner settings,
   * a consistent count and page) on a replica, where it can only read; run
   * again on the primary when none may answer, the one chosen fails, or the
   * transaction writes (a transaction's function only talks to the database,
   * so running it again is safe: core/db.ts).
   */
  async tx<T>(after: bigint, fn: (q: Queryable) => Promise<T>): Promise<T> {
    const r = this.pick(after)
    if (!r) return this.primary.tx(fn)
    let client: pg.PoolClient | undefined
    try {
      client = await r.pool.connect()
      const c = client
      const committed: Array<() => void> = []
      await c.query('BEGIN')
      try {
        const result = await fn({ query: (sql, params) => pgQuery(c, sql, params), afterCommit: (f) => committed.push(f) })
        await c.query('COMMIT')
        c.release()
        r.reads++
        for (const f of committed) f()
        return result
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {})
        throw err
      }
    } catch (err) {
      client?.release(isDatabaseUnavailable(err) ? (err as Error) : undefined)
      this.toPrimary(r, err)
      return this.primary.tx(fn)
    }
  }

  /**
   * After a replica failed a statement: throws the error when the primary would fail it too; otherwise the work
   * goes to the primary. A replica that stopped answering is skipped until a poll finds it back; a statement
   * cancelled by replay (a conflict with recovery) or one that writes (a read-only transaction) is simply run there.
   */
  private toPrimary(r: Replica, err: unknown) {
    const unavailable = isDatabaseUnavailable(err)
    if (!unavailable && !ON_PRIMARY_AFTER.has((err as { code?: string }).code ?? '')) throw err
    if (unavailable) r.up = false
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({ url: redact(r.url), up: r.up, lagMs: Number.isFinite(r.lagMs) ? r.lagMs : null, reads: r.reads }))
  }

  async close() {
    if (this.timer) clearInterval(this.timer)
    this.redis?.disconnect()
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => {})))
  }
}

/** SQLSTATEs of a replica after which the statement runs on the primary: a conflict with recovery (40001), a write in a read-only transaction (25006). */
const ON_PRIMARY_AFTER = new Set(['40001', '25006'])

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b)

/** A database address without its password, for logs and status. */
const redact = (url: string) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')

/**
 * The Db whose statements and transactions run on a replica inside a
 * lag-tolerant request (installReplicaReads), and on the primary everywhere
 * else: advisory locks, dry runs and everything outside such a request.
 */
export function withReplicas(db: Db, replicas: Replicas): Db {
  return {
    ...db,
    query: (sql, params) => {
      const s = scope.getStore()
      return s && !inDryRun() ? replicas.query(s.after, sql, params) : db.query(sql, params)
    },
    tx: (fn) => {
      const s = scope.getStore()
      return s && !inDryRun() ? replicas.tx(s.after, fn) : db.tx(fn)
    },
  }
}

/**
 * Whether a route's reads tolerate replication lag (docs/scale-out.md "Read replicas"): GET
 * routes that answer a list envelope, the analytics, report runs and the
 * event feed, and PDFs. A route says otherwise with `config.replica`.
 */
export function lagTolerant(route: Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>, schemaOf: (id: string) => unknown = () => undefined): boolean {
  const own = (route.config as { replica?: boolean } | undefined)?.replica
  if (own !== undefined) return own
  if (![route.method].flat().includes('GET')) return false
  if (/^\/api\/(analytics|reports|events)(\/|$)/.test(route.url) || /\/pdf$/.test(route.url)) return true
  type Shape = { $ref?: string; properties?: Record<string, unknown> }
  let ok = (route.schema?.response as Record<string, Shape> | undefined)?.[200]
  // A shared schema (Named('ContactList', listOf(Contact))) is referred to by its id.
  if (ok?.$ref) ok = schemaOf(ok.$ref.replace(/#$/, '')) as Shape | undefined
  return Boolean(ok?.properties?.data && ok.properties.meta)
}

const wrapped = Symbol('replica reads')

/** The credential a request writes and reads as (its access token's session, its API key, its license key). */
const credentialOf = (request: FastifyRequest) => (request.principal ? `${request.principal.kind}:${request.principal.sessionId ?? request.principal.id}` : undefined)

/**
 * Routes lag-tolerant requests' reads to the replicas, after the caller's
 * last write (read-your-writes), and notes each write: after a POST, PATCH,
 * PUT or DELETE of a credential, before its answer leaves, the primary's WAL
 * position, which the credential's next reads wait for.
 */
export function installReplicaReads(app: FastifyInstance, replicas: Replicas) {
  app.addHook('onRoute', (route) => {
    if (!lagTolerant(route, (id) => app.getSchema(id))) return
    const handler = route.handler as RouteHandlerMethod & { [wrapped]?: true }
    if (handler[wrapped]) return
    const routed = async function (this: FastifyInstance, request: FastifyRequest, reply: Parameters<RouteHandlerMethod>[1]) {
      const credential = credentialOf(request)
      const after = credential ? await replicas.lastWrite(credential) : 0n
      return scope.run({ after }, () => handler.call(this, request, reply))
    } as RouteHandlerMethod & { [wrapped]?: true }
    routed[wrapped] = true
    route.handler = routed
  })
  app.addHook('onSend', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' || request.dryRun) return
    const credential = credentialOf(request)
    if (!credential) return
    try {
      await replicas.wrote(credential)
    } catch (err) {
      // The primary out of reach: the write itself could not have been kept.
      request.log.warn({ err: (err as Error).message }, 'could not read the WAL position after a write')
    }
  })
}
