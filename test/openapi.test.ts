import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { generateOpenApi } from '../scripts/openapi.ts'
import { API_PREFIX, OPENAPI_TAGS, openApiPath } from '../src/core/openapi.ts'
import { buildTestApp, call, createOrg, type TestApp } from './helpers/app.ts'
import { startCheckout } from './helpers/billing.ts'
import { EMPTY_ZIP, adminUserId, createLicensedProduct, issueLicense, multipartForm } from './helpers/licenses.ts'
import { sampleLogo } from './helpers/pdf.ts'
import { createInvoice, createQuotation } from './helpers/sales-fixtures.ts'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
let generated: string
let doc: any
let t: TestApp

before(async () => {
  generated = await generateOpenApi()
  doc = JSON.parse(generated)
  t = await buildTestApp()
})
after(async () => await t.close())

function operations(): Array<{ path: string; method: string; op: any }> {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([method]) => METHODS.includes(method)).map(([method, op]) => ({ path, method, op })),
  )
}

/** A response object, through its $ref to components.responses when it has one. */
function resolve(response: any) {
  const ref = response?.$ref as string | undefined
  return ref ? doc.components.responses[ref.split('/').pop()!] : response
}

test('the committed openapi.json matches the code (run `npm run openapi` after changing routes)', () => {
  const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')
  assert.equal(committed, generated)
})

test('every documented operation declares its responses, and the document is OpenAPI 3.1', () => {
  assert.equal(doc.openapi, '3.1.0')
  for (const { path, method, op } of operations()) {
    assert.ok(op.responses && Object.keys(op.responses).length > 0, `${method} ${path} has no responses`)
  }
})

test('every operation has a unique camelCase operationId, a tag of the global list and a description', () => {
  const tags = new Set(doc.tags.map((tag: { name: string }) => tag.name))
  assert.deepEqual([...tags], OPENAPI_TAGS.map((tag) => tag.name))
  for (const tag of doc.tags) assert.ok(tag.description, `tag ${tag.name} has no description`)
  const seen = new Map<string, string>()
  for (const { path, method, op } of operations()) {
    const where = `${method.toUpperCase()} ${path}`
    assert.match(op.operationId ?? '', /^[a-z][a-zA-Z0-9]*$/, `${where}: operationId "${op.operationId}" is not camelCase`)
    assert.ok(!seen.has(op.operationId), `${where}: operationId ${op.operationId} is also ${seen.get(op.operationId)}`)
    seen.set(op.operationId, where)
    assert.ok(op.tags?.length && op.tags.every((tag: string) => tags.has(tag)), `${where}: tags ${op.tags} not in the global list`)
    assert.ok(typeof op.description === 'string' && op.description.length > 10, `${where} has no description`)
    assert.ok(op.summary, `${where} has no summary`)
  }
  for (const id of ['listInvoices', 'getInvoice', 'createInvoice', 'payInvoice', 'listApiKeys', 'listContacts']) assert.ok(seen.has(id), id)
})

test('every route is documented under its own full path and method, except the docs UI, the document itself and the dashboard\'s files', () => {
  const undocumented = t.app.routeList
    .filter((r) => !r.url.startsWith(`${API_PREFIX}/docs`) && r.url !== `${API_PREFIX}/openapi.json` && !r.config.dashboard)
    .filter((r) => !doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase()])
    .map((r) => `${r.method} ${r.url}`)
  assert.deepEqual(undocumented, [])
  const routes = new Set(t.app.routeList.map((r) => `${r.method.toLowerCase()} ${openApiPath(r.url)}`))
  for (const { path, method } of operations()) assert.ok(routes.has(`${method} ${path}`), `${method} ${path} is documented but no route`)
  assert.ok(doc.paths['/api/api-keys'] && doc.paths['/api/contacts/{id}'])
  assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), ['/'])
})

