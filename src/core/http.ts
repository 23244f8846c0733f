import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyContextConfig, FastifyInstance, FastifySchema, RawServerDefault } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** The Fastify instance every module registers its routes on. */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

export interface RouteInfo {
  method: string
  url: string
  config: FastifyContextConfig
  /** Its schemas (body, params, response), for contract tests that read what a route takes. */
  schema?: FastifySchema
  /** The module that registered it; absent for the kernel's own routes. */
  module?: string
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Also served at the same path outside /api, at the root of the origin (RFC 8615 well-known files). */
    atOrigin?: boolean
  }
  interface FastifyInstance {
    /** Every registered route, for the contract tests that walk them all. */
    routeList: RouteInfo[]
  }
}
