// GET /events and GET /events/:id (docs/webhooks.md "The event feed",
// docs/platform.md "Cursor pagination"), event types declared by a module the webhooks module
// does not know, and the refusal of endpoints that point inside the network.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { Type } from 'typebox'
import { buildTestApp, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { clientCall, clientRequest, createCustomer, createLicensedProduct, issueLicense } from '../../../test/helpers/licenses.ts'
import { startReceiver } from '../../../test/helpers/webhooks.ts'
import { Named } from '../../core/schemas.ts'
import { isForbiddenAddress, publicLookup } from './url-safety.lib.ts'
import { secretContext } from './webhooks.service.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp({ JOBS: 'on', WEBHOOK_RETRY_DELAYS: '0.2' })
})
after(() => t.close())

const contact = async (o: TestOrg, name = unique('Contact ')) => expectStatus(await o.post('/contacts', { name }), 201)

test('GET /events: filters type, resourceId, from, to; sortOrder; admin and member; 30 days; no internal types', async () => {
  const o = await createOrg(t.app)
  const a = await contact(o)
  const b = await contact(o)
  expectStatus(await o.patch(`/contacts/${a.id}`, { name: 'A2' }), 200)
  const all = expectStatus(await o.get('/events'), 200)
  assert.deepEqual(all.data.map((e: any) => [e.type, e.data.object.id]), [['contact.updated', a.id], ['contact.created', b.id], ['contact.created', a.id]])
  assert.equal(all.meta.total, 3)
  for (const e of all.data) assert.deepEqual(Object.keys(e).sort(), ['createdAt', 'data', 'id', 'type'])
  assert.deepEqual(expectStatus(await o.get('/events?sortOrder=asc'), 200).data.map((e: any) => e.id), all.data.map((e: any) => e.id).reverse())
  assert.deepEqual(expectStatus(await o.get('/events?type=contact.created'), 200).data.map((e: any) => e.data.object.id), [b.id, a.id])
  assert.deepEqual(expectStatus(await o.get(`/events?resourceId=${a.id}`), 200).data.map((e: any) => e.type), ['contact.updated', 'contact.created'])
  assert.equal(expectStatus(await o.get('/events?type=invoice.paid'), 200).meta.total, 0)
  const today = new Date().toISOString().slice(0, 10)
  assert.equal(expectStatus(await o.get(`/events?from=${today}&to=${today}`), 200).meta.total, 3)
  assert.equal(expectStatus(await o.get(`/events?to=${all.data[1].createdAt}`), 200).meta.total, 2)
  assert.equal(expectStatus(await o.get(`/events?from=${all.data[1].createdAt}`), 200).meta.total, 2)
  assert.equal(expectStatus(await o.get('/events?from=2000-01-01&to=2000-01-02'), 200).meta.total, 0)
  expectStatus(await o.get('/events?from=2026-01-02&to=2026-01-01'), 422)
  expectStatus(await o.get('/events?sortBy=type'), 400)
  expectStatus(await o.get('/events?type=Invoice%20Paid'), 400)
  // A type that is not declared is 400 naming the declared ones, not an empty list (ping is declared: webhooks.test.ts).
  expectStatus(await o.get('/events?type=invoice.exploded'), 400, /type must be one of: .*contact\.created/)

  const member = await o.as('member')
  assert.equal(expectStatus(await o.get('/events', member), 200).meta.total, 3)
  expectStatus(await o.get(`/events/${all.data[0].id}`, member), 200)
  expectStatus(await o.get('/events', await o.as('customer')), 403)

  // An internal type (not declared by any module) is neither listed nor found.
  const internal = await t.app.ctx.db.tx((q) => t.app.ctx.events.append(q, { organizationId: o.id, type: 'thing.happened', resource: { type: 'thing', id: a.id }, object: { id: a.id } }))
  expectStatus(await o.get(`/events/${internal.id}`), 404)
  assert.equal(expectStatus(await o.get('/events'), 200).meta.total, 3)
  // 30 days: an older event is gone from the feed.
  await t.app.ctx.db.query(`UPDATE domain_events SET created_at = now() - interval '31 days' WHERE id = $1`, [all.data[2].id])
  expectStatus(await o.get(`/events/${all.data[2].id}`), 404)
  assert.equal(expectStatus(await o.get('/events'), 200).meta.total, 2)
  // Another organization sees none of them.
  const stranger = await createOrg(t.app)
  expectStatus(await stranger.get(`/events/${all.data[0].id}`), 404)
  assert.equal(expectStatus(await stranger.get('/events'), 200).meta.total, 0)
  expectStatus(await o.get('/events/evt_00000000000000000000000000000000'), 404)
  // Any id of the contract's shape (evt_ and 26 or more letters and digits) that does not exist is 404.
  expectStatus(await o.get('/events/evt_409e6c4f466da3d5efca8244d9'), 404)
  expectStatus(await o.get('/events/evt_AbCdEfGhIjKlMnOpQrStUvWxYz0123'), 404)
  expectStatus(await o.get('/events/not-an-event'), 400)
  expectStatus(await o.get('/events/evt_409e6c4f466da3d5efca8244d'), 400, 'id must match pattern')
  expectStatus(await o.get('/events/evt_409e6c4f466da3d5efca8244d9-'), 400, 'id must match pattern')
})

