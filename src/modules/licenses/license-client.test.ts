import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { serviceSignature } from './license-client.signature.ts'
import { OfflineTokenSigner } from './license-tokens.signature.ts'
import { adminUserId, clientCall, clientRequest, createCustomer, createLicensedProduct, issueLicense, type Customer, type LicensedProduct } from '../../../test/helpers/licenses.ts'

let t: TestApp
let org: TestOrg
let other: TestOrg
let product: LicensedProduct
let customer: Customer
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  other = await createOrg(t.app)
  product = await createLicensedProduct(org, { activationsLimit: 2 })
  customer = await createCustomer(t.app, org)
})
after(() => t.close())

const newLicense = (overrides: { activationsLimit?: number; expiresAt?: string; productId?: string } = {}) =>
  issueLicense(org, { productId: product.id, userId: customer.id, ...overrides })

function expectCode(res: { status: number; body: any }, status: number, code: string, message?: string | RegExp) {
  expectStatus(res as any, status, message)
  assert.equal(res.body.code, code)
}

describe('validate', () => {
  test('an activated license is VALID on its domain, in any spelling of the domain', async () => {
    const l = await newLicense()
    const req = clientRequest(l.key, product, 'https://Shop.Example.COM.:8069/web/login')
    expectStatus(await clientCall(t.app, 'activate', req), 200)
    for (const domain of ['shop.example.com', 'SHOP.example.com.', 'http://shop.example.com/', 'shop.example.com:443']) {
      const res = await clientCall(t.app, 'validate', { ...req, domain })
      expectStatus(res, 200)
      assert.deepEqual(res.body, { valid: true, code: 'VALID', message: 'License is valid', license: { key: l.key, status: 'active', expiresAt: null } })
    }
  })

  test('the key is accepted in lower case and with only key and domain', async () => {
    const l = await newLicense()
    await clientCall(t.app, 'activate', { key: l.key, domain: 'a.example.com' })
    const res = await clientCall(t.app, 'validate', { key: l.key.toLowerCase(), domain: 'a.example.com' }, { token: l.key })
    assert.equal(res.body.code, 'VALID')
  })

  test('every refusal is a 200 with its machine code', async () => {
    const l = await newLicense()
    const req = clientRequest(l.key, product)
    let res = await clientCall(t.app, 'validate', req)
    assert.deepEqual([res.status, res.body.valid, res.body.code, res.body.message], [200, false, 'NOT_ACTIVATED_ON_DOMAIN', 'License is not activated on this domain'])
    await clientCall(t.app, 'activate', req)
    res = await clientCall(t.app, 'validate', { ...req, module_name: 'another_module' })
    assert.deepEqual([res.status, res.body.valid, res.body.code], [200, false, 'MODULE_MISMATCH'])
    res = await clientCall(t.app, 'validate', { ...req, erp_version: '18.0' })
    assert.deepEqual([res.status, res.body.valid, res.body.code], [200, false, 'VERSION_MISMATCH'])
    res = await clientCall(t.app, 'validate', { ...req, key: 'BPL-AAAA-BBBB-CCCC-DDDD' }, { token: 'BPL-AAAA-BBBB-CCCC-DDDD' })
    assert.deepEqual(res.body, { valid: false, code: 'LICENSE_NOT_FOUND', message: 'License not found', license: null })
  })

  test('a suspended, revoked or expired license is refused with its message', async () => {
    const l = await newLicense()
    const req = clientRequest(l.key, product)
    await clientCall(t.app, 'activate', req)
    expectStatus(await org.post(`/admin/licenses/${l.id}/suspend`), 200)
    let res = await clientCall(t.app, 'validate', req)
    assert.deepEqual([res.body.code, res.body.message, res.body.license.status], ['LICENSE_INACTIVE', 'License suspended', 'suspended'])
    expectStatus(await org.post(`/admin/licenses/${l.id}/revoke`), 200)
    res = await clientCall(t.app, 'validate', req)
    assert.deepEqual([res.body.code, res.body.message], ['LICENSE_INACTIVE', 'License revoked'])

    const soon = await newLicense({ expiresAt: new Date(Date.now() + 1000).toISOString() })
    const soonReq = clientRequest(soon.key, product)
    expectStatus(await clientCall(t.app, 'activate', soonReq), 200)
    while (Date.now() < Date.parse((await org.get(`/admin/licenses/${soon.id}`)).body.expiresAt) + 5) await new Promise((r) => setTimeout(r, 100))
    res = await clientCall(t.app, 'validate', soonReq)
    assert.deepEqual([res.body.valid, res.body.code, res.body.message, res.body.license.status], [false, 'LICENSE_EXPIRED', 'License expired', 'expired'])
    expectCode(await clientCall(t.app, 'activate', { ...soonReq, domain: 'second.example.com' }), 403, 'LICENSE_EXPIRED', 'License expired')
    expectCode(await clientCall(t.app, 'issue-token', soonReq), 403, 'LICENSE_EXPIRED')
  })
})

