import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * Two Ajv instances. Bodies are checked as sent: no type coercion (a string
 * is not a number), no silent removal of unknown fields, every failed rule
 * reported. Query strings, path parameters and headers arrive as text, so
 * they are coerced.
 */
const common: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false }
const bodyAjv = addFormats.default(new Ajv({ ...common, coerceTypes: false }))
const queryAjv = addFormats.default(new Ajv({ ...common, coerceTypes: 'array' }))

export const compileValidator: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object)
