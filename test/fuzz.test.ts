import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, test } from 'node:test'
import fc from 'fast-check'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import {
  encodeComponent, fake, fieldsOf, hostileValue, mutate, mutation, operationsOf, prng, realistic, responseRules, setAt, toJsonText, toQueryText,
  unstorableFor, unstorableQueryText, ODD_STRINGS, type Json, type Mutation, type Operation,
} from './helpers/fuzz.ts'
import { adminUserId, createLicensedProduct, EMPTY_ZIP, issueLicense, multipartForm } from './helpers/licenses.ts'
import { createContact, createInvoice, createOrder, createProduct } from './helpers/sales-fixtures.ts'
import { createEmployee, createUser, loadModuleFixtures, warehouseOf, type Params, type TenancyFixtures } from './helpers/tenancy.ts'
import { startCheckout } from './helpers/billing.ts'

// Bad input is tried by a machine (issue 10). Every operation of openapi.json (read from the
// app) gets schema-valid requests (json-schema-faker, with real record ids) and mutated ones
// (fast-check): wrong types, nulls, odd text (NUL, lone surrogates, RTL, emoji, 1 MB), edge
// numbers (1e400 as raw JSON text, -0, 2^53), odd dates (year 0, 10000, leap seconds,
// 2026-02-30), malformed JSON and multipart, another organization's ids, bad credentials.
// A second test sweeps every body field and query parameter, one at a time, through what no
// column holds (NUL, lone surrogates, 1e400, 1e21, year 10000, leap seconds): each must be a 4xx.
// An answer fails on a 5xx, an error body not in the format of docs/errors.md "The error body",
// a status or content type the operation does not declare, or a body that breaks the schema
// declared for its status.
//
// Deterministic: a fixed seed and a fixed number of runs per operation. Deeper, locally
// (FUZZ_TRACE=1 prints every request and its status):
//   FUZZ_RUNS=200 FUZZ_SEED=7 FUZZ_OPS='^(createInvoice|payInvoice)$' npm test -- test/fuzz.test.ts

const RUNS = Number(process.env.FUZZ_RUNS ?? 25)
const SEED = Number(process.env.FUZZ_SEED ?? 20260110)
const ONLY = process.env.FUZZ_OPS ? new RegExp(process.env.FUZZ_OPS) : undefined

let t: TestApp
let doc: Json
let owner: TestOrg
/** Another organization: its records are the foreign ids, its admin a foreign credential. */
let other: TestOrg
let fixtures: Required<TenancyFixtures>
let rules: ReturnType<typeof responseRules>
const credentials = new Map<string, string | undefined>()
/** Real values of body fields, by field name (every operation) and by operation. */
const ownValues: Record<string, unknown[]> = {}
const opValues: Record<string, Record<string, unknown[]>> = {}
const ownIds: Record<string, string[]> = {}
const foreignIds: Record<string, string[]> = {}