describe('activate and deactivate', () => {
  test('re-activating a bound domain uses no slot; a domain beyond the limit gets 409', async () => {
    const l = await newLicense()
    let res = await clientCall(t.app, 'activate', clientRequest(l.key, product, 'one.example.com'))
    assert.deepEqual(res.body, { activated: true, activationsCount: 1, activationsLimit: 2 })
    res = await clientCall(t.app, 'activate', clientRequest(l.key, product, 'ONE.example.com.'))
    assert.deepEqual(res.body, { activated: true, activationsCount: 1, activationsLimit: 2 })
    res = await clientCall(t.app, 'activate', clientRequest(l.key, product, 'two.example.com'))
    assert.equal(res.body.activationsCount, 2)
    res = await clientCall(t.app, 'activate', clientRequest(l.key, product, 'three.example.com'))
    expectCode(res, 409, 'ACTIVATION_LIMIT_REACHED', 'Activation limit reached')
    assert.equal(res.body.message, 'Activation limit reached')
    const admin = await org.get(`/admin/licenses/${l.id}`)
    assert.deepEqual(admin.body.domains, ['one.example.com', 'two.example.com'])
  })

  test('deactivate frees the slot; an unbound domain is NOT_ACTIVATED_ON_DOMAIN', async () => {
    const l = await newLicense({ activationsLimit: 1 })
    await clientCall(t.app, 'activate', clientRequest(l.key, product, 'old.example.com'))
    expectCode(await clientCall(t.app, 'activate', clientRequest(l.key, product, 'new.example.com')), 409, 'ACTIVATION_LIMIT_REACHED')
    const res = await clientCall(t.app, 'deactivate', { key: l.key, domain: 'https://OLD.example.com/' })
    assert.deepEqual([res.status, res.body], [200, { deactivated: true, activationsCount: 0 }])
    expectCode(await clientCall(t.app, 'deactivate', { key: l.key, domain: 'old.example.com' }), 403, 'NOT_ACTIVATED_ON_DOMAIN')
    expectStatus(await clientCall(t.app, 'activate', clientRequest(l.key, product, 'new.example.com')), 200)
    const self = await clientCall(t.app, 'deactivate-self', clientRequest(l.key, product, 'new.example.com'))
    assert.deepEqual([self.status, self.body], [200, { deactivated: true, activationsCount: 0 }])
  })

  test('a revoked license can still release its domain but not activate', async () => {
    const l = await newLicense()
    await clientCall(t.app, 'activate', clientRequest(l.key, product))
    await org.post(`/admin/licenses/${l.id}/revoke`)
    expectCode(await clientCall(t.app, 'activate', clientRequest(l.key, product, 'x.example.com')), 403, 'LICENSE_INACTIVE', 'License revoked')
    expectStatus(await clientCall(t.app, 'deactivate-self', clientRequest(l.key, product)), 200)
  })

  test('module and version mismatches are 403 with their codes', async () => {
    const old = await createLicensedProduct(org, { erpVersion: '18.0' })
    const l = await issueLicense(org, { productId: old.id, userId: customer.id })
    expectCode(await clientCall(t.app, 'activate', { ...clientRequest(l.key, old), erp_version: '19.0' }), 403, 'VERSION_MISMATCH')
    expectCode(await clientCall(t.app, 'activate', { ...clientRequest(l.key, old), module_name: product.moduleName }), 403, 'MODULE_MISMATCH')
    expectStatus(await clientCall(t.app, 'activate', { ...clientRequest(l.key, old), erp_version: '18.0+e' }), 200)
    expectCode(await clientCall(t.app, 'deactivate-self', { ...clientRequest(l.key, old), erp_version: '19.0' }), 403, 'VERSION_MISMATCH')
    const v = await clientCall(t.app, 'validate', { ...clientRequest(l.key, old), erp_version: '19.0' })
    assert.equal(v.body.code, 'VERSION_MISMATCH')
  })

  test('an unknown key is 404 LICENSE_NOT_FOUND on the other endpoints', async () => {
    const key = 'BPL-ZZZZ-ZZZZ-ZZZZ-ZZZZ'
    for (const action of ['activate', 'deactivate', 'issue-token', 'deactivate-self']) {
      expectCode(await clientCall(t.app, action, clientRequest(key, product)), 404, 'LICENSE_NOT_FOUND', 'License not found')
    }
  })
})

