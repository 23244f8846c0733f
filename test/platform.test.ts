import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'
import { createInvoice, createOrder, createQuotation } from './helpers/sales-fixtures.ts'

// Conventions every route shares: error bodies, request ids, headers, health, docs.

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp({ BODY_LIMIT: '2048', CORS_ORIGIN: 'https://app.example.com' })
  org = await createOrg(t.app)
})
after(() => t.close())

test('unknown route: 404 with the error body, with or without a credential', async () => {
  expectStatus(await call(t.app, 'GET', '/nope'), 404, 'Route GET /api/nope not found')
  expectStatus(await org.get('/nope/deeper'), 404)
})

test('malformed JSON: 400', async () => {
  const res = await t.app.inject({ method: 'POST', url: '/api/contacts', headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json' }, payload: '{"name": ' })
  assert.equal(res.statusCode, 400)
  assert.deepEqual(res.json(), { statusCode: 400, message: 'Malformed JSON in request body', error: 'Bad Request', code: 'MALFORMED_REQUEST' })
})

test('schema failure: 422 with one message per failed rule', async () => {
  const res = await org.post('/contacts', { email: 'not-an-email', phone: 5, extra: true })
  expectStatus(res, 422)
  assert.ok(Array.isArray(res.body.message))
  assert.deepEqual(res.body.message.sort(), ['email must match format "email"', 'extra is not allowed', 'name is required', 'phone must be string or null'].sort())
  assert.equal(res.body.error, 'Unprocessable Entity')
})

test('wrong type is not coerced in bodies; query strings are', async () => {
  expectStatus(await org.post('/contacts', { name: 123 }), 422, 'name must be string')
  expectStatus(await org.get('/contacts?page=2&limit=5'), 200)
  expectStatus(await org.get('/contacts?page=abc'), 400, 'page must be integer')
})

test('payload too large: 413', async () => {
  const res = await org.post('/contacts', { name: 'x'.repeat(4000) })
  expectStatus(res, 413)
})

test('unsupported media type: 415', async () => {
  const res = await t.app.inject({ method: 'POST', url: '/api/contacts', headers: { authorization: `Bearer ${org.token}`, 'content-type': 'text/plain' }, payload: 'hello' })
  assert.equal(res.statusCode, 415)
  assert.equal(res.json().error, 'Unsupported Media Type')
})

test('X-Request-Id: generated, or the caller’s echoed', async () => {
  const generated = await call(t.app, 'GET', '/health')
  assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/)
  const echoed = await call(t.app, 'GET', '/health', { headers: { 'x-request-id': 'trace-123' } })
  assert.equal(echoed.headers['x-request-id'], 'trace-123')
  const onError = await call(t.app, 'GET', '/nope', { headers: { 'x-request-id': 'trace-404' } })
  assert.equal(onError.headers['x-request-id'], 'trace-404')
})

test('security headers and CORS', async () => {
  const res = await call(t.app, 'GET', '/health', { headers: { origin: 'https://app.example.com' } })
  assert.equal(res.headers['x-content-type-options'], 'nosniff')
  assert.ok(res.headers['strict-transport-security'])
  assert.equal(res.headers['access-control-allow-origin'], 'https://app.example.com')
  const other = await call(t.app, 'GET', '/health', { headers: { origin: 'https://evil.example' } })
  assert.equal(other.headers['access-control-allow-origin'], undefined)
  const preflight = await t.app.inject({ method: 'OPTIONS', url: '/api/contacts', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } })
  assert.equal(preflight.statusCode, 204)
})

test('health and readiness are public', async () => {
  assert.deepEqual(expectStatus(await call(t.app, 'GET', '/health'), 200), { status: 'ok' })
  assert.deepEqual(expectStatus(await call(t.app, 'GET', '/ready'), 200), { status: 'ready' })
})

test('OpenAPI document and the API reference are public, and the reference is served entirely by us under a strict CSP', async () => {
  const doc = expectStatus(await call(t.app, 'GET', '/openapi.json'), 200)
  assert.equal(doc.openapi, '3.1.0')
  assert.ok(doc.paths['/api/contacts'].get)
  assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), ['/'])

  // /api/docs sends the browser to /api/docs/, where the page's relative asset URLs resolve.
  const bare = await t.app.inject({ method: 'GET', url: '/api/docs' })
  assert.equal(bare.statusCode, 301)
  assert.equal(bare.headers.location, '/api/docs/')
  const page = await t.app.inject({ method: 'GET', url: '/api/docs/' })
  assert.equal(page.statusCode, 200)
  assert.match(String(page.headers['content-type']), /^text\/html/)
  assert.ok(!/https?:\/\//.test(page.body), 'the page names no other origin')

  // The CSP: the app's policy, the one inline script (Scalar's start, with its configuration) admitted by hash,
  // neither 'unsafe-inline' nor 'unsafe-eval' for scripts, fonts from this origin only.
  const csp = new Map(String(page.headers['content-security-policy']).split(';').map((d) => {
    const [name, ...values] = d.trim().split(/\s+/)
    return [name, values] as const
  }))
  assert.deepEqual(csp.get('default-src'), ["'self'"])
  assert.deepEqual(csp.get('font-src'), ["'self'", 'data:'])
  assert.deepEqual(csp.get('img-src'), ["'self'", 'data:'])
  const inline = [...page.body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1])
  assert.equal(inline.length, 1)
  assert.deepEqual(csp.get('script-src'), ["'self'", `'sha256-${createHash('sha256').update(inline[0]).digest('base64')}'`])
  // Other answers keep the app's policy.
  assert.match(String((await t.app.inject({ method: 'GET', url: '/api/health' })).headers['content-security-policy']), /script-src 'self';/)

  // The renderer's configuration: our document, and nothing that reaches out (fonts, proxy, telemetry, AI agent).
  const config = JSON.parse(/createApiReference\('#app', (\{[\s\S]*\})\)/.exec(inline[0])?.[1] ?? 'null')
  assert.equal(config.url, '/api/openapi.json')
  assert.equal(config.withDefaultFonts, false)
  assert.equal(config.telemetry, false)
  assert.equal(config.proxyUrl, undefined)
  assert.equal(config.agent.disabled, true)
  assert.equal(expectStatus(await call(t.app, 'GET', config.url.slice('/api'.length)), 200).openapi, '3.1.0')

  // Every script, style sheet and image of the page is ours and answers.
  const assets = [...page.body.matchAll(/<(?:script|link|img)\b[^>]*?\s(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1], 'http://localhost/api/docs/'))
  assert.ok(assets.length >= 1)
  for (const asset of assets) {
    assert.equal(asset.host, 'localhost', String(asset))
    const res = await t.app.inject({ method: 'GET', url: asset.pathname })
    assert.equal(res.statusCode, 200, asset.pathname)
    assert.ok(res.body.length > 100_000, `${asset.pathname} is the renderer's bundle`)
    assert.match(String(res.headers['content-type']), /^application\/javascript/)
    // Revalidated, not sent again.
    assert.equal(res.headers['cache-control'], 'no-cache')
    const again = await t.app.inject({ method: 'GET', url: asset.pathname, headers: { 'if-none-match': String(res.headers.etag) } })
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
    const stale = await t.app.inject({ method: 'GET', url: asset.pathname, headers: { 'if-none-match': '"other"' } })
    assert.equal(stale.statusCode, 200)
    assert.equal(stale.body, res.body)
  }

  // A Host header that is no host name is the client's error, on the page and its redirect alike.
  for (const url of ['/api/docs', '/api/docs/']) {
    for (const host of ['a b', '[']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { host } })
      assert.equal(res.statusCode, 400, `${url} Host ${host}`)
      assert.deepEqual(res.json(), { statusCode: 400, message: 'The Host header is not a host name', error: 'Bad Request', code: 'INVALID_PARAMETER' })
    }
  }
})

