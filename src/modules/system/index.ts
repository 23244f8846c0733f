import { Type } from 'typebox'
import { defineModule } from '../../core/module.ts'
import { API_VERSION } from '../../core/openapi.ts'
import { AppError } from '../../core/errors.ts'
import { ErrorResponse } from '../../core/schemas.ts'

const PUBLIC = { access: { public: true }, limit: 'public' } as const

/** Health, readiness, the OpenAPI document and housekeeping. */
export const systemModule = defineModule({
  name: 'system',
  needs: [],
  async register(app, ctx) {
    ctx.jobs.register({
      name: 'housekeeping',
      description: 'Deletes idempotency keys past their 24 hours, refresh tokens expired or revoked over a day ago, password reset links expired over a day ago, and domain events past 30 days whose deliveries are over',
      intervalMs: 3_600_000,
      // An admin's run deletes only the organization's rows: the keys of its credentials (scope
      // org:<id>:<credential>), the refresh tokens of its users, its events. Keys of anonymous callers (scope
      // ip:<address>) and events of no organization belong to none: the scheduled run's alone.
      run: async ({ organizationId }) => {
        const org = organizationId ?? null
        const keys = await ctx.db.query(
          `DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours' AND ($1::text IS NULL OR starts_with(scope, 'org:' || $1::text || ':'))`,
          [org],
        )
        // Deletes the rows of `table` (alias t) that meet `condition`: the admin's organization's, or on the schedule every one's.
        const sweep = (table: string, condition: string) =>
          org
            ? ctx.db.query(`DELETE FROM ${table} t WHERE t.organization_id = $1 AND ${condition}`, [org])
            : ctx.db.query(`DELETE /* across organizations: the scheduled housekeeping of every organization */ FROM ${table} t WHERE ${condition}`)
        // A refresh token is of its user's organization (refresh_tokens_user_id_fkey), so the admin's run reads its own column.
        const tokens = await sweep('refresh_tokens', `(t.expires_at < now() - interval '1 day' OR t.revoked_at < now() - interval '1 day')`)
        // Reset links expired over a day ago (spent or not).
        const resets = await sweep('password_resets', `t.expires_at < now() - interval '1 day'`)
        // A delivery is of its event's organization (domain_event_deliveries_event_seq_fkey).
        const events = await sweep(
          'domain_events',
          `t.created_at < now() - interval '30 days'
             AND NOT EXISTS (SELECT 1 FROM domain_event_deliveries d WHERE d.organization_id = t.organization_id AND d.event_seq = t.seq AND d.status = 'pending')`,
        )
        return { idempotencyKeys: keys.rowCount, refreshTokens: tokens.rowCount, passwordResets: resets.rowCount, domainEvents: events.rowCount }
      },
    })

    // GET /api: what a person or a client finds at the base address.
    app.get('/', {
      schema: {
        operationId: 'getApiIndex', tags: ['system'], summary: 'The API index',
        description: 'Name, version, environment and links to the documentation, the OpenAPI document and the health check. Public. `environment` is `test` on a server that runs for trying things out (API_ENV=test: the local payment processor takes no money, test API keys) and `live` otherwise; the dashboard shows a banner in test.',
        security: [],
        response: { 200: Type.Object({ name: Type.String(), version: Type.String(), environment: Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'API_ENV: test (no real money moves) or live' }), links: Type.Object({ docs: Type.String(), openapi: Type.String(), health: Type.String(), ready: Type.String() }) }) },
      },
      config: PUBLIC,
    }, async () => ({
      name: 'Business Platform API',
      version: API_VERSION,
      environment: ctx.config.apiEnv,
      links: { docs: '/api/docs', openapi: '/api/openapi.json', health: '/api/health', ready: '/api/ready' },
    }))

    app.get('/health', {
      schema: { operationId: 'getHealth', tags: ['system'], summary: 'Liveness: the process answers', description: 'Public, on the generous per-IP public budget: 200 while the process serves requests, whatever the database.', security: [], response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
      config: PUBLIC,
    }, async () => ({ status: 'ok' as const }))

    app.get('/ready', {
      schema: { operationId: 'getReadiness', tags: ['system'], summary: 'Readiness: the database answers', description: 'Public, on the generous per-IP public budget: 200 when the database answers, 503 otherwise.', security: [], response: { 200: Type.Object({ status: Type.Literal('ready') }), 503: ErrorResponse } },
      config: PUBLIC,
    }, async (req) => {
      try {
        await ctx.db.query('SELECT 1')
        return { status: 'ready' as const }
      } catch (err) {
        req.log.warn({ err }, 'database not ready')
        throw new AppError('SERVICE_UNAVAILABLE', 'Database unavailable')
      }
    })

    app.get('/openapi.json', {
      schema: { operationId: 'getOpenApiDocument', tags: ['system'], summary: 'The OpenAPI 3.1 document of every route', description: 'This document, generated from the route schemas.', security: [], hide: true },
      config: PUBLIC,
    }, async () => app.swagger())
  },
})
