import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body may be left out: the OpenAPI document declares `requestBody.required: false`. Set by `optionalBody`. */
    optionalBody?: boolean
  }
}

/**
 * Route options (spread into the route's) of a POST whose body fields are all
 * optional: sending a document, invoicing an order, issuing a credit note.
 * No body at all, or an empty one (Content-Length 0, whatever its
 * Content-Type says), is read as {}. A body that is sent is validated as
 * sent: JSON `null`, like any value that is not an object, is 422. The
 * OpenAPI document declares the body optional (core/openapi.ts reads
 * `config.optionalBody`). The route may not have a config of its own.
 */
export const optionalBody = {
  config: { optionalBody: true },
  onRequest(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    // Zero bytes (or a request without Content-Length and Transfer-Encoding, which has no body: RFC 9112, 6.3)
    // are no body; without this, a JSON Content-Type would make them malformed JSON (400).
    const length = request.headers['content-length']
    if ((length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined) delete request.headers['content-type']
    done()
  },
  preValidation(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (request.body === undefined) request.body = {}
    done()
  },
}
