/**
 * Domain errors. Services throw these with a machine code and never an HTTP
 * status; only error-handler.ts turns them into HTTP bodies, through the one
 * `codeToStatus` table below (docs/errors.md explains each code).
 */

/**
 * The closed set of machine codes. Every error body carries one in `code`;
 * openapi.json lists them as the enum of ErrorResponse.code. The license client
 * codes (LICENSE_*, MODULE_MISMATCH, ...) keep the spelling connector modules
 * know (docs/licenses.md "Checks").
 */
export const ERROR_CODES = [
  'MALFORMED_REQUEST',
  'INVALID_PARAMETER',
  'INVALID_STATE',
  'ACTION_NOT_ALLOWED',
  'LIMIT_EXCEEDED',
  'INSUFFICIENT_STOCK',
  'DRY_RUN_UNSUPPORTED',
  'UNAUTHENTICATED',
  'INVALID_SIGNATURE',
  'FORBIDDEN',
  'LICENSE_INACTIVE',
  'LICENSE_EXPIRED',
  'MODULE_MISMATCH',
  'VERSION_MISMATCH',
  'NOT_ACTIVATED_ON_DOMAIN',
  'NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'LICENSE_NOT_FOUND',
  'ALREADY_EXISTS',
  'STATE_CONFLICT',
  'CONFLICT',
  'IDEMPOTENCY_KEY_IN_USE',
  'ACTIVATION_LIMIT_REACHED',
  'GONE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_FAILED',
  'PERIOD_LOCKED',
  'IDEMPOTENCY_KEY_REUSED',
  'RATE_LIMITED',
  'QUEUE_FULL',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

/**
 * The HTTP status of each code: the only place a status is chosen. An illegal
 * state transition is INVALID_STATE (400) or STATE_CONFLICT (409), whichever
 * the module's page gives for that action (the rule of
 * docs/errors.md "Illegal state transitions"); a module never picks a status.
 */
export const codeToStatus = {
  MALFORMED_REQUEST: 400,
  INVALID_PARAMETER: 400,
  INVALID_STATE: 400,
  ACTION_NOT_ALLOWED: 400,
  LIMIT_EXCEEDED: 400,
  INSUFFICIENT_STOCK: 400,
  DRY_RUN_UNSUPPORTED: 400,
  UNAUTHENTICATED: 401,
  INVALID_SIGNATURE: 401,
  FORBIDDEN: 403,
  LICENSE_INACTIVE: 403,
  LICENSE_EXPIRED: 403,
  MODULE_MISMATCH: 403,
  VERSION_MISMATCH: 403,
  NOT_ACTIVATED_ON_DOMAIN: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  LICENSE_NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  STATE_CONFLICT: 409,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  ACTIVATION_LIMIT_REACHED: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  PERIOD_LOCKED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  QUEUE_FULL: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<ErrorCode, number>

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && Object.hasOwn(codeToStatus, value)

/**
 * A refusal with its machine code; `message` is a list for validation failures
 * (one entry per failed rule). `retryAfterSeconds` becomes the answer's
 * Retry-After header (a refusal that may succeed later: QUEUE_FULL).
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string | string[],
    readonly options: { retryAfterSeconds?: number } = {},
  ) {
    super(Array.isArray(message) ? message.join('; ') : message)
    this.messages = message
  }
  readonly messages: string | string[]
}

/** NOT_FOUND: "<what> not found". */
export class NotFoundError extends AppError {
  constructor(what: string) {
    super('NOT_FOUND', `${what} not found`)
  }
}
/** UNAUTHENTICATED: no credential, or one that is invalid, expired or revoked. */
export class UnauthorizedError extends AppError {
  constructor(message = 'Unauthorized') {
    super('UNAUTHENTICATED', message)
  }
}
/** FORBIDDEN: the credential is good but may not do this (role, environment, ownership). */
export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden') {
    super('FORBIDDEN', message)
  }
}
/** VALIDATION_FAILED: the body parsed but breaks a rule; one message per failed rule. */
export class ValidationError extends AppError {
  constructor(messages: string | string[]) {
    super('VALIDATION_FAILED', Array.isArray(messages) ? messages : [messages])
  }
}
/** PERIOD_LOCKED (422): the ledger's entry for this change would be dated on or before the organization's lock date (docs/accounting.md "Lock date"). */
export class PeriodLockedError extends AppError {
  constructor(date: string, lockDate?: string) {
    super('PERIOD_LOCKED', [`The books are locked up to ${lockDate ?? 'the lock date'}: nothing can be posted dated ${date}`])
  }
}
/** INVALID_STATE (400): the resource's state forbids the action, where the module's page gives 400 (docs/errors.md "Illegal state transitions"). */
export class InvalidStateError extends AppError {
  constructor(message: string) {
    super('INVALID_STATE', message)
  }
}
/** STATE_CONFLICT (409): the resource's state forbids the action, where the module's page gives 409, or none settled it (docs/errors.md "Illegal state transitions"). */
export class StateConflictError extends AppError {
  constructor(message: string) {
    super('STATE_CONFLICT', message)
  }
}
/** GONE (410): the resource existed but is no longer kept (a report file past its 30 days). */
export class GoneError extends AppError {
  constructor(message: string) {
    super('GONE', message)
  }
}
/** ALREADY_EXISTS (409): a unique value is taken. */
export class AlreadyExistsError extends AppError {
  constructor(message: string) {
    super('ALREADY_EXISTS', message)
  }
}
/** RATE_LIMITED (429), with its fixed message (docs/platform.md "Rate limits"). */
export class TooManyRequestsError extends AppError {
  /** retryAfterSeconds: sent as Retry-After (the rate limiter sets its own). */
  constructor(message = 'ThrottlerException: Too Many Requests', retryAfterSeconds?: number) {
    super('RATE_LIMITED', message, { retryAfterSeconds })
  }
}

/** Messages for unique constraints, so a race that reaches the database still answers 409 in words. */
const uniqueMessages = new Map<string, string>()
export function registerUniqueMessage(constraint: string, message: string) {
  uniqueMessages.set(constraint, message)
}
export function uniqueMessage(constraint: string | undefined): string {
  return (constraint && uniqueMessages.get(constraint)) || 'Resource already exists'
}

/** PostgreSQL error of a unique constraint, whichever driver raised it. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string }
  return e?.code === '23505' && (!constraint || e.constraint === constraint)
}
