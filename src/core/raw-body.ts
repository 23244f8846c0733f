import type { FastifyInstance } from 'fastify'
import { AppError } from './errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request bytes, kept by scopes that verify a signature over them. */
    rawBody?: Buffer
  }
}

/**
 * Replaces the JSON parser of one plugin scope with one that also keeps the
 * raw bytes, for routes that check an HMAC over the body as it was sent
 * (license client signatures, payment-processor events). Other scopes keep
 * Fastify's own parser.
 */
export function keepRawJsonBody(scope: FastifyInstance) {
  scope.decorateRequest('rawBody', undefined)
  // Fastify's own parser (prototype-poisoning protection included) does the parsing.
  const parseJson = scope.getDefaultJsonParser('error', 'error')
  scope.removeContentTypeParser('application/json')
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer
    parseJson(request, (body as Buffer).toString('utf8'), (err, value) => {
      done(err ? new AppError('MALFORMED_REQUEST', 'Malformed JSON in request body') : null, value)
    })
  })
}