before(async () => {
  t = await buildTestApp()
  doc = t.app.swagger()
  rules = responseRules(doc)
  owner = await createOrg(t.app)
  other = await createOrg(t.app)
  fixtures = { paths: {}, bodies: {}, references: {}, lists: {}, exempt: {} }
  for (const f of (await loadModuleFixtures()).values()) {
    for (const part of Object.keys(fixtures) as Array<keyof TenancyFixtures>) Object.assign(fixtures[part], f[part] ?? {})
  }

  // Records whose ids fake bodies name (the caller's own, or another organization's).
  for (const [org, ids] of [[owner, ownIds], [other, foreignIds]] as const) {
    const product = await createProduct(org)
    const licensed = await createLicensedProduct(org)
    const user = await createUser(org, 'customer')
    const invoice = await createInvoice(org)
    const order = await createOrder(org)
    Object.assign(ids, {
      contactId: [(await createContact(org)).id, invoice.contact.id],
      productId: [product.id, licensed.id],
      userId: [user.id],
      salespersonId: [(await createEmployee(org)).id],
      salesperson: [(await createEmployee(org)).id],
      warehouseId: [await warehouseOf(org)],
      invoiceId: [invoice.id],
      orderId: [order.id],
    })
    ids['*'] = Object.values(ids).flat()
    if (org === owner) {
      const license = await issueLicense(org, { productId: licensed.id, userId: await adminUserId(org) })
      Object.assign(ownValues, {
        key: [license.key], module_name: [licensed.moduleName], erp_version: [licensed.erpVersion],
        paymentMethodId: ['pm_card_visa', 'pm_card_chargeDeclined'], successUrl: ['https://shop.example/ok'], cancelUrl: ['https://shop.example/no'],
        returnUrl: ['https://shop.example/back'], environment: ['test'],
      })
      credentials.set('license', `Bearer ${license.key}`)
      const login = await call(t.app, 'POST', '/auth/login', { body: { email: org.adminEmail, password: org.password } })
      const refreshToken = [login.body.refreshToken]
      Object.assign(opValues, {
        login: { email: [org.adminEmail], password: [org.password] },
        refreshToken: { refreshToken },
        logout: { refreshToken },
        captureLead: { captureToken: [(await org.get('/crm/capture-settings')).body.captureToken] },
      })
    }
  }
  credentials.set('admin', `Bearer ${owner.token}`)
  for (const role of ['customer', 'member', 'support', 'agent'] as const) credentials.set(role, `Bearer ${await owner.as(role)}`)
  credentials.set('stranger', `Bearer ${other.token}`)
  credentials.set('none', undefined)
  credentials.set('garbage', 'Bearer not-a-credential')
  credentials.set('alg-none', 'Bearer eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxIiwicm9sZSI6ImFkbWluIn0.')
  credentials.set('long', `Bearer bp_test_${'x'.repeat(8000)}`)
  credentials.set('basic', 'Basic dXNlcjpwYXNz')
})
after(() => t.close())

const BAD_CREDENTIALS = new Set(['none', 'garbage', 'alg-none', 'long', 'basic'])
/** Mostly the owner's admin, sometimes another role, another organization or no valid credential at all. */
const credential = fc.constantFrom('admin', 'admin', 'admin', 'admin', 'admin', 'admin', 'admin', 'admin', 'admin', 'admin', 'customer', 'member', 'support', 'agent', 'stranger', 'license', ...BAD_CREDENTIALS)

const MALFORMED_JSON = ['{', '[', '{"a":}', 'nul', '{"a":1,}', "{'a':1}", '\u0000', '{"a":1}{"b":2}', '\ufeff{}', '[]', '""', '0', 'null', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '['.repeat(10_000), '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"a":1e400}', '{"a":"\u0000"}']
const CONTENT_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/xml', 'application/jsonx', 'application/json;;', 'APPLICATION/JSON']

type BodyPlan =
  | { kind: 'json'; mutation: Mutation | null }
  | { kind: 'raw'; text: string }
  | { kind: 'truncated'; at: number }
  | { kind: 'content-type'; type: string }
const bodyPlan: fc.Arbitrary<BodyPlan> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('json' as const), mutation: fc.option(mutation, { freq: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), text: fc.constantFrom(...MALFORMED_JSON) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncated' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('content-type' as const), type: fc.constantFrom(...CONTENT_TYPES) }) },
)

/** A multipart upload: good or odd fields, a ZIP or not, cut short, without or with a wrong boundary. */
const formPlan = fc.record({
  version: fc.oneof({ weight: 3, arbitrary: fc.constant('good') }, { weight: 1, arbitrary: hostileValue }),
  filename: fc.oneof({ weight: 3, arbitrary: fc.constant('m.zip') }, { weight: 1, arbitrary: fc.constantFrom(...ODD_STRINGS) }),
  file: fc.constantFrom('zip', 'zip', 'zip', 'text', 'none'),
  extra: fc.option(fc.constantFrom('file', 'other', 'version'), { freq: 4 }),
  cut: fc.option(fc.nat(), { freq: 4 }),
  boundary: fc.constantFrom('ok', 'ok', 'ok', 'missing', 'wrong'),
})

const plan = fc.record({
  seed: fc.nat(),
  base: fc.nat(),
  path: fc.constantFrom('own', 'own', 'own', 'own', 'random', 'foreign', 'hostile'),
  pathValue: hostileValue,
  query: fc.option(mutation, { freq: 3 }),
  body: bodyPlan,
  form: formPlan,
  credential,
})
type Plan = typeof plan extends fc.Arbitrary<infer P> ? P : never