test('following nextCursor of /events never skips or repeats an event while events are appended', async () => {
  const o = await createOrg(t.app)
  for (let i = 0; i < 17; i++) await contact(o)
  const before = expectStatus(await o.get('/events?limit=100&sortOrder=asc'), 200).data.map((e: any) => e.id)
  for (const order of ['asc', 'desc']) {
    const seen: string[] = []
    let res = expectStatus(await o.get(`/events?limit=5&sortOrder=${order}`), 200)
    for (;;) {
      seen.push(...res.data.map((e: any) => e.id))
      if (!res.meta.nextCursor) break
      await contact(o)
      await contact(o)
      res = expectStatus(await o.get(`/events?limit=5&sortOrder=${order}&cursor=${encodeURIComponent(res.meta.nextCursor)}`), 200)
      assert.equal(res.meta.page, null)
    }
    assert.equal(new Set(seen).size, seen.length, `repeated (${order})`)
    for (const id of before) assert.ok(seen.includes(id), `skipped ${id} (${order})`)
  }
  expectStatus(await o.get('/events?limit=5&type=contact.created&cursor=' + encodeURIComponent(expectStatus(await o.get('/events?limit=5'), 200).meta.nextCursor)), 400)
})

test('a type declared by another module (one built later) is subscribable, delivered and listed without touching this module', async () => {
  const Widget = Named('WebhookTestWidget', Type.Object({ id: Type.String(), size: Type.Integer() }))
  t.app.ctx.events.declare([{ type: 'widget.made', version: 1, object: Widget, description: 'A widget was made (test module).' }])
  assert.throws(() => t.app.ctx.events.declare([{ type: 'widget.made', version: 1, object: Widget, description: 'again' }]), /declared twice/)
  const o = await createOrg(t.app)
  const r = await startReceiver()
  try {
    expectStatus(await o.post('/webhook-endpoints', { url: r.url, enabledEvents: ['widget.made'] }), 201)
    const id = crypto.randomUUID()
    const appended = await t.app.ctx.db.tx((q) => t.app.ctx.events.append(q, { organizationId: o.id, type: 'widget.made', resource: { type: 'widget', id }, object: { id, size: 3 } }))
    const [got] = await r.waitFor(1)
    assert.deepEqual(got.json, { id: appended.id, type: 'widget.made', createdAt: appended.createdAt, data: { object: { id, size: 3 } } })
    assert.deepEqual(expectStatus(await o.get('/events?type=widget.made'), 200).data.map((e: any) => e.id), [appended.id])
  } finally {
    await r.close()
  }
})

test('addresses that are not public unicast are forbidden, whatever their spelling', () => {
  for (const a of ['127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '::1', '::', 'fd00::1', 'fc12::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1', 'not-an-ip']) {
    assert.equal(isForbiddenAddress(a), true, a)
  }
  for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isForbiddenAddress(a), false, a)
})

