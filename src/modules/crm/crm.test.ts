import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { captureLead, createContact } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const tokenOf = async (o: TestOrg) => expectStatus(await o.get('/crm/capture-settings'), 200).captureToken as string
const capture = (body: unknown, headers: Record<string, string> = {}) => call(t.app, 'POST', '/crm/capture', { body, headers })

describe('capture settings', () => {
  test('an admin reads the token (stable) and rotates it; the old one stops working', async () => {
    const settings = expectStatus(await org.get('/crm/capture-settings'), 200)
    assert.match(settings.captureToken, /^cap_[A-Za-z0-9_-]{24}$/)
    assert.equal(settings.endpoint, '/api/crm/capture')
    assert.equal((await org.get('/crm/capture-settings')).body.captureToken, settings.captureToken)
    const rotated = expectStatus(await org.post('/crm/capture-settings/rotate'), 200)
    assert.notEqual(rotated.captureToken, settings.captureToken)
    expectStatus(await capture({ captureToken: settings.captureToken, name: 'Old', email: 'old@example.com' }), 404, 'Capture token not found')
    expectStatus(await capture({ captureToken: rotated.captureToken, name: 'New', email: 'new@example.com' }), 201)
  })

  test('only admins see or rotate the token', async () => {
    expectStatus(await org.get('/crm/capture-settings', await org.as('member')), 403)
    expectStatus(await org.post('/crm/capture-settings/rotate', {}, await org.as('member')), 403)
    expectStatus(await call(t.app, 'GET', '/crm/capture-settings'), 401)
  })
})

describe('POST /crm/capture (public)', () => {
  test('201 without a credential; the lead appears for its organization only', async () => {
    const token = await tokenOf(org)
    const res = expectStatus(await capture({ captureToken: token, name: 'Lia Lead', email: 'lia@prospect.test', phone: '+1 555', company: 'Prospect Co', message: 'Call me', source: 'website' }), 201)
    assert.deepEqual(Object.keys(res).sort(), ['id', 'receivedAt'])
    const lead = expectStatus(await org.get(`/crm/leads/${res.id}`), 200)
    assert.deepEqual(
      [lead.status, lead.name, lead.email, lead.phone, lead.company, lead.message, lead.source, lead.contactId, lead.convertedAt, lead.organizationId],
      ['new', 'Lia Lead', 'lia@prospect.test', '+1 555', 'Prospect Co', 'Call me', 'website', null, null, org.id],
    )
    const other = await createOrg(t.app)
    expectStatus(await other.get(`/crm/leads/${res.id}`), 404, 'Lead not found')
    assert.equal((await other.get('/crm/leads')).body.meta.total, 0)
  })

  test('422 for missing or bad fields; unknown token 404', async () => {
    const token = await tokenOf(org)
    expectStatus(await capture({ captureToken: token, name: 'X' }), 422, 'email is required')
    expectStatus(await capture({ captureToken: token, name: 'X', email: 'not-an-email' }), 422, 'email')
    expectStatus(await capture({ captureToken: token, name: 'X', email: 'x@example.com', website: 'spam' }), 422, 'website is not allowed')
    expectStatus(await capture({ name: 'X', email: 'x@example.com' }), 422, 'captureToken is required')
    expectStatus(await capture({ captureToken: 'cap_unknown', name: 'X', email: 'x@example.com' }), 404, 'Capture token not found')
  })
})

