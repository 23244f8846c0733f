import { randomUUID } from 'node:crypto'
import cors from '@fastify/cors'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type RouteOptions } from 'fastify'
import { assertPaymentProcessorAllowed, type Config } from './config.ts'
import { installAuth, type CredentialResolver } from './core/auth.ts'
import { openDb, type Db } from './core/db.ts'
import { frameworkErrorHandler, installErrorHandler, MAX_PARAM_LENGTH, notFoundHandler } from './core/error-handler.ts'
import { installIdempotency } from './core/idempotency.ts'
import { installDryRun } from './core/dry-run.ts'
import { installReplicaReads, Replicas, withReplicas } from './core/replicas.ts'
import { DomainEvents } from './core/events.ts'
import { CpuPool } from './core/cpu-pool.ts'
import { jobRoutes, Jobs } from './core/jobs.ts'
import { queueRoutes, Worker } from './core/worker.ts'
import { migrate } from './core/migrate.ts'
import { installJsonParser } from './core/raw-body.ts'
import { SecretBox } from './core/secrets.ts'
import { registerModules, type App, type KernelContext, type ModuleDefinition, type ModuleName, type RouteInfo } from './core/module.ts'
import { API_PREFIX, installOpenApi } from './core/openapi.ts'
import { installOptionsAnswer } from './core/options.ts'
import { installDashboard } from './core/dashboard.ts'
import { installCursorRule } from './core/pagination.ts'
import { installRateLimit } from './core/rate-limit.ts'
import { installSecurityHeaders, securityHeaders } from './core/security-headers.ts'
import { ErrorSchema, sharedSchemas } from './core/schemas.ts'
import { buildSerializer } from './core/serialization.ts'
import { compileValidator } from './core/validation.ts'
import { modules } from './modules/index.ts'

export type { App, RouteInfo }

export interface BuildOptions {
  /** Use this database instead of opening one from config (tests share one per file). */
  db?: Db
  logger?: boolean
  /** Load these modules instead of every module (kernel tests). */
  modules?: ReadonlyArray<ModuleDefinition<string, ModuleName>>
}