test('shapes are named components, referenced with $ref', () => {
  const names = ['Contact', 'ContactList', 'Invoice', 'InvoiceList', 'Quotation', 'Order', 'License', 'Product', 'Employee', 'User', 'ApiKey', 'CreditNote', 'Payment', 'Location', 'Lead', 'PageMeta', 'ErrorResponse']
  for (const name of names) assert.ok(doc.components.schemas[name], `components.schemas.${name}`)
  const ok = (path: string, method: string, status: string) => doc.paths[path][method].responses[status].content['application/json'].schema
  assert.deepEqual(ok('/api/contacts', 'get', '200'), { $ref: '#/components/schemas/ContactList' })
  assert.deepEqual(ok('/api/invoices/{id}', 'get', '200'), { $ref: '#/components/schemas/Invoice' })
  assert.deepEqual(doc.components.schemas.ContactList.properties.data.items, { $ref: '#/components/schemas/Contact' })
  // organizationId is declared once per resource shape, never inline in an operation.
  const inline = JSON.stringify(doc.paths).match(/"organizationId"/g) ?? []
  assert.equal(inline.length, 0)
  // Every reference resolves.
  for (const ref of new Set(generated.match(/"#\/components\/[^"]+"/g) ?? [])) {
    const [, , kind, name] = JSON.parse(ref).split('/')
    assert.ok(doc.components[kind]?.[name], `${ref} does not resolve`)
  }
})

test('error statuses that can happen are declared, and rate-limited operations declare their headers', () => {
  const publicRoutes = new Set(t.app.routeList.filter((r) => r.config.access?.public).map((r) => `${r.method.toLowerCase()} ${openApiPath(r.url)}`))
  const unlimited = new Set(t.app.routeList.filter((r) => (r.config.limit as unknown) === false).map((r) => `${r.method.toLowerCase()} ${openApiPath(r.url)}`))
  for (const { path, method, op } of operations()) {
    const where = `${method.toUpperCase()} ${path}`
    const key = `${method} ${path}`
    const has = (status: number) => op.responses[status] !== undefined
    if (!publicRoutes.has(key)) assert.ok(has(401) && has(403), `${where} declares no 401 and 403`)
    if (op.requestBody) assert.ok(has(422), `${where} takes a body but declares no 422`)
    if (op.parameters?.some((p: { in: string }) => p.in === 'path')) assert.ok(has(404), `${where} has a path id but declares no 404`)
    if (unlimited.has(key)) {
      assert.ok(!has(429), `${where} is not rate limited but declares 429`)
      continue
    }
    assert.ok(has(429), `${where} declares no 429`)
    assert.deepEqual(resolve(op.responses[429]).headers['Retry-After'], { $ref: '#/components/headers/Retry-After' })
    for (const [status, response] of Object.entries(op.responses)) {
      for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
        assert.deepEqual(resolve(response).headers?.[header], { $ref: `#/components/headers/${header}` }, `${where} ${status}: ${header}`)
      }
    }
  }
  for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) assert.ok(doc.components.headers[header], header)
})

test('the rate-limit headers the document declares are sent, on successes and errors alike', async () => {
  const limited = await buildTestApp({ RATE_LIMIT: 'on' })
  try {
    for (const url of [`${API_PREFIX}/contacts`, `${API_PREFIX}/contacts/00000000-0000-4000-8000-000000000000`]) {
      const res = await limited.app.inject({ method: 'GET', url })
      for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.ok(res.headers[header] !== undefined, `${url} ${res.statusCode}: ${header}`)
    }
  } finally {
    await limited.close()
  }
})

