import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import { Webhook } from 'standardwebhooks'
import type { Db, Queryable } from '../../core/db.ts'
import type { SecretBox } from '../../core/secrets.ts'
import { backoffSeconds, Queue, type Outcome } from '../../core/worker.ts'
import type { DeliveryRow, EndpointRow } from './webhooks.repository.ts'
import { isForbiddenAddress, notPublic, publicLookup, urlProblem } from './url-safety.lib.ts'

const CHANNEL = 'webhook_deliveries'
/** A 2xx within this time is success (docs/webhooks.md "Delivery"). */
export const DELIVERY_TIMEOUT_MS = 15_000
/** A claimed delivery is this process's for this long; a process that dies leaves it to be taken again. */
const LEASE_SECONDS = 60
/** An endpoint that has had attempts but no success for this long is disabled (docs/webhooks.md "Disabling an endpoint"). */
export const DISABLE_AFTER_SECONDS = 5 * 24 * 3600
/** Deliveries in flight to one endpoint from one process. */
export const PER_ENDPOINT = 16
/** Deliveries in flight from one process, all endpoints together: a request waiting on a slow endpoint costs a socket, not a thread. */
export const MAX_IN_FLIGHT = 256
/** Bytes of a receiver's answer that are read (and thrown away). */
const MAX_ANSWER = 64 * 1024

export interface DeliveryOptions {
  apiEnv: 'test' | 'live'
  retryDelays: readonly number[]
  /** Deliveries in flight to one endpoint from this process: a slow endpoint holds only its own slots. */
  perEndpoint?: number
  /** Deliveries in flight from this process, all endpoints together. */
  maxInFlight?: number
  timeoutMs?: number
  pollMs?: number
  /** Called in the transaction that disables an endpoint after five days of failures (e-mails its admins). */
  onDisabled: (q: Queryable, endpoint: EndpointRow) => Promise<void>
  /** Opens the endpoints' sealed secrets. */
  secrets: SecretBox
  /** The context of an endpoint's sealed secrets. */
  secretContext: (endpointId: string) => string
}

type Claimed = DeliveryRow & Pick<EndpointRow, 'url' | 'secret' | 'previous_secret' | 'previous_secret_until'>

export interface AttemptResult {
  ok: boolean
  status: number | null
  error?: string
}

/** The webhook-signature header: one v1 signature per secret that signs now (two for 24 hours after a rotation). */
export function signatureHeader(secrets: string[], id: string, timestamp: Date, body: string) {
  return secrets.map((s) => new Webhook(s).sign(id, timestamp, body)).join(' ')
}

/**
 * The delivery worker every process runs, a kernel queue (core/worker.ts)
 * with its own claim: due deliveries of the shared queue (FOR UPDATE SKIP
 * LOCKED, then a lease), each posted signed per Standard Webhooks, the answer
 * recorded here (the endpoint's failing_since in the same statement). Per
 * endpoint at most `perEndpoint` deliveries are in flight from this process,
 * so an endpoint that hangs holds its own slots and no other endpoint waits on
 * it. A delivery is not claimed while an earlier one of the same resource to
 * the same endpoint is pending, so one resource's events arrive in order.
 */
