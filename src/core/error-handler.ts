import { STATUS_CODES } from 'node:http'
import type { ErrorObject } from 'ajv'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from './db.ts'
import { AppError, codeToStatus, uniqueMessage, type ErrorCode } from './errors.ts'

/** Retry-After of a 503 while the database is out of reach, seconds. */
const RETRY_AFTER_SECONDS = 2

/** The error body with its machine code (docs/errors.md "The error body"). */
export interface ErrorBody {
  statusCode: number
  message: string | string[]
  error: string
  code: ErrorCode
}

/** The body of a code; its status comes from codeToStatus and nowhere else. */
export function errorBody(code: ErrorCode, message: string | string[]): ErrorBody {
  const statusCode = codeToStatus[code]
  return { statusCode, message, error: STATUS_CODES[statusCode] ?? 'Error', code }
}

/**
 * Codes of the errors Fastify and its plugins raise with a status of their own
 * (body too large, unsupported media type, multipart limits, bad
 * Content-Length). A 4xx status not listed here becomes 400 MALFORMED_REQUEST.
 */
const FRAMEWORK_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'MALFORMED_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
}

/**
 * A validation error as one sentence per failed rule, naming the field. For a
 * nullable field (anyOf [T, null]) only the rule of T is reported: "must be
 * null" and "must match a schema in anyOf" say nothing to the caller. Also
 * used by imports, whose row errors give the field and the same sentence.
 */
export function validationDetails(all: ReadonlyArray<ErrorObject>): Array<{ field: string; message: string }> {
  const anyOfPaths = new Set(all.filter((v) => v.keyword === 'anyOf').map((v) => v.instancePath))
  const relevant = all.filter((v) => v.keyword !== 'anyOf' && !(anyOfPaths.has(v.instancePath) && v.keyword === 'type' && (v.params as { type?: string }).type === 'null'))
  return relevant.map((v) => {
    const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.')
    const p = v.params as Record<string, unknown>
    const under = (name: unknown) => `${path ? path + '.' : ''}${name}`
    switch (v.keyword) {
      case 'required':
        return { field: under(p.missingProperty), message: `${under(p.missingProperty)} is required` }
      case 'additionalProperties':
        return { field: under(p.additionalProperty), message: `${under(p.additionalProperty)} is not allowed` }
      case 'type':
        // Nullable fields have a type list: "must be string or null".
        return { field: path, message: `${path || 'value'} must be ${String(p.type).split(',').join(' or ')}` }
      case 'enum':
        return { field: path, message: `${path || 'value'} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}` }
      default:
        return { field: path, message: `${path || 'value'} ${v.message}` }
    }
  })
}

/**
 * PostgreSQL data exceptions caused by values the schemas let through: a NUL
 * character in text, a number beyond its column, a date PostgreSQL cannot hold
 * (year 0). They are the caller's input, not our fault, so they are not 500.
 */
const INPUT_DATA_ERRORS: Record<string, string> = {
  '22021': 'Text may not contain the NUL character (U+0000)',
  '22003': 'A number is outside the range this field accepts',
  '22008': 'A date or time is outside the range this field accepts',
}

/** The one place that maps errors to HTTP bodies (docs/errors.md "The codes"). */
export function installErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError & { constraint?: string }, request, reply) => {
    const send = (code: ErrorCode, message: string | string[]) => reply.status(codeToStatus[code]).send(errorBody(code, message))
    if (err instanceof AppError) {
      if (err.options.retryAfterSeconds !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(err.options.retryAfterSeconds))))
      return send(err.code, err.messages)
    }
    if (err.validation) {
      // Query, path and header problems are the caller's address being wrong (400);
      // a body that parses but breaks the schema is 422 with every failed rule.
      const messages = [...new Set(validationDetails(err.validation).map((d) => d.message))]
      if (err.validationContext === 'body') return send('VALIDATION_FAILED', messages)
      return send('INVALID_PARAMETER', messages.join('; '))
    }
    if (err.code === '23505') return send('ALREADY_EXISTS', uniqueMessage(err.constraint))
    if (err.code === '23503') return send('CONFLICT', 'The record is referenced by other records')
    const dataError = INPUT_DATA_ERRORS[err.code]
    if (dataError) {
      // A body value is 422 like any schema failure; a query or path value is 400.
      if (request.body !== undefined && request.body !== null) return send('VALIDATION_FAILED', [dataError])
      return send('INVALID_PARAMETER', dataError)
    }
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return send('MALFORMED_REQUEST', 'Malformed JSON in request body')
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return send(FRAMEWORK_CODES[err.statusCode] ?? 'MALFORMED_REQUEST', err.message)
    if (isDatabaseUnavailable(err)) {
      // docs/errors.md "Statuses": 503 is maintenance or overload. The client retries; nothing of the request committed.
      request.log.warn({ err }, 'database unavailable')
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
      return send('SERVICE_UNAVAILABLE', 'The service is briefly unavailable (database unreachable); retry shortly')
    }
    request.log.error({ err }, 'unhandled error')
    return send('INTERNAL_ERROR', 'Internal Server Error')
  })
}

/** The path of a request (no query string), cut at 200 characters: an answer never echoes unbounded input. */
function shortPath(request: FastifyRequest): string {
  const path = request.url.split('?')[0]
  return path.length > 200 ? `${path.slice(0, 200)}...` : path
}

/** The answer to an unknown route; app.ts installs it after the rate limiter, which counts it too. */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  reply.status(404).send(errorBody('ROUTE_NOT_FOUND', `Route ${request.method} ${shortPath(request)} not found`))
}

/** The longest path parameter the router takes (Fastify's maxParamLength); app.ts sets it. */
export const MAX_PARAM_LENGTH = 100

/**
 * Errors the router raises before any route or hook runs (Fastify's
 * `frameworkErrors`): a path parameter longer than MAX_PARAM_LENGTH, or a
 * path that is not valid percent-encoding. Both are the address being wrong,
 * as an id that is not a UUID is: 400 INVALID_PARAMETER, with the path cut
 * short (Fastify's own answer is 414 "Bad Request" with the whole URL and a
 * code outside our set). No hook runs for these requests, so the security
 * headers and X-Request-Id are set here.
 */
export function frameworkErrorHandler(headers: Record<string, string>) {
  return (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(headers).header('x-request-id', request.id)
    let body: ErrorBody
    if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      body = errorBody('INVALID_PARAMETER', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters: ${request.method} ${shortPath(request)}`)
    } else if (err.code === 'FST_ERR_BAD_URL') {
      body = errorBody('INVALID_PARAMETER', `The path is not valid percent-encoding: ${request.method} ${shortPath(request)}`)
    } else {
      request.log.error({ err }, 'router error')
      body = errorBody('INTERNAL_ERROR', 'Internal Server Error')
    }
    reply.status(body.statusCode).send(body)
  }
}
