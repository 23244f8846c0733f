/**
 * Domain errors. Services throw these; only error-handler.ts turns them into
 * HTTP bodies. `code` is an optional machine-readable code added to the body
 * (the license endpoints use it).
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string | string[],
    readonly code?: string,
  ) {
    super(Array.isArray(message) ? message.join('; ') : message)
    this.messages = message
  }
  readonly messages: string | string[]
}

export class BadRequestError extends AppError {
  constructor(message: string, code?: string) {
    super(400, message, code)
  }
}
export class UnauthorizedError extends AppError {
  constructor(message = 'Unauthorized', code?: string) {
    super(401, message, code)
  }
}
export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden', code?: string) {
    super(403, message, code)
  }
}
export class NotFoundError extends AppError {
  constructor(what: string, code?: string) {
    super(404, `${what} not found`, code)
  }
}
export class ConflictError extends AppError {
  constructor(message: string, code?: string) {
    super(409, message, code)
  }
}
/** Body parsed but breaks a rule: message is a list, one entry per failed rule. */
export class ValidationError extends AppError {
  constructor(messages: string | string[], code?: string) {
    super(422, Array.isArray(messages) ? messages : [messages], code)
  }
}
export class TooManyRequestsError extends AppError {
  constructor() {
    super(429, 'ThrottlerException: Too Many Requests')
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
