import { createHash } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import swagger from '@fastify/swagger'
import scalar from '@scalar/fastify-api-reference'
import type { FastifyInstance } from 'fastify'
import { addCodeSamples } from './code-samples.ts'
import { DRY_RUN_METHODS } from './dry-run.ts'
import { AppError } from './errors.ts'
import type { DomainEvents, PublicEventType } from './events.ts'
import { ErrorResponse, EVENT_ID_PATTERN } from './schemas.ts'

export const API_PREFIX = '/api'
/** The version of the API contract, in openapi.json and GET /api. */
export const API_VERSION = '1.0.0'

/** The tags of the document, in the order the docs UI shows them. Every operation has one of them. */
export const OPENAPI_TAGS = [
  { name: 'auth', description: 'Sign-up, login, token refresh and logout; who the caller is.' },
  { name: 'users', description: 'Users of the organization and their roles (admins only).' },
  { name: 'api-keys', description: 'API keys: made once, shown once, revoked at once.' },
  { name: 'organization', description: "The organization's profile (legal name, address, tax id, logo, payment instructions), printed as the seller on its documents." },
  { name: 'contacts', description: 'Customers and vendors of the organization.' },
  { name: 'products', description: 'The product catalogue, including licensed connector modules.' },
  { name: 'employees', description: 'Employees, who can be the salespeople of quotations and orders.' },
  { name: 'inventory', description: 'Stock: locations, per-product stock, transfers (receipts, deliveries, internal), adjustments and the ledger of done moves.' },
  { name: 'purchase', description: 'Vendors and their pricelists, RFQs and the purchase orders confirmed from them, receipts into stock, and vendor bills.' },
  { name: 'manufacturing', description: 'Bills of materials (components, operations, cost roll-up); production and work orders to come.' },
  { name: 'projects', description: 'Projects, their tasks, timesheets (24 hours a day per employee) with a summary against the budget, and milestones.' },
  { name: 'sales', description: 'Quotations, the sales orders confirmed from them, and sales reports.' },
  { name: 'orders', description: 'Every order of the organization, from sales and from checkout, and invoicing them.' },
  { name: 'invoices', description: 'Invoices, their payments, PDFs and e-mails, and credit notes.' },
  { name: 'crm', description: 'Lead capture from public web forms, and the captured leads.' },
  { name: 'helpdesk', description: 'Support tickets with SLA deadlines, replies and internal notes, teams, SLA policies, statistics, and the public support form.' },
  { name: 'reports', description: 'Report runs: large exports (CSV) run in the background, kept 30 days.' },
  { name: 'imports', description: 'Imports: contacts, products, employees and stock from a CSV file or JSON rows, checked and written all or nothing in the background (docs/imports.md).' },
  { name: 'licenses', description: 'Licenses of connector modules: administration, the license client endpoints, module builds and downloads.' },
  { name: 'billing', description: "Checkout, subscriptions, payment methods and invoices at the payment processor, its events, and the local processor's pages." },
  { name: 'webhooks', description: "Outgoing webhooks (Standard Webhooks signatures, retries, deliveries log) and the organization's event feed; the event types and their payloads are in `webhooks`." },
  { name: 'accounting', description: 'The general ledger: chart of accounts, journal entries posted by every money and stock movement, manual entries and reversals, the lock date, trial balance, profit and loss, balance sheet and account ledgers (JSON or CSV).' },
  { name: 'analytics', description: 'Receivables and payables aging, stock valuation, sales breakdowns and the business overview, computed at read time (JSON or CSV).' },
  { name: 'system', description: 'Health and readiness, scheduled jobs and the e-mail outbox.' },
]

/** Response headers of every rate-limited operation (docs/platform.md "Rate limits"), declared once. */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current one-minute window', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) at which the window resets', schema: { type: 'integer', minimum: 0 } },
}
const RETRY_AFTER = { description: 'Seconds to wait before the next request is accepted', schema: { type: 'integer', minimum: 0 } }