/** The one application, used by the server, the tests, the seed and the benchmarks. */
export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<App> {
  // A configuration made without loadConfig is held to the same rule, before anything opens.
  assertPaymentProcessorAllowed(config)
  const headers = securityHeaders({
    contentSecurityPolicy: {
      directives: { defaultSrc: ["'self'"], imgSrc: ["'self'", 'data:'], styleSrc: ["'self'", "'unsafe-inline'"], scriptSrc: ["'self'"] },
    },
  })
  const app = Fastify({
    logger: opts.logger === false ? false : { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    forceCloseConnections: 'idle',
    // Each response serializer gets only the shared schemas it refers to (core/serialization.ts).
    schemaController: { compilersFactory: { buildSerializer } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // The router's refusals (a path parameter too long, bad percent-encoding) get the error body (docs/errors.md "The error body").
    frameworkErrors: frameworkErrorHandler(headers),
  }).withTypeProvider<TypeBoxTypeProvider>()

  // The key first: a start without a usable key stops before anything is opened.
  const secrets = await SecretBox.open(config)
  const ownDb = !opts.db
  const primary = opts.db ?? (await openDb(config))
  await migrate(primary)
  // Lag-tolerant reads go to the read replicas, if any (core/replicas.ts, docs/scale-out.md "Read replicas").
  const replicas = config.replicaUrls.length && primary.kind === 'pg' ? new Replicas(config.replicaUrls, primary, app.log, { poolSize: config.pgPoolSize, maxLagMs: config.replicaMaxLagMs, redisUrl: config.redisUrl }) : undefined
  await replicas?.start()
  const db = replicas ? withReplicas(primary, replicas) : primary

  const resolvers: CredentialResolver[] = []
  const jobs = new Jobs(db, app.log)
  const events = new DomainEvents(db, app.log)
  const worker = new Worker(db, app.log)
  worker.add(events.queue)
  // Worker threads for PDFs, started by the first one; stopped with the app (before the database: a render may still be finishing).
  const cpu = new CpuPool({ threads: config.cpuPoolThreads, maxQueue: config.cpuPoolQueue }, app.log)
  app.addHook('onClose', async () => await cpu.close())
  const ctx: KernelContext = { db, replicas, config, jobs, worker, events, cpu, secrets, resolvers, onOrganizationCreated: [] }
  app.decorate('ctx', ctx)

  app.setValidatorCompiler(compileValidator)
  app.addSchema(ErrorSchema)
  // The named shapes (Contact, Invoice, ...) that route schemas refer to with $ref.
  for (const schema of sharedSchemas()) app.addSchema(schema)
  // Bodies are JSON (multipart only where a module registers it): anything else is 415.
  app.removeContentTypeParser('text/plain')
  installJsonParser(app)
  installErrorHandler(app)
  installCursorRule(app)
  const routeList: RouteInfo[] = []
  app.decorate('routeList', routeList)
  const atOrigin: RouteOptions[] = []
  app.addHook('onRoute', (route) => {
    if (route.config?.atOrigin && route.method !== 'HEAD' && route.url.startsWith(`${API_PREFIX}/`)) atOrigin.push(route)
    // Routes of plugins (the docs UI) carry no access config of their own.
    if (route.url.startsWith(`${API_PREFIX}/docs`)) route.config = { ...route.config, access: { public: true }, limit: 'public' }
    // The dashboard's files (core/dashboard.ts): public, and not counted against a rate limit (a page load fetches several).
    else if (!route.url.startsWith(`${API_PREFIX}/`) && !route.config?.access) route.config = { ...route.config, access: { public: true }, rateLimit: false, dashboard: true } as typeof route.config
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && method !== 'OPTIONS') routeList.push({ method, url: route.url, config: route.config ?? {}, schema: route.schema })
    }
  })

  installSecurityHeaders(app, headers)
  // Before CORS: an OPTIONS that is not a preflight answers 204 with Allow (docs/platform.md).
  installOptionsAnswer(app, routeList)
  await app.register(cors, {
    origin: config.corsOrigin === '*' ? true : config.corsOrigin.split(',').map((o) => o.trim()),
    // Every method the API uses (the plugin's default is GET, HEAD, POST: a browser could not PATCH or DELETE).
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'idempotent-replayed', 'preference-applied'],
  })
  installAuth(app, resolvers)
  // Between authentication and rate limiting (core/dry-run.ts), before any route is added.
  installDryRun(app, db)
  if (replicas) installReplicaReads(app, replicas)
  await installRateLimit(app, config.rateLimits, config.redisUrl)
  // After the rate limiter, so that unknown routes are counted and carry X-RateLimit-* too.
  // Page addresses of the dashboard outside /api answer its index.html (core/dashboard.ts).
  app.setNotFoundHandler(config.rateLimits.enabled ? { preHandler: app.rateLimit() } : {}, await installDashboard(app, notFoundHandler))
  installIdempotency(app, db, secrets)
  await installOpenApi(app)

  await app.register(
    async (api) => {
      app.decorate('services', await registerModules(api as App, ctx, opts.modules ?? modules))
      // After every module, so that the job runner's description names each job.
      jobRoutes(api as App, jobs)
      queueRoutes(api as App, worker)
    },
    { prefix: API_PREFIX },
  )
  // Well-known files are looked for at the root of the origin (RFC 8615): served there as well.
  for (const route of atOrigin) {
    const schema = route.schema as { operationId?: string } | undefined
    app.route({
      method: route.method, url: route.url.slice(API_PREFIX.length), handler: route.handler,
      schema: schema && { ...schema, ...(schema.operationId ? { operationId: `${schema.operationId}AtOrigin` } : {}) },
      config: { ...route.config, atOrigin: false },
    })
  }

  if (config.jobs) {
    app.addHook('onReady', async () => {
      jobs.start()
      await worker.start()
    })
    app.addHook('onClose', async () => {
      await jobs.stop()
      await worker.stop()
    })
  }
  // Last, so jobs and requests are done with it before it closes.
  if (replicas) app.addHook('onClose', async () => await replicas.close())
  if (ownDb) app.addHook('onClose', async () => await db.close())
  await app.ready()
  return app
}
