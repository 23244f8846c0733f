import assert from 'node:assert/strict'
import { buildTestApp, createOrg, unique, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { LicenseClient, MemoryStorage, type LicenseClientOptions, type LicenseStorage } from '../src/index.ts'

/**
 * The real service, started in-process on a free port, with one organization
 * whose admin creates licensed products and licenses through HTTP.
 */
export interface Service {
  t: TestApp
  org: TestOrg
  baseUrl: string
  /** Stops the service: from then on every request fails with a network error. */
  stop(): Promise<void>
}

export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const t = await buildTestApp(env)
  const org = await createOrg(t.app)
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const address = t.app.server.address()
  assert.ok(address && typeof address === 'object')
  let stopped = false
  return {
    t,
    org,
    baseUrl: `http://127.0.0.1:${address.port}/api`,
    stop: async () => {
      if (stopped) return
      stopped = true
      await t.close()
    },
  }
}

export interface Product {
  id: string
  moduleName: string
  erpVersion: string
  signingSecret: string
}

export async function createLicensedProduct(s: Service, fields: Partial<{ moduleName: string; erpVersion: string; activationsLimit: number }> = {}): Promise<Product> {
  const res = await s.org.post('/products', {
    name: unique('Connector '),
    price: 49900,
    currency: 'usd',
    type: 'service',
    moduleName: fields.moduleName ?? unique('connector_').toLowerCase().replace(/[^a-z0-9_]/g, '_'),
    erpVersion: fields.erpVersion ?? '19.0',
    billing: 'one_time',
    ...(fields.activationsLimit ? { activationsLimit: fields.activationsLimit } : {}),
  })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  assert.equal(typeof res.body.signingSecret, 'string', 'the admin sees the signing secret')
  return res.body
}

const customers = new WeakMap<Service, { id: string }>()
async function customerOf(s: Service) {
  if (!customers.has(s)) {
    const res = await s.org.post('/users', { name: 'Carl Customer', email: `${unique('carl')}@example.com`, password: 'correct horse battery', role: 'customer' })
    assert.equal(res.status, 201, JSON.stringify(res.body))
    customers.set(s, res.body)
  }
  return customers.get(s)!
}

export interface License {
  id: string
  key: string
  status: string
  expiresAt: string | null
}

export async function issueLicense(s: Service, product: Product, fields: Partial<{ activationsLimit: number; expiresAt: string }> = {}): Promise<License> {
  const user = await customerOf(s)
  const res = await s.org.post('/admin/licenses', { productId: product.id, userId: user.id, ...fields })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body
}

/**
 * A license past its expiry. The service refuses to issue one already
 * expired, so it is issued to expire in a moment, and the test waits for it.
 */
export async function expiredLicense(s: Service, product: Product): Promise<License> {
  const expiresAt = Date.now() + 1500
  const license = await issueLicense(s, product, { expiresAt: new Date(expiresAt).toISOString() })
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 50)))
  return license
}

/** A clock the test moves; `sleep` records each wait and moves the clock by it instead of waiting. */
export class TestClock {
  readonly sleeps: number[] = []
  constructor(public t = Date.now()) {}
  now = () => this.t
  advance(ms: number) {
    this.t += ms
  }
  sleep = async (ms: number) => {
    this.sleeps.push(ms)
    this.t += ms
  }
}

export interface Sent {
  url: string
  method: string
  headers: Headers
  body: string
  status: number | 'network error'
}

/** The global fetch, with a record of every request on the wire (and optionally a hand in the answers). */
export function recordingFetch(tamper?: (res: Response, body: string) => { body: string; headers: Headers }) {
  const sent: Sent[] = []
  const wrapped: typeof fetch = async (input, init) => {
    const entry: Sent = { url: String(input), method: init?.method ?? 'GET', headers: new Headers(init?.headers), body: String(init?.body ?? ''), status: 'network error' }
    sent.push(entry)
    const res = await fetch(input, init)
    entry.status = res.status
    if (!tamper) return res
    const changed = tamper(res, await res.text())
    return new Response(changed.body, { status: res.status, headers: changed.headers })
  }
  return { fetch: wrapped, sent }
}

export interface ClientSetup {
  service: Service
  product: Product
  license: License
  clock?: TestClock
  storage?: LicenseStorage
  overrides?: Partial<LicenseClientOptions>
}

/** A client of the license for one installation, on the test clock, with in-memory state. */
export function clientFor({ service, product, license, clock = new TestClock(), storage = new MemoryStorage(), overrides = {} }: ClientSetup) {
  return new LicenseClient({
    key: license.key.toLowerCase(),
    moduleName: product.moduleName,
    publicUrl: 'https://shop.example.com',
    installationId: 'db-uuid-0001',
    erpVersion: product.erpVersion,
    signingSecret: product.signingSecret,
    baseUrl: service.baseUrl,
    storage,
    now: clock.now,
    sleep: clock.sleep,
    ...overrides,
  })
}
