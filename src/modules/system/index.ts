import { Type } from 'typebox'
import type { App } from '../../app.ts'
import { ADMIN } from '../../core/auth.ts'
import { NotFoundError } from '../../core/errors.ts'
import { ErrorResponse, responses } from '../../core/schemas.ts'
import type { ModuleContext } from '../services.ts'

const PUBLIC = { access: { public: true }, limit: false } as const

/** Health, readiness, the OpenAPI document, housekeeping and the admin job runner. */
export async function systemModule(app: App, ctx: ModuleContext) {
  ctx.jobs.register({
    name: 'housekeeping',
    description: 'Deletes idempotency keys past their 24 hours and refresh tokens expired or revoked over a day ago',
    intervalMs: 3_600_000,
    run: async () => {
      const keys = await ctx.db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`)
      const tokens = await ctx.db.query(
        `DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day' OR revoked_at < now() - interval '1 day'`,
      )
      return { idempotencyKeys: keys.rowCount, refreshTokens: tokens.rowCount }
    },
  })

  app.get('/health', {
    schema: { tags: ['system'], summary: 'Liveness: the process answers', security: [], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
    config: PUBLIC,
  }, async () => ({ status: 'ok' as const }))

  app.get('/ready', {
    schema: { tags: ['system'], summary: 'Readiness: the database answers', security: [], response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: ErrorResponse } },
    config: PUBLIC,
  }, async (req, reply) => {
    try {
      await ctx.db.query('SELECT 1')
      return { status: 'ready' as const }
    } catch (err) {
      req.log.warn({ err }, 'database not ready')
      return reply.status(503).send({ statusCode: 503, message: 'Database unavailable', error: 'Service Unavailable' })
    }
  })

  app.get('/openapi.json', {
    schema: { tags: ['system'], summary: 'The OpenAPI 3.1 document of every route', security: [], hide: true },
    config: PUBLIC,
  }, async () => app.swagger())
}

/**
 * The admin job runner. Loaded after every other module, so that the OpenAPI
 * document names each job the modules registered.
 */
export async function adminJobsModule(app: App, ctx: ModuleContext) {
  const names = ctx.jobs.list().map((j) => `\`${j.name}\` (${j.description})`)
  app.get('/admin/jobs', {
    schema: {
      tags: ['system'], summary: 'List scheduled jobs',
      response: responses({ 200: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), intervalSeconds: Type.Number() })) }),
    },
    config: { access: { roles: ADMIN } },
  }, async () => ctx.jobs.list().map((j) => ({ name: j.name, description: j.description, intervalSeconds: j.intervalMs / 1000 })))

  app.post('/admin/jobs/:name/run', {
    schema: {
      tags: ['system'],
      summary: 'Run a scheduled job now',
      description: `Runs the named job once and answers with what it changed. Jobs: ${names.join('; ')}.`,
      params: Type.Object({ name: Type.String({ maxLength: 100 }) }),
      response: responses({ 200: Type.Object({ job: Type.String(), result: Type.Record(Type.String(), Type.Unknown()) }) }, [404]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req) => {
    const job = ctx.jobs.get(req.params.name)
    if (!job) throw new NotFoundError(`Job ${req.params.name} (known: ${ctx.jobs.list().map((j) => j.name).join(', ')})`)
    return { job: job.name, result: await job.run() }
  })
}
