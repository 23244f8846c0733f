// Outgoing webhooks through HTTP (issue 15, docs/webhooks.md "Delivery"): a real
// receiver on a free port verifies every signature with the standardwebhooks
// package. The app runs its jobs (JOBS=on): the event dispatcher and the
// delivery worker work as in production, with retry delays of a fraction of a second.
import assert from 'node:assert/strict'
import { after, afterEach, before, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { buildApp } from '../../app.ts'
import { buildTestApp, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { startReceiver, type Receiver } from '../../../test/helpers/webhooks.ts'
import { PER_ENDPOINT } from './webhooks.delivery.ts'

let t: TestApp
const receivers: Receiver[] = []
before(async () => {
  t = await buildTestApp({ JOBS: 'on', WEBHOOK_RETRY_DELAYS: '0.2,0.2,0.2' })
})
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close()
})
after(() => t.close())

const receiver = async (answer?: Receiver['answer']) => {
  const r = await startReceiver(answer)
  receivers.push(r)
  return r
}

const endpoint = async (o: TestOrg, url: string, enabledEvents: string[] = ['*'], extra: Record<string, unknown> = {}) =>
  expectStatus(await o.post('/webhook-endpoints', { url, enabledEvents, ...extra }), 201)

const contact = async (o: TestOrg) => expectStatus(await o.post('/contacts', { name: unique('Contact ') }), 201)

/** Verifies with the standardwebhooks package, as a receiver would; answers the payload. */
const verify = (secret: string, r: { id: string; timestamp: string; signature: string; body: string }) =>
  new Webhook(secret).verify(r.body, { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature }) as any

async function until<T>(fn: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}

test('create shows the secret once; get, list, patch and delete never do; admin only', async () => {
  const o = await createOrg(t.app)
  const created = await endpoint(o, 'https://hooks.example.com/in', ['invoice.paid', 'contact.created'], { description: 'ERP sync' })
  assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{32}$/)
  assert.deepEqual(
    { url: created.url, enabledEvents: created.enabledEvents, description: created.description, enabled: created.enabled },
    { url: 'https://hooks.example.com/in', enabledEvents: ['invoice.paid', 'contact.created'], description: 'ERP sync', enabled: true },
  )
  const got = expectStatus(await o.get(`/webhook-endpoints/${created.id}`), 200)
  assert.equal('secret' in got, false)
  const { secret: _secret, ...shown } = created
  assert.deepEqual(got, shown)
  const list = expectStatus(await o.get('/webhook-endpoints'), 200)
  assert.deepEqual(list.data, [shown])
  assert.equal(list.meta.total, 1)
  const patched = expectStatus(await o.patch(`/webhook-endpoints/${created.id}`, { enabled: false, enabledEvents: ['*'], description: null }), 200)
  assert.deepEqual([patched.enabled, patched.enabledEvents, patched.description], [false, ['*'], null])
  const rotated = expectStatus(await o.post(`/webhook-endpoints/${created.id}/rotate-secret`), 200)
  assert.deepEqual(Object.keys(rotated), ['secret'])
  assert.match(rotated.secret, /^whsec_/)
  assert.notEqual(rotated.secret, created.secret)

  const member = await o.as('member')
  for (const [method, path] of [['get', '/webhook-endpoints'], ['get', `/webhook-endpoints/${created.id}`], ['post', `/webhook-endpoints/${created.id}/test`], ['get', `/webhook-endpoints/${created.id}/deliveries`]] as const) {
    expectStatus(await (o as any)[method](path, ...(method === 'post' ? [{}, member] : [member])), 403)
  }
  expectStatus(await o.post('/webhook-endpoints', { url: 'https://x.example.com', enabledEvents: ['*'] }, member), 403)
  const stranger = await createOrg(t.app)
  expectStatus(await stranger.get(`/webhook-endpoints/${created.id}`), 404)
  expectStatus(await stranger.del(`/webhook-endpoints/${created.id}`), 404)
  expectStatus(await o.del(`/webhook-endpoints/${created.id}`), 204)
  expectStatus(await o.get(`/webhook-endpoints/${created.id}`), 404)
})

