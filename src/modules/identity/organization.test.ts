import assert from 'node:assert/strict'
import { deflateSync } from 'node:zlib'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { makePng, SAMPLE_JPEG_BASE64, sampleLogo } from '../../../test/helpers/pdf.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const ROLES = ['admin', 'support', 'agent', 'member', 'customer'] as const
const PROFILE = {
  name: 'Łódź Trading',
  legalName: 'Łódź Trading Sp. z o.o.',
  address: { lines: ['ul. Piotrkowska 104', 'Building B'], city: 'Łódź', postalCode: '90-926', country: 'pl' },
  taxId: 'PL7251234567',
  email: 'billing@lodz-trading.example',
  phone: '+48 42 123 45 67',
  paymentInstructions: 'IBAN PL61 1090 1014 0000 0712 1981 2874',
}

test('a new organization has a profile of its name alone; every role reads it', async () => {
  const org = await createOrg(t.app, 'Fresh Profile Ltd')
  const profile = expectStatus(await org.get('/organization'), 200)
  assert.deepEqual({ ...profile, createdAt: undefined, updatedAt: undefined }, {
    id: org.id, name: 'Fresh Profile Ltd', legalName: null, address: null, taxId: null, email: null, phone: null,
    logo: null, paymentInstructions: null, lockDate: null, createdAt: undefined, updatedAt: undefined,
  })
  for (const role of ROLES) assert.deepEqual(expectStatus(await org.get('/organization', await org.as(role)), 200), profile, role)
  expectStatus(await call(t.app, 'GET', '/organization'), 401)
  expectStatus(await call(t.app, 'PATCH', '/organization', { body: { name: 'x' } }), 401)
})

test('an admin updates the profile; other roles get 403 and change nothing', async () => {
  const org = await createOrg(t.app)
  const updated = expectStatus(await org.patch('/organization', PROFILE), 200)
  assert.deepEqual(
    { ...updated, createdAt: undefined, updatedAt: undefined },
    { id: org.id, ...PROFILE, address: { ...PROFILE.address, country: 'PL' }, logo: null, lockDate: null, createdAt: undefined, updatedAt: undefined },
  )
  assert.deepEqual(expectStatus(await org.get('/organization'), 200), updated)
  // The new name is the organization's name everywhere.
  assert.equal(expectStatus(await org.get('/auth/me'), 200).organization.name, 'Łódź Trading')

  for (const role of ['support', 'agent', 'member', 'customer'] as const) {
    expectStatus(await org.patch('/organization', { legalName: 'Hijacked' }, await org.as(role)), 403)
  }
  assert.deepEqual(expectStatus(await org.get('/organization'), 200), updated)

  // Only the fields sent change; null clears; the address is replaced whole.
  const patched = expectStatus(await org.patch('/organization', { phone: null, address: { city: 'Warszawa' } }), 200)
  assert.equal(patched.phone, null)
  assert.deepEqual(patched.address, { lines: [], city: 'Warszawa', postalCode: null, country: null })
  assert.equal(patched.taxId, PROFILE.taxId)
  assert.equal(expectStatus(await org.patch('/organization', { address: {}, legalName: '  ' }), 200).address, null, 'an empty address is none')
  assert.equal(expectStatus(await org.get('/organization'), 200).legalName, null, 'a blank text is none')
})

test('validation: every string is bounded, the body is checked whole (422)', async () => {
  const org = await createOrg(t.app)
  const long = (n: number) => 'x'.repeat(n)
  const bad: Array<[Record<string, unknown>, string | RegExp]> = [
    [{}, /fewer than 1|minProperties|at least/i],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name must not be blank'],
    [{ name: long(201) }, 'name'],
    [{ legalName: long(201) }, 'legalName'],
    [{ taxId: long(51) }, 'taxId'],
    [{ email: 'not an e-mail' }, 'email'],
    [{ phone: long(51) }, 'phone'],
    [{ paymentInstructions: long(2001) }, 'paymentInstructions'],
    [{ address: { lines: ['1', '2', '3', '4', '5'] } }, 'lines'],
    [{ address: { lines: [long(201)] } }, 'lines'],
    [{ address: { city: long(101) } }, 'city'],
    [{ address: { postalCode: long(21) } }, 'postalCode'],
    [{ address: { country: 'Poland' } }, 'country'],
    [{ address: { street: 'Main St' } }, /street|additional/],
    [{ organizationId: org.id }, /organizationId|additional/],
  ]
  for (const [body, message] of bad) expectStatus(await org.patch('/organization', body), 422, message)
  const profile = expectStatus(await org.get('/organization'), 200)
  assert.equal(profile.legalName, null)
})