/** The request header of a dry run and the answer's header (docs/platform.md "Dry runs"), on every POST, PATCH and DELETE. */
const PREFER = {
  name: 'Prefer', in: 'header', required: false, schema: { type: 'string', maxLength: 1000 },
  description: 'RFC 7240 preferences. `dry-run`: the request is checked and carried out in full, then rolled back; the answer is the one it would have had, and nothing is kept (no record, event, e-mail, webhook, stock move, journal entry, idempotency record or sequence number).',
}
const PREFERENCE_APPLIED_HEADER = { description: '`dry-run` when the request was a dry run: nothing of it was kept', schema: { type: 'string', enum: ['dry-run'] } }
const DRY_RUN_REFUSED = 'Prefer: dry-run is refused with 400 DRY_RUN_UNSUPPORTED'

/** What each error status means on this API, as the description of its response. */
const ERROR_MEANINGS: Record<string, string> = {
  400: 'Bad Request: a query string or path parameter breaks its schema, or the JSON body is malformed.',
  401: 'Unauthorized: the credential is missing, malformed, unknown, expired or revoked.',
  403: 'Forbidden: the role of the credential may not do this, or an API key of the other environment was used.',
  404: "Not Found: no such record in the caller's organization.",
  409: 'Conflict: the record is in a state that forbids the action, or a unique value is taken.',
  413: 'Payload Too Large.',
  415: 'Unsupported Media Type: the body is not of the content type the operation takes.',
  422: 'Unprocessable Entity: the body breaks its schema or a business rule; message lists every problem.',
  429: 'Too Many Requests: the rate limit of the credential (or of the IP for public operations) is spent until Retry-After seconds have passed.',
  503: 'Service Unavailable.',
}

type Json = Record<string, any>

/** Fastify's `:id` and `*` path syntax in OpenAPI's `{id}` syntax. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{wildcard}')
}

/**
 * OpenAPI 3.1 generated from the route schemas, with the full paths of the
 * routes (/api/contacts, ...). Conventions (docs/platform.md, "OpenAPI"):
 * every operation has a camelCase operationId, a tag of OPENAPI_TAGS and a
 * description; reusable shapes are named components (core/schemas.ts `Named`);
 * error statuses that can happen are declared even where the route's own
 * schema leaves them implicit (a body can always be refused with 422, a path
 * id can always be unknown, 404); rate-limited operations declare the
 * X-RateLimit-* headers and 429 with Retry-After.
 */
