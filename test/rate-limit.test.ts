import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Redis } from 'ioredis'
import { buildApp } from '../src/app.ts'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'

// Limits of docs/platform.md "Rate limits" with their defaults (RATE_LIMIT on).

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp({ RATE_LIMIT: 'on' })
  org = await createOrg(t.app)
})
after(() => t.close())

const ip = (n: number) => `10.9.${Math.floor(n / 250)}.${n % 250}`

test('general API: 60 per minute per credential, headers on every response, then 429', async () => {
  const key = await org.as('member')
  // The window ends 60 s after the first request; the header rounds up, never down.
  const start = Date.now() / 1000
  const resets = new Set<number>()
  for (let i = 1; i <= 60; i++) {
    const res = await org.get('/contacts', key)
    assert.equal(res.status, 200)
    assert.equal(res.headers['x-ratelimit-limit'], '60')
    assert.equal(res.headers['x-ratelimit-remaining'], String(60 - i))
    const reset = Number(res.headers['x-ratelimit-reset'])
    assert.ok(reset >= Math.floor(start) + 59 && reset <= Math.ceil(start) + 63, `reset ${reset} is the Unix time of the window's end (start ${start})`)
    resets.add(reset)
  }
  assert.ok(Math.max(...resets) - Math.min(...resets) <= 2, `one window end, give or take rounding: ${[...resets]}`)
  const limited = await org.get('/contacts', key)
  assert.deepEqual(limited.body, { statusCode: 429, message: 'ThrottlerException: Too Many Requests', error: 'Too Many Requests', code: 'RATE_LIMITED' })
  assert.ok(Number(limited.headers['retry-after']) > 0)
  assert.equal(limited.headers['x-ratelimit-remaining'], '0')
  // Another credential has its own budget.
  expectStatus(await org.get('/contacts'), 200)
})

test('errors carry the headers too (401 is counted per IP)', async () => {
  const res = await call(t.app, 'GET', '/contacts')
  assert.equal(res.status, 401)
  assert.ok(res.headers['x-ratelimit-limit'])
  assert.ok(res.headers['x-ratelimit-reset'])
})

test('public routes are limited per IP: register 5 per minute', async () => {
  const addr = ip(1)
  const register = () =>
    t.app.inject({ method: 'POST', url: '/api/auth/register', remoteAddress: addr, payload: { organizationName: 'R', name: 'R', email: `${unique('rl')}@example.com`, password: 'long enough pw' } })
  for (let i = 0; i < 5; i++) assert.equal((await register()).statusCode, 201)
  const limited = await register()
  assert.equal(limited.statusCode, 429)
  assert.equal(limited.json().message, 'ThrottlerException: Too Many Requests')
  assert.equal(limited.headers['x-ratelimit-limit'], '5')
  const elsewhere = await t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip(2), payload: { email: 'a@b.c', password: 'x' } })
  assert.equal(elsewhere.statusCode, 401)
})

test('login: 10 per minute per IP', async () => {
  const addr = ip(3)
  const statuses: number[] = []
  for (let i = 0; i < 11; i++) {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: addr, payload: { email: org.adminEmail, password: 'wrong password' } })
    statuses.push(res.statusCode)
  }
  assert.deepEqual(statuses, [...Array(10).fill(401), 429])
})

test('X-Forwarded-For is ignored unless TRUST_PROXY is set', async () => {
  const addr = ip(4)
  for (let i = 0; i < 10; i++) {
    await t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: addr, headers: { 'x-forwarded-for': ip(100 + i) }, payload: { email: 'a@b.c', password: 'x' } })
  }
  const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: addr, headers: { 'x-forwarded-for': ip(200) }, payload: { email: 'a@b.c', password: 'x' } })
  assert.equal(res.statusCode, 429)
})

test('health, readiness, docs and well-known files have a generous per-IP budget of their own, and say so in the headers', async () => {
  for (let i = 0; i < 70; i++) assert.equal((await call(t.app, 'GET', '/health')).status, 200)
  for (const url of ['/api/health', '/api/ready', '/api/docs/', '/api/openapi.json', '/api/.well-known/jwks.json']) {
    const res = await t.app.inject({ method: 'GET', url, remoteAddress: '10.9.9.9' })
    assert.ok(res.statusCode < 400, `${url}: ${res.statusCode}`)
    assert.equal(res.headers['x-ratelimit-limit'], '600', url)
    assert.ok(Number(res.headers['x-ratelimit-remaining']) < 600, url)
    assert.ok(Number(res.headers['x-ratelimit-reset']) > Date.now() / 1000, url)
  }
})

test('an unknown route carries the rate-limit headers too', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/no-such-route', remoteAddress: '10.9.9.8' })
  assert.equal(res.statusCode, 404)
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.ok(res.headers[header] !== undefined, header)
})

test('RATE_LIMIT=off lifts every limit', async () => {
  const off = await buildTestApp({ RATE_LIMIT: 'off' })
  const o = await createOrg(off.app)
  for (let i = 0; i < 70; i++) assert.equal((await o.get('/contacts')).status, 200)
  await off.close()
})

test('with REDIS_URL two app instances share one budget', async (ctx) => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null })
  try {
    await probe.connect()
    await probe.ping()
  } catch {
    probe.disconnect()
    if (process.env.CI) assert.fail(`Redis at ${url} is required in CI`)
    return ctx.skip(`no Redis at ${url}`)
  }
  probe.disconnect()
  const a = await buildTestApp({ RATE_LIMIT: 'on', REDIS_URL: url })
  const b = await buildApp(a.config, { db: a.app.ctx.db, logger: false })
  try {
    const o = await createOrg(a.app)
    const key = await o.as('member')
    for (let i = 0; i < 60; i++) {
      const app = i % 2 === 0 ? a.app : b
      assert.equal((await call(app, 'GET', '/contacts', { token: key })).status, 200)
    }
    const fromA = await call(a.app, 'GET', '/contacts', { token: key })
    const fromB = await call(b, 'GET', '/contacts', { token: key })
    assert.equal(fromA.status, 429)
    assert.equal(fromB.status, 429)
  } finally {
    await b.close()
    await a.close()
  }
})