test('enabledEvents and url rules: 422 for an unknown type, ping, an empty list, * with types, http to a non-loopback host', async () => {
  const o = await createOrg(t.app)
  const url = 'https://hooks.example.com/in'
  for (const enabledEvents of [['nope.created'], ['ping'], [], ['*', 'invoice.paid'], ['*', '*']]) {
    expectStatus(await o.post('/webhook-endpoints', { url, enabledEvents }), 422)
  }
  for (const bad of ['http://hooks.example.com/in', 'ftp://127.0.0.1/x', 'not a url', 'https://user:pw@hooks.example.com/']) {
    expectStatus(await o.post('/webhook-endpoints', { url: bad, enabledEvents: ['*'] }), 422)
  }
  expectStatus(await o.post('/webhook-endpoints', { enabledEvents: ['*'] }), 422)
  expectStatus(await o.post('/webhook-endpoints', { url }), 422)
  const ok = await endpoint(o, 'http://localhost:9/x', ['contact.created', 'contact.created', 'license.revoked'])
  assert.deepEqual(ok.enabledEvents, ['contact.created', 'license.revoked'])
  expectStatus(await o.patch(`/webhook-endpoints/${ok.id}`, { enabledEvents: ['ping'] }), 422)
  expectStatus(await o.patch(`/webhook-endpoints/${ok.id}`, { url: 'http://10.0.0.1/x' }), 422)
  expectStatus(await o.patch(`/webhook-endpoints/${ok.id}`, {}), 422)
})

test('a domain event reaches a real receiver, signed per Standard Webhooks, as the event GET /events/:id answers', async () => {
  const o = await createOrg(t.app)
  const r = await receiver()
  const ep = await endpoint(o, r.url, ['contact.created'])
  const c = await contact(o)
  const [got] = await r.waitFor(1)
  const payload = verify(ep.secret, got)
  assert.equal(got.id, payload.id)
  assert.match(payload.id, /^evt_[0-9a-f]{32}$/)
  assert.equal(payload.type, 'contact.created')
  assert.deepEqual(payload.data.object, c)
  assert.ok(Math.abs(Number(got.timestamp) - Date.now() / 1000) < 30)
  assert.deepEqual(expectStatus(await o.get(`/events/${payload.id}`), 200), payload)
  assert.throws(() => verify(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, got), /signature/i)
  // A type the endpoint does not take is not delivered to it.
  expectStatus(await o.patch(`/contacts/${c.id}`, { name: 'Renamed' }), 200)
  await contact(o)
  await r.waitFor(2)
  await new Promise((res) => setTimeout(res, 300))
  assert.deepEqual(r.received.map((x) => x.json.type), ['contact.created', 'contact.created'])
  const deliveries = expectStatus(await o.get(`/webhook-endpoints/${ep.id}/deliveries?sortOrder=asc`), 200)
  assert.equal(deliveries.meta.total, 2)
  const [first] = deliveries.data
  assert.deepEqual(
    { eventId: first.eventId, eventType: first.eventType, status: first.status, attempts: first.attempts, lastResponseStatus: first.lastResponseStatus, nextAttemptAt: first.nextAttemptAt },
    { eventId: payload.id, eventType: 'contact.created', status: 'succeeded', attempts: 1, lastResponseStatus: 200, nextAttemptAt: null },
  )
})

test('a receiver that fails twice then succeeds gets the event three times with one webhook-id', async () => {
  const o = await createOrg(t.app)
  const r = await receiver((n) => (n < 2 ? 503 : 204))
  const ep = await endpoint(o, r.url)
  await contact(o)
  const tries = await r.waitFor(3)
  await new Promise((res) => setTimeout(res, 300))
  assert.equal(r.received.length, 3)
  assert.equal(new Set(tries.map((x) => x.id)).size, 1)
  for (const x of tries) assert.equal(verify(ep.secret, x).id, tries[0].id)
  // Each retry waited about a delay (0.2 s, up to 10% more).
  assert.ok(tries[1].at - tries[0].at >= 190 && tries[2].at - tries[1].at >= 190, `${tries[1].at - tries[0].at} ms, ${tries[2].at - tries[1].at} ms`)
  const [d] = (await until(async () => {
    const list = expectStatus(await o.get(`/webhook-endpoints/${ep.id}/deliveries`), 200)
    return list.data[0]?.status === 'succeeded' && list
  })).data
  assert.deepEqual([d.attempts, d.lastResponseStatus, d.nextAttemptAt], [3, 204, null])
})

