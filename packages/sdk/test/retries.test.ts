// Retries and backoff (SPEC 8) against a scripted local server: the answers
// 502/503/429 the real API only gives under failure or load, in the order a
// test needs them. The real API is driven in sdk.test.ts.
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, before, test } from 'node:test'
import { ApiError, backoffDelay, createSdk, retryDelay, type SdkOptions } from '../src/index.ts'

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
  at: number
}
type Answer = (res: ServerResponse, req: IncomingMessage) => void

let server: Server
let baseUrl: string
let script: Answer[] = []
let seen: Seen[] = []

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => (res) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${seen.length}`, ...headers })
  res.end(JSON.stringify(body))
}
const failure = (status: number, code: string, headers: Record<string, string> = {}) => json(status, { statusCode: status, error: 'Error', message: `failure ${status}`, code }, headers)
const ok = json(200, { ok: true })

before(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: Date.now() })
      const answer = script.shift() ?? failure(500, 'INTERNAL_ERROR')
      answer(res, req)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  assert.ok(address && typeof address === 'object')
  baseUrl = `http://127.0.0.1:${address.port}`
})
after(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** A client on the scripted server whose waits are recorded, not slept. */
function scripted(answers: Answer[], options: Partial<SdkOptions> = {}) {
  script = answers
  seen = []
  const waits: number[] = []
  const api = createSdk({ baseUrl, apiKey: 'bp_test_stub', sleep: async (ms) => void waits.push(ms), ...options })
  return { api, waits }
}

test('backoff is min(1000 * 2^attempt, 30000) ms (SPEC 8)', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 10].map((n) => backoffDelay(n)), [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
  const now = 1_800_000_000_000
  const answer = (headers: Record<string, string>) => new Response(null, { status: 429, headers })
  assert.equal(retryDelay(answer({ 'x-ratelimit-reset': String(now / 1000 + 7) }), 0, {}, now), 7000, 'a later reset wins over the backoff')
  assert.equal(retryDelay(answer({ 'x-ratelimit-reset': String(now / 1000 - 5) }), 2, {}, now), 4000, 'a reset already past leaves the backoff')
  assert.equal(retryDelay(answer({ 'x-ratelimit-reset': String(now / 1000 + 3600) }), 0, {}, now), 60000, 'capped by maxWaitMs')
  assert.equal(retryDelay(answer({ 'retry-after': '9' }), 1, {}, now), 9000)
  const unavailable = new Response(null, { status: 503, headers: { 'x-ratelimit-reset': String(now / 1000 + 50), 'x-ratelimit-remaining': '40' } })
  assert.equal(retryDelay(unavailable, 0, {}, now), 1000, "a 503's X-RateLimit-Reset is the window's, not a wait")
})

test('GET is retried on 503 and 502 with the backoff, and answers the success', async () => {
  const { api, waits } = scripted([failure(503, 'SERVICE_UNAVAILABLE'), failure(502, 'HTTP_502'), ok])
  const data = await api.get('/api/health')
  assert.deepEqual(data, { ok: true })
  assert.equal(seen.length, 3)
  assert.deepEqual(waits, [1000, 2000])
  assert.ok(seen.every((s) => s.headers.authorization === 'Bearer bp_test_stub'))
})

test('at most maxAttempts attempts, then the last failure is thrown as ApiError', async () => {
  const { api, waits } = scripted(Array.from({ length: 10 }, () => failure(503, 'SERVICE_UNAVAILABLE')), { maxAttempts: 3 })
  await assert.rejects(api.get('/api/health'), (err: unknown) => {
    assert.ok(err instanceof ApiError)
    assert.equal(err.status, 503)
    assert.equal(err.code, 'SERVICE_UNAVAILABLE')
    assert.equal(err.requestId, 'req-3')
    return true
  })
  assert.equal(seen.length, 3)
  assert.deepEqual(waits, [1000, 2000])
})

test('other statuses (500, 400, 404) are not retried', async () => {
  for (const [status, code] of [[500, 'INTERNAL_ERROR'], [400, 'INVALID_PARAMETER'], [404, 'NOT_FOUND']] as const) {
    const { api, waits } = scripted([failure(status, code), ok])
    await assert.rejects(api.get('/api/health'), { name: 'ApiError', status, code })
    assert.equal(seen.length, 1)
    assert.deepEqual(waits, [])
  }
})

test('a POST gets an Idempotency-Key from the SDK and is retried on 502 with the same key', async () => {
  const { api } = scripted([failure(502, 'HTTP_502'), json(201, { id: 'c1' })])
  const data = await api.post('/api/contacts', { body: { name: 'Ann' } })
  assert.deepEqual(data, { id: 'c1' })
  assert.equal(seen.length, 2)
  const key = seen[0]!.headers['idempotency-key']
  assert.match(String(key), /^[0-9a-f-]{36}$/)
  assert.equal(seen[1]!.headers['idempotency-key'], key, 'the retry carries the first key')
  assert.equal(seen[1]!.body, seen[0]!.body)
})

