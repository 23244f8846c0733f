import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Db } from './db.ts'
import { AppError } from './errors.ts'
import type { SecretBox } from './secrets.ts'

const HEADER = 'idempotency-key'
const TTL_HOURS = 24
const STALE_RUNNING_SECONDS = 60

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { scope: string; key: string }
  }
  interface FastifyContextConfig {
    /** false: the route answers credentials (a token pair), which must not be kept for replays; an Idempotency-Key is ignored. */
    idempotency?: false
  }
}

/**
 * Keys are scoped to the credential that sent them
 * (docs/platform.md "Idempotency"): the API key, the user of an access token, the licence of a
 * licence key; on public routes, the client IP. Another credential, even of
 * the same organization, never receives a stored answer.
 */
function scopeOf(request: FastifyRequest) {
  const p = request.principal
  if (!p || request.routeOptions.config.access?.public) return `ip:${request.ip}`
  return `org:${p.organizationId}:${p.id}`
}

function hashRequest(request: FastifyRequest) {
  // A multipart upload is read by its route as a stream, after this: its length stands for its body (docs/platform.md "Idempotency").
  const body = Buffer.isBuffer(request.body)
    ? request.body.toString('base64')
    : /^\s*multipart\//i.test(String(request.headers['content-type'] ?? ''))
      ? `multipart; length=${request.headers['content-length'] ?? 'unknown'}`
      : JSON.stringify(request.body ?? null)
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex')
}

/** What a stored answer is sealed for: a body cannot be replayed under another scope or key. */
const sealContext = (scope: string, key: string) => `idempotency_keys.body:${scope}:${key}`

/**
 * `Idempotency-Key` on POST (docs/platform.md "Idempotency"): the first request claims the key with
 * an insert; a repeat with the same body gets the stored answer, another body
 * 422, and a repeat while the first is still running 409. Server errors release
 * the key so that the client's retry runs again.
 *
 * Stored answers are sealed with SECRET_KEY (core/secrets.ts): some show a
 * secret once (a new API key, a webhook secret, an offline token, a checkout
 * or portal link), and the database must never hold one in plaintext. An
 * answer that no configured key opens (SECRET_KEY_PREVIOUS removed within 24
 * hours of a rotation) counts as expired: the request runs again.
 */
export function installIdempotency(app: FastifyInstance, db: Db, secrets: SecretBox) {
  app.decorateRequest('idempotency', undefined)

  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers[HEADER]
    // A dry run keeps nothing, not even its answer for a replay: the key is left free (docs/platform.md "Dry runs").
    if (request.method !== 'POST' || key === undefined || request.routeOptions.config.idempotency === false || request.dryRun) return
    if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
      throw new AppError('INVALID_PARAMETER', 'Idempotency-Key must be 1 to 255 characters')
    }
    const scope = scopeOf(request)
    const hash = hashRequest(request)
    // Claimed when new, when the stored one is past its 24 hours (then it is free
    // again), or when its request has been running over a minute: its process
    // died or lost the database before it could record the answer.
    const claim = (unreadable = false) =>
      db.query(
        `INSERT INTO idempotency_keys (scope, key, request_hash, state) VALUES ($1, $2, $3, 'running')
         ON CONFLICT (scope, key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, state = 'running', status_code = NULL, content_type = NULL, body = NULL, created_at = now()
           WHERE idempotency_keys.created_at < now() - interval '${TTL_HOURS} hours'
              OR (idempotency_keys.state = 'running' AND idempotency_keys.created_at < now() - interval '${STALE_RUNNING_SECONDS} seconds')
              OR ($4 AND idempotency_keys.state = 'done')
         RETURNING key`,
        [scope, key, hash, unreadable],
      )
    const claimed = await claim()
    if (claimed.rowCount === 1) {
      request.idempotency = { scope, key }
      return
    }
    const { rows } = await db.query<{ request_hash: string; state: string; status_code: number; content_type: string | null; body: string }>(
      'SELECT request_hash, state, status_code, content_type, body FROM idempotency_keys WHERE scope = $1 AND key = $2',
      [scope, key],
    )
    const stored = rows[0]
    if (!stored) throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is in progress')
    if (stored.request_hash !== hash) throw new AppError('IDEMPOTENCY_KEY_REUSED', ['Idempotency-Key was already used with another request body'])
    if (stored.state === 'running') throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is in progress')
    let body: string
    try {
      // A row stored before answers were sealed (gone within 24 hours of the upgrade) is replayed as it is.
      body = secrets.isSealed(stored.body) ? secrets.unseal(stored.body, sealContext(scope, key)) : stored.body
    } catch (err) {
      request.log.warn({ err }, 'stored idempotent answer does not open with the configured keys: treated as expired')
      if ((await claim(true)).rowCount !== 1) throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is in progress')
      request.idempotency = { scope, key }
      return
    }
    reply.header('idempotent-replayed', 'true')
    if (stored.content_type) reply.header('content-type', stored.content_type)
    reply.status(stored.status_code)
    // Sent as stored: the response schema already shaped it the first time.
    return reply.serializer((p: unknown) => p as string).send(body)
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency
    if (!claim) return payload
    request.idempotency = undefined
    if (reply.statusCode >= 500 || (payload !== null && payload !== undefined && typeof payload !== 'string')) {
      // Without the database (a 503), the key stays 'running' and is free again after a minute.
      await db.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [claim.scope, claim.key]).catch((err) => request.log.warn({ err }, 'idempotency key not released'))
      return payload
    }
    await db.query(
      `UPDATE idempotency_keys SET state = 'done', status_code = $3, content_type = $4, body = $5 WHERE scope = $1 AND key = $2`,
      [claim.scope, claim.key, reply.statusCode, reply.getHeader('content-type') ?? null, secrets.seal(payload ?? '', sealContext(claim.scope, claim.key))],
    )
    return payload
  })
}
