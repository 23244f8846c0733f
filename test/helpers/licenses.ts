// Factories shared by the license and billing tests; everything goes through HTTP.
import assert from 'node:assert/strict'
import type { App } from '../../src/core/module.ts'
import { serviceSignature } from '../../src/modules/licenses/license-client.signature.ts'
import { call, unique, type Res, type TestOrg } from './app.ts'

export interface LicensedProduct {
  id: string
  name: string
  moduleName: string
  erpVersion: string
  signingSecret: string
}

export async function createLicensedProduct(org: TestOrg, overrides: Record<string, unknown> = {}): Promise<LicensedProduct> {
  const res = await org.post('/products', {
    name: unique('Connector '),
    type: 'service',
    price: 49900,
    currency: 'usd',
    moduleName: unique('conn_').toLowerCase().replace(/[^a-z0-9_]/g, '_'),
    erpVersion: '19.0',
    ...overrides,
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

export interface Customer {
  id: string
  email: string
  token: string
}

/** A user of the organization with role customer, logged in. */
export async function createCustomer(app: App, org: TestOrg, role = 'customer'): Promise<Customer> {
  const email = `${unique('cust')}@example.com`
  const password = 'customer password 123'
  const created = await org.post('/users', { name: 'Carla Customer', email, password, role })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  const login = await call(app, 'POST', '/auth/login', { body: { email, password } })
  assert.equal(login.status, 200, JSON.stringify(login.body))
  return { id: created.body.id, email, token: login.body.accessToken }
}

export async function issueLicense(org: TestOrg, body: { productId: string; userId: string; activationsLimit?: number; expiresAt?: string | null }) {
  const res = await org.post('/admin/licenses', body)
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body as { id: string; key: string; status: string; activationsCount: number; activationsLimit: number }
}

/** The organization's first user (admin) id. */
export async function adminUserId(org: TestOrg): Promise<string> {
  return (await org.get('/auth/me')).body.user.id
}

export interface ClientCallOptions {
  /** Bearer value; defaults to the license key of the body. */
  token?: string
  /** Signs the request with this product secret. */
  secret?: string
  /** Sends this signature header as is. */
  signature?: string
  /** Sends this exact body text instead of JSON.stringify(body). */
  raw?: string
}

/** A license client call as a connector module makes it: exact body bytes, optional HMAC. */
export async function clientCall(app: App, action: string, body: Record<string, unknown>, opts: ClientCallOptions = {}): Promise<Res> {
  const payload = opts.raw ?? JSON.stringify(body)
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${opts.token ?? body.key}` }
  if (opts.secret) headers['x-service-signature'] = serviceSignature(opts.secret, payload)
  if (opts.signature) headers['x-service-signature'] = opts.signature
  const res = await app.inject({ method: 'POST', url: `/api/licenses/${action}`, headers, payload })
  const parsed = res.body ? JSON.parse(res.body) : undefined
  return { status: res.statusCode, body: parsed, headers: res.headers, raw: res }
}

/** The five-field client request of docs/licenses.md "Client request". */
export function clientRequest(key: string, product: Pick<LicensedProduct, 'moduleName' | 'erpVersion'>, domain = 'shop.example.com') {
  return { key, module_name: product.moduleName, domain, hw_fingerprint: 'a'.repeat(64), erp_version: product.erpVersion }
}

/** A multipart/form-data body built by hand (TestOrg helpers send strings as they are). */
export function multipartForm(fields: Record<string, string>, file?: { name: string; filename: string; content: Buffer }) {
  const boundary = `----bp${unique('b')}`
  const parts: Buffer[] = []
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: application/zip\r\n\r\n`))
    parts.push(file.content, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** The smallest valid ZIP: an empty archive. */
export const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)])