test("the caller's Idempotency-Key is kept, and makes the POST retried", async () => {
  const { api } = scripted([failure(503, 'SERVICE_UNAVAILABLE'), json(201, { id: 'c2' })], { idempotencyKeys: false })
  await api.post('/api/contacts', { body: { name: 'Ann' }, headers: { 'Idempotency-Key': 'my-key-1' } })
  assert.deepEqual(seen.map((s) => s.headers['idempotency-key']), ['my-key-1', 'my-key-1'])
})

test('a POST without Idempotency-Key (idempotencyKeys: false) and a PATCH are not retried on 502/503', async () => {
  {
    const { api } = scripted([failure(503, 'SERVICE_UNAVAILABLE'), json(201, { id: 'c3' })], { idempotencyKeys: false })
    await assert.rejects(api.post('/api/contacts', { body: { name: 'Ann' } }), { status: 503 })
    assert.equal(seen.length, 1)
    assert.equal(seen[0]!.headers['idempotency-key'], undefined)
  }
  {
    const { api } = scripted([failure(502, 'HTTP_502'), ok])
    await assert.rejects(api.patch('/api/contacts/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } }, body: { name: 'Bea' } }), { status: 502 })
    assert.equal(seen.length, 1)
    assert.equal(seen[0]!.headers['idempotency-key'], undefined, 'only POSTs get a key')
  }
})

test('429 is retried for any method (the request was refused before it ran)', async () => {
  const { api, waits } = scripted([failure(429, 'RATE_LIMITED'), json(201, { id: 'c4' })], { idempotencyKeys: false })
  assert.deepEqual(await api.post('/api/contacts', { body: { name: 'Ann' } }), { id: 'c4' })
  assert.equal(seen.length, 2)
  assert.deepEqual(waits, [1000])
})

test('429 waits until X-RateLimit-Reset (real time) before the retry', async () => {
  const reset = Math.ceil(Date.now() / 1000) + 1
  const { api } = scripted([failure(429, 'RATE_LIMITED', { 'x-ratelimit-reset': String(reset), 'x-ratelimit-remaining': '0' }), ok], { sleep: undefined })
  await api.get('/api/health')
  assert.equal(seen.length, 2)
  assert.ok(seen[1]!.at >= reset * 1000, `retried ${reset * 1000 - seen[1]!.at} ms before the reset`)
})

test('a GET whose connection fails is sent again; a POST without key is not', async () => {
  const drop: Answer = (_res, req) => req.socket.destroy()
  {
    const { api, waits } = scripted([drop, ok])
    assert.deepEqual(await api.get('/api/health'), { ok: true })
    assert.equal(seen.length, 2)
    assert.deepEqual(waits, [1000])
  }
  {
    const { api } = scripted([drop, ok], { idempotencyKeys: false })
    await assert.rejects(api.post('/api/contacts', { body: { name: 'Ann' } }), TypeError)
    assert.equal(seen.length, 1)
  }
})

test('a refresh that fails (503) is not sent again, and carries no Idempotency-Key', async () => {
  const { api, waits } = scripted([failure(401, 'UNAUTHENTICATED'), failure(503, 'SERVICE_UNAVAILABLE'), ok], { apiKey: undefined, accessToken: 'not-a-jwt', refreshToken: 'rt_1' })
  await assert.rejects(api.get('/api/auth/me'), { name: 'ApiError', status: 503 })
  assert.deepEqual(seen.map((s) => `${s.method} ${s.url}`), ['GET /api/auth/me', 'POST /api/auth/refresh'])
  assert.deepEqual(JSON.parse(seen[1]!.body), { refreshToken: 'rt_1' })
  assert.equal(seen[1]!.headers['idempotency-key'], undefined)
  assert.equal(seen[1]!.headers.authorization, undefined)
  assert.deepEqual(waits, [])
})

test('a refresh refused by the rate limiter (429) is sent again after the wait', async () => {
  const pair = { accessToken: 'a2', refreshToken: 'rt_2', expiresIn: 900 }
  const { api, waits } = scripted([failure(401, 'UNAUTHENTICATED'), failure(429, 'RATE_LIMITED'), json(200, pair), ok], { apiKey: undefined, accessToken: 'not-a-jwt', refreshToken: 'rt_1' })
  assert.deepEqual(await api.get('/api/auth/me'), { ok: true })
  assert.deepEqual(seen.map((s) => `${s.method} ${s.url} ${s.headers.authorization ?? ''}`), ['GET /api/auth/me Bearer not-a-jwt', 'POST /api/auth/refresh ', 'POST /api/auth/refresh ', 'GET /api/auth/me Bearer a2'])
  assert.deepEqual(waits, [1000])
  assert.deepEqual(api.tokens(), pair)
})
