import fastJsonStringify, { type AnySchema, type Options } from 'fast-json-stringify'

type Schema = Record<string, unknown>

/** The ids of the shared schemas a schema refers to (`$ref: 'Contact#'`), and of those they refer to in turn. */
export function referencedIds(schema: unknown, shared: Record<string, Schema>, ids = new Set<string>()): Set<string> {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node)) {
      if (key !== '$ref' || typeof value !== 'string') visit(value)
      else {
        const id = value.split('#')[0]
        if (id && shared[id] && !ids.has(id)) {
          ids.add(id)
          visit(shared[id])
        }
      }
    }
  }
  visit(schema)
  return ids
}

/**
 * Fastify's response serializer (fast-json-stringify, as Fastify builds it),
 * given only the shared schemas (app.addSchema) that the response schema
 * refers to. Fastify's own builder hands every shared schema to every
 * response schema, and fast-json-stringify checks each of them on each build:
 * with the named components of core/schemas.ts that was a quarter of the time
 * an app takes to start. What is written is the same.
 */
export function buildSerializer(externalSchemas?: unknown, serializerOpts: Options = {}) {
  const shared = (externalSchemas ?? {}) as Record<string, Schema>
  return ({ schema }: { schema?: unknown }): ((doc: unknown) => string) => {
    const root = schema as Schema
    const ids = referencedIds(root, shared)
    if (typeof root.$id === 'string') ids.delete(root.$id)
    const external = Object.fromEntries([...ids].map((id) => [id, shared[id]]))
    return fastJsonStringify(root as AnySchema, { ...serializerOpts, schema: external as unknown as Options['schema'] }) as (doc: unknown) => string
  }
}
