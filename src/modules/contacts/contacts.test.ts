import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { afterTimestamp, assertOrdered, expectListQueryRules, expectPage, expectSortable, idsOf } from '../../../test/helpers/lists.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const VENDOR_FIELDS = ['paymentTerms', 'currency', 'leadTimeDays', 'minOrderQty']
const email = (label = 'c') => `${unique(label)}@example.com`

async function createContact(org: TestOrg, overrides: Record<string, unknown> = {}) {
  return expectStatus(await org.post('/contacts', { name: unique('Contact '), email: email(), ...overrides }), 201)
}

test('create answers 201 with every field, and get returns the same record', async () => {
  const org = await createOrg(t.app)
  const body = { name: 'Acme Corp', email: 'sales@acme.example', phone: '+1 555 0100', type: 'company' }
  const created = expectStatus(await org.post('/contacts', body), 201)
  assert.match(created.id, UUID)
  assert.equal(created.organizationId, org.id)
  assert.match(created.createdAt, ISO)
  assert.equal(created.updatedAt, created.createdAt)
  assert.deepEqual(
    { name: created.name, email: created.email, phone: created.phone, type: created.type, vendor: created.vendor },
    { ...body, vendor: false },
  )
  for (const f of VENDOR_FIELDS) assert.ok(!(f in created), `${f} shown on a non-vendor`)
  assert.deepEqual(expectStatus(await org.get(`/contacts/${created.id}`), 200), created)

  const minimal = expectStatus(await org.post('/contacts', { name: 'Only a name' }), 201)
  assert.deepEqual([minimal.email, minimal.phone, minimal.type, minimal.vendor], [null, null, 'company', false])
  assert.equal(expectStatus(await org.post('/contacts', { name: 'Jane', type: 'individual' }), 201).type, 'individual')
})

test('vendor fields are present only while vendor is true', async () => {
  const org = await createOrg(t.app)
  const terms = { paymentTerms: 'net 30', currency: 'eur', leadTimeDays: 7, minOrderQty: 2.5 }
  const vendor = await createContact(org, { vendor: true, ...terms })
  assert.equal(vendor.vendor, true)
  assert.deepEqual(Object.fromEntries(VENDOR_FIELDS.map((f) => [f, vendor[f]])), terms)

  const plain = await createContact(org)
  const promoted = expectStatus(await org.patch(`/contacts/${plain.id}`, { vendor: true }), 200)
  assert.deepEqual(Object.fromEntries(VENDOR_FIELDS.map((f) => [f, promoted[f]])), { paymentTerms: null, currency: null, leadTimeDays: null, minOrderQty: null })

  const demoted = expectStatus(await org.patch(`/contacts/${vendor.id}`, { vendor: false }), 200)
  for (const f of VENDOR_FIELDS) assert.ok(!(f in demoted), `${f} shown after vendor=false`)
  const listed = expectStatus(await org.get('/contacts?vendor=true'), 200).data
  assert.deepEqual(listed.map((c: { id: string }) => c.id), [plain.id])
  assert.equal(listed[0].paymentTerms, null)
})

test('address and taxId: optional, null by default, normalized, bounded; printed on the buyer block of documents', async () => {
  const org = await createOrg(t.app)
  const plain = await createContact(org)
  assert.deepEqual([plain.address, plain.taxId], [null, null])
  const address = { lines: ['Ερμού 10', ' 2nd floor '], city: 'Αθήνα', postalCode: '105 63', country: 'gr' }
  const c = await createContact(org, { address, taxId: ' EL123456789 ' })
  assert.deepEqual(c.address, { lines: ['Ερμού 10', '2nd floor'], city: 'Αθήνα', postalCode: '105 63', country: 'GR' })
  assert.equal(c.taxId, 'EL123456789')
  assert.deepEqual(expectStatus(await org.get(`/contacts/${c.id}`), 200), c)
  // The address is replaced whole; null or an empty one clears it.
  const moved = expectStatus(await org.patch(`/contacts/${c.id}`, { address: { city: 'Θεσσαλονίκη' } }), 200)
  assert.deepEqual(moved.address, { lines: [], city: 'Θεσσαλονίκη', postalCode: null, country: null })
  assert.equal(moved.taxId, 'EL123456789')
  assert.equal(expectStatus(await org.patch(`/contacts/${c.id}`, { address: {} }), 200).address, null)
  assert.deepEqual(expectStatus(await org.patch(`/contacts/${c.id}`, { address: null, taxId: null }), 200).taxId, null)
  for (const body of [
    { address: { lines: Array(5).fill('x') } }, { address: { lines: ['x'.repeat(201)] } }, { address: { city: 'x'.repeat(101) } },
    { address: { postalCode: 'x'.repeat(21) } }, { address: { country: 'GRC' } }, { address: { zip: '1' } }, { taxId: 'x'.repeat(51) },
  ]) expectStatus(await org.post('/contacts', { name: 'Bad', ...body }), 422)
})