test('no query parameter with a default is required: the server fills it in', () => {
  const required: string[] = []
  for (const { path, method, op } of operations()) {
    for (const param of op.parameters ?? []) {
      const hasDefault = param.schema?.default !== undefined || param.default !== undefined
      if (param.in === 'query' && hasDefault && param.required !== false) required.push(`${method.toUpperCase()} ${path} ?${param.name}`)
    }
  }
  assert.deepEqual(required, [])
  // page, limit and sortOrder are there, optional.
  const params = Object.fromEntries(doc.paths['/api/contacts'].get.parameters.map((p: any) => [p.name, p]))
  for (const name of ['page', 'limit', 'sortOrder']) assert.equal(params[name].required, false, name)
})

test('an optional body is declared optional, every other body required', () => {
  const optional = ['sendInvoice', 'sendQuotation', 'invoiceOrder', 'createCreditNote', 'validateTransfer', 'sendRfq', 'finishWorkOrder', 'closeTicket']
  for (const { path, method, op } of operations()) {
    if (!op.requestBody) continue
    assert.equal(op.requestBody.required, !optional.includes(op.operationId), `${method.toUpperCase()} ${path} requestBody.required`)
  }
})

/** The media types an operation declares for a status ([] for no content), or undefined when it does not declare the status. */
function declaredMediaTypes(op: any, status: number): string[] | undefined {
  const response = op.responses[String(status)]
  return response && Object.keys(resolve(response).content ?? {})
}

/** The answer's status is declared by its operation, with the content type the answer has. */
function expectAsDeclared(where: string, op: any, res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  const declared = declaredMediaTypes(op, res.statusCode)
  assert.ok(declared, `${where} answered ${res.statusCode} (${res.body.slice(0, 200)}), which it does not declare (${Object.keys(op.responses)})`)
  const header = res.headers['content-type']
  const sent = header === undefined ? undefined : String(header).split(';')[0].trim()
  if (sent === undefined) assert.deepEqual(declared, [], `${where} ${res.statusCode} sent no content, declares ${declared}`)
  else assert.ok(declared.includes(sent), `${where} ${res.statusCode} sent ${sent}, declares ${declared.join(', ') || 'no content'}`)
}

/** A value of a path parameter's schema, for ids that exist nowhere (so 404, or 400 where no such value can exist). */
function sampleParam(schema: any): string {
  if (schema?.format === 'uuid') return '00000000-0000-4000-8000-000000000000'
  const prefix = /^\^([a-z_]+_)\[0-9a-f\]\{(\d+)\}\$$/.exec(schema?.pattern ?? '')
  if (prefix) return prefix[1] + '0'.repeat(Number(prefix[2]))
  return 'nope'
}

const urlOf = (path: string, op: any, values: Record<string, string> = {}) =>
  path.replace(/\{([^}]+)\}/g, (_, name) => values[name] ?? sampleParam(op.parameters.find((p: any) => p.in === 'path' && p.name === name)?.schema))

