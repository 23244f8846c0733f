import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from './errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request bytes, kept by scopes that verify a signature over them. */
    rawBody?: Buffer
  }
}

/**
 * JSON text is UTF-8 (RFC 8259, 8.1). Bytes that are not UTF-8 are refused,
 * never replaced by U+FFFD: a stored name must be the one that was sent. A
 * leading byte order mark is left to the JSON parser, which skips it as before.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** A JSON body parser over the bytes sent: strict UTF-8, then Fastify's own parser (prototype-poisoning protection included). */
function jsonParser(scope: FastifyInstance, keepRaw: boolean) {
  const parseJson = scope.getDefaultJsonParser('error', 'error')
  return (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    if (keepRaw) request.rawBody = body as Buffer
    let text: string
    try {
      text = utf8.decode(body as Buffer)
    } catch {
      return done(new AppError('MALFORMED_REQUEST', 'Malformed UTF-8 in request body'))
    }
    parseJson(request, text, (err, value) => {
      done(err ? new AppError('MALFORMED_REQUEST', 'Malformed JSON in request body') : null, value)
    })
  }
}

/** The JSON parser of every route: a body that is not UTF-8, or not JSON, is 400 MALFORMED_REQUEST. */
export function installJsonParser(app: FastifyInstance) {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonParser(app, false))
}

/**
 * Replaces the JSON parser of one plugin scope with one that also keeps the
 * raw bytes, for routes that check an HMAC over the body as it was sent
 * (license client signatures, payment-processor events). Other scopes keep
 * the parser of installJsonParser.
 */
export function keepRawJsonBody(scope: FastifyInstance) {
  scope.decorateRequest('rawBody', undefined)
  scope.removeContentTypeParser('application/json')
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonParser(scope, true))
}