/** Path parameters of routes that hold no record of an organization (no tenancy fixture): real values all the same. */
const otherPaths: Record<string, (o: TestOrg) => Promise<Params>> = {
  '/admin/jobs/:name/run': async () => ({ name: 'housekeeping' }),
  '/billing/local/checkout/:id': checkoutSession,
  '/billing/local/checkout/:id/complete': checkoutSession,
  '/billing/local/checkout/:id/decline': checkoutSession,
  '/billing/local/checkout/:id/cancel': checkoutSession,
  '/billing/local/portal/:id': async (o) => {
    await checkoutSession(o)
    const res = await o.post('/billing/portal-session', { returnUrl: 'https://shop.example/back' })
    return { id: String(res.body.url).split('/').pop()! }
  },
}
async function checkoutSession(o: TestOrg): Promise<Params> {
  const product = await createLicensedProduct(o, { billing: 'recurring', interval: 'month' })
  const checkout = await startCheckout(t.app, o.token, [{ productId: product.id, quantity: 1 }])
  // The page and its actions need the token of the checkout url: the owner's are real values of `token` (another session's gives 403).
  if (o === owner) (ownValues.token ??= []).push(new URL(checkout.url).searchParams.get('token')!)
  return { id: checkout.sessionId }
}

/** Valid bodies of operations whose fixtures give none, next to the faked ones. */
const validBodies: Record<string, () => unknown> = {
  createProduct: () => ({ name: unique('Fuzz product '), price: 1000, currency: 'usd' }),
  createUser: () => ({ name: 'Fuzz User', email: `${unique('fuzz')}@example.com`, password: 'long enough password', role: 'member' }),
  createContact: () => ({ name: unique('Fuzz contact '), email: `${unique('fuzz')}@example.com` }),
}

interface Prepared {
  /** True when the own parameters name a record of the owner (a tenancy fixture). */
  record: boolean
  own: Params | undefined
  foreign: Params | undefined
  /** Valid bodies from the fixtures (records of the owner named), next to the faked one. */
  bodies: unknown[]
}

const preparedOps = new Map<string, Prepared>()
/** The records and bodies an operation's requests use, made once per operation. */
async function prepare(o: Operation): Promise<Prepared> {
  const done = preparedOps.get(o.id)
  if (done) return done
  const made = await makePrepared(o)
  preparedOps.set(o.id, made)
  return made
}

async function makePrepared(o: Operation): Promise<Prepared> {
  const key = `${o.method} ${o.route}`
  const pathFixture = fixtures.paths[o.route] ?? otherPaths[o.route]
  const reference = fixtures.references[key]
  const bodies: unknown[] = []
  if (fixtures.bodies[key] !== undefined) bodies.push(fixtures.bodies[key])
  if (reference) bodies.push(await reference.body(owner))
  if (validBodies[o.id]) bodies.push(validBodies[o.id]())
  return {
    record: Boolean(fixtures.paths[o.route]),
    own: pathFixture ? await pathFixture(owner) : undefined,
    foreign: pathFixture ? await pathFixture(other) : undefined,
    bodies,
  }
}

const asText = (v: unknown) => toQueryText(v)[0] ?? ''

interface Request {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
}

