import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, test } from 'node:test'
import { MemoryStorage } from '../src/index.ts'
import { clientFor, createLicensedProduct, issueLicense, startService, TestClock, type License, type Product, type Service } from './service.ts'

/**
 * Transient failures other than a stopped service: a 429 of the real service
 * (rate limits on), and 5xx answers and timeouts of a proxy in front of it.
 */
let s: Service
let product: Product
let license: License
const granted = new MemoryStorage()
let proxy: Server
let proxyUrl: string
/** What the proxy does with each next request: answer a status, hang, or (when empty) forward. */
const script: Array<number | 'hang'> = []

before(async () => {
  s = await startService({ RATE_LIMIT: 'on' })
  product = await createLicensedProduct(s)
  license = await issueLicense(s, product)
  await clientFor({ service: s, product, license, storage: granted }).activate()
  proxy = createServer(async (req, res) => {
    const step = script.shift()
    if (step === 'hang') return
    if (typeof step === 'number') return void res.writeHead(step, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: step, message: 'Unavailable', error: 'Unavailable' }))
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>
    const upstream = await fetch(`${s.baseUrl}${req.url!.replace(/^\/api/, '')}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined })
    res.writeHead(upstream.status, Object.fromEntries([...upstream.headers].filter(([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))))
    res.end(Buffer.from(await upstream.arrayBuffer()))
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const address = proxy.address()
  assert.ok(address && typeof address === 'object')
  proxyUrl = `http://127.0.0.1:${address.port}/api`
})
after(async () => {
  proxy.closeAllConnections()
  await new Promise((resolve) => proxy.close(resolve))
  await s.stop()
})

async function installation(overrides: Parameters<typeof clientFor>[0]['overrides'] = {}) {
  const storage = new MemoryStorage()
  await storage.save(await granted.load())
  const clock = new TestClock()
  return { client: clientFor({ service: s, product, license, clock, storage, overrides: { baseUrl: proxyUrl, ...overrides } }), clock }
}

test('5xx answers are retried with backoff; the answer after them counts', async () => {
  const { client, clock } = await installation()
  script.push(503, 500, 502)
  const result = await client.validate()
  assert.deepEqual([result.valid, result.source], [true, 'service'])
  assert.deepEqual(clock.sleeps, [1000, 2000, 4000])
})

test('5xx on every attempt falls back to the offline token', async () => {
  const { client, clock } = await installation()
  script.push(503, 503, 503, 503)
  const result = await client.validate()
  assert.deepEqual([result.valid, result.source], [true, 'grace'])
  assert.deepEqual(clock.sleeps, [1000, 2000, 4000])
  assert.equal(script.length, 0)
})

test('a timeout is a transient failure: retried, then grace', async () => {
  const { client, clock } = await installation({ timeoutMs: 200, retries: 1 })
  script.push('hang', 'hang')
  const result = await client.validate()
  assert.deepEqual([result.valid, result.source], [true, 'grace'])
  assert.match(result.message, /could not be reached/)
  assert.deepEqual(clock.sleeps, [1000])
})

test('4xx answers are not retried', async () => {
  const { client, clock } = await installation({ publicUrl: 'https://unknown.example.com' })
  const result = await client.validate()
  assert.deepEqual([result.valid, result.code], [false, 'NOT_ACTIVATED_ON_DOMAIN'])
  assert.deepEqual(clock.sleeps, [])
})

test('on 429 the client waits until X-RateLimit-Reset, then answers from the offline token', async () => {
  const { client, clock } = await installation({ baseUrl: s.baseUrl, retries: 2 })
  const start = clock.now()
  let result
  for (let i = 0; i < 40 && clock.sleeps.length === 0; i++) result = await client.validate({ fresh: true })
  assert.ok(result)
  assert.deepEqual([result.valid, result.source], [true, 'grace'], 'the validate budget of 30 per minute is spent')
  const [first, ...rest] = clock.sleeps
  // A window of 60 s, announced in whole seconds (rounded up) and measured from the test's frozen clock.
  assert.ok(first! > 0 && first! <= 62_000 + (Date.now() - start), `waited ${first} ms`)
  assert.equal((start + first!) % 1000, 0, 'the wait ends on the Unix second of X-RateLimit-Reset')
  // The test clock jumped to the reset time, the service's window did not end:
  // the next attempt is refused again and finds the reset (about) reached.
  assert.equal(rest.length, 1)
  assert.ok(rest[0]! <= 1000)
})
