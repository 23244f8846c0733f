// The SDK against the real API on a real port (PGlite, or PostgreSQL with DATABASE_URL).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { SignJWT, decodeJwt } from 'jose'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { ApiError, createSdk, type Tokens } from '../src/index.ts'

let t: TestApp
let org: TestOrg
let baseUrl: string
let apiKey: string

before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const address = t.app.server.address()
  assert.ok(address && typeof address === 'object')
  baseUrl = `http://127.0.0.1:${address.port}`
  const key = await org.post('/api-keys', { name: 'sdk', environment: 'test', role: 'admin' })
  assert.equal(key.status, 201)
  apiKey = key.body.key
})
after(async () => await t.close())

async function login(): Promise<Tokens> {
  const res = await call(t.app, 'POST', '/auth/login', { body: { email: org.adminEmail, password: org.password } })
  assert.equal(res.status, 200)
  return res.body
}

/** The access token of `tokens`, signed again with its claims but expired a minute ago. */
async function expired(accessToken: string): Promise<string> {
  const claims = decodeJwt(accessToken)
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ org: claims.org, role: claims.role })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.sub!)
    .setIssuedAt(now - 1000)
    .setExpirationTime(now - 60)
    .sign(new TextEncoder().encode(t.config.jwtSecret))
}

test('an API key authenticates; the answer is the typed body', async () => {
  const api = createSdk({ baseUrl, apiKey })
  const me = await api.get('/api/auth/me')
  assert.equal(me.organization.id, org.id)
  const contact = await api.post('/api/contacts', { body: { name: 'Key Contact', email: `${unique('k')}@example.com` } })
  assert.equal((await api.get('/api/contacts/{id}', { params: { path: { id: contact.id } } })).name, 'Key Contact')
  await api.delete('/api/contacts/{id}', { params: { path: { id: contact.id } } })
  await assert.rejects(createSdk({ baseUrl, apiKey: 'bp_test_not-a-key' }).get('/api/auth/me'), { name: 'ApiError', status: 401, code: 'UNAUTHENTICATED' })
})

test('an expired access token is refreshed once through /auth/refresh, the new pair kept and handed to onTokens', async () => {
  const first = await login()
  const saved: Tokens[] = []
  const api = createSdk({ baseUrl, accessToken: await expired(first.accessToken), refreshToken: first.refreshToken, onTokens: (p) => void saved.push(p) })
  // Five requests at once: one refresh for all (a refresh token works once; a second use would revoke the family).
  const answers = await Promise.all(Array.from({ length: 5 }, () => api.get('/api/auth/me')))
  assert.ok(answers.every((me) => me.organization.id === org.id))
  assert.equal(saved.length, 1)
  assert.notEqual(saved[0]!.refreshToken, first.refreshToken)
  assert.equal(saved[0]!.expiresIn, t.config.accessTokenTtl)
  assert.deepEqual(api.tokens(), saved[0])
  // The old refresh token is spent: the SDK really went through /auth/refresh.
  const reuse = await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: first.refreshToken } })
  assert.equal(reuse.status, 401)
})