export class DeliveryWorker {
  private readonly httpAgent = new http.Agent({ keepAlive: true, timeout: 30_000 })
  private readonly httpsAgent = new https.Agent({ keepAlive: true, timeout: 30_000 })
  readonly queue: Queue<Claimed>

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly opts: DeliveryOptions,
  ) {
    const maxInFlight = opts.maxInFlight ?? MAX_IN_FLIGHT
    this.queue = new Queue<Claimed>(db, log, {
      name: 'webhook-deliveries',
      channel: CHANNEL,
      pollMs: opts.pollMs ?? 1000,
      table: 'webhook_deliveries',
      key: [{ column: 'id', type: 'uuid' }],
      due: `t.status = 'pending' AND t.next_attempt_at <= now()`,
      dueAt: 't.next_attempt_at',
      order: 't.next_attempt_at, t.seq',
      filter: (scope, bind) => (scope.organizationId ? `t.organization_id = ${bind(scope.organizationId)}` : 'true'),
      leaseSeconds: LEASE_SECONDS,
      batch: maxInFlight,
      concurrency: maxInFlight,
      group: { of: (row) => row.endpoint_id, max: this.perEndpoint },
      claim: (limit, busy) => this.claim(limit, [...busy.keys()], [...busy.values()]),
      // Requests in flight are aborted: each is recorded as a failed attempt ("shutting down") and retried on schedule.
      onStop: 'abort',
      handle: (row, signal) => this.deliver(row, signal),
    })
  }

  private get perEndpoint() {
    return this.opts.perEndpoint ?? PER_ENDPOINT
  }

  start() {
    return this.queue.start()
  }

  /** Stops claiming, aborts the requests in flight (failed attempts, retried on schedule) and waits for them. */
  async stop() {
    await this.queue.stop()
    this.httpAgent.destroy()
    this.httpsAgent.destroy()
  }

  /** Claims and starts what is due now. */
  kick() {
    this.queue.kick()
  }

  /**
   * Picks due deliveries, at most the free slots of each endpoint, none behind
   * an earlier pending delivery of its resource to its endpoint; then leases
   * those no other process took meanwhile (SKIP LOCKED, conditions checked
   * again on the locked row).
   */
  private async claim(limit: number, busyEndpoints: string[], busyCounts: number[]): Promise<Claimed[]> {
    // The scan walks the due index oldest first and stops after a few times `limit` claimable
    // rows; rows of endpoints whose slots are all taken here are skipped in the scan itself,
    // so a backlog of a hanging endpoint never hides another endpoint's rows.
    // A row is the first pending one of its resource to its endpoint: one probe of the order
    // index per candidate (a subquery with LIMIT, never pulled up into a join). Written as NOT
    // EXISTS (no earlier pending row), the planner made it an anti-join that could read every
    // pending row for each candidate whenever its statistics said few rows are pending (the
    // table analyzed while the queue was empty, or a plan cached then): a backlog of a few
    // thousand took seconds per claim, and a burst trickled out at about 8 deliveries/s.
    const saturated = busyEndpoints.filter((_, i) => busyCounts[i] >= this.perEndpoint)
    const { rows } = await this.db.query<Claimed>(
      `WITH due AS (
         SELECT /* across organizations: the delivery queue claims due rows of every organization */ d.organization_id, d.id, d.endpoint_id, d.next_attempt_at, d.seq
           FROM webhook_deliveries d JOIN webhook_endpoints e ON e.organization_id = d.organization_id AND e.id = d.endpoint_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= now()
            AND (d.locked_until IS NULL OR d.locked_until < now())
            AND (e.enabled OR d.event_type = 'ping')
            AND d.endpoint_id <> ALL ($5::uuid[])
            AND d.seq = (
              SELECT p.seq FROM webhook_deliveries p
               WHERE p.organization_id = d.organization_id AND p.endpoint_id = d.endpoint_id AND p.resource_key = d.resource_key AND p.status = 'pending'
               ORDER BY p.seq LIMIT 1)
          ORDER BY d.next_attempt_at, d.seq
          LIMIT $1 * 4),
       candidates AS (
         SELECT c.organization_id, c.id FROM (
           SELECT due.*, row_number() OVER (PARTITION BY due.endpoint_id ORDER BY due.next_attempt_at, due.seq) AS n FROM due
         ) c
         LEFT JOIN unnest($2::uuid[], $3::int[]) AS b(endpoint_id, used) ON b.endpoint_id = c.endpoint_id
         WHERE c.n <= $4 - coalesce(b.used, 0)
         ORDER BY c.next_attempt_at, c.seq
         LIMIT $1),
       locked AS (
         SELECT d.organization_id, d.id FROM webhook_deliveries d
          WHERE (d.organization_id, d.id) IN (SELECT organization_id, id FROM candidates) AND d.status = 'pending'
            AND (d.locked_until IS NULL OR d.locked_until < now())
          FOR UPDATE SKIP LOCKED)
       UPDATE /* across organizations: the delivery queue's claim of due rows of every organization */ webhook_deliveries w
          SET locked_until = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = w.attempts + 1, last_attempt_at = now()
         FROM locked, webhook_endpoints e
        WHERE w.organization_id = locked.organization_id AND w.id = locked.id AND e.organization_id = w.organization_id AND e.id = w.endpoint_id
       RETURNING w.*, e.url, e.secret, e.previous_secret, e.previous_secret_until`,
      [limit, busyEndpoints, busyCounts, this.perEndpoint, saturated],
    )
    return rows
  }

  private async deliver(row: Claimed, signal?: AbortSignal): Promise<Outcome> {
    const body = JSON.stringify(row.payload)
    const sealed = [row.secret]
    if (row.previous_secret && row.previous_secret_until && row.previous_secret_until > new Date()) sealed.push(row.previous_secret)
    let secrets: string[]
    try {
      secrets = sealed.map((s) => this.opts.secrets.unseal(s, this.opts.secretContext(row.endpoint_id)))
    } catch (err) {
      // Not sent unsigned: an attempt that failed, as for an address that may not be called.
      this.log.error({ err, delivery: row.id }, 'webhook endpoint secret does not open with SECRET_KEY')
      return this.record(row, { ok: false, status: null, error: 'the endpoint secret does not open with SECRET_KEY' })
    }
    const timestamp = new Date()
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'BusinessPlatform-Webhooks/1.0',
      'webhook-id': row.event_id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signatureHeader(secrets, row.event_id, timestamp, body),
    }
    const result = await this.post(row.url, headers, body, signal)
    return this.record(row, result)
  }

  /** One POST: a 2xx within the timeout is success; any other answer, a timeout or a refused address is a failure. */
  post(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<AttemptResult> {
    const problem = urlProblem(url, this.opts.apiEnv === 'test')
    if (problem) return Promise.resolve({ ok: false, status: null, error: problem })
    const target = new URL(url)
    const host = target.hostname.replace(/^\[|\]$/g, '')
    const checked = this.opts.apiEnv !== 'test'
    // An IP literal is connected to without a lookup: it is checked here; a name is checked by the lookup.
    if (checked && isIP(host) && isForbiddenAddress(host)) return Promise.resolve({ ok: false, status: null, error: notPublic(host) })
    const timeoutMs = this.opts.timeoutMs ?? DELIVERY_TIMEOUT_MS
    return new Promise((resolve) => {
      let settled = false
      const finish = (r: AttemptResult) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        signal?.removeEventListener('abort', abort)
        resolve(r)
      }
      const https_ = target.protocol === 'https:'
      const req = (https_ ? https : http).request(target, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(checked ? { lookup: publicLookup } : {}),
        // Connections are kept and reused per host; a reused one was checked when it was opened.
        agent: https_ ? this.httpsAgent : this.httpAgent,
      }, (res) => {
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > MAX_ANSWER) res.destroy()
        })
        const status = res.statusCode ?? 0
        const end = () => finish({ ok: status >= 200 && status < 300, status, ...(status >= 200 && status < 300 ? {} : { error: `answered ${status}` }) })
        res.on('end', end)
        res.on('close', end)
        res.on('error', end)
      })
      const timer = setTimeout(() => {
        req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`))
      }, timeoutMs)
      const abort = () => req.destroy(new Error('shutting down'))
      signal?.addEventListener('abort', abort)
      req.on('error', (err) => finish({ ok: false, status: null, error: err.message.slice(0, 500) }))
      req.end(body)
    })
  }

  /** Succeeded, or the next retry (WEBHOOK_RETRY_DELAYS with jitter), or failed; five days of failures disable the endpoint. */
  private async record(row: Claimed, result: AttemptResult): Promise<Outcome> {
    if (result.ok) {
      // One statement: the delivery succeeded, and its endpoint is no longer failing.
      await this.db.query(
        `WITH done AS (
           UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL, locked_until = NULL, last_response_status = $2, last_error = NULL
            WHERE organization_id = $3 AND id = $1 RETURNING endpoint_id)
         UPDATE webhook_endpoints SET failing_since = NULL WHERE organization_id = $3 AND id = (SELECT endpoint_id FROM done) AND failing_since IS NOT NULL`,
        [row.id, result.status, row.organization_id],
      )
      return 'done'
    }
    const delays = this.opts.retryDelays
    const retry = row.retries_left > 0
    // The contract's schedule: retry n waits delays[n - 1] plus up to 10% (docs/webhooks.md "Retries").
    const delay = retry ? backoffSeconds(delays.length - row.retries_left + 1, { delays, jitter: 0.1 }) : 0
    await this.db.tx(async (q) => {
      await q.query(
        `UPDATE webhook_deliveries
            SET status = $2, retries_left = greatest(retries_left - 1, 0), locked_until = NULL,
                next_attempt_at = CASE WHEN $2 = 'pending' THEN now() + make_interval(secs => $3) END,
                last_response_status = $4, last_error = $5
          WHERE organization_id = $6 AND id = $1`,
        [row.id, retry ? 'pending' : 'failed', delay, result.status, result.error ?? null, row.organization_id],
      )
      const { rows } = await q.query<EndpointRow & { expired: boolean }>(
        `SELECT *, failing_since <= now() - make_interval(secs => ${DISABLE_AFTER_SECONDS}) AS expired FROM webhook_endpoints WHERE organization_id = $2 AND id = $1 FOR UPDATE`,
        [row.endpoint_id, row.organization_id],
      )
      const endpoint = rows[0]
      if (!endpoint) return
      if (!endpoint.failing_since) await q.query('UPDATE webhook_endpoints SET failing_since = now() WHERE organization_id = $2 AND id = $1', [endpoint.id, endpoint.organization_id])
      else if (endpoint.expired && endpoint.enabled) {
        await q.query('UPDATE webhook_endpoints SET enabled = false, updated_at = now() WHERE organization_id = $2 AND id = $1', [endpoint.id, endpoint.organization_id])
        await this.opts.onDisabled(q, endpoint)
        this.log.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled after five days of failures')
      }
    })
    return 'failed'
  }
}