function build(o: Operation, p: Plan, prepared: Prepared): Request {
  const random = prng(p.seed)
  const realism = (foreign: boolean) => ({ ids: foreign ? foreignIds : ownIds, values: { ...ownValues, ...opValues[o.id] }, random })
  const url = o.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const param = o.pathParams.find((x: Json) => x.name === name)
    let value: string
    if (p.path === 'own' && prepared.own?.[name]) value = prepared.own[name]
    else if (p.path === 'foreign' && prepared.foreign?.[name]) value = prepared.foreign[name]
    else if (p.path === 'hostile') value = asText(p.pathValue)
    else value = asText(fake(param?.schema ?? { type: 'string' }, p.seed))
    // An empty segment or a dot segment is another route, not a value of this one.
    return ['', '.', '..'].includes(value) ? 'x' : encodeComponent(value)
  })

  let query: unknown = o.queryParams.length
    ? realistic(
        { type: 'object', properties: Object.fromEntries(o.queryParams.map((q: Json) => [q.name, q.schema])) },
        fake({ type: 'object', properties: Object.fromEntries(o.queryParams.map((q: Json) => [q.name, q.schema])), required: o.queryParams.filter((q: Json) => q.required).map((q: Json) => q.name) }, p.seed),
        realism(false),
      )
    : {}
  if (p.query) query = mutate(query, p.query)
  const queryText = query && typeof query === 'object' && !Array.isArray(query)
    ? Object.entries(query).flatMap(([k, v]) => toQueryText(v).map((text) => `${encodeComponent(k)}=${encodeComponent(text)}`)).join('&')
    : encodeComponent(asText(query))

  const headers: Record<string, string> = {}
  const auth = credentials.get(p.credential)
  if (auth) headers.authorization = auth
  const req: Request = { method: o.method, url: queryText ? `${url}?${queryText}` : url, headers }

  if (o.bodies['multipart/form-data']) return withForm(req, p)
  const schema = o.bodies['application/json']
  if (!schema) {
    // No body is declared: sometimes send one anyway.
    if (p.body.kind === 'json' && p.body.mutation) Object.assign(req, { payload: toJsonText(p.body.mutation.value), headers: { ...headers, 'content-type': 'application/json' } })
    return req
  }
  const faked = realistic(schema, fake(schema, p.seed), realism(p.path === 'foreign'))
  const bases = [faked, ...prepared.bodies]
  const base = bases[p.base % bases.length]
  const b = p.body
  headers['content-type'] = 'application/json'
  if (b.kind === 'json') {
    const value = b.mutation ? mutate(base, b.mutation) : base
    if (value !== undefined) req.payload = toJsonText(value)
  } else if (b.kind === 'raw') req.payload = b.text
  else if (b.kind === 'truncated') {
    const text = toJsonText(base)
    req.payload = text.slice(0, b.at % Math.max(1, text.length))
  } else {
    headers['content-type'] = b.type
    req.payload = toJsonText(base)
  }
  return req
}

function withForm(req: Request, p: Plan): Request {
  const f = p.form
  const fields: Record<string, string> = {}
  fields.version = f.version === 'good' ? `19.0.${p.seed % 1000}.0.0` : asText(f.version)
  if (f.extra === 'other') fields.note = 'unexpected'
  if (f.extra === 'version') fields.version2 = fields.version
  const content = f.file === 'zip' ? EMPTY_ZIP : Buffer.from('not a zip at all')
  const form = multipartForm(fields, f.file === 'none' ? undefined : { name: f.extra === 'file' ? 'other' : 'file', filename: f.filename, content })
  let body = form.body
  if (f.cut !== null) body = body.subarray(0, f.cut % Math.max(1, body.length))
  const contentType = f.boundary === 'ok' ? form.contentType : f.boundary === 'missing' ? 'multipart/form-data' : 'multipart/form-data; boundary=other'
  return { ...req, payload: body, headers: { ...req.headers, 'content-type': contentType } }
}

const describeRequest = (r: Request) => {
  const payload = r.payload === undefined ? '' : ` body ${JSON.stringify(String(r.payload).slice(0, 300))}${String(r.payload).length > 300 ? ` (${String(r.payload).length} characters)` : ''}`
  return `${r.method} ${r.url.slice(0, 300)}${payload} content-type ${r.headers['content-type'] ?? '-'} auth ${(r.headers.authorization ?? '-').slice(0, 30)}`
}

function opSeed(id: string) {
  return createHash('sha256').update(`${SEED}:${id}`).digest().readUInt32BE(0) | 0
}