test('a delivery that fails every attempt ends failed after one attempt per delay; retry and ping re-send with their ids', async () => {
  const o = await createOrg(t.app)
  let fail = true
  const r = await receiver(() => (fail ? 500 : 200))
  const ep = await endpoint(o, r.url, ['contact.created'])
  await contact(o)
  await r.waitFor(4)
  const failed = await until(async () => {
    const list = expectStatus(await o.get(`/webhook-endpoints/${ep.id}/deliveries?status=failed`), 200)
    return list.data[0]
  })
  assert.deepEqual([failed.attempts, failed.lastResponseStatus, failed.nextAttemptAt], [4, 500, null])
  assert.equal(expectStatus(await o.get(`/webhook-endpoints/${ep.id}/deliveries?status=pending`), 200).meta.total, 0)
  expectStatus(await o.get(`/webhook-endpoints/${ep.id}/deliveries?status=lost`), 400)
  await new Promise((res) => setTimeout(res, 300))
  assert.equal(r.received.length, 4)

  fail = false
  // The retried attempt is held open until the pending delivery has been refused a second retry.
  let release!: () => void
  const gate = new Promise<number>((resolve) => (release = () => resolve(200)))
  r.answer = (n) => (n === 4 ? gate : 200)
  const retried = expectStatus(await o.post(`/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`), 202)
  assert.equal(retried.status, 'pending')
  expectStatus(await o.post(`/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`), 409)
  await r.waitFor(5)
  expectStatus(await o.post(`/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`), 409)
  release()
  const again = (await r.waitFor(5))[4]
  assert.equal(again.id, failed.eventId)
  await until(async () => expectStatus(await o.get(`/webhook-endpoints/${ep.id}/deliveries?status=succeeded`), 200).meta.total === 1)
  // A succeeded delivery may be sent again too.
  expectStatus(await o.post(`/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`), 202)
  assert.equal((await r.waitFor(6))[5].id, failed.eventId)
  const stranger = await createOrg(t.app)
  expectStatus(await stranger.post(`/webhook-endpoints/${ep.id}/deliveries/${failed.id}/retry`), 404)

  // ping: to this endpoint alone, whatever its enabledEvents and enabled; not in /events.
  expectStatus(await o.patch(`/webhook-endpoints/${ep.id}`, { enabled: false }), 200)
  const ping = expectStatus(await o.post(`/webhook-endpoints/${ep.id}/test`), 202)
  assert.deepEqual([ping.eventType, ping.status], ['ping', 'pending'])
  const got = (await r.waitFor(7))[6]
  const body = verify(ep.secret, got)
  assert.deepEqual([body.type, body.id, body.data.object.id], ['ping', ping.eventId, ep.id])
  expectStatus(await o.get(`/events/${ping.eventId}`), 404)
  assert.equal(expectStatus(await o.get('/events?type=ping'), 200).meta.total, 0)
  // Disabled: events are not delivered to it.
  await contact(o)
  await new Promise((res) => setTimeout(res, 500))
  assert.equal(r.received.length, 7)
})

test('one resource: its events reach an endpoint in the order of its changes, also through retries', async () => {
  const o = await createOrg(t.app)
  // The first attempt of every event fails: each retry must still come before the next event.
  const seen = new Set<string>()
  const r = await receiver((_n, x) => {
    if (seen.has(x.id)) return 200
    seen.add(x.id)
    return 500
  })
  await endpoint(o, r.url, ['contact.created', 'contact.updated'])
  const c = await contact(o)
  for (let i = 1; i <= 5; i++) expectStatus(await o.patch(`/contacts/${c.id}`, { name: `Name ${i}` }), 200)
  await r.waitFor(12)
  const succeeded = r.received.filter((x, i) => r.received.findIndex((y) => y.id === x.id) !== i)
  assert.deepEqual(succeeded.map((x) => x.json.data.object.name), [c.name, 'Name 1', 'Name 2', 'Name 3', 'Name 4', 'Name 5'])
  // Nothing of the resource was sent before the previous event succeeded.
  for (let i = 1; i < r.received.length; i++) {
    const prev = r.received[i - 1]
    if (prev.id !== r.received[i].id) assert.equal(r.received.filter((x) => x.id === prev.id).length, 2, 'next event sent before the previous succeeded')
  }
  // GET /events lists them in the same order (createdAt, then id).
  const events = expectStatus(await o.get(`/events?resourceId=${c.id}&sortOrder=asc`), 200)
  assert.deepEqual(events.data.map((e: any) => e.id), succeeded.map((x) => x.id))
})

