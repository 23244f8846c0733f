import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'

// Conventions every route shares: error bodies, request ids, headers, health, docs.

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp({ BODY_LIMIT: '2048', CORS_ORIGIN: 'https://app.example.com' })
  org = await createOrg(t.app)
})
after(() => t.close())

test('unknown route: 404 with the SPEC body, with or without a credential', async () => {
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

test('OpenAPI document and docs UI are public and served locally', async () => {
  const doc = expectStatus(await call(t.app, 'GET', '/openapi.json'), 200)
  assert.equal(doc.openapi, '3.1.0')
  assert.ok(doc.paths['/api/contacts'].get)
  assert.deepEqual(doc.servers.map((s: { url: string }) => s.url), ['/'])
  const ui = await t.app.inject({ method: 'GET', url: '/api/docs/' })
  assert.equal(ui.statusCode, 200)
  assert.match(ui.body, /swagger-ui/)
  const bundle = await t.app.inject({ method: 'GET', url: '/api/docs/static/swagger-ui-bundle.js' })
  assert.equal(bundle.statusCode, 200)
  assert.ok(!/https?:\/\/(cdn|unpkg)/.test(ui.body), 'no CDN assets')
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
    for (const link of Object.values(body.links) as string[]) assert.ok((await t.app.inject({ method: 'GET', url: link })).statusCode < 400, link)
  }
})