test('every response has the content type its operation declares for its status: errors are JSON on every operation, successes as declared', async () => {
  const org = await createOrg(t.app)
  // Without a credential, every operation answers an error (401, or what a public operation says to an empty body or an unknown id).
  for (const { path, method, op } of operations()) {
    const url = urlOf(path, op)
    const body = op.requestBody?.content?.['application/json'] ? { payload: {} } : {}
    const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url, ...body })
    expectAsDeclared(`${method.toUpperCase()} ${url} (no credential)`, op, res)
  }
  // With an admin's credential, every read: lists (200, JSON), unknown ids (404, JSON also where the success is a file or a page).
  for (const { path, op } of operations().filter((o) => o.method === 'get')) {
    const url = urlOf(path, op)
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${org.token}` } })
    expectAsDeclared(`GET ${url} (admin)`, op, res)
  }
  // The successes that are not JSON: PDFs, the logo, a build's ZIP, the local processor's pages.
  const op = (path: string, method = 'get') => doc.paths[path][method]
  const admin = { authorization: `Bearer ${org.token}` }
  const success = async (path: string, values: Record<string, string>, status = 200, query = '') => {
    const url = urlOf(path, op(path), values) + query
    const res = await t.app.inject({ method: 'GET', url, headers: admin })
    assert.equal(res.statusCode, status, `${url}: ${res.body.slice(0, 200)}`)
    expectAsDeclared(`GET ${url}`, op(path), res)
  }
  await success('/api/invoices/{id}/pdf', { id: (await createInvoice(org)).id })
  await success('/api/sales/quotations/{id}/pdf', { id: (await createQuotation(org)).id })
  assert.equal((await org.patch('/organization', { logo: sampleLogo().toString('base64') })).status, 200)
  await success('/api/organization/logo', {})
  const product = await createLicensedProduct(org, { price: 900 })
  const form = multipartForm({ version: '19.0.1.0.0' }, { name: 'file', filename: 'module.zip', content: EMPTY_ZIP })
  const build = await org.post(`/products/${product.id}/builds`, form.body, org.token, { 'content-type': form.contentType })
  assert.equal(build.status, 201, JSON.stringify(build.body))
  await issueLicense(org, { productId: product.id, userId: await adminUserId(org) })
  await success('/api/portal/downloads/{id}/file', { id: build.body.id })
  const checkout = await startCheckout(t.app, org.token, [{ productId: product.id, quantity: 1 }])
  // The checkout page needs the token of its url.
  await success('/api/billing/local/checkout/{id}', { id: checkout.sessionId }, 200, new URL(checkout.url).search)
  const portal = await call(t.app, 'POST', '/billing/portal-session', { token: org.token, body: { returnUrl: 'https://shop.example.com/account' } })
  assert.equal(portal.status, 200, JSON.stringify(portal.body))
  await success('/api/billing/local/portal/{id}', { id: new URL(portal.body.url).pathname.split('/').pop()! })
})

/** The parts of an operation's curl sample: method, URL, headers and JSON body. */
function parseCurl(source: string) {
  const first = /^curl(?: -X ([A-Z]+))? "\$BP_URL([^"]+)"/.exec(source)
  assert.ok(first, `not a curl command: ${source.split('\n')[0]}`)
  const headers = Object.fromEntries([...source.matchAll(/-H "([^:"]+): ([^"]*)"/g)].map((m) => [m[1].toLowerCase(), m[2]]))
  const data = /-d '([\s\S]*)'$/m.exec(source)?.[1]
  const form = [...source.matchAll(/-F "([^=]+)=([^"]*)"/g)].map((m) => m[1])
  return { method: first[1] ?? 'GET', url: new URL(first[2], 'http://localhost'), headers, body: data === undefined ? undefined : JSON.parse(data.replace(/'\\''/g, "'")), form }
}

test('every operation has a curl and an SDK sample (x-codeSamples), true to the operation and valid against its schemas', () => {
  const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }))
  ajv.addSchema({ $id: 'openapi.json', components: doc.components })
  const validate = (schema: any, value: unknown, what: string) => {
    const check = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')))
    assert.ok(check(value), `${what}: ${JSON.stringify(value)} breaks its schema: ${ajv.errorsText(check.errors)}`)
  }
  const ops = operations()
  assert.ok(ops.length > 90)
  for (const { path, method, op } of ops) {
    const where = `${method.toUpperCase()} ${path}`
    const samples = op['x-codeSamples']
    assert.deepEqual(samples?.map((s: any) => [s.lang, s.label]), [['Shell', 'curl'], ['TypeScript', 'TypeScript SDK']], `${where} samples`)
    const [curl, sdk] = samples.map((s: any) => s.source as string)

    // curl: the operation's method and path, its path and required query parameters, credential, key and body.
    const c = parseCurl(curl)
    assert.equal(c.method, method.toUpperCase(), `${where}: curl method`)
    const template = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, '(?<$1>[^/]+)')}$`)
    const match = template.exec(c.url.pathname)
    assert.ok(match, `${where}: curl URL ${c.url.pathname}`)
    const params: any[] = op.parameters ?? []
    for (const p of params.filter((p) => p.in === 'path')) validate(p.schema, decodeURIComponent(match.groups![p.name]), `${where} path ${p.name}`)
    for (const p of params.filter((p) => p.in === 'query' && p.required)) {
      assert.ok(c.url.searchParams.has(p.name), `${where}: curl lacks the required ?${p.name}`)
      validate(p.schema, c.url.searchParams.get(p.name), `${where} ?${p.name}`)
    }
    const secured = (op.security ?? doc.security).some((s: object) => Object.keys(s).length > 0)
    assert.equal(c.headers.authorization, secured ? 'Bearer $BP_API_KEY' : undefined, `${where}: curl credential`)
    assert.equal('idempotency-key' in c.headers, method === 'post', `${where}: Idempotency-Key on POST only`)
    const json = op.requestBody?.content?.['application/json']?.schema
    if (json) {
      assert.equal(c.headers['content-type'], 'application/json', where)
      validate(json, c.body, `${where} curl body`)
    } else if (op.requestBody) {
      const multipart = op.requestBody.content['multipart/form-data'].schema
      assert.deepEqual(c.form.sort(), [...multipart.required].sort(), `${where}: curl form fields`)
    } else assert.equal(c.body, undefined, `${where}: curl sends a body the operation does not take`)

    // SDK: createSdk, then the call of this very operation (api.list for an enveloped list, api.raw for files and pages).
    assert.match(sdk, /^import \{ (ApiError, )?createSdk \} from '@business-platform\/sdk'/, `${where}: SDK import`)
    assert.match(sdk, secured ? /createSdk\(\{ baseUrl: [^}]*, apiKey: process\.env\.BP_API_KEY \}\)/ : /createSdk\(\{ baseUrl: [^}]* \}\)/, `${where}: SDK credential`)
    const calls = [...sdk.matchAll(/api\.(get|post|put|patch|delete|list|raw\.[A-Z]+)\('([^']+)'/g)]
    assert.equal(calls.length, 1, `${where}: one call in the SDK sample`)
    const [, fn, sdkPath] = calls[0]
    assert.ok(doc.paths[sdkPath], `${where}: the SDK sample's path ${sdkPath} is not in the document`)
    assert.equal(sdkPath, path, `${where}: SDK path`)
    assert.equal(fn === 'list' ? 'get' : fn.replace('raw.', '').toLowerCase(), method, `${where}: SDK method`)
    if (fn === 'list') assert.ok(resolveSchema(op.responses['200'].content['application/json'].schema).properties.meta, `${where}: api.list on a list envelope only`)
  }
  // The shapes, on a few known operations.
  const sample = (path: string, method: string, i: number) => doc.paths[path][method]['x-codeSamples'][i].source as string
  assert.match(sample('/api/contacts', 'get', 1), /for await \(const contact of api\.list\('\/api\/contacts'\)\)/)
  assert.match(sample('/api/contacts', 'post', 0), /-d '\{\n {4}"name": "Acme Ltd"\n {2}\}'/)
  assert.match(sample('/api/invoices/{id}/pay', 'post', 1), /api\.post\('\/api\/invoices\/\{id\}\/pay', \{\n {2}params: \{ path: \{ id: '[0-9a-f-]{36}' \} \},\n {2}body: \{ amount: 25000 \},\n\}\)/)
  assert.match(sample('/api/invoices/{id}/pdf', 'get', 1), /api\.raw\.GET\('\/api\/invoices\/\{id\}\/pdf'[\s\S]*parseAs: 'blob'/)
  assert.match(sample('/api/auth/login', 'post', 0), /^curl -X POST "\$BP_URL\/api\/auth\/login" \\\n {2}-H "Idempotency-Key/)
})

/** A schema through its $ref to components.schemas. */
function resolveSchema(schema: any): any {
  return schema?.$ref ? resolveSchema(doc.components.schemas[schema.$ref.split('/').pop()]) : schema
}