test('admin job runner: unknown job 404, members 403', async () => {
  expectStatus(await org.post('/admin/jobs/nope/run', {}), 404, 'Job nope')
  expectStatus(await org.post('/admin/jobs/mail-delivery/run', {}, await org.as('member')), 403)
  const jobs = expectStatus(await org.get('/admin/jobs'), 200)
  assert.ok(jobs.some((j: { name: string }) => j.name === 'mail-delivery'))
})

test('readiness is 503 when the database does not answer', async () => {
  const broken = await buildTestApp()
  await broken.app.ctx.db.close()
  const res = await call(broken.app, 'GET', '/ready')
  assert.deepEqual(res.body, { statusCode: 503, message: 'Database unavailable', error: 'Service Unavailable', code: 'SERVICE_UNAVAILABLE' })
  assert.equal((await call(broken.app, 'GET', '/health')).status, 200)
  await broken.close().catch(() => {})
})

test('unexpected errors: 500 without internals', async () => {
  const broken = await buildTestApp()
  const o = await createOrg(broken.app)
  await broken.app.ctx.db.query('DROP TABLE contacts CASCADE')
  const res = await o.get('/contacts')
  assert.deepEqual(res.body, { statusCode: 500, message: 'Internal Server Error', error: 'Internal Server Error', code: 'INTERNAL_ERROR' })
  await broken.close()
})