export async function installOpenApi(app: FastifyInstance) {
  const rateLimited = new Set<string>()
  const optionalBodies = new Set<string>()
  /** Operations that take Prefer: dry-run, and those that refuse it. */
  const dryRuns = { taken: new Set<string>(), refused: new Set<string>() }
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Business Platform API',
        version: API_VERSION,
        description:
          'JSON REST API over an ERP platform. Every path is under /api. ' +
          'Authenticate with `Authorization: Bearer <API key or access token>`. Lists use the envelope ' +
          '{data, meta: {total, page, limit, totalPages, nextCursor}}; send nextCursor back as cursor for the next rows. Errors use {statusCode, message, error, code}, code being one of the closed set of ErrorResponse. ' +
          'Requests are rate limited per credential (per IP for public operations): see the X-RateLimit-* response headers. ' +
          'Every operation has request samples in curl and with the TypeScript SDK (packages/sdk); they read the base address from BP_URL ' +
          '(e.g. http://localhost:3000) and the API key from BP_API_KEY.',
      },
      servers: [{ url: '/', description: 'This server' }],
      tags: OPENAPI_TAGS,
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API key (bp_live_..., bp_test_...) or JWT access token' },
        },
      },
      security: [{ bearer: [] }],
    },
    // Shared schemas (ErrorResponse and those of Named) keep their $id as their component name.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const config = route.config ?? {}
      const access = config.access
      // A route whose limit is false is exempt from rate limiting (no 429, no X-RateLimit-* headers).
      const limited = (config.limit as unknown) !== false
      const out = { ...(schema as object) } as Json
      if (access?.public) out.security = []
      if (access?.roles) out.description = [out.description, `Roles: ${access.roles.join(', ')}.`].filter(Boolean).join(' ')
      if (out.response) {
        const response = { ...out.response }
        if (out.body && !response[422]) response[422] = ErrorResponse
        if (out.params && !response[404]) response[404] = ErrorResponse
        // Any request of a method that carries a body can send one too large (BODY_LIMIT) or of a type no parser reads.
        if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(route.method))) {
          response[413] ??= ErrorResponse
          response[415] ??= ErrorResponse
        }
        if (!limited) delete response[429]
        else if (!response[429]) response[429] = ErrorResponse
        out.response = response
      }
      // Prefer: dry-run (core/dry-run.ts): refused by routes with dryRun false, and for uploads.
      if ((DRY_RUN_METHODS as readonly string[]).includes(String(route.method)) && out.operationId) {
        // Content types of the body: `consumes`, or the keys of a body given per content type (body.content).
        const types: string[] = [...(Array.isArray(out.consumes) ? out.consumes : []), ...Object.keys(out.body?.content ?? {})]
        const multipart = types.some((c) => c.startsWith('multipart/'))
        if (config.dryRun === false) {
          dryRuns.refused.add(out.operationId)
          out.description = [out.description, `${DRY_RUN_REFUSED}: this operation calls an outside service or answers a credential.`].filter(Boolean).join(' ')
        } else {
          dryRuns.taken.add(out.operationId)
          if (multipart) out.description = [out.description, `${DRY_RUN_REFUSED} for a multipart upload.`].filter(Boolean).join(' ')
        }
        if ((config.dryRun === false || multipart) && out.response) out.response = { ...out.response, 400: out.response[400] ?? ErrorResponse }
      }
      if (limited && out.operationId) rateLimited.add(out.operationId)
      if (config.optionalBody && out.operationId) optionalBodies.add(out.operationId)
      return { schema: out as typeof schema, url: openApiPath(url) }
    },
    transformObject: (document) => {
      const doc = finishDocument((document as { openapiObject: Json }).openapiObject, rateLimited, optionalBodies, dryRuns)
      addCodeSamples(doc)
      // The event types modules declared (core/events.ts), read when the document is made: after every module registered.
      const events = (app as { ctx?: { events?: DomainEvents } }).ctx?.events
      if (events) doc.webhooks = webhooksSection(events.publicTypes(true))
      return doc
    },
  })
  await installApiReference(app)
}

/**
 * The API reference for people at /api/docs: Scalar's page over
 * /api/openapi.json, served entirely by this process (the plugin serves the
 * renderer's bundle at /api/docs/js/scalar.js). Nothing is fetched from
 * elsewhere: no font CDN, no request proxy, no telemetry, no AI agent.
 */
async function installApiReference(app: FastifyInstance) {
  // Encapsulated: the hooks below apply to the docs routes only.
  await app.register(async (docs) => {
    // The plugin parses `<protocol>://<Host header>` (new URL) to read the path: a Host that is no host
    // ('a b', '[') would throw there, a 500. It is the client's error.
    docs.addHook('onRequest', async (request) => {
      if (!URL.canParse(`${request.protocol}://${request.hostname}`)) throw new AppError('INVALID_PARAMETER', 'The Host header is not a host name')
    })
    // The renderer's bundle (4 MB) is revalidated rather than sent again: ETag, and 304 when it matches.
    let bundle: { payload: string; etag: string } | undefined
    docs.addHook('onSend', async (request, reply, payload) => {
      if (typeof payload !== 'string' || reply.statusCode !== 200) return payload
      const type = String(reply.getHeader('content-type'))
      if (type.startsWith('text/html')) {
        // The plugin's page names no language (axe: html-has-lang); the reference is in English.
        const html = payload.replace(/<html(?![^>]*\slang=)/i, '<html lang="en"')
        const csp = reply.getHeader('content-security-policy')
        if (typeof csp === 'string') reply.header('content-security-policy', docsContentSecurityPolicy(csp, html))
        return html
      } else if (type.startsWith('application/javascript')) {
        if (bundle?.payload !== payload) bundle = { payload, etag: `"${createHash('sha256').update(payload).digest('base64url')}"` }
        reply.header('etag', bundle.etag).header('cache-control', 'no-cache')
        if (request.headers['if-none-match'] === bundle.etag) {
          reply.code(304)
          return null
        }
      }
      return payload
    })
    await docs.register(scalar, {
      routePrefix: `${API_PREFIX}/docs`,
      logLevel: 'warn',
      configuration: {
        url: `${API_PREFIX}/openapi.json`,
        pageTitle: 'Business Platform API reference',
        withDefaultFonts: false,
        telemetry: false,
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
        documentDownloadType: 'json',
        // Only the samples of the document (x-codeSamples: curl and the SDK, core/code-samples.ts): Scalar's
        // own send every optional field empty or null, which the API refuses.
        hiddenClients: true,
        // A favicon of our own, so that the browser does not ask for /favicon.ico (404).
        favicon: 'data:,',
        authentication: { preferredSecurityScheme: 'bearer' },
        persistAuth: false,
        defaultOpenAllTags: false,
        // Colours of the default theme that fail axe's contrast (4.5:1) on its own backgrounds: muted text,
        // the method badges and required marks, in light and dark (docs/decisions/0008-api-reference.md "Accessibility").
        customCss: API_REFERENCE_CSS,
      },
    })
  })
}

