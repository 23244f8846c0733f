import type { FastifyInstance } from 'fastify'
import { BadRequestError } from './errors.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact request bytes, kept by scopes that verify a signature over them. */
    rawBody?: Buffer
  }
}

/**
 * Replaces the JSON parser of one plugin scope with one that also keeps the
 * raw bytes, for routes that check an HMAC over the body as it was sent
 * (licence client signatures, payment-processor events). Other scopes keep
 * Fastify's own parser.
 */
export function keepRawJsonBody(scope: FastifyInstance) {
  scope.decorateRequest('rawBody', undefined)
  scope.removeContentTypeParser('application/json')
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const raw = body as Buffer
    request.rawBody = raw
    try {
      done(null, JSON.parse(raw.toString('utf8')))
    } catch {
      done(new BadRequestError('Malformed JSON in request body'), undefined)
    }
  })
}