test('GET /api answers an index: name, version and links to the docs, the OpenAPI document and health', async () => {
  for (const url of ['/api', '/api/']) {
    const res = await t.app.inject({ method: 'GET', url })
    assert.equal(res.statusCode, 200, url)
    const body = res.json()
    assert.equal(body.name, 'Business Platform API')
    assert.match(body.version, /^\d+\.\d+\.\d+$/)
    assert.equal(body.environment, t.config.apiEnv, 'the environment the dashboard banner shows')
    for (const link of Object.values(body.links) as string[]) assert.ok((await t.app.inject({ method: 'GET', url: link })).statusCode < 400, link)
  }
})

/** An answer of app.inject as a Res, for expectStatus. */
const asRes = (res: { statusCode: number; headers: any; body: string }) => ({ status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : res.body, raw: res as any })

test('OPTIONS: a CORS preflight gets the CORS answer; any other OPTIONS is 204 with Allow (RFC 9110), or 404 on an unknown path', async () => {
  const options = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'OPTIONS', url, headers })
  for (const [url, allow] of [
    ['/api/contacts', 'GET, HEAD, POST, OPTIONS'],
    ['/api/contacts/', 'GET, HEAD, POST, OPTIONS'],
    ['/api/contacts/00000000-0000-4000-8000-000000000000?x=1', 'GET, HEAD, PATCH, DELETE, OPTIONS'],
    ['/api/invoices/00000000-0000-4000-8000-000000000000/send', 'POST, OPTIONS'],
    ['/.well-known/jwks.json', 'GET, HEAD, OPTIONS'],
  ]) {
    // Without a credential: which methods a path takes is public, as in the OpenAPI document.
    for (const headers of [{}, { origin: 'https://app.example.com' }, { authorization: `Bearer ${org.token}` }] as Array<Record<string, string>>) {
      const res = await options(url, headers)
      assert.equal(res.statusCode, 204, `${url} ${JSON.stringify(headers)}: ${res.body}`)
      assert.equal(res.headers.allow, allow, url)
      assert.equal(res.body, '')
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.ok(res.headers['x-request-id'])
    }
  }
  const unknown = await options('/api/nope/' + 'x'.repeat(300))
  expectStatus(asRes(unknown), 404, 'Route OPTIONS /api/nope/')
  assert.equal(unknown.json().code, 'ROUTE_NOT_FOUND')
  assert.ok(unknown.json().message.length < 260, 'the path is cut short')
  // A preflight (Origin and Access-Control-Request-Method) stays CORS's, for every method the API uses.
  for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
    const preflight = await options('/api/contacts/00000000-0000-4000-8000-000000000000', { origin: 'https://app.example.com', 'access-control-request-method': method })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example.com')
    assert.ok(String(preflight.headers['access-control-allow-methods']).split(/,\s*/).includes(method), `${method}: ${preflight.headers['access-control-allow-methods']}`)
  }
})