test('a 401 on an access token the client cannot see as expired: one refresh, one retry', async () => {
  const first = await login()
  const forged = await new SignJWT({ org: org.id, role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setSubject('x').setExpirationTime('1h').sign(new TextEncoder().encode('another-secret-of-thirty-two-chars!!'))
  const saved: Tokens[] = []
  const api = createSdk({ baseUrl, accessToken: forged, refreshToken: first.refreshToken, onTokens: (p) => void saved.push(p) })
  assert.equal((await api.get('/api/auth/me')).organization.id, org.id)
  assert.equal(saved.length, 1)
  // A refresh that fails is thrown as it came, after one attempt.
  const stuck = createSdk({ baseUrl, accessToken: forged, refreshToken: 'rt_unknown', onTokens: () => assert.fail('no new pair') })
  await assert.rejects(stuck.get('/api/auth/me'), { name: 'ApiError', status: 401, code: 'UNAUTHENTICATED' })
})

test('an anonymous client (no credentials) calls the public routes: sign in without an Idempotency-Key, then a key or token is needed', async () => {
  assert.throws(() => createSdk({ baseUrl, apiKey, accessToken: 'x' }), /at most one/)
  const sent: Request[] = []
  const anonymous = createSdk({ baseUrl, maxAttempts: 1, fetch: (r) => (sent.push(r.clone()), fetch(r)) })
  const tokens = await anonymous.post('/api/auth/login', { body: { email: org.adminEmail, password: org.password } })
  assert.ok(tokens.accessToken && tokens.refreshToken)
  assert.equal(sent[0]!.headers.get('authorization'), null)
  // The API would keep the answer (the token pair) in its replay store for 24 hours.
  assert.equal(sent[0]!.headers.get('idempotency-key'), null)
  await assert.rejects(anonymous.get('/api/auth/me'), (err: unknown) => err instanceof ApiError && err.status === 401)
  const user = createSdk({ baseUrl, ...tokens })
  assert.equal((await user.get('/api/auth/me')).user.email, org.adminEmail)
})

test('every POST carries an Idempotency-Key; a replay answers the stored response', async () => {
  const sent: Request[] = []
  const api = createSdk({ baseUrl, apiKey, fetch: (r) => (sent.push(r.clone()), fetch(r)) })
  await api.post('/api/contacts', { body: { name: 'Keyed', email: `${unique('i')}@example.com` } })
  await api.get('/api/contacts', { params: { query: { limit: 1 } } })
  assert.match(sent[0]!.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/)
  assert.equal(sent[1]!.headers.get('idempotency-key'), null)

  // The caller's key, sent twice: the second answer is the first one replayed.
  const body = { name: 'Replayed', email: `${unique('r')}@example.com` }
  const key = unique('key-')
  const a = await api.raw.POST('/api/contacts', { body, headers: { 'Idempotency-Key': key } })
  const b = await api.raw.POST('/api/contacts', { body, headers: { 'Idempotency-Key': key } })
  assert.equal(a.response.status, 201)
  assert.equal(b.response.status, 201)
  assert.equal(b.response.headers.get('idempotent-replayed'), 'true')
  assert.equal(b.data!.id, a.data!.id)
})

test('dryRun: true sends Prefer: dry-run on any call: the answer is what the API would have answered, nothing is kept, no Idempotency-Key', async () => {
  const sent: Request[] = []
  let fail = 1
  // The first dry run meets a 502 from a proxy: a dry run is sent again (it keeps nothing).
  const api = createSdk({ baseUrl, apiKey, baseDelayMs: 1, fetch: async (r) => (sent.push(r.clone()), fail-- > 0 ? new Response('bad gateway', { status: 502 }) : fetch(r)) })
  const body = { name: 'Dry SDK', email: `${unique('d')}@example.com` }
  const contact = await api.post('/api/contacts', { body, dryRun: true })
  assert.equal(contact.name, 'Dry SDK')
  assert.equal(sent.length, 2)
  for (const r of sent) {
    assert.equal(r.headers.get('prefer'), 'dry-run')
    assert.equal(r.headers.get('idempotency-key'), null)
  }
  await assert.rejects(api.get('/api/contacts/{id}', { params: { path: { id: contact.id } } }), { status: 404 })
  // The caller's own preferences are kept beside it; errors are the real ones.
  await assert.rejects(api.post('/api/contacts', { body: { name: 'x', email: 'nope' }, dryRun: true, headers: { Prefer: 'return=minimal' } }), { status: 422, code: 'VALIDATION_FAILED' })
  assert.equal(sent.at(-1)!.headers.get('prefer'), 'return=minimal, dry-run')
  const real = await api.post('/api/contacts', { body })
  const patched = await api.patch('/api/contacts/{id}', { params: { path: { id: real.id } }, body: { name: 'Renamed' }, dryRun: true })
  assert.equal(patched.name, 'Renamed')
  await api.delete('/api/contacts/{id}', { params: { path: { id: real.id } }, dryRun: true })
  assert.equal((await api.get('/api/contacts/{id}', { params: { path: { id: real.id } } })).name, 'Dry SDK')
  // Refused where a dry run cannot be taken back.
  await assert.rejects(api.post('/api/billing/payment-methods', { body: { paymentMethodId: 'pm_card_visa' }, dryRun: true }), { status: 400, code: 'DRY_RUN_UNSUPPORTED' })
  // dryRun false: a plain call.
  await api.post('/api/contacts', { body: { name: 'Wet', email: `${unique('w')}@example.com` }, dryRun: false })
  assert.equal(sent.at(-1)!.headers.get('prefer'), null)
  assert.match(sent.at(-1)!.headers.get('idempotency-key') ?? '', /^[0-9a-f-]{36}$/)
})

test('an answer lost after the POST ran (502 from a proxy): the retry with the same key is replayed, nothing is created twice', async () => {
  let lost = false
  const api = createSdk({
    baseUrl,
    apiKey,
    sleep: async () => {},
    fetch: async (r) => {
      const response = await fetch(r)
      if (r.method === 'POST' && !lost) {
        lost = true
        return new Response('bad gateway', { status: 502 })
      }
      return response
    },
  })
  const email = `${unique('lost')}@example.com`
  const contact = await api.post('/api/contacts', { body: { name: 'Lost Answer', email } })
  assert.ok(lost)
  const found = await api.get('/api/contacts', { params: { query: { search: email } } })
  assert.equal(found.meta.total, 1)
  assert.equal(found.data[0]!.id, contact.id)
})

test('failures are thrown as ApiError with status, code, message and request id', async () => {
  const api = createSdk({ baseUrl, apiKey, headers: { 'X-Request-Id': 'sdk-test-1' } })
  await assert.rejects(api.get('/api/contacts/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }), (err: unknown) => {
    assert.ok(err instanceof ApiError)
    assert.equal(err.status, 404)
    assert.equal(err.code, 'NOT_FOUND')
    assert.equal(typeof err.detail, 'string')
    assert.equal(err.requestId, 'sdk-test-1')
    assert.deepEqual(err.body, { statusCode: 404, error: 'Not Found', code: 'NOT_FOUND', message: err.detail })
    return true
  })
  await assert.rejects(api.post('/api/contacts', { body: { name: '', email: 'not an e-mail' } }), (err: unknown) => {
    assert.ok(err instanceof ApiError)
    assert.equal(err.status, 422)
    assert.equal(err.code, 'VALIDATION_FAILED')
    assert.ok(Array.isArray(err.detail) && err.detail.length >= 1, JSON.stringify(err.detail))
    assert.equal(err.message, err.detail.join('; '))
    return true
  })
})

test('list() visits every row of a 45-row list exactly once, 20 at a time, following meta.nextCursor', async () => {
  const o = await createOrg(t.app)
  const key = await o.post('/api-keys', { name: 'sdk', environment: 'test' })
  const api = createSdk({ baseUrl, apiKey: key.body.key })
  const created = new Set<string>()
  for (let i = 0; i < 45; i++) created.add((await api.post('/api/contacts', { body: { name: `Row ${i}` } })).id)
  const seen: string[] = []
  for await (const contact of api.list('/api/contacts', { limit: 20, sortBy: 'name', sortOrder: 'asc' })) seen.push(contact.id)
  assert.equal(seen.length, 45)
  assert.deepEqual(new Set(seen), created)
  const sizes: number[] = []
  for await (const page of api.pages('/api/contacts', { limit: 20 })) sizes.push(page.data.length)
  assert.deepEqual(sizes, [20, 20, 5])
  // A list with a path parameter, and an empty list: no row, one request.
  const endpoint = await api.post('/api/webhook-endpoints', { body: { url: 'http://127.0.0.1:9/hook', enabledEvents: ['contact.created'] } })
  const deliveries = []
  for await (const d of api.list('/api/webhook-endpoints/{id}/deliveries', { limit: 5 }, { id: endpoint.id })) deliveries.push(d)
  assert.deepEqual(deliveries, [])
})

test('429 from the real rate limiter: the client waits for X-RateLimit-Reset, then gives up after maxAttempts', async () => {
  const limited = await buildTestApp({ RATE_LIMIT: 'on', RATE_LIMIT_GENERAL: '2' })
  try {
    const o = await createOrg(limited.app)
    await limited.app.listen({ port: 0, host: '127.0.0.1' })
    const address = limited.app.server.address()
    assert.ok(address && typeof address === 'object')
    const waits: number[] = []
    const api = createSdk({ baseUrl: `http://127.0.0.1:${address.port}`, accessToken: o.token, maxAttempts: 2, sleep: async (ms) => void waits.push(ms) })
    await api.get('/api/auth/me')
    await api.get('/api/auth/me')
    const before = Date.now()
    await assert.rejects(api.get('/api/auth/me'), (err: unknown) => {
      assert.ok(err instanceof ApiError)
      assert.equal(err.status, 429)
      assert.equal(err.code, 'RATE_LIMITED')
      const reset = Number(err.headers.get('x-ratelimit-reset'))
      assert.ok(reset * 1000 > before)
      // One wait, for the window's reset (the backoff, 1000 ms, when the reset is nearer).
      assert.equal(waits.length, 1)
      assert.ok(waits[0]! >= 1000 && waits[0]! <= 60_000, String(waits[0]))
      assert.ok(Math.abs(waits[0]! - Math.max(1000, reset * 1000 - before)) < 1500, `${waits[0]} vs ${reset * 1000 - before}`)
      return true
    })
  } finally {
    await limited.close()
  }
})

test("the README's quote-to-cash example runs as written (contact, quotation, send, confirm, invoice, pay)", async () => {
  const example = readFileSync(new URL('./quote-to-cash.example.ts', import.meta.url), 'utf8')
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const block = readme.match(/```ts quote-to-cash\n([\s\S]*?)```/)?.[1]
  assert.ok(block, 'README.md has a ```ts quote-to-cash block')
  assert.equal(block, example.replace("from '../src/index.ts'", "from '@business-platform/sdk'"), 'the README block is test/quote-to-cash.example.ts')
  assert.ok(block.trim().split('\n').filter((l) => l.trim()).length <= 11, 'ten lines of flow after the import')

  const o = await createOrg(t.app)
  const key = await o.post('/api-keys', { name: 'readme', environment: 'test', role: 'admin' })
  process.env.BP_URL = baseUrl
  process.env.BP_API_KEY = key.body.key
  const printed: unknown[][] = []
  const log = console.log
  console.log = (...args: unknown[]) => void printed.push(args)
  try {
    await import('./quote-to-cash.example.ts')
  } finally {
    console.log = log
  }
  const invoices = await o.get('/invoices?status=paid')
  assert.equal(invoices.body.meta.total, 1)
  const invoice = invoices.body.data[0]
  assert.equal(invoice.total, 5 * 90000)
  assert.equal(invoice.amountDue, 0)
  assert.deepEqual(printed, [[invoice.number, 450000, 'paid']])
  assert.equal((await o.get('/sales/quotations')).body.data[0].status, 'confirmed')
})

test('imports.create: a CSV file as multipart, or JSON rows; the import is answered pending', async () => {
  const sdk = createSdk({ baseUrl, apiKey })
  const email = `${unique('sdk')}@example.com`
  const file = new Blob([`name,email\nSDK contact,${email}\n`], { type: 'text/csv' })
  const fromFile = await sdk.imports.create(file, { resource: 'contacts', dryRun: true })
  assert.deepEqual({ status: fromFile.status, totalRows: fromFile.totalRows, dryRun: fromFile.dryRun, resource: fromFile.resource }, { status: 'pending', totalRows: 1, dryRun: true, resource: 'contacts' })
  const fromRows = await sdk.imports.create([{ name: 'Row contact' }, { name: 'Another' }], { resource: 'contacts', mode: 'upsert' })
  assert.deepEqual({ totalRows: fromRows.totalRows, mode: fromRows.mode }, { totalRows: 2, mode: 'upsert' })
  await assert.rejects(sdk.imports.create(new Blob(['name\n' + 'x\n'.repeat(50_001)]), { resource: 'contacts' }), (err: ApiError) => err.status === 422)
  await t.app.services.imports!.queue.drain({ organizationId: org.id })
})
