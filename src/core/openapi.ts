import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

export const API_PREFIX = '/api'

/**
 * OpenAPI 3.1 generated from the route schemas. Paths are written relative to
 * the base address, as SPEC writes them; the server entry carries /api.
 */
export async function installOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Business Platform API',
        version: '1.0.0',
        description:
          'JSON REST API over an ERP platform. Every path is relative to the base address, which ends in /api. ' +
          'Authenticate with `Authorization: Bearer <API key or access token>`. Lists use the envelope ' +
          '{data, meta: {total, page, limit, totalPages}}. Errors use {statusCode, message, error, code}, code being one of the closed set of ErrorResponse.',
      },
      servers: [{ url: API_PREFIX }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API key (bp_live_..., bp_test_...) or JWT access token' },
        },
      },
      security: [{ bearer: [] }],
    },
    // Shared schemas (ErrorResponse) keep their $id as their component name.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const access = route.config?.access
      const out = { ...(schema as object) } as Record<string, unknown>
      if (access?.public) out.security = []
      if (access?.roles) out.description = [out.description, `Roles: ${access.roles.join(', ')}.`].filter(Boolean).join(' ')
      return { schema: out as typeof schema, url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) || '/' : url }
    },
  })
  await app.register(swaggerUi, {
    routePrefix: `${API_PREFIX}/docs`,
    staticCSP: true,
    uiConfig: { url: `${API_PREFIX}/openapi.json`, deepLinking: true },
    uiHooks: {},
  })
}
