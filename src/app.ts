import { randomUUID } from 'node:crypto'
import cors from '@fastify/cors'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyContextConfig, type FastifyInstance, type RawServerDefault } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Config } from './config.ts'
import { installAuth, type CredentialResolver } from './core/auth.ts'
import { openDb, type Db } from './core/db.ts'
import { installErrorHandler } from './core/error-handler.ts'
import { installIdempotency } from './core/idempotency.ts'
import { Jobs } from './core/jobs.ts'
import { migrate } from './core/migrate.ts'
import { API_PREFIX, installOpenApi } from './core/openapi.ts'
import { installRateLimit } from './core/rate-limit.ts'
import { installSecurityHeaders } from './core/security-headers.ts'
import { ErrorSchema } from './core/schemas.ts'
import { compileValidator } from './core/validation.ts'
import { modules, type ModuleContext, type Services } from './modules/index.ts'

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

export interface RouteInfo {
  method: string
  url: string
  config: FastifyContextConfig
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: ModuleContext
    /** Every registered route, for the contract tests that walk them all. */
    routeList: RouteInfo[]
  }
}

export interface BuildOptions {
  /** Use this database instead of opening one from config (tests share one per file). */
  db?: Db
  logger?: boolean
}

/** The one application, used by the server, the tests, the seed and the benchmarks. */
export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: opts.logger === false ? false : { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<TypeBoxTypeProvider>()

  const ownDb = !opts.db
  const db = opts.db ?? (await openDb(config))
  await migrate(db)

  const resolvers: CredentialResolver[] = []
  const jobs = new Jobs(app.log)
  const ctx: ModuleContext = { db, config, jobs, resolvers, services: {} as Services, onOrganizationCreated: [] }
  app.decorate('ctx', ctx)

  app.setValidatorCompiler(compileValidator)
  app.addSchema(ErrorSchema)
  // Bodies are JSON (multipart only where a module registers it): anything else is 415.
  app.removeContentTypeParser('text/plain')
  installErrorHandler(app)
  const routeList: RouteInfo[] = []
  app.decorate('routeList', routeList)
  app.addHook('onRoute', (route) => {
    // Routes of plugins (the docs UI) carry no access config of their own.
    if (route.url.startsWith(`${API_PREFIX}/docs`)) route.config = { ...route.config, access: { public: true }, limit: false }
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && method !== 'OPTIONS') routeList.push({ method, url: route.url, config: route.config ?? {} })
    }
  })

  installSecurityHeaders(app, {
    contentSecurityPolicy: {
      directives: { defaultSrc: ["'self'"], imgSrc: ["'self'", 'data:'], styleSrc: ["'self'", "'unsafe-inline'"], scriptSrc: ["'self'"] },
    },
  })
  await app.register(cors, {
    origin: config.corsOrigin === '*' ? true : config.corsOrigin.split(',').map((o) => o.trim()),
    exposedHeaders: ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'idempotent-replayed'],
  })
  installAuth(app, resolvers)
  await installRateLimit(app, config.rateLimits, config.redisUrl)
  installIdempotency(app, db)
  await installOpenApi(app)

  await app.register(
    async (api) => {
      for (const mod of modules) await mod(api as App, ctx)
    },
    { prefix: API_PREFIX },
  )

  if (config.jobs) {
    app.addHook('onReady', async () => jobs.start())
    app.addHook('onClose', async () => jobs.stop())
  }
  // Last, so jobs and requests are done with it before it closes.
  if (ownDb) app.addHook('onClose', async () => await db.close())
  await app.ready()
  return app
}
