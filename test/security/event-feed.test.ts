// Security review, issue 24, finding 5: a member (403 on /admin/licenses) read
// every customer's licence key in GET /events?type=license.activated and used
// it to get an offline token. docs/webhooks.md "The event object": in GET /events and
// GET /events/:id a member reads licence objects with `key` null; admins read
// it; webhook deliveries (configured only by admins) carry it.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'
import { clientCall, clientRequest, createCustomer, createLicensedProduct, issueLicense } from '../helpers/licenses.ts'
import { startReceiver, type Receiver } from '../helpers/webhooks.ts'

const LICENSE_TYPES = ['license.created', 'license.activated', 'license.deactivated', 'license.suspended', 'license.reinstated', 'license.revoked']

let t: TestApp
let o: TestOrg
let member: string
let receiver: Receiver
let license: { id: string; key: string }

before(async () => {
  t = await buildTestApp({ JOBS: 'on', WEBHOOK_RETRY_DELAYS: '0.2' })
  o = await createOrg(t.app)
  member = await o.as('member')
  receiver = await startReceiver()
  expectStatus(await o.post('/webhook-endpoints', { url: receiver.url, enabledEvents: LICENSE_TYPES }), 201)
  // One event of every licence type, for one licence.
  const product = await createLicensedProduct(o)
  const customer = await createCustomer(t.app, o)
  license = await issueLicense(o, { productId: product.id, userId: customer.id, activationsLimit: 2 })
  const req = clientRequest(license.key, product, 'shop.example.com')
  expectStatus(await clientCall(t.app, 'activate', req), 200)
  expectStatus(await clientCall(t.app, 'deactivate', req), 200)
  for (const action of ['suspend', 'reinstate', 'revoke']) expectStatus(await o.post(`/admin/licenses/${license.id}/${action}`), 200)
})
after(async () => {
  await receiver?.close()
  await t?.close()
})

/** Every event of the licence, oldest first, as the caller reads GET /events. */
const licenseEvents = async (token: string) =>
  expectStatus(await o.get(`/events?resourceId=${license.id}&sortOrder=asc&limit=100`, token), 200).data as any[]

test('GET /events: a member reads every licence event type with key null; an admin reads the key', async () => {
  const asAdmin = await licenseEvents(o.token)
  const asMember = await licenseEvents(member)
  assert.deepEqual(asAdmin.map((e) => e.type), LICENSE_TYPES)
  assert.deepEqual(asMember.map((e) => e.type), LICENSE_TYPES)
  for (const e of asAdmin) assert.equal(e.data.object.key, license.key, e.type)
  for (const [i, e] of asMember.entries()) {
    // The member's event is the admin's, with the key (and only the key) null.
    assert.deepEqual(e, { ...asAdmin[i], data: { object: { ...asAdmin[i].data.object, key: null } } }, e.type)
  }
  // Filtered by type, as in the finding (GET /events?type=license.activated).
  for (const type of LICENSE_TYPES) {
    const admin = expectStatus(await o.get(`/events?type=${type}`), 200).data
    const mine = expectStatus(await o.get(`/events?type=${type}`, member), 200).data
    assert.deepEqual(admin.map((e: any) => e.data.object.key), [license.key], type)
    assert.deepEqual(mine.map((e: any) => e.data.object.key), [null], type)
  }
})

test('GET /events/:id: a member reads a licence event with key null; an admin reads the key', async () => {
  for (const e of await licenseEvents(o.token)) {
    const admin = expectStatus(await o.get(`/events/${e.id}`), 200)
    const mine = expectStatus(await o.get(`/events/${e.id}`, member), 200)
    assert.equal(admin.data.object.key, license.key, e.type)
    assert.deepEqual(mine, { ...admin, data: { object: { ...admin.data.object, key: null } } }, e.type)
  }
})

test('GET /events followed by cursor: no page a member reads carries a licence key', async () => {
  let res = expectStatus(await o.get('/events?limit=2', member), 200)
  const seen: any[] = []
  for (;;) {
    seen.push(...res.data)
    assert.equal(JSON.stringify(res).includes(license.key), false, 'a page carries the key')
    if (!res.meta.nextCursor) break
    res = expectStatus(await o.get(`/events?limit=2&cursor=${encodeURIComponent(res.meta.nextCursor)}`, member), 200)
    assert.equal(res.meta.page, null)
  }
  const licenceEvents = seen.filter((e) => e.type.startsWith('license.'))
  assert.equal(licenceEvents.length, LICENSE_TYPES.length)
  for (const e of licenceEvents) assert.equal(e.data.object.key, null, e.type)
  // The admin's cursor pages carry it.
  const first = expectStatus(await o.get(`/events?limit=2&type=license.revoked`), 200)
  assert.equal(first.data[0].data.object.key, license.key)
})

test('webhook deliveries (configured by admins) carry the licence key', async () => {
  const got = await receiver.waitFor(LICENSE_TYPES.length)
  const byType = new Map(got.map((r) => [r.json.type, r.json.data.object]))
  assert.deepEqual([...byType.keys()].sort(), [...LICENSE_TYPES].sort())
  for (const type of LICENSE_TYPES) assert.equal(byType.get(type).key, license.key, type)
})
