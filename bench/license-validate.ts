// Benchmark of POST /licenses/validate, the hottest public call (every
// connector installation makes it). Run with the rate limit lifted
// (RATE_LIMIT=off): SPEC's 30 per minute per credential would cap it at once.
//   setupValidate: a licensed product and a license activated on a domain,
//     made through HTTP; returns the five-field body to send and the key.
//   benchValidate: autocannon on that request, `Authorization: Bearer <license key>`
//     as connector modules send it (or opts.token with a body of your own).
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'

export interface ValidateBody {
  key: string
  module_name: string
  domain: string
  hw_fingerprint: string
  erp_version: string
}

async function api(baseUrl: string, token: string, path: string, body: unknown) {
  const res = await fetch(`${baseUrl}/api${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as any
  if (res.status >= 400) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** `adminToken`: a credential of an organization's admin. */
export async function setupValidate(baseUrl: string, adminToken: string): Promise<{ body: ValidateBody; licenseKey: string }> {
  const me = await (await fetch(`${baseUrl}/api/auth/me`, { headers: { authorization: `Bearer ${adminToken}` } })).json() as any
  const moduleName = `bench_${randomBytes(4).toString('hex')}`
  const product = await api(baseUrl, adminToken, '/products', { name: 'Bench connector', price: 49900, moduleName, erpVersion: '19.0', activationsLimit: 3 })
  const license = await api(baseUrl, adminToken, '/admin/licenses', { productId: product.id, userId: me.user.id })
  const body: ValidateBody = { key: license.key, module_name: moduleName, domain: 'shop.example.com', hw_fingerprint: 'f'.repeat(64), erp_version: '19.0' }
  await api(baseUrl, license.key, '/licenses/activate', body)
  const check = await api(baseUrl, license.key, '/licenses/validate', body)
  if (check.code !== 'VALID') throw new Error(`validate setup: ${JSON.stringify(check)}`)
  return { body, licenseKey: license.key }
}

export interface BenchValidateOptions {
  baseUrl: string
  /** An admin credential (used to set up), or with `body` the bearer to send. */
  token: string
  durationSeconds: number
  body?: ValidateBody
  connections?: number
}

export async function benchValidate(opts: BenchValidateOptions): Promise<{ requestsPerSecond: number; p99Ms: number; errors: number }> {
  const { body, bearer } = opts.body
    ? { body: opts.body, bearer: opts.token }
    : await setupValidate(opts.baseUrl, opts.token).then((s) => ({ body: s.body, bearer: s.licenseKey }))
  const result = await autocannon({
    url: `${opts.baseUrl}/api/licenses/validate`,
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections: opts.connections ?? Number(process.env.BENCH_CONNECTIONS ?? 10),
    duration: opts.durationSeconds,
    workers: 1,
  })
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  }
}