/** Scalar's theme colours darkened (light) or lightened (dark) to 4.5:1 on the page's backgrounds; the names are the theme's variables. */
export const API_REFERENCE_CSS = `
.light-mode {
  --scalar-color-2: #595959 !important;
  --scalar-color-3: #666666 !important;
  --scalar-color-green: #00744a !important;
  --scalar-color-blue: #0067a8 !important;
  --scalar-color-orange: #b03c00 !important;
  --scalar-color-red: #c0262d !important;
  --scalar-color-yellow: #855d00 !important;
  --scalar-color-purple: #7339b0 !important;
}
.dark-mode {
  --scalar-color-2: #b8b8b8 !important;
  --scalar-color-3: #a0a0a0 !important;
}
`

/**
 * The CSP of the docs page: the app's policy, with the page's own inline
 * scripts allowed by hash (CSP level 2), and fonts from this origin only.
 * Scalar's page starts the renderer with one inline script holding the
 * configuration; the hash admits exactly that script, so script-src stays
 * without 'unsafe-inline' and 'unsafe-eval'. The renderer needs nothing else:
 * its bundle is served from 'self', and it injects its styles (style-src
 * already has 'unsafe-inline').
 */
export function docsContentSecurityPolicy(csp: string, html: string): string {
  const hashes = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)]
    .map((m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`)
  const directives = new Map(csp.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0], d] as const))
  const scriptSrc = directives.get('script-src') ?? "script-src 'self'"
  if (hashes.length) directives.set('script-src', [scriptSrc, ...hashes].join(' '))
  directives.set('font-src', "font-src 'self' data:")
  return [...directives.values()].join(';')
}

const ERROR_SCHEMA_REF = '#/components/schemas/ErrorResponse'
const headerRefs = (names: string[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))
/** 'Too Many Requests' -> 'TooManyRequests': the name of a status's shared response. */
const responseName = (status: string) => (STATUS_CODES[Number(status)] ?? `Status${status}`).replace(/[^A-Za-z]/g, '')

/**
 * The last pass over the generated document: response headers and shared
 * error responses (components.responses, which rate-limited operations refer
 * to), readable response descriptions, query parameters with a default marked
 * optional (the server fills them in; @fastify/swagger marks them required,
 * as TypeBox lists a property with a default as required), the bodies of
 * routes with `optionalBody` (core/optional-body.ts) marked optional
 * (@fastify/swagger marks every body required), components sorted by name.
 */
function finishDocument(doc: Json, rateLimited: Set<string>, optionalBodies: Set<string>, dryRuns: { taken: Set<string>; refused: Set<string> }): Json {
  const limitHeaders = Object.keys(RATE_LIMIT_HEADERS)
  doc.components.headers = { ...RATE_LIMIT_HEADERS, 'Retry-After': RETRY_AFTER, 'Preference-Applied': PREFERENCE_APPLIED_HEADER }
  const shared: Json = {}
  for (const operations of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(operations)) {
      const dryRun = dryRuns.taken.has(op.operationId)
      if (dryRun || dryRuns.refused.has(op.operationId)) op.parameters = [...(op.parameters ?? []), PREFER]
      for (const param of op.parameters ?? []) {
        if (param.in === 'query' && param.schema?.default !== undefined) param.required = false
      }
      if (op.requestBody && optionalBodies.has(op.operationId)) {
        op.requestBody = { description: 'Optional: no body, or an empty one, is the same as {}. JSON null is not an object (422).', ...op.requestBody, required: false }
      }
      const limited = rateLimited.has(op.operationId)
      for (const [status, res] of Object.entries<Json>(op.responses ?? {})) {
        // Errors are JSON, also on operations that produce HTML or a file.
        const isError = Object.values<Json>(res.content ?? {}).some((media) => media.schema?.$ref === ERROR_SCHEMA_REF)
        if (isError) {
          res.description = ERROR_MEANINGS[status] ?? STATUS_CODES[Number(status)] ?? 'Error'
          res.content = { 'application/json': { schema: { $ref: ERROR_SCHEMA_REF } } }
        }
        else if (res.description === 'Default Response') res.description = STATUS_CODES[Number(status)] ?? 'Response'
        // A dry run's answer, success or error, says so (shared error responses stay those of every operation).
        if (dryRun) res.headers = { ...res.headers, ...headerRefs(['Preference-Applied']) }
        if (!limited) continue
        if (isError && ERROR_MEANINGS[status]) {
          const name = responseName(status)
          shared[name] ??= { ...res, headers: headerRefs(status === '429' ? [...limitHeaders, 'Retry-After'] : limitHeaders) }
          op.responses[status] = { $ref: `#/components/responses/${name}` }
        } else {
          res.headers = { ...res.headers, ...headerRefs(limitHeaders) }
        }
      }
    }
  }
  doc.components.responses = sortByKey(shared)
  doc.components.schemas = sortByKey(doc.components.schemas ?? {})
  return doc
}