test('a path parameter longer than the router takes (100 characters) or badly percent-encoded: 400 INVALID_PARAMETER with the error body, nothing echoed unbounded', async () => {
  for (const url of [`/api/contacts/${'a'.repeat(101)}`, `/api/contacts/${'a'.repeat(20_000)}?q=${'b'.repeat(5000)}`, '/api/contacts/%E0%A4%A', `/api/contacts/%E0%A4%A${'c'.repeat(5000)}`]) {
    for (const headers of [{}, { authorization: `Bearer ${org.token}`, 'x-request-id': 'trace-long' }]) {
      const res = await t.app.inject({ method: 'GET', url, headers })
      const body = expectStatus(asRes(res), 400)
      assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'statusCode'])
      assert.deepEqual([body.code, body.error], ['INVALID_PARAMETER', 'Bad Request'], url.slice(0, 40))
      assert.match(String(res.headers['content-type']), /^application\/json/)
      assert.ok(body.message.length < 300, `message of ${body.message.length} characters`)
      assert.equal(res.headers['x-content-type-options'], 'nosniff')
      assert.equal(res.headers['x-request-id'], headers['x-request-id'] ?? res.headers['x-request-id'])
      assert.ok(res.headers['x-request-id'])
    }
  }
  const long = (await t.app.inject({ method: 'GET', url: `/api/contacts/${'a'.repeat(101)}` })).json()
  assert.match(long.message, /longer than 100 characters/)
  // 100 characters are still the route's to judge: not a UUID.
  expectStatus(await org.get(`/contacts/${'a'.repeat(100)}`), 400, 'must match format "uuid"')
})

test('an optional body (send, invoice an order, credit note): no body or an empty one is {}; JSON null is refused with 422 like any body that is not an object', async () => {
  const send = async (url: string, payload: string | undefined, contentType?: string, headers: Record<string, string> = {}) =>
    asRes(await t.app.inject({ method: 'POST', url: `/api${url}`, headers: { authorization: `Bearer ${org.token}`, ...(contentType ? { 'content-type': contentType } : {}), ...headers }, ...(payload !== undefined ? { payload } : {}) }))
  const cases = [
    { url: async () => `/invoices/${(await createInvoice(org)).id}/send`, ok: 200 },
    { url: async () => `/sales/quotations/${(await createQuotation(org)).id}/send`, ok: 200 },
    { url: async () => `/orders/${(await createOrder(org)).id}/invoice`, ok: 201 },
    { url: async () => `/invoices/${(await createInvoice(org)).id}/credit-note`, ok: 201 },
  ]
  for (const { url, ok } of cases) {
    const target = await url()
    for (const payload of ['null', '[]', '"x"', '1']) expectStatus(await send(target, payload, 'application/json'), 422, 'value must be object')
    // Nothing was done by the refused calls: each of these succeeds once.
    expectStatus(await send(target, undefined), ok)
    // Empty, as fetch() sends a POST without a body (Content-Length: 0), or with no length at all.
    expectStatus(await send(await url(), '', 'application/json', { 'content-length': '0' }), ok)
    expectStatus(await send(await url(), '', 'application/json'), ok)
    expectStatus(await send(await url(), '{}', 'application/json'), ok)
  }
  // A route whose body is required still refuses none at all.
  expectStatus(await send('/contacts', undefined), 422)
})