test('logo: PNG or JPEG by its first bytes, served at /organization/logo; anything else is refused (422)', async () => {
  const org = await createOrg(t.app)
  const png = sampleLogo(120, 40)
  const withLogo = expectStatus(await org.patch('/organization', { logo: png.toString('base64') }), 200)
  assert.deepEqual(withLogo.logo, { contentType: 'image/png', size: png.length, width: 120, height: 40, url: '/api/organization/logo' })
  for (const role of ROLES) {
    const res = await call(t.app, 'GET', '/organization/logo', { token: await org.as(role) })
    assert.equal(res.status, 200, role)
    assert.equal(res.headers['content-type'], 'image/png')
    assert.ok(res.raw.rawPayload.equals(png), 'the logo comes back as sent')
  }

  // A data: URL works too, and a JPEG is a JPEG whatever the URL claims.
  const jpeg = Buffer.from(SAMPLE_JPEG_BASE64, 'base64')
  const asJpeg = expectStatus(await org.patch('/organization', { logo: `data:image/png;base64,${SAMPLE_JPEG_BASE64}` }), 200)
  assert.deepEqual(asJpeg.logo, { contentType: 'image/jpeg', size: jpeg.length, width: 72, height: 24, url: '/api/organization/logo' })
  const res = await org.get('/organization/logo')
  assert.equal(res.headers['content-type'], 'image/jpeg')
  assert.ok(res.raw.rawPayload.equals(jpeg))

  const refused: Array<[string, string | RegExp]> = [
    ['not base64 at all!', 'base64'],
    [Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1').toString('base64'), 'PNG or JPEG'],
    [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64'), 'PNG or JPEG'],
    [Buffer.concat([png.subarray(0, 8), Buffer.from('garbage after a PNG signature')]).toString('base64'), 'not a readable PNG'],
    // Chunks in order, but the image data is no zlib stream: pdfkit would throw out of reach while drawing it.
    [corruptPng().toString('base64'), 'not a readable PNG'],
    [Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0, 0, 0]).toString('base64'), 'not a readable JPEG'],
    [Buffer.concat([png, Buffer.alloc(257 * 1024)]).toString('base64'), /larger than 256 KiB|must NOT have more than/],
    ['', /empty|fewer than/],
  ]
  for (const [logo, message] of refused) expectStatus(await org.patch('/organization', { logo }), 422, message)
  expectStatus(await org.patch('/organization', { logo: makePng(2001, 1, () => [0, 0, 0, 255]).toString('base64') }), 422, '2001 x 1 pixels')
  assert.equal(expectStatus(await org.get('/organization'), 200).logo.contentType, 'image/jpeg', 'a refused logo leaves the one before')

  assert.equal(expectStatus(await org.patch('/organization', { logo: null }), 200).logo, null)
  expectStatus(await org.get('/organization/logo'), 404)
})

test("tenancy: an organization never sees another's profile or logo", async () => {
  const a = await createOrg(t.app)
  const b = await createOrg(t.app)
  expectStatus(await a.patch('/organization', { ...PROFILE, name: 'Alpha Secret Ltd', logo: sampleLogo().toString('base64') }), 200)
  const theirs = expectStatus(await b.get('/organization'), 200)
  assert.equal(theirs.id, b.id)
  const text = JSON.stringify(theirs)
  for (const secret of ['Alpha Secret Ltd', PROFILE.legalName, PROFILE.taxId, PROFILE.paymentInstructions, a.id]) assert.ok(!text.includes(secret), secret)
  expectStatus(await b.get('/organization/logo'), 404)
  // B's changes stay B's.
  expectStatus(await b.patch('/organization', { taxId: 'B-ONLY' }), 200)
  assert.equal(expectStatus(await a.get('/organization'), 200).taxId, PROFILE.taxId)
})

/** A PNG whose chunks are well formed but whose image data is not deflate. */
function corruptPng() {
  const good = makePng(4, 4, () => [255, 0, 0, 255])
  const idat = good.indexOf('IDAT')
  const length = good.readUInt32BE(idat - 4)
  const out = Buffer.from(good)
  out.fill(0x55, idat + 4, idat + 4 + length)
  assert.notDeepEqual(out.subarray(idat + 4, idat + 4 + length), deflateSync(Buffer.alloc(0)))
  return out
}
