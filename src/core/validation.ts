import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { sharedSchemas } from './schemas.ts'

/**
 * Two Ajv instances. Bodies are checked as sent: no type coercion (a string
 * is not a number), no silent removal of unknown fields, every failed rule
 * reported. Query strings, path parameters and headers arrive as text, so
 * they are coerced.
 */
const common: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false }
const bodyAjv = addFormats.default(new Ajv({ ...common, coerceTypes: false }))
const queryAjv = addFormats.default(new Ajv({ ...common, coerceTypes: 'array' }))

/** The named schemas (core/schemas.ts `Named`), so that a `$ref` to one resolves. */
function withSharedSchemas(ajv: Ajv): Ajv {
  for (const schema of sharedSchemas()) if (!ajv.getSchema((schema as { $id: string }).$id)) ajv.addSchema(schema as object)
  return ajv
}

export const compileValidator: FastifySchemaCompiler<any> = ({ schema, httpPart }) =>
  withSharedSchemas(httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object)