test('an endpoint that hangs does not delay the deliveries of another endpoint', async () => {
  const o = await createOrg(t.app)
  const slow = await receiver(() => 'hang')
  const fast = await receiver()
  await endpoint(o, slow.url, ['contact.created'])
  await endpoint(o, fast.url, ['contact.created'])
  // More events than the slow endpoint has slots: it holds them all open (15 s timeout) meanwhile.
  const count = PER_ENDPOINT + 4
  for (let i = 0; i < count; i++) await contact(o)
  const got = await fast.waitFor(count, 10_000)
  // Each reached the fast endpoint within seconds of its event, far below the slow one's 15 s.
  const lags = got.map((x) => x.at - Date.parse(x.json.createdAt))
  assert.ok(Math.max(...lags) < 5_000, `lags ${lags.join(', ')} ms`)
  assert.ok(slow.received.length >= 1, 'the hanging endpoint was called')
  assert.ok(slow.received.length <= PER_ENDPOINT, `at most ${PER_ENDPOINT} requests in flight to one endpoint, got ${slow.received.length}`)
})

test('two app instances share the queue: each event is delivered once', async () => {
  const o = await createOrg(t.app)
  const second = t.config.databaseUrl ? await buildApp(t.config, { logger: false }) : await buildApp(t.config, { db: t.app.ctx.db, logger: false })
  try {
    const r = await receiver()
    await endpoint(o, r.url, ['contact.created'])
    const { token } = o
    const made = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const target = i % 2 ? second : t.app
      const res = await target.inject({ method: 'POST', url: '/api/contacts', headers: { authorization: `Bearer ${token}` }, payload: { name: unique('Shared ') } })
      assert.equal(res.statusCode, 201)
      return JSON.parse(res.body).id
    }))
    await r.waitFor(40, 15_000)
    await new Promise((res) => setTimeout(res, 1500))
    const ids = r.received.map((x) => x.id)
    assert.equal(ids.length, 40, `${ids.length} requests for 40 events`)
    assert.equal(new Set(ids).size, 40)
    assert.deepEqual(new Set(r.received.map((x) => x.json.data.object.id)), new Set(made))
  } finally {
    await second.close()
  }
})

test('after a rotation deliveries carry both signatures for 24 hours; after a second, the newest two', async () => {
  const o = await createOrg(t.app)
  const r = await receiver()
  const ep = await endpoint(o, r.url, ['contact.created'])
  const { secret: second } = expectStatus(await o.post(`/webhook-endpoints/${ep.id}/rotate-secret`), 200)
  await contact(o)
  const [got] = await r.waitFor(1)
  assert.equal(got.signature.split(' ').length, 2)
  assert.ok(got.signature.split(' ').every((s) => s.startsWith('v1,')))
  verify(ep.secret, got)
  verify(second, got)
  const { secret: third } = expectStatus(await o.post(`/webhook-endpoints/${ep.id}/rotate-secret`), 200)
  await contact(o)
  const got2 = (await r.waitFor(2))[1]
  verify(second, got2)
  verify(third, got2)
  assert.throws(() => verify(ep.secret, got2))
  // 24 hours later only the newest signs.
  await t.app.ctx.db.query(`UPDATE webhook_endpoints SET previous_secret_until = now() - interval '1 second' WHERE id = $1`, [ep.id])
  await contact(o)
  const got3 = (await r.waitFor(3))[2]
  assert.equal(got3.signature.split(' ').length, 1)
  verify(third, got3)
  assert.throws(() => verify(second, got3))
})

test('an endpoint failing for five days is disabled and the admins are e-mailed', async () => {
  const o = await createOrg(t.app)
  const r = await receiver(() => 500)
  const ep = await endpoint(o, r.url, ['contact.created'])
  await contact(o)
  await r.waitFor(1)
  await until(async () => (await t.app.ctx.db.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 AND failing_since IS NOT NULL', [ep.id])).rows.length > 0)
  assert.equal(expectStatus(await o.get(`/webhook-endpoints/${ep.id}`), 200).enabled, true)
  await t.app.ctx.db.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1`, [ep.id])
  await until(async () => !expectStatus(await o.get(`/webhook-endpoints/${ep.id}`), 200).enabled)
  const mail = expectStatus(await o.get('/admin/outbox'), 200).data.filter((m: any) => m.subject.includes('Webhook endpoint disabled'))
  assert.deepEqual(mail.map((m: any) => m.to), [o.adminEmail])
  // Enabled again by an admin: the five days start anew.
  expectStatus(await o.patch(`/webhook-endpoints/${ep.id}`, { enabled: true }), 200)
  assert.equal((await t.app.ctx.db.query('SELECT failing_since FROM webhook_endpoints WHERE id = $1', [ep.id])).rows[0].failing_since, null)
})
