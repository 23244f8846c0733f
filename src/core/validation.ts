import { Ajv, type ErrorObject, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { isStorableInstant } from './dates.ts'
import { sharedSchemas } from './schemas.ts'

/**
 * Two Ajv instances. Bodies are checked as sent: no type coercion (a string
 * is not a number), no silent removal of unknown fields, every failed rule
 * reported. Query strings, path parameters and headers arrive as text, so
 * they are coerced. Numbers must be finite (`strictNumbers`): JSON's 1e400
 * parses as Infinity, which no column holds and JSON cannot write back.
 */
export const ajvOptions: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false, strictNumbers: true }
const bodyAjv = withInputFormats(addFormats.default(new Ajv({ ...ajvOptions, coerceTypes: false })))
const queryAjv = withInputFormats(addFormats.default(new Ajv({ ...ajvOptions, coerceTypes: 'array' })))

/**
 * `date-time` and `date` as RFC 3339 defines them (ajv-formats, full mode),
 * narrowed to what a Date and PostgreSQL hold: no leap second (23:59:60 is
 * valid RFC 3339, but an Invalid Date in JavaScript) and a UTC year within
 * MIN_YEAR..MAX_YEAR, like every date input (core/dates.ts).
 */
function withInputFormats(ajv: Ajv): Ajv {
  const rfcDateTime = addFormats.default.get('date-time') as { validate: (s: string) => boolean }
  const rfcDate = addFormats.default.get('date') as { validate: (s: string) => boolean }
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => rfcDateTime.validate(s) && isStorableInstant(new Date(s)) })
  ajv.addFormat('date', { type: 'string', validate: (s: string) => rfcDate.validate(s) && isStorableInstant(new Date(`${s}T00:00:00Z`)) })
  return ajv
}

/** The named schemas (core/schemas.ts `Named`), so that a `$ref` to one resolves. */
const added = new Map<Ajv, Set<string>>()
function withSharedSchemas(ajv: Ajv): Ajv {
  const ids = added.get(ajv) ?? new Set<string>()
  added.set(ajv, ids)
  for (const schema of sharedSchemas()) {
    const id = (schema as { $id: string }).$id
    // Added once and compiled only when a request schema refers to it.
    if (!ids.has(id)) ajv.addSchema(schema as object)
    ids.add(id)
  }
  return ajv
}

/** NUL, or a UTF-16 surrogate without its other half. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Values PostgreSQL cannot hold, whatever the schema says: NUL in any text,
 * a lone surrogate (JSON's "\ud800"), which a JSON column refuses and a text
 * column would silently turn into U+FFFD, and a number that is not finite.
 * Ajv's coercion turns the query text "Infinity" or "1e400" into Infinity
 * and then skips the numeric keywords (maximum) for it. Checked here, once,
 * for every string (and every key) of every body, query, path and header, so
 * that it never reaches SQL, inside a JSON column or not. Each one found is an
 * error naming its place.
 */
function unstorableValues(value: unknown, path = '', out: ErrorObject[] = []): ErrorObject[] {
  const fail = (message: string, at = path) => out.push({ keyword: 'storable', instancePath: at, schemaPath: '#/storable', params: {}, message })
  if (typeof value === 'string') {
    if (UNSTORABLE.test(value)) fail('must not contain the NUL character (U+0000) or an unpaired UTF-16 surrogate')
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail('must be a finite number')
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unstorableValues(item, `${path}/${i}`, out))
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
      if (UNSTORABLE.test(key)) fail('is a field name with the NUL character or an unpaired UTF-16 surrogate', at)
      else unstorableValues(item, at, out)
    }
  }
  return out
}

/** Ajv's validator of the route part, then the check of unstorable values; errors have Ajv's shape so that the error handler words them alike. */
export const compileValidator: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const validate = withSharedSchemas(httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object)
  // Fastify passes the parent (the request) to Ajv validators, recognised by schemaEnv, so that a root value can be coerced.
  const checked = (data: unknown, parent?: Parameters<typeof validate>[1]) => {
    if (!validate(data, parent)) {
      checked.errors = validate.errors
      return false
    }
    const bad = unstorableValues(data)
    checked.errors = bad.length ? bad : null
    return bad.length === 0
  }
  checked.errors = null as ErrorObject[] | null | undefined
  checked.schemaEnv = validate.schemaEnv
  return checked
}
