import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import helmet, { type HelmetOptions } from 'helmet'

/**
 * Helmet's security headers, computed once at start: the policy is the same
 * for every response, and building it per request (as the Fastify plugin
 * does) costs a measurable share of a request.
 */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const collect = { setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)), removeHeader: () => {} }
  helmet(options)({} as IncomingMessage, collect as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err
  })
  return headers
}

/**
 * The headers of securityHeaders() and X-Request-Id on every response. Routes
 * may still override a header (the local checkout pages set their own CSP).
 */
export function installSecurityHeaders(app: FastifyInstance, headers: Record<string, string>) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers)
    reply.header('x-request-id', request.id)
    done()
  })
}
