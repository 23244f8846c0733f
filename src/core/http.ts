import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyContextConfig, FastifyInstance, RawServerDefault } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** The Fastify instance every module registers its routes on. */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

export interface RouteInfo {
  method: string
  url: string
  config: FastifyContextConfig
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every registered route, for the contract tests that walk them all. */
    routeList: RouteInfo[]
  }
}
