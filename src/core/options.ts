import type { FastifyInstance } from 'fastify'
import { notFoundHandler } from './error-handler.ts'
import type { RouteInfo } from './http.ts'

/** The order of the methods in Allow. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/** A route's path as a pattern of the paths it takes: `:param` is one segment, a final `*` anything. */
function pathPattern(url: string): RegExp {
  const source = url
    .replace(/(.)\/+$/, '$1')
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('')
  return new RegExp(`^${source}$`)
}

/**
 * OPTIONS that is not a CORS preflight (RFC 9110, 9.3.7): 204 with `Allow`,
 * the methods the path takes (HEAD wherever GET, and OPTIONS), without a
 * credential (the OpenAPI document says as much); a path no route takes is
 * 404 ROUTE_NOT_FOUND. A preflight (Origin and Access-Control-Request-Method
 * both present) is left to @fastify/cors, whose own answer to an OPTIONS
 * without them would be 400 text/plain. app.ts installs this hook after the
 * security headers and before CORS and the rate limiter: like a preflight, it
 * is not counted.
 */
export function installOptionsAnswer(app: FastifyInstance, routes: readonly RouteInfo[]) {
  let patterns: Array<{ pattern: RegExp; methods: Set<string> }> | undefined
  // The routes are all known once the app is ready, before the first request.
  const compile = () => {
    const byUrl = new Map<string, Set<string>>()
    for (const route of routes) {
      const methods = byUrl.get(route.url) ?? new Set<string>()
      methods.add(route.method)
      if (route.method === 'GET') methods.add('HEAD')
      byUrl.set(route.url, methods)
    }
    return [...byUrl].map(([url, methods]) => ({ pattern: pathPattern(url), methods }))
  }
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS' || (request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined)) return done()
    patterns ??= compile()
    const path = request.url.split('?')[0].replace(/(.)\/+$/, '$1')
    const allowed = new Set<string>()
    for (const { pattern, methods } of patterns) if (pattern.test(path)) for (const method of methods) allowed.add(method)
    if (allowed.size === 0) return void notFoundHandler(request, reply)
    reply.status(204).header('allow', [...METHOD_ORDER.filter((method) => allowed.has(method)), 'OPTIONS'].join(', ')).send()
  })
}
