import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'

export const SIGNATURE_HEADER = 'x-service-signature'

/** `sha256=<hex HMAC-SHA256 of body>` keyed with the product's signing secret (docs/licenses.md "Request signatures"). */
export function serviceSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}

/**
 * What a license client request needs to check and sign: the raw body and the
 * signature it came with, and the product's secret once the license is found
 * (responses are signed with it, errors included).
 */
export interface SigningContext {
  rawBody: Buffer
  signature?: string
  secret?: string
}

declare module 'fastify' {
  interface FastifyRequest {
    licenseSigning?: SigningContext
  }
}

export function signingContextOf(request: FastifyRequest): SigningContext {
  const header = request.headers[SIGNATURE_HEADER]
  const ctx: SigningContext = { rawBody: request.rawBody ?? Buffer.alloc(0), signature: typeof header === 'string' ? header.trim() : undefined }
  request.licenseSigning = ctx
  return ctx
}

/** True when the request carried no signature, or a correct one. */
export function requestSignatureValid(ctx: SigningContext, secret: string): boolean {
  if (ctx.signature === undefined) return true
  const expected = Buffer.from(serviceSignature(secret, ctx.rawBody))
  const given = Buffer.from(ctx.signature.toLowerCase())
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Signs every response of the scope whose request found its license. */
export function signResponses(scope: FastifyInstance) {
  scope.decorateRequest('licenseSigning', undefined)
  scope.addHook('onSend', async (request, reply, payload) => {
    const secret = request.licenseSigning?.secret
    if (secret && (typeof payload === 'string' || Buffer.isBuffer(payload))) reply.header(SIGNATURE_HEADER, serviceSignature(secret, payload))
    return payload
  })
}