const sortByKey = (o: Json): Json => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)))

/** 'invoice.paid' -> 'invoicePaidWebhook'. */
const webhookOperationId = (type: string) => `${type.split(/[._]/).map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w)).join('')}Webhook`

/** A Named schema's `$ref: 'Contact#'` as a document reference. */
const componentRef = (schema: Json): Json => (typeof schema.$ref === 'string' ? { $ref: `#/components/schemas/${schema.$ref.replace(/#$/, '')}` } : schema)

const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: 'The event id (evt_...), the same on every attempt: deduplicate on it', schema: { type: 'string' } },
  { name: 'webhook-timestamp', description: 'Unix time (seconds) of this attempt; refuse one far from your clock (replays)', schema: { type: 'string', pattern: '^\\d+$' } },
  { name: 'webhook-signature', description: 'v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">, space-separated when two secrets sign (24 hours after a rotation)', schema: { type: 'string' } },
].map((h) => ({ ...h, in: 'header', required: true }))

/**
 * OpenAPI 3.1 `webhooks`: one POST per declared event type (docs/webhooks.md),
 * its body the event object with data.object of the type's resource schema.
 */
const adminOnlyNote = (t: PublicEventType) =>
  t.adminOnly?.length
    ? ` In GET /events, ${t.adminOnly.map((f) => `data.object.${f}`).join(', ')} ${t.adminOnly.length > 1 ? 'are' : 'is'} null for readers other than admins; webhooks carry ${t.adminOnly.length > 1 ? 'them' : 'it'}.`
    : ''

export function webhooksSection(types: PublicEventType[]): Json {
  return Object.fromEntries(types.map((t) => [t.type, {
    post: {
      operationId: webhookOperationId(t.type),
      tags: ['webhooks'],
      summary: t.type,
      description: `${t.description} Payload version ${t.version}. Signed per Standard Webhooks (docs/webhooks.md).${adminOnlyNote(t)}`,
      security: [],
      parameters: WEBHOOK_HEADERS,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['id', 'type', 'createdAt', 'data'],
              properties: {
                id: { type: 'string', pattern: EVENT_ID_PATTERN },
                type: { type: 'string', const: t.type },
                createdAt: { type: 'string', format: 'date-time' },
                data: { type: 'object', required: ['object'], properties: { object: componentRef(t.object as Json) } },
              },
            },
          },
        },
      },
      responses: {
        '200': { description: 'Any 2xx answer within 15 seconds acknowledges the event.' },
        '4XX': { description: 'Any other answer, or none within 15 seconds, is retried after each delay of WEBHOOK_RETRY_DELAYS.' },
      },
    },
  }]))
}