test('patch changes only the given fields; delete answers 204 and the contact is gone', async () => {
  const org = await createOrg(t.app)
  const c = await createContact(org, { phone: '123' })
  const patched = expectStatus(await org.patch(`/contacts/${c.id}`, { name: 'Renamed', phone: null }), 200)
  assert.deepEqual({ ...patched, updatedAt: c.updatedAt }, { ...c, name: 'Renamed', phone: null })
  assert.ok(patched.updatedAt >= c.updatedAt, 'updatedAt never goes back on update')
  assert.deepEqual(expectStatus(await org.get(`/contacts/${c.id}`), 200), patched)
  // Changing the case of its own e-mail is not a duplicate of itself.
  assert.equal(expectStatus(await org.patch(`/contacts/${c.id}`, { email: c.email.toUpperCase() }), 200).email, c.email.toUpperCase())

  const del = await org.del(`/contacts/${c.id}`)
  expectStatus(del, 204)
  assert.equal(del.raw.body, '')
  expectStatus(await org.get(`/contacts/${c.id}`), 404, 'Contact not found')
  expectStatus(await org.del(`/contacts/${c.id}`), 404)
  expectStatus(await org.patch(`/contacts/${c.id}`, { name: 'Ghost' }), 404)
  expectStatus(await org.get('/contacts/00000000-0000-4000-8000-000000000000'), 404)
  expectStatus(await org.get('/contacts/not-a-uuid'), 400)
})

test('a duplicate e-mail is 409 whatever its case, on create and on patch; other organizations are independent', async () => {
  const org = await createOrg(t.app)
  const first = await createContact(org, { email: 'Dup@Example.com' })
  expectStatus(await org.post('/contacts', { name: 'Again', email: 'dup@example.COM' }), 409, 'A contact with this email already exists')
  const other = await createContact(org)
  expectStatus(await org.patch(`/contacts/${other.id}`, { email: 'DUP@example.com' }), 409)
  assert.equal(expectStatus(await org.get(`/contacts/${other.id}`), 200).email, other.email)
  // Contacts without an e-mail never collide.
  await createContact(org, { email: null })
  await createContact(org, { email: null })
  const elsewhere = await createOrg(t.app)
  assert.notEqual((await createContact(elsewhere, { email: 'dup@example.com' })).id, first.id)
})

test('20 parallel creates of one e-mail: exactly one 201, nineteen 409, one row', async () => {
  const org = await createOrg(t.app)
  const address = email('race')
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => org.post('/contacts', { name: `Racer ${i}`, email: address })))
  const statuses = results.map((r) => r.status).sort()
  assert.deepEqual(statuses, [201, ...Array(19).fill(409)])
  for (const r of results.filter((r) => r.status === 409)) expectStatus(r, 409, 'already exists')
  const listed = expectPage(await org.get(`/contacts?email=${encodeURIComponent(address)}`), { total: 1, page: 1, limit: 20 })
  assert.equal(listed[0].id, results.find((r) => r.status === 201)!.body.id)
})