test('every operation of openapi.json withstands schema-valid and hostile requests', async (ctx) => {
  const operations = operationsOf(doc).filter((o) => !ONLY || ONLY.test(o.id))
  if (!ONLY && operations.length < 90) throw new Error(`only ${operations.length} operations in openapi.json`)
  const started = Date.now()
  let requests = 0
  /** Statuses answered, per operation: what the runs reached (printed as a diagnostic). */
  const reached = new Map<string, Map<number, number>>()
  for (const o of operations) {
    await ctx.test(`${o.id}: ${o.method} ${o.path}`, async () => {
      const prepared = await prepare(o)
      const seed = opSeed(o.id)
      await fc.assert(
        fc.asyncProperty(plan, async (p) => {
          const req = build(o, p, prepared)
          requests++
          const res = await t.app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) })
          if (process.env.FUZZ_TRACE) console.log(res.statusCode, describeRequest(req), res.body.slice(0, 200))
          const seen = reached.get(o.id) ?? reached.set(o.id, new Map()).get(o.id)!
          seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1)
          const problems = rules(o, { status: res.statusCode, headers: res.headers, body: res.body })
          if (prepared.record && res.statusCode < 300 && ((p.path === 'foreign' && p.credential === 'admin') || (p.path === 'own' && p.credential === 'stranger'))) {
            problems.push(`another organization's record answered ${res.statusCode}`)
          }
          // Without a valid credential: 401, or 400 when the path itself cannot be read (invalid UTF-8), which the router refuses first.
          if (!o.isPublic && BAD_CREDENTIALS.has(p.credential) && res.statusCode !== 401 && !(p.path === 'hostile' && res.statusCode === 400)) {
            problems.push(`credential "${p.credential}" answered ${res.statusCode}, not 401`)
          }
          if (problems.length) throw new Error(`${describeRequest(req)}\n  -> ${problems.join('\n  -> ')}`)
        }),
        { seed, numRuns: RUNS, interruptAfterTimeLimit: 60_000, reporter: (out) => {
          if (!out.failed) return
          const cause = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance)
          throw new Error(`${o.id} failed (FUZZ_SEED=${SEED}, seed of the operation ${seed}, FUZZ_RUNS=${RUNS}); rerun: FUZZ_SEED=${SEED} FUZZ_OPS='^${o.id}$' npm test -- test/fuzz.test.ts\n${cause}\n${fc.defaultReportMessage(out)}`)
        } },
      )
    })
  }
  const success = [...reached].filter(([, statuses]) => [...statuses.keys()].some((s) => s < 300)).length
  ctx.diagnostic(`statuses: ${[...reached].map(([id, statuses]) => `${id} ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}x${n}`).join(' ')}`).join('; ')}`)
  ctx.diagnostic(`${success} of ${operations.length} operations answered a success at least once`)
  ctx.diagnostic(`${operations.length} operations, ${requests} requests in ${Math.round((Date.now() - started) / 1000)} s (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS})`)
})

test('every field of every body and query, set to what no column holds, is refused with 4xx', async (ctx) => {
  const operations = operationsOf(doc).filter((o) => !ONLY || ONLY.test(o.id))
  const failures: string[] = []
  let requests = 0
  for (const o of operations) {
    // The license client endpoints take a license key; every other operation the owner's admin.
    const admin = credentials.get(o.path.startsWith('/api/licenses/') ? 'license' : 'admin')!
    const prepared = await prepare(o)
    const url = o.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeComponent(prepared.own?.[name] ?? fakeParam(o, name)))
    const send = async (path: string, payload?: string) => {
      requests++
      const res = await t.app.inject({ method: o.method as 'GET', url: path, headers: { authorization: admin, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(payload !== undefined ? { payload } : {}) })
      const problems = rules(o, { status: res.statusCode, headers: res.headers, body: res.body })
      if (res.statusCode < 400) problems.push(`accepted with ${res.statusCode}`)
      return problems
    }
    for (const q of o.queryParams) {
      for (const text of unstorableQueryText(q.schema)) {
        const problems = await send(`${url}?${encodeComponent(q.name)}=${encodeComponent(text)}`)
        if (problems.length) failures.push(`${o.id} ?${q.name}=${JSON.stringify(text)}: ${problems.join('; ')}`)
      }
    }
    const schema = o.bodies['application/json']
    if (!schema) continue
    const base = prepared.bodies[0] ?? realistic(schema, fake(schema, 1), { ids: ownIds, values: { ...ownValues, ...opValues[o.id] }, random: prng(1) })
    for (const field of fieldsOf(schema)) {
      for (const value of unstorableFor(field.schema)) {
        const problems = await send(url, toJsonText(setAt(base, field.path, value)))
        if (problems.length) failures.push(`${o.id} ${field.path.join('.')} = ${toJsonText(value)}: ${problems.join('; ')}`)
      }
    }
  }
  ctx.diagnostic(`${requests} requests, one field at a time`)
  assert.ok(failures.length === 0, `${failures.length} fields let through what no column holds:\n${failures.join('\n')}`)
})

function fakeParam(o: Operation, name: string): string {
  const param = o.pathParams.find((p: Json) => p.name === name)
  return asText(fake(param?.schema ?? { type: 'string' }, 1)) || 'x'
}