describe('leads', () => {
  test('list with status, from/to and search; sortable by createdAt, name, email', async () => {
    const o = await createOrg(t.app)
    const a = await captureLead(o, { name: 'Anna', email: 'anna@alpha.test', company: 'Alpha' })
    const b = await captureLead(o, { name: 'Ben', email: 'ben@beta.test' })
    const ids = (res: any) => res.body.data.map((l: any) => l.id)
    const list = expectStatus(await o.get('/crm/leads'), 200)
    assert.deepEqual(list.meta, { total: 2, page: 1, limit: 20, totalPages: 1, nextCursor: null })
    assert.deepEqual(ids(await o.get('/crm/leads')), [b.id, a.id])
    assert.deepEqual(ids(await o.get('/crm/leads?sortBy=name&sortOrder=asc')), [a.id, b.id])
    assert.deepEqual(ids(await o.get('/crm/leads?sortBy=email&sortOrder=desc')), [b.id, a.id])
    assert.deepEqual(ids(await o.get('/crm/leads?search=alpha')), [a.id])
    expectStatus(await o.post(`/crm/leads/${b.id}/convert`), 200)
    assert.deepEqual(ids(await o.get('/crm/leads?status=new')), [a.id])
    assert.deepEqual(ids(await o.get('/crm/leads?status=converted')), [b.id])
    const today = new Date().toISOString().slice(0, 10)
    assert.equal((await o.get(`/crm/leads?from=${today}&to=${today}`)).body.meta.total, 2)
    assert.equal((await o.get('/crm/leads?to=2001-01-01')).body.meta.total, 0)
    expectStatus(await o.get('/crm/leads?status=lost'), 400)
    expectStatus(await o.get('/crm/leads?sortBy=phone'), 400)
    expectStatus(await o.get('/crm/leads', await o.as('customer')), 403)
  })

  test('convert creates the contact, or links the one with the same e-mail; twice is 409', async () => {
    const lead = await captureLead(org, { name: 'Conor Convert', email: 'conor@convert.test', phone: '123' })
    const converted = expectStatus(await org.post(`/crm/leads/${lead.id}/convert`), 200)
    assert.equal(converted.status, 'converted')
    assert.ok(converted.convertedAt)
    const contact = expectStatus(await org.get(`/contacts/${converted.contactId}`), 200)
    assert.deepEqual([contact.name, contact.email, contact.phone], ['Conor Convert', 'conor@convert.test', '123'])
    expectStatus(await org.post(`/crm/leads/${lead.id}/convert`), 409, 'Lead already converted')

    const known = await createContact(org, { email: 'known@convert.test' })
    const again = await captureLead(org, { email: 'KNOWN@convert.test' })
    assert.equal(expectStatus(await org.post(`/crm/leads/${again.id}/convert`), 200).contactId, known.id)
  })

  test('parallel conversions of one lead: one 200, the others 409, one contact', async () => {
    const lead = await captureLead(org, { email: 'race@convert.test' })
    const results = await Promise.all([1, 2, 3].map(() => org.post(`/crm/leads/${lead.id}/convert`)))
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409])
    assert.equal((await org.get('/contacts?email=race@convert.test')).body.meta.total, 1)
  })

  test('delete is 204, then 404', async () => {
    const lead = await captureLead(org)
    assert.equal((await org.del(`/crm/leads/${lead.id}`)).status, 204)
    expectStatus(await org.get(`/crm/leads/${lead.id}`), 404)
    expectStatus(await org.del(`/crm/leads/${lead.id}`), 404)
  })
})

describe('rate limit', () => {
  test('10 captures per minute per IP, then 429 with the throttler message', async () => {
    const limited = await buildTestApp({ RATE_LIMIT: 'on' })
    try {
      const o = await createOrg(limited.app)
      const token = await tokenOf(o)
      const post = (ip: string, n: number) => limited.app.inject({
        method: 'POST', url: '/api/crm/capture', remoteAddress: ip,
        payload: { captureToken: token, name: 'Flood', email: `flood${n}@example.com` },
      })
      for (let n = 0; n < 10; n++) {
        const res = await post('203.0.113.7', n)
        assert.equal(res.statusCode, 201, res.body)
        assert.equal(res.headers['x-ratelimit-limit'], '10')
      }
      const refused = await post('203.0.113.7', 10)
      assert.equal(refused.statusCode, 429)
      assert.equal(JSON.parse(refused.body).message, 'ThrottlerException: Too Many Requests')
      assert.equal((await post('198.51.100.2', 11)).statusCode, 201, 'another IP has its own budget')
    } finally {
      await limited.close()
    }
  })
})
