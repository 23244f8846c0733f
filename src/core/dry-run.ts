import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify'
import type { Db } from './db.ts'
import { AppError } from './errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request asked for a dry run (Prefer: dry-run) and its route carries it out (core/dry-run.ts). */
    dryRun: boolean
  }
  interface FastifyContextConfig {
    /**
     * false: the route cannot be dry run (it calls an outside service, such as
     * the payment processor, or a dry run would hand out a working credential):
     * `Prefer: dry-run` is answered 400 DRY_RUN_UNSUPPORTED.
     */
    dryRun?: false
  }
}

/** The methods a dry run applies to (docs/platform.md "Dry runs"). */
export const DRY_RUN_METHODS = ['POST', 'PATCH', 'DELETE'] as const
export const PREFERENCE_APPLIED = 'preference-applied'

/**
 * The preference names of Prefer header values (RFC 7240 section 2):
 * comma-separated preferences, each `token [= value] *(; parameter)`, a
 * value possibly a quoted string holding commas or semicolons. Names are
 * compared case-insensitively, so they are answered in lower case.
 */
export function preferenceNames(header: string | string[] | undefined): string[] {
  const names: string[] = []
  for (const text of [header ?? []].flat()) {
    let name = ''
    let inName = true
    let quoted = false
    for (let i = 0; i < text.length; i++) {
      const c = text[i]
      if (quoted) {
        if (c === '\\') i++
        else if (c === '"') quoted = false
      } else if (c === '"') quoted = true
      else if (c === ',') {
        if (name.trim()) names.push(name.trim().toLowerCase())
        name = ''
        inName = true
      } else if (c === '=' || c === ';') inName = false
      else if (inName) name += c
    }
    if (name.trim()) names.push(name.trim().toLowerCase())
  }
  return names
}

const isMultipart = (request: FastifyRequest) => /^\s*multipart\//i.test(String(request.headers['content-type'] ?? ''))
const isWrite = (method: string) => (DRY_RUN_METHODS as readonly string[]).includes(method)
const wrapped = Symbol('dry run')

/**
 * `Prefer: dry-run` on a POST, PATCH or DELETE (docs/platform.md "Dry runs"):
 * the route's handler runs in full inside one transaction of the database
 * (Db.dryRun), which is rolled back whatever it answered; the answer is what
 * the request would have had, with `Preference-Applied: dry-run`. Done once
 * here, for every route: each handler is wrapped as its route is added.
 *
 * Authentication, rate limiting (a dry run counts) and validation run as for
 * any request, outside the transaction; the Idempotency-Key layer stands
 * aside (core/idempotency.ts). A route with `config: { dryRun: false }`, and
 * any multipart upload, is answered 400 DRY_RUN_UNSUPPORTED after
 * authentication, before its body is read.
 */
export function installDryRun(app: FastifyInstance, db: Db) {
  app.decorateRequest('dryRun', false)

  app.addHook('onRoute', (route) => {
    if (![route.method].flat().some(isWrite) || route.config?.dryRun === false) return
    const handler = route.handler as RouteHandlerMethod & { [wrapped]?: true }
    if (handler[wrapped]) return
    const dryRunnable = function (this: FastifyInstance, request: FastifyRequest, reply: Parameters<RouteHandlerMethod>[1]) {
      if (!request.dryRun) return handler.call(this, request, reply)
      return db.dryRun(async () => await handler.call(this, request, reply))
    } as RouteHandlerMethod & { [wrapped]?: true }
    dryRunnable[wrapped] = true
    route.handler = dryRunnable
  })

  // Before the rate limiter's onRequest, so that its 429 carries the header too.
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404 || !isWrite(request.method) || !preferenceNames(request.headers.prefer).includes('dry-run')) return
    if (request.routeOptions.config.dryRun === false || isMultipart(request)) return
    request.dryRun = true
    reply.header(PREFERENCE_APPLIED, 'dry-run')
  })

  // After authentication (its preParsing hook is added first): a caller without access learns nothing more.
  app.addHook('preParsing', async (request) => {
    if (request.dryRun || request.is404 || !isWrite(request.method) || !preferenceNames(request.headers.prefer).includes('dry-run')) return
    if (isMultipart(request)) throw new AppError('DRY_RUN_UNSUPPORTED', 'Prefer: dry-run is not supported for uploads (multipart/form-data)')
    throw new AppError('DRY_RUN_UNSUPPORTED', `Prefer: dry-run is not supported by ${request.method} ${request.routeOptions.url}: it calls an outside service or hands out a credential`)
  })
}