test('list envelope: exact total and totalPages on every page, no overlap between pages', async () => {
  const org = await createOrg(t.app)
  const created = []
  for (let i = 0; i < 45; i++) created.push((await createContact(org)).id)
  const seen: string[] = []
  for (const page of [1, 2, 3]) seen.push(...expectPage(await org.get(`/contacts?page=${page}`), { total: 45, page, limit: 20 }).map((c) => c.id))
  assert.deepEqual(seen.sort(), [...created].sort())
  expectPage(await org.get('/contacts?page=4'), { total: 45, page: 4, limit: 20 })
  expectPage(await org.get('/contacts?limit=7&page=7'), { total: 45, page: 7, limit: 7 })
  // Default order: newest first.
  assertOrdered(expectPage(await org.get('/contacts?limit=100'), { total: 45, page: 1, limit: 100 }).map((c) => c.createdAt), 'desc')
  const empty = await createOrg(t.app)
  expectPage(await empty.get('/contacts'), { total: 0, page: 1, limit: 20 })
})

test('page, limit, sortBy, sortOrder and unknown parameters are checked (400)', async () => {
  const org = await createOrg(t.app)
  await expectListQueryRules((p) => org.get(p), '/contacts', 'phone')
  expectStatus(await org.get('/contacts?vendor=maybe'), 400)
  expectStatus(await org.get('/contacts?type=person'), 400)
})

test('sortBy name, email, createdAt and updatedAt, both ways', async () => {
  const org = await createOrg(t.app)
  const names = ['Delta', 'Alpha', 'Charlie', 'Bravo']
  const made = []
  for (const n of names) {
    if (made.length) await afterTimestamp(made.at(-1).createdAt)
    made.push(await createContact(org, { name: n, email: `${n.toLowerCase()}${unique()}@example.com` }))
  }
  // Touch Delta last, so updatedAt order differs from createdAt order.
  await afterTimestamp(made.at(-1).createdAt)
  await org.patch(`/contacts/${made[0].id}`, { phone: '1' })
  for (const field of ['name', 'email', 'createdAt', 'updatedAt']) await expectSortable((p) => org.get(p), '/contacts', field)
  const order = async (q: string) => (await org.get(`/contacts?${q}`)).body.data.map((c: { name: string }) => c.name)
  assert.deepEqual(await order('sortBy=name&sortOrder=asc'), ['Alpha', 'Bravo', 'Charlie', 'Delta'])
  assert.deepEqual(await order('sortBy=name'), ['Delta', 'Charlie', 'Bravo', 'Alpha'])
  assert.deepEqual(await order('sortBy=createdAt&sortOrder=asc'), names)
  assert.deepEqual(await order('sortBy=updatedAt&sortOrder=asc'), ['Alpha', 'Charlie', 'Bravo', 'Delta'])
})

test('search matches name or e-mail, case-insensitively, with % and _ taken literally', async () => {
  const org = await createOrg(t.app)
  const byName = await createContact(org, { name: 'Globex Industries', email: 'info@globex.example' })
  const byEmail = await createContact(org, { name: 'Hank', email: 'hank@GLOBEX-mail.example' })
  const percent = await createContact(org, { name: '100% Organic', email: null })
  const underscore = await createContact(org, { name: 'snake_case Ltd', email: null })
  await createContact(org, { name: '100 Percent', email: null })
  await createContact(org, { name: 'snakeXcase Ltd', email: null })
  const search = async (text: string) => idsOf(await org.get(`/contacts?search=${encodeURIComponent(text)}`))
  assert.deepEqual(await search('globex'), [byName.id, byEmail.id].sort())
  assert.deepEqual(await search('GLOBEX-MAIL'), [byEmail.id])
  assert.deepEqual(await search('100%'), [percent.id])
  assert.deepEqual(await search('%'), [percent.id])
  assert.deepEqual(await search('snake_'), [underscore.id])
  // Several words: the whole text is checked as one literal substring, signs included.
  assert.deepEqual(await search('100% ORG'), [percent.id])
  assert.deepEqual(await search('SNAKE_case ltd'), [underscore.id])
  assert.deepEqual(await search('nothing like this'), [])
  assert.equal(expectStatus(await org.get('/contacts?search=globex&limit=1'), 200).meta.total, 2)
})

