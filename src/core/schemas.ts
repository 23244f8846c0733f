import { Type, type Static, type TSchema, type TUnsafe } from 'typebox'
import { ERROR_CODES } from './errors.ts'

/** The error body with its machine `code` (docs/errors.md "The error body"). Registered once by buildApp. */
export const ErrorSchema = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.Union([Type.String(), Type.Array(Type.String())]),
    error: Type.String(),
    code: StringEnum(ERROR_CODES, { description: 'Machine code of the error, one of a closed set (docs/errors.md)' }),
  },
  { $id: 'ErrorResponse', description: 'Error' },
)
/** What routes use: a reference to the one shared declaration, so the OpenAPI document lists it once. */
export const ErrorResponse = Type.Unsafe<Static<typeof ErrorSchema>>({ $ref: 'ErrorResponse#', description: 'Error' })

const namedSchemas = new Map<string, TSchema>()

/**
 * A shape clients reuse, published once under its name: the declaration gets
 * `$id: name` and is registered with every app (`app.addSchema`, see
 * buildApp, and the validators of core/validation.ts); what is returned is a
 * `$ref` to it, typed as the shape. Serialization (fast-json-stringify) and
 * validation (Ajv) resolve the reference; the OpenAPI document lists the shape
 * once under components.schemas.<name> and refers to it everywhere else.
 * Names are PascalCase and unique: a second declaration of a name throws.
 */
export function Named<T extends TSchema>(name: string, schema: T): TUnsafe<Static<T>> {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) throw new Error(`Schema name "${name}" must be PascalCase`)
  if (namedSchemas.has(name) || name === 'ErrorResponse') throw new Error(`Schema "${name}" is declared twice`)
  namedSchemas.set(name, { ...schema, $id: name })
  return Type.Unsafe<Static<T>>({ $ref: `${name}#` })
}

/** Every schema declared with Named, each with its `$id`. */
export function sharedSchemas(): TSchema[] {
  return [...namedSchemas.values()]
}

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid', maxLength: 36 }) })

/**
 * An event id as integrators may rely on it (docs/webhooks.md "The event feed"): evt_
 * and 26 or more letters and digits. Ids this service writes have 32 hex
 * digits (core/events.ts); an id of the wider shape is looked up, and one
 * that does not exist is 404, not 400.
 */
export const EVENT_ID_PATTERN = '^evt_[0-9A-Za-z]{26,}$'
export const EventId = (description?: string) => Type.String({ pattern: EVENT_ID_PATTERN, maxLength: 100, ...(description ? { description } : {}) })
export const NoContent = Type.Null({ description: 'No content' })

type Status = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429

/**
 * Response schemas of a route: its successes plus the error statuses it can
 * return. Authenticated routes always list 401, 403 and 429.
 */
export function responses(success: Record<number, TSchema>, errors: Status[] = [], opts: { public?: boolean } = {}) {
  const all = new Set<number>(opts.public ? [400, 429, ...errors] : [400, 401, 403, 429, ...errors])
  const out: Record<number, TSchema> = { ...success }
  for (const code of all) out[code] = ErrorResponse
  return out
}

/** A string limited to fixed values; an unknown value fails with "must be one of: ...". */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

/**
 * T or null. A scalar is written as a type list (`type: ['string', 'null']`),
 * which the serializer writes without testing branches at run time (an anyOf
 * costs a validation per field per record); objects stay anyOf [T, null].
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const s = schema as unknown as Record<string, unknown>
  if (typeof s.type === 'string' && s.type !== 'object' && s.type !== 'array') {
    return Type.Unsafe<Static<T> | null>({ ...s, type: [s.type, 'null'], ...(Array.isArray(s.enum) ? { enum: [...s.enum, null] } : {}) })
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]))
}