test('the connection lookup refuses a name that resolves to loopback (DNS rebinding at delivery)', async () => {
  const err = await new Promise<Error | null>((resolve) => publicLookup('localhost', {}, (e) => resolve(e)))
  assert.match(String(err?.message), /^url host localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/)
})

test('outside the test environment: private, loopback, link-local and unique-local targets are refused at creation and at delivery', async () => {
  const live = await buildTestApp({ API_ENV: 'live', JOBS: 'on', WEBHOOK_RETRY_DELAYS: '0.1' })
  const r = await startReceiver()
  try {
    const o = await createOrg(live.app)
    const port = new URL(r.url).port
    for (const url of [`https://127.0.0.1:${port}/x`, 'https://localhost/x', 'https://[::1]/x', 'https://10.1.2.3/x', 'https://192.168.0.10/x',
      'https://169.254.169.254/latest/meta-data', 'https://[fd00::1]/x', 'https://[fe80::1]/x', 'https://[::ffff:127.0.0.1]/x', `http://127.0.0.1:${port}/x`, 'https://name.invalid/x']) {
      const res = await o.post('/webhook-endpoints', { url, enabledEvents: ['*'] })
      expectStatus(res, 422)
    }
    // An endpoint whose address turned private after creation (rebinding): the delivery is refused at connect time.
    for (const url of [`https://127.0.0.1:${port}/x`, `https://localhost:${port}/x`]) {
      const id = randomUUID()
      const { rows } = await live.app.ctx.db.query<{ id: string }>(
        `INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret) VALUES ($1, $2, $3, ARRAY['*'], $4) RETURNING id`,
        [id, o.id, url, live.app.ctx.secrets.seal(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, secretContext(id))],
      )
      const ping = expectStatus(await o.post(`/webhook-endpoints/${rows[0].id}/test`), 202)
      let d: any
      for (let i = 0; i < 100; i++) {
        d = expectStatus(await o.get(`/webhook-endpoints/${rows[0].id}/deliveries`), 200).data.find((x: any) => x.id === ping.id)
        if (d.status === 'failed') break
        await new Promise((res) => setTimeout(res, 50))
      }
      assert.deepEqual([d.status, d.attempts, d.lastResponseStatus], ['failed', 2, null])
    }
    assert.equal(r.received.length, 0)
  } finally {
    await r.close()
    await live.close()
  }
})

test('licenses append license.created, activated, deactivated, suspended, reinstated and revoked, with the license as GET /licenses lists it', async () => {
  const o = await createOrg(t.app)
  const product = await createLicensedProduct(o)
  const customer = await createCustomer(t.app, o)
  const l = await issueLicense(o, { productId: product.id, userId: customer.id, activationsLimit: 2 })
  const req = clientRequest(l.key, product, 'shop.example.com')
  expectStatus(await clientCall(t.app, 'activate', req), 200)
  // Activating a domain already bound changes nothing: no event.
  expectStatus(await clientCall(t.app, 'activate', req), 200)
  expectStatus(await clientCall(t.app, 'deactivate', req), 200)
  for (const action of ['suspend', 'reinstate', 'revoke']) expectStatus(await o.post(`/admin/licenses/${l.id}/${action}`), 200)
  const events = expectStatus(await o.get(`/events?resourceId=${l.id}&sortOrder=asc`), 200).data
  assert.deepEqual(events.map((e: any) => [e.type, e.data.object.status, e.data.object.activationsCount]), [
    ['license.created', 'active', 0],
    ['license.activated', 'active', 1],
    ['license.deactivated', 'active', 0],
    ['license.suspended', 'suspended', 0],
    ['license.reinstated', 'active', 0],
    ['license.revoked', 'revoked', 0],
  ])
  const listed = expectStatus(await o.get('/licenses', customer.token), 200)
  assert.deepEqual(events.at(-1).data.object, listed.find((x: any) => x.id === l.id))
})