test('a search of several words matches the whole text as one substring, not each word somewhere', async () => {
  const org = await createOrg(t.app)
  const whole = await createContact(org, { name: 'Contact 7771', email: null })
  const inMail = await createContact(org, { name: 'Someone', email: 'sales.contact-777@mail.example' })
  const accented = await createContact(org, { name: 'Société Générale Łódź', email: null })
  await createContact(org, { name: 'Contact 1777x', email: null }) // both words, not as one substring
  await createContact(org, { name: '777 Contact', email: null }) // both words, other order
  await createContact(org, { name: 'Contact', email: 'x777@mail.example' }) // one word in each field
  await createContact(org, { name: 'Contact  777', email: null }) // two spaces
  const search = async (text: string) => idsOf(await org.get(`/contacts?search=${encodeURIComponent(text)}`))
  assert.deepEqual(await search('contact 777'), [whole.id])
  assert.deepEqual(await search('CONTACT-777@mail'), [inMail.id])
  assert.deepEqual(await search('contact-777 someone'), [])
  assert.deepEqual(await search('ciété Géné'), [accented.id])
  assert.deepEqual(await search('générale łódź'), [accented.id])
  assert.deepEqual(await search('Contact 777 nothing'), [])
  const res = expectStatus(await org.get('/contacts?search=contact%20777&limit=1'), 200)
  assert.equal(res.meta.total, 1)
  assert.equal(expectStatus(await org.get('/contacts?search=Contact&limit=1'), 200).meta.total, 6)
})

test('filters: email (exact, case-insensitive), type and vendor, combinable', async () => {
  const org = await createOrg(t.app)
  const acme = await createContact(org, { email: 'buyer@acme.example' })
  await createContact(org, { email: 'buyer@acme.example.org' })
  const person = await createContact(org, { type: 'individual' })
  const vendor = await createContact(org, { vendor: true, type: 'individual' })
  const list = async (q: string) => idsOf(await org.get(`/contacts?${q}`))
  assert.deepEqual(await list('email=BUYER@acme.example'), [acme.id])
  assert.deepEqual(await list('email=buyer@acme'), [])
  assert.deepEqual(await list('type=individual'), [person.id, vendor.id].sort())
  assert.deepEqual(await list('vendor=true'), [vendor.id])
  assert.equal((await list('vendor=false')).length, 3)
  assert.deepEqual(await list('type=individual&vendor=false'), [person.id])
  assert.equal(expectStatus(await org.get('/contacts?type=individual'), 200).meta.total, 2)
})

test('bad bodies: 422 with one message per failed rule; malformed JSON is 400', async () => {
  const org = await createOrg(t.app)
  const two = expectStatus(await org.post('/contacts', { email: 'not-an-email' }), 422)
  assert.equal(two.message.length, 2, JSON.stringify(two.message))
  assert.match(two.message.join('\n'), /name is required/)
  assert.match(two.message.join('\n'), /email/)
  const cases: Array<[unknown, string]> = [
    [{ name: 'X', nickname: 'y' }, 'nickname'],
    [{ name: 'X', organizationId: org.id }, 'organizationId'],
    [{ name: 'X', createdAt: '2020-01-01T00:00:00.000Z' }, 'createdAt'],
    [{ name: 'X', id: '00000000-0000-4000-8000-000000000000' }, 'id'],
    [{ name: '' }, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: 'X', type: 'person' }, 'type'],
    [{ name: 'X', vendor: 'yes' }, 'vendor'],
    [{ name: 'X', currency: 'EUR' }, 'currency'],
    [{ name: 'X', leadTimeDays: -1 }, 'leadTimeDays'],
    [{ name: 'X', leadTimeDays: 1.5 }, 'leadTimeDays'],
    [{ name: 'X', leadTimeDays: 1e10 }, 'leadTimeDays'],
    [{ name: 'a\u0000b' }, 'NUL'],
    [[], 'object'],
  ]
  for (const [body, field] of cases) {
    const res = expectStatus(await org.post('/contacts', body), 422, field)
    assert.ok(Array.isArray(res.message), JSON.stringify(body))
  }
  const c = await createContact(org)
  for (const body of [{}, { organizationId: org.id }, { updatedAt: '2020-01-01T00:00:00.000Z' }, { email: 'nope' }]) {
    expectStatus(await org.patch(`/contacts/${c.id}`, body), 422)
  }
  assert.deepEqual(expectStatus(await org.get(`/contacts/${c.id}`), 200), c)

  const headers = { 'content-type': 'application/json' }
  expectStatus(await call(t.app, 'POST', '/contacts', { token: org.token, body: '{"name": "x",', headers }), 400, 'Malformed JSON')
  expectStatus(await call(t.app, 'PATCH', `/contacts/${c.id}`, { token: org.token, body: '{name: x}', headers }), 400)
  expectStatus(await org.get('/contacts?search=a%00b'), 400, 'NUL')
  assert.equal(expectStatus(await org.get('/contacts'), 200).meta.total, 1)
})