describe('offline token', () => {
  test('an Ed25519 JWS with the contract claims, verifiable with the JWKS', async () => {
    const l = await newLicense()
    const req = clientRequest(l.key, product, 'Token.Example.com')
    expectCode(await clientCall(t.app, 'issue-token', req), 403, 'NOT_ACTIVATED_ON_DOMAIN')
    await clientCall(t.app, 'activate', req)
    const res = await clientCall(t.app, 'issue-token', req)
    expectStatus(res, 200)
    const jwks = await call(t.app, 'GET', '/.well-known/jwks.json')
    expectStatus(jwks, 200)
    assert.equal(jwks.body.keys[0].crv, 'Ed25519')
    // Also at the root of the origin, where RFC 8615 and JOSE libraries look for it.
    const atOrigin = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })
    assert.equal(atOrigin.statusCode, 200)
    assert.deepEqual(atOrigin.json(), jwks.body)
    assert.equal(atOrigin.headers['cache-control'], 'public, max-age=300')
    const header = decodeProtectedHeader(res.body.token)
    assert.equal(header.alg, 'EdDSA')
    assert.equal(header.kid, res.body.kid)
    const { payload } = await jwtVerify(res.body.token, createLocalJWKSet(jwks.body))
    assert.deepEqual(Object.keys(payload).sort(), ['domain', 'erp_version', 'exp', 'hw_fingerprint', 'iat', 'key', 'module', 'status'])
    assert.equal(payload.key, l.key)
    assert.equal(payload.module, product.moduleName)
    assert.equal(payload.domain, 'token.example.com')
    assert.equal(payload.status, 'active')
    assert.equal(payload.exp, Date.parse(res.body.expiresAt) / 1000)
  })

  test('a token never outlives its license; after a key rotation old tokens still verify and new ones use the new kid', async () => {
    const until = new Date(Date.now() + 3 * 86400_000)
    const l = await newLicense({ expiresAt: until.toISOString() })
    const req = clientRequest(l.key, product, 'rotate.example.com')
    await clientCall(t.app, 'activate', req)
    const before = await clientCall(t.app, 'issue-token', req)
    assert.equal(before.body.expiresAt, new Date(Math.floor(until.getTime() / 1000) * 1000).toISOString())

    const newKid = await new OfflineTokenSigner(t.app.ctx.db, t.app.ctx.secrets).rotate()
    assert.notEqual(newKid, before.body.kid)
    const jwks = (await call(t.app, 'GET', '/.well-known/jwks.json')).body
    assert.deepEqual(jwks.keys.map((k: any) => k.kid).sort(), [before.body.kid, newKid].sort())
    await jwtVerify(before.body.token, createLocalJWKSet(jwks))
    // A process picks the new key up within a minute; a fresh app (another process) at once.
    const fresh = await new OfflineTokenSigner(t.app.ctx.db, t.app.ctx.secrets).sign({ key: l.key, module: 'm', domain: 'd', erp_version: '19.0', hw_fingerprint: 'h', status: 'active' }, until)
    assert.equal(fresh.kid, newKid)
    await jwtVerify(fresh.token, createLocalJWKSet(jwks))
  })

  test('issue-token and deactivate-self need the five fields', async () => {
    const l = await newLicense()
    expectStatus(await clientCall(t.app, 'issue-token', { key: l.key, domain: 'a.example.com' }), 422, 'module_name is required')
    expectStatus(await clientCall(t.app, 'deactivate-self', { key: l.key, domain: 'a.example.com', module_name: 'm' }), 422, 'hw_fingerprint is required')
  })
})

describe('X-Service-Signature', () => {
  test('a correct request signature is accepted and every answer is signed with the product secret', async () => {
    const l = await newLicense()
    const req = clientRequest(l.key, product, 'signed.example.com')
    const res = await clientCall(t.app, 'activate', req, { secret: product.signingSecret })
    expectStatus(res, 200)
    assert.equal(res.headers['x-service-signature'], serviceSignature(product.signingSecret, res.raw.body))
    const refused = await clientCall(t.app, 'validate', { ...req, module_name: 'nope' })
    assert.equal(refused.headers['x-service-signature'], serviceSignature(product.signingSecret, refused.raw.body))
    const error = await clientCall(t.app, 'activate', { ...req, erp_version: '17.0' })
    assert.equal(error.status, 403)
    assert.equal(error.headers['x-service-signature'], serviceSignature(product.signingSecret, error.raw.body))
  })

  test('a wrong signature is 401 INVALID_SIGNATURE and changes nothing', async () => {
    const l = await newLicense()
    const req = clientRequest(l.key, product, 'forged.example.com')
    const body = JSON.stringify(req)
    const cases = [
      { signature: serviceSignature('wrong secret', body) },
      { signature: serviceSignature(product.signingSecret, body + ' ') },
      { signature: 'sha256=zz' },
      { signature: serviceSignature(product.signingSecret, body).slice(7) },
    ]
    for (const c of cases) {
      for (const action of ['activate', 'issue-token', 'deactivate', 'deactivate-self', 'validate']) {
        expectCode(await clientCall(t.app, action, req, c), 401, 'INVALID_SIGNATURE', 'Invalid signature')
      }
    }
    // The signature covers the exact bytes: the same JSON spelled differently does not match.
    const spaced = JSON.stringify(req, null, 2)
    expectCode(await clientCall(t.app, 'activate', req, { raw: spaced, signature: serviceSignature(product.signingSecret, body) }), 401, 'INVALID_SIGNATURE')
    expectStatus(await clientCall(t.app, 'activate', req, { raw: spaced, signature: serviceSignature(product.signingSecret, spaced) }), 200)
    assert.equal((await org.get(`/admin/licenses/${l.id}`)).body.activationsCount, 1)
  })
})

