import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { createRequire } from 'node:module'
import { Redis } from 'ioredis'
import type { RateLimits } from '../config.ts'
import { TooManyRequestsError } from './errors.ts'

/** Per-route budgets (docs/platform.md "Rate limits"); every other route shares the general budget. */
export type RateLimitBucket = keyof Omit<RateLimits, 'enabled' | 'general'>

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A budget of its own instead of the general one. Every route has one: X-RateLimit-* is on every response (docs/platform.md "Rate limits"). */
    limit?: RateLimitBucket
  }
}

// The plugin writes the seconds left in the window into X-RateLimit-Reset;
// The contract gives the Unix time of the reset (docs/platform.md "Rate limits"), so the value is rewritten on send.
const RESET_HEADER = 'x-ratelimit-reset'

type Counted = (err: Error | null, res?: { current: number; ttl: number }) => void
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js')

/**
 * The plugin's in-memory store answers every caller with one shared, mutable
 * counter, so the requests of a burst all read the burst's final count and
 * are all refused (11 parallel calls on a limit of 10: none allowed). This
 * store gives each call its own snapshot of the count.
 */
class SnapshotLocalStore {
  private readonly inner: { incr(key: string, cb: Counted, timeWindow: number, max: number): void }

  constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean; cache?: number }) {
    this.inner = new LocalStore(params.continueExceeding, params.exponentialBackoff, params.cache)
  }

  incr(key: string, cb: Counted, timeWindow: number, max: number) {
    this.inner.incr(key, (err, res) => cb(err, res && { ...res }), timeWindow, max)
  }

  child(params: { continueExceeding?: boolean; exponentialBackoff?: boolean; cache?: number }) {
    return new SnapshotLocalStore(params)
  }
}

/**
 * Counted per credential for authenticated calls, and per client IP for public
 * routes whatever credential the request carries (a bearer of one's own
 * organization, or a made-up licence key, must not buy a fresh budget of
 * password guesses or sign-ups: docs/platform.md "Rate limits").
 */
export function rateLimitKey(request: FastifyRequest): string {
  if (request.routeOptions.config?.access?.public || !request.principal) return `ip:${request.ip}`
  return `cred:${request.principal.id}`
}

export async function installRateLimit(app: FastifyInstance, limits: RateLimits, redisUrl?: string) {
  if (!limits.enabled) return
  const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: true }) : undefined
  if (redis) app.addHook('onClose', async () => void (await redis.quit()))

  // Must run before the plugin's own onRoute hook, which reads config.rateLimit.
  app.addHook('onRoute', (route) => {
    const limit = route.config?.limit
    if (limit === undefined) return
    route.config = { ...route.config, rateLimit: { max: limits[limit], timeWindow: 60_000 } } as typeof route.config
  })

  await app.register(rateLimit, {
    global: true,
    max: limits.general,
    timeWindow: 60_000,
    hook: 'onRequest',
    redis,
    ...(redis ? {} : { store: SnapshotLocalStore as never }),
    nameSpace: 'bp-rl:',
    keyGenerator: rateLimitKey,
    // A store that cannot answer must not take the API down with it.
    skipOnError: true,
    errorResponseBuilder: () => new TooManyRequestsError(),
  })

  app.addHook('onSend', async (_request, reply, payload) => {
    const ttl = reply.getHeader(RESET_HEADER)
    if (ttl !== undefined) reply.header(RESET_HEADER, Math.ceil(Date.now() / 1000) + Number(ttl))
    return payload
  })
}