test('401 without a valid credential, 403 for roles outside admin and member', async () => {
  const org = await createOrg(t.app)
  const c = await createContact(org)
  for (const [method, path] of [['GET', '/contacts'], ['POST', '/contacts'], ['GET', `/contacts/${c.id}`], ['PATCH', `/contacts/${c.id}`], ['DELETE', `/contacts/${c.id}`]] as const) {
    const body = method === 'POST' || method === 'PATCH' ? { name: 'X' } : undefined
    expectStatus(await call(t.app, method, path, { body }), 401)
    expectStatus(await call(t.app, method, path, { body, token: 'not-a-token' }), 401)
    for (const role of ['customer', 'support', 'agent'] as const) {
      expectStatus(await call(t.app, method, path, { body, token: await org.as(role) }), 403)
    }
  }
  assert.equal(expectStatus(await org.get(`/contacts/${c.id}`), 200).name, c.name)
  const member = await org.as('member')
  expectStatus(await org.post('/contacts', { name: 'By member' }, member), 201)
  expectStatus(await org.get('/contacts', member), 200)
})

test("another organization's contact is 404 on get, patch and delete, and never listed", async () => {
  const owner = await createOrg(t.app)
  const stranger = await createOrg(t.app)
  const c = await createContact(owner)
  expectStatus(await stranger.get(`/contacts/${c.id}`), 404)
  expectStatus(await stranger.patch(`/contacts/${c.id}`, { name: 'Hijacked' }), 404)
  expectStatus(await stranger.del(`/contacts/${c.id}`), 404)
  expectPage(await stranger.get('/contacts'), { total: 0, page: 1, limit: 20 })
  expectPage(await stranger.get(`/contacts?email=${encodeURIComponent(c.email)}`), { total: 0, page: 1, limit: 20 })
  assert.deepEqual(expectStatus(await owner.get(`/contacts/${c.id}`), 200), c)
})

test('the contact.created event, written in the same statement as the contact, carries the contact exactly as the response and GET give it', async () => {
  const org = await createOrg(t.app)
  const bodies = [
    { name: 'Plain', email: email('plain') },
    { name: '  Spaced  ', email: email('vendor'), type: 'individual', vendor: true, paymentTerms: 'net 30', currency: 'eur', leadTimeDays: 7, minOrderQty: 2.5, taxId: '  FR123  ', address: { lines: [' 1 Rue X ', '  '], city: ' Paris ', postalCode: '75001', country: 'fr' } },
    { name: 'Ünïcødé 東京', phone: '+33 1', address: { lines: [] } },
  ]
  for (const body of bodies) {
    const created = expectStatus(await org.post('/contacts', body), 201)
    const events = expectStatus(await org.get(`/events?resourceId=${created.id}`), 200).data
    assert.deepEqual(events.map((e: any) => e.type), ['contact.created'])
    assert.deepEqual(events[0].data.object, created)
    assert.deepEqual(expectStatus(await org.get(`/contacts/${created.id}`), 200), created)
  }
  // A create that fails writes neither the contact nor an event.
  const before = expectStatus(await org.get('/events?type=contact.created'), 200).meta.total
  expectStatus(await org.post('/contacts', { name: 'Twin', email: bodies[0].email!.toUpperCase() }), 409)
  assert.equal(expectStatus(await org.get('/events?type=contact.created'), 200).meta.total, before)
  assert.equal(expectStatus(await org.get('/contacts'), 200).meta.total, bodies.length)
})