describe('credentials', () => {
  test('no credential is 401; a role that may not is 403; malformed JSON is 400; unknown fields 422', async () => {
    const l = await newLicense()
    const res = await t.app.inject({ method: 'POST', url: '/api/licenses/validate', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ key: l.key, domain: 'a.b' }) })
    assert.equal(res.statusCode, 401)
    expectStatus(await clientCall(t.app, 'validate', { key: l.key, domain: 'a.b' }, { token: await org.as('member') }), 403)
    expectStatus(await clientCall(t.app, 'validate', {}, { raw: '{"key": ', token: l.key }), 400, 'Malformed JSON')
    expectStatus(await clientCall(t.app, 'validate', { key: l.key, domain: 'a.b', extra: 1 }), 422, 'extra is not allowed')
    expectStatus(await clientCall(t.app, 'validate', { key: l.key, domain: 'https://' }), 422, 'domain must name a host')
  })

  test('a license key acts only on its own license and only on the client endpoints', async () => {
    const mine = await newLicense()
    const theirs = await newLicense()
    expectStatus(await clientCall(t.app, 'validate', { key: theirs.key, domain: 'a.b' }, { token: mine.key }), 403)
    expectStatus(await call(t.app, 'GET', '/licenses', { token: mine.key }), 403)
    expectStatus(await call(t.app, 'GET', '/contacts', { token: mine.key }), 403)
  })

  test('admins, support and the owning customer may use a normal credential; others find nothing', async () => {
    const l = await newLicense()
    await clientCall(t.app, 'activate', { key: l.key, domain: 'cred.example.com' })
    const body = { key: l.key, domain: 'cred.example.com' }
    for (const token of [org.token, await org.as('support'), customer.token]) {
      assert.equal((await clientCall(t.app, 'validate', body, { token })).body.code, 'VALID')
    }
    const stranger = await createCustomer(t.app, org)
    assert.equal((await clientCall(t.app, 'validate', body, { token: stranger.token })).body.code, 'LICENSE_NOT_FOUND')
    expectCode(await clientCall(t.app, 'activate', body, { token: stranger.token }), 404, 'LICENSE_NOT_FOUND')
    assert.equal((await clientCall(t.app, 'validate', body, { token: other.token })).body.code, 'LICENSE_NOT_FOUND')
  })
})

describe('rate limits (docs/licenses.md "Rate limits")', () => {
  test('validate allows 30 and activate 10 per minute per credential', async () => {
    const limited = await buildTestApp({ RATE_LIMIT: 'on' })
    try {
      const o = await createOrg(limited.app)
      const p = await createLicensedProduct(o)
      const l = await issueLicense(o, { productId: p.id, userId: await adminUserId(o) })
      const validate = await Promise.all(Array.from({ length: 31 }, () => clientCall(limited.app, 'validate', { key: l.key, domain: 'a.example.com' })))
      assert.equal(validate.filter((r) => r.status === 200).length, 30)
      const refused = validate.find((r) => r.status === 429)!
      expectStatus(refused, 429, 'ThrottlerException: Too Many Requests')
      assert.equal(validate[0].headers['x-ratelimit-limit'], '30')
      const activate = await Promise.all(Array.from({ length: 11 }, (_, i) => clientCall(limited.app, 'activate', { key: l.key, domain: `d${i}.example.com` })))
      assert.equal(activate.filter((r) => r.status !== 429).length, 10)
      assert.equal(activate.find((r) => r.status !== 429 && r.status !== 200 && r.status !== 409), undefined)
      assert.equal(activate[0].headers['x-ratelimit-limit'], '10')
    } finally {
      await limited.close()
    }
  })
})
