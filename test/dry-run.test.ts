import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { DryRunEndedError } from '../src/core/db.ts'
import { preferenceNames } from '../src/core/dry-run.ts'
import { buildTestApp, call, createOrg, mailTexts, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import { signEvent } from '../src/modules/billing/processor-events.signature.ts'
import { stripeEvent, WEBHOOK_SECRET } from './helpers/billing.ts'
import { fake, operationsOf, prng, realistic, responseRules, type Json, type Operation } from './helpers/fuzz.ts'
import { adminUserId, createLicensedProduct, EMPTY_ZIP, issueLicense, multipartForm } from './helpers/licenses.ts'
import { stockUp } from './helpers/manufacturing.ts'
import { createContact, createInvoice, createProduct } from './helpers/sales-fixtures.ts'
import { createEmployee, createUser, loadModuleFixtures, warehouseOf, type Params, type TenancyFixtures } from './helpers/tenancy.ts'

// Prefer: dry-run (issue 28, docs/platform.md "Dry runs"): every POST, PATCH and DELETE of
// openapi.json is sent with a valid request under dry run, and no table may change (row count
// and checksum of every table, before and after); then the same request for real must answer
// the status the dry run answered. Nothing else writes meanwhile: buildTestApp sets JOBS=off, so
// no scheduler runs and no queue worker is started (a wake-up of a queue finds its loop stopped).

let t: TestApp
let doc: Json
let owner: TestOrg
let fixtures: Required<TenancyFixtures>
let snapshotSql: string
let licenseKey: string
const ownIds: Record<string, string[]> = {}
const ownValues: Record<string, unknown[]> = {}

before(async () => {
  t = await buildTestApp({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET })
  doc = t.app.swagger()
  owner = await createOrg(t.app)
  fixtures = { paths: {}, bodies: {}, references: {}, lists: {}, exempt: {} }
  for (const f of (await loadModuleFixtures()).values()) {
    for (const part of Object.keys(fixtures) as Array<keyof TenancyFixtures>) Object.assign(fixtures[part], f[part] ?? {})
  }
  const product = await createProduct(owner)
  const licensed = await createLicensedProduct(owner)
  const invoice = await createInvoice(owner)
  Object.assign(ownIds, {
    contactId: [(await createContact(owner)).id, invoice.contact.id],
    productId: [product.id],
    salespersonId: [(await createEmployee(owner)).id],
    warehouseId: [await warehouseOf(owner)],
    invoiceId: [invoice.id],
    employeeId: [(await createEmployee(owner)).id],
    memberIds: [await adminUserId(owner)],
  })
  ownIds['*'] = Object.values(ownIds).flat()
  const license = await issueLicense(owner, { productId: licensed.id, userId: await adminUserId(owner) })
  licenseKey = license.key
  Object.assign(ownValues, {
    key: [license.key], module_name: [licensed.moduleName], erp_version: [licensed.erpVersion], domain: ['shop.example.com'],
    successUrl: ['https://shop.example/ok'], cancelUrl: ['https://shop.example/no'], returnUrl: ['https://shop.example/back'], environment: ['test'],
  })
  // Every table of the database, in one statement: its row count and a checksum of its rows.
  const { rows } = await t.app.ctx.db.query<{ sql: string }>(
    `SELECT string_agg(format('SELECT %L AS t, count(*)::int AS n, md5(coalesce(string_agg(md5(x::text), '''' ORDER BY md5(x::text)), '''')) AS h FROM %I.%I x',
        c.relname, n.nspname, c.relname), ' UNION ALL ' ORDER BY c.relname) AS sql
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`,
  )
  snapshotSql = rows[0].sql
})
after(() => t.close())

type Snapshot = Map<string, string>
async function snapshot(): Promise<Snapshot> {
  const { rows } = await t.app.ctx.db.query<{ t: string; n: number; h: string }>(snapshotSql)
  return new Map(rows.map((r) => [r.t, `${r.n} ${r.h}`]))
}
function changes(a: Snapshot, b: Snapshot): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).map((k) => `${k}: ${a.get(k)} -> ${b.get(k)}`)
}

const DRY = { prefer: 'dry-run' }

/**
 * Operations whose valid request does not reach a success, and why. The walk fails when an
 * operation not listed here answers no success (the list may not grow), and when one listed
 * here succeeds (the list stays true).
 */
const NOT_2XX: Record<string, string> = {}

/** Path parameters of routes that hold no record of an organization (no tenancy fixture). */
const otherPaths: Record<string, (o: TestOrg) => Promise<Params>> = {
  '/admin/jobs/:name/run': async () => ({ name: 'housekeeping' }),
}

/** Valid bodies where the fixtures give none. */
const validBodies: Record<string, (o: TestOrg) => unknown> = {
  register: () => ({ organizationName: unique('Dry org '), name: 'Dry Admin', email: `${unique('dry')}@example.com`, password: 'long enough password' }),
  createProduct: () => ({ name: unique('Dry product '), price: 1000, currency: 'usd' }),
  createUser: () => ({ name: 'Dry User', email: `${unique('dry')}@example.com`, password: 'long enough password', role: 'member' }),
  createContact: () => ({ name: unique('Dry contact '), email: `${unique('dry')}@example.com` }),
  createEmployee: () => ({ name: unique('Dry employee '), email: `${unique('dry')}@example.com` }),
}

/** A license client request of the owner's license, activated on its domain first where the operation needs it. */
async function clientBody(activated: boolean) {
  const body = { key: licenseKey, domain: 'shop.example.com', module_name: ownValues.module_name[0], erp_version: ownValues.erp_version[0], hw_fingerprint: 'dry-run-host' }
  if (activated) {
    const res = await call(t.app, 'POST', '/licenses/activate', { token: licenseKey, body })
    assert.equal(res.status, 200, JSON.stringify(res.body))
  }
  return body
}

/** The organization's public capture token as it is now (rotateLeadCaptureToken changes it). */
const captureToken = async () => (await owner.get('/crm/capture-settings')).body.captureToken as string

/** The token of the newest e-mail to `to` that carries `pattern`. */
async function mailedToken(to: string, pattern: RegExp) {
  const [text] = await mailTexts(t.app, 'to_address = $1', [to])
  const match = text && pattern.exec(text)
  assert.ok(match, `no token in the mail to ${to}`)
  return match[1]
}

/** The production order's components put in stock, then the order confirmed and its first work order started, as far as `step` says. */
async function productionOrder(id: string, step: 'stocked' | 'confirmed' | 'started', woId = '') {
  const order = (await owner.get(`/manufacturing/orders/${id}`)).body as { components: Array<{ productId: string; quantity: number }> }
  for (const c of order.components) await stockUp(owner, c.productId, c.quantity * 10)
  if (step === 'stocked') return
  assert.equal((await owner.post(`/manufacturing/orders/${id}/confirm`)).status, 200)
  if (step === 'started') assert.equal((await owner.post(`/manufacturing/orders/${id}/work-orders/${woId}/start`)).status, 200)
}

/** Operations whose valid request needs more than a fixture: what to do first, and the body (params are the fixture's). */
const setups: Record<string, (params: Params) => Promise<{ body?: unknown; params?: Params }>> = {
  changePassword: async () => ({ body: { currentPassword: owner.password, newPassword: owner.password } }),
  confirmPasswordReset: async () => {
    // Another user's: the reset ends every session of its user.
    const user = await createUser(owner)
    assert.equal((await call(t.app, 'POST', '/auth/password-reset', { body: { email: user.email } })).status, 202)
    return { body: { token: await mailedToken(user.email, /token=([A-Za-z0-9_-]+)/), password: 'a new long password' } }
  },
  updateOrganization: async () => ({ body: { legalName: unique('Dry Legal '), paymentInstructions: 'IBAN XX00 0000' } }),
  invoiceOrder: async () => ({ body: {} }),
  logTimesheet: async () => ({ body: { employeeId: ownIds.employeeId[0], date: new Date().toISOString().slice(0, 10), hours: 1.5 } }),
  createVendorPricelist: async () => ({ body: { productId: ownIds.productId[0], price: 700, currency: 'usd', minQty: 1 } }),
  activateLicense: async () => ({ body: await clientBody(false) }),
  deactivateLicense: async () => ({ body: await clientBody(true) }),
  issueLicenseToken: async () => ({ body: await clientBody(true) }),
  deactivateSelf: async () => ({ body: await clientBody(true) }),
  createHelpdeskTeam: async () => ({ body: { name: unique('Dry team '), memberIds: ownIds.memberIds } }),
  createWebhookEndpoint: async () => ({ body: { url: 'http://127.0.0.1:9/hooks', enabledEvents: ['*'] } }),
  reinstateLicense: async (params) => {
    assert.equal((await owner.post(`/admin/licenses/${params.id}/suspend`)).status, 200)
    return {}
  },
  retryWebhookDelivery: async (params) => {
    // A delivery is retried once attempted: this one's attempts failed (the fixture's is still pending).
    await t.app.ctx.db.query(`UPDATE webhook_deliveries SET status = 'failed', attempts = 1, next_attempt_at = NULL WHERE id = $1`, [params.deliveryId])
    return {}
  },
  confirmSupportRequest: async () => {
    const email = `${unique('requester')}@example.com`
    const res = await call(t.app, 'POST', '/support', { body: { captureToken: await captureToken(), name: 'Rita Requester', email, subject: 'Dry run' } })
    assert.ok(res.status < 300, JSON.stringify(res.body))
    return { params: { token: await mailedToken(email, /\/support\/confirmations\/([A-Za-z0-9_-]{43})/) } }
  },
  captureLead: async () => ({ body: { captureToken: await captureToken(), name: 'Lea Lead', email: `${unique('lead')}@example.com` } }),
  submitSupportRequest: async () => ({ body: { captureToken: await captureToken(), name: 'Rita Requester', email: `${unique('requester')}@example.com`, subject: 'Dry run' } }),
  receivePurchaseOrder: async (params) => {
    const po = (await owner.get(`/purchase/orders/${params.id}`)).body as { lineItems: Array<{ productId: string }> }
    return { body: { lines: [{ productId: po.lineItems[0].productId, receivedQty: 1 }] } }
  },
  confirmProductionOrder: async (params) => (await productionOrder(params.id, 'stocked'), {}),
  produceProductionOrder: async (params) => (await productionOrder(params.id, 'confirmed'), {}),
  startWorkOrder: async (params) => (await productionOrder(params.id, 'confirmed'), {}),
  finishWorkOrder: async (params) => (await productionOrder(params.id, 'started', params.woId), {}),
  receiveBillingWebhook: async () => ({ body: stripeEvent('customer.created', { id: 'cus_dry', object: 'customer' }) }),
}

interface Prepared {
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
}

async function prepare(o: Operation): Promise<Prepared> {
  const key = `${o.method} ${o.route}`
  const pathFixture = fixtures.paths[o.route] ?? otherPaths[o.route]
  let params = pathFixture ? await pathFixture(owner) : {}
  const setup = setups[o.id] ? await setups[o.id](params) : undefined
  if (setup?.params) params = setup.params
  const url = o.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? 'x'))
  const token = o.path.startsWith('/api/licenses/') ? licenseKey : owner.token
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (o.bodies['multipart/form-data'] && !o.bodies['application/json']) {
    const form = multipartForm({ version: '19.0.1.0.0' }, { name: 'file', filename: 'm.zip', content: EMPTY_ZIP })
    return { url, headers: { ...headers, 'content-type': form.contentType }, payload: form.body }
  }
  const schema = o.bodies['application/json']
  if (!schema && setup?.body === undefined) return { url, headers }
  const reference = fixtures.references[key]
  let body: unknown
  if (setup?.body !== undefined) body = setup.body
  else if (validBodies[o.id]) body = validBodies[o.id](owner)
  else if (fixtures.bodies[key] !== undefined) body = fixtures.bodies[key]
  else if (reference) body = await reference.body(owner)
  else body = realistic(schema!, fake(schema, 1), { ids: ownIds, values: ownValues, random: prng(1) })
  const payload = JSON.stringify(body)
  // The processor's events are signed (the same signature for the dry run and the real request).
  if (o.id === 'receiveBillingWebhook') headers['stripe-signature'] = signEvent(payload, WEBHOOK_SECRET)
  return { url, headers: { ...headers, 'content-type': 'application/json' }, payload }
}

const refuses = (o: Operation) => {
  const route = t.app.routeList.find((r) => r.method === o.method && `/api${r.url.replace(/^\/api/, '')}` === `/api${o.route}`)
  return route?.config.dryRun === false || (o.bodies['multipart/form-data'] !== undefined && o.bodies['application/json'] === undefined)
}

test('every POST, PATCH and DELETE of openapi.json, dry run, changes no table and answers what the real request answers', async (ctx) => {
  const operations = operationsOf(doc).filter((o) => ['POST', 'PATCH', 'DELETE'].includes(o.method))
  assert.ok(operations.length > 100, `only ${operations.length} mutating operations`)
  const rules = responseRules(doc)
  const problems: string[] = []
  const failing: string[] = []
  const refused: string[] = []
  for (const o of operations) {
    const req = await prepare(o)
    const before = await snapshot()
    const dry = await t.app.inject({ method: o.method as 'POST', url: req.url, headers: { ...req.headers, ...DRY }, ...(req.payload !== undefined ? { payload: req.payload } : {}) })
    const afterDry = await snapshot()
    const changed = changes(before, afterDry)
    if (changed.length) problems.push(`${o.id}: the dry run (${dry.statusCode}) changed ${changed.join('; ')}`)
    if (refuses(o)) {
      refused.push(o.id)
      if (dry.statusCode !== 400 || JSON.parse(dry.body).code !== 'DRY_RUN_UNSUPPORTED') problems.push(`${o.id}: refused routes answer 400 DRY_RUN_UNSUPPORTED, not ${dry.statusCode} ${dry.body.slice(0, 200)}`)
      if (dry.headers['preference-applied'] !== undefined) problems.push(`${o.id}: a refused dry run says Preference-Applied`)
      continue
    }
    if (dry.headers['preference-applied'] !== 'dry-run') problems.push(`${o.id}: no Preference-Applied: dry-run (${dry.statusCode})`)
    const ruleProblems = rules(o, { status: dry.statusCode, headers: dry.headers, body: dry.body })
    if (ruleProblems.length) problems.push(`${o.id}: the dry run's answer ${ruleProblems.join('; ')}`)
    const real = await t.app.inject({ method: o.method as 'POST', url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) })
    if (real.statusCode !== dry.statusCode) problems.push(`${o.id}: dry run ${dry.statusCode} ${dry.body.slice(0, 200)}, for real ${real.statusCode} ${real.body.slice(0, 200)}`)
    else if (dry.statusCode >= 400 && JSON.parse(dry.body).code !== JSON.parse(real.body).code) problems.push(`${o.id}: dry run ${dry.body}, for real ${real.body}`)
    if (dry.statusCode >= 300) failing.push(`${o.id}: ${dry.statusCode} ${dry.body.slice(0, 300)}`)
  }
  ctx.diagnostic(`${operations.length} operations: ${operations.length - refused.length - failing.length} succeeded, ${failing.length} did not, ${refused.length} refused (${refused.join(', ')})`)
  for (const f of failing) ctx.diagnostic(f)
  const unlisted = failing.filter((f) => !(f.split(':')[0] in NOT_2XX))
  const stale = Object.keys(NOT_2XX).filter((id) => !failing.some((f) => f.startsWith(`${id}:`)))
  assert.deepEqual(problems, [])
  assert.deepEqual(unlisted, [], 'operations whose valid dry run answered no success (fix the request, or list them in NOT_2XX with the reason)')
  assert.deepEqual(stale, [], 'listed in NOT_2XX but succeeded: take them off the list')
})

test('the Prefer header is read per RFC 7240: comma-separated preferences, values, parameters and quoted strings', () => {
  assert.deepEqual(preferenceNames('dry-run'), ['dry-run'])
  assert.deepEqual(preferenceNames('return=minimal, Dry-Run'), ['return', 'dry-run'])
  assert.deepEqual(preferenceNames(['respond-async; wait=10', 'foo="a, dry-run", handling=lenient']), ['respond-async', 'foo', 'handling'])
  assert.deepEqual(preferenceNames('  ,, dry-run ,'), ['dry-run'])
  assert.deepEqual(preferenceNames('dry-runs, x-dry-run'), ['dry-runs', 'x-dry-run'])
  assert.deepEqual(preferenceNames(undefined), [])
})

test('a dry run answers with Preference-Applied: dry-run, errors included; the same error as for real; GET ignores the header', async () => {
  const body = { name: unique('Header '), email: `${unique('h')}@example.com` }
  const dry = await call(t.app, 'POST', '/contacts', { token: owner.token, body, headers: { prefer: 'return=representation, dry-run' } })
  assert.equal(dry.status, 201, JSON.stringify(dry.body))
  assert.equal(dry.headers['preference-applied'], 'dry-run')
  assert.equal(dry.body.name, body.name)
  assert.equal((await owner.get(`/contacts/${dry.body.id}`)).status, 404, 'nothing was kept')

  const bad = { name: 'Bad', email: 'not an e-mail' }
  const dryBad = await call(t.app, 'POST', '/contacts', { token: owner.token, body: bad, headers: DRY })
  const realBad = await call(t.app, 'POST', '/contacts', { token: owner.token, body: bad })
  assert.equal(dryBad.status, 422)
  assert.deepEqual(dryBad.body, realBad.body)
  assert.equal(dryBad.headers['preference-applied'], 'dry-run')
  assert.equal(realBad.headers['preference-applied'], undefined)

  const missing = await call(t.app, 'DELETE', '/contacts/00000000-0000-4000-8000-000000000000', { token: owner.token, headers: DRY })
  assert.equal(missing.status, 404)
  assert.equal(missing.body.code, 'NOT_FOUND')
  assert.equal(missing.headers['preference-applied'], 'dry-run')

  const real = await owner.post('/contacts', body)
  const deleted = await call(t.app, 'DELETE', `/contacts/${real.body.id}`, { token: owner.token, headers: DRY })
  assert.equal(deleted.status, 204)
  assert.equal((await owner.get(`/contacts/${real.body.id}`)).status, 200, 'the dry delete kept nothing')
  const patched = await call(t.app, 'PATCH', `/contacts/${real.body.id}`, { token: owner.token, body: { name: 'Renamed' }, headers: DRY })
  assert.equal(patched.body.name, 'Renamed')
  assert.equal((await owner.get(`/contacts/${real.body.id}`)).body.name, body.name)

  const get = await call(t.app, 'GET', `/contacts/${real.body.id}`, { token: owner.token, headers: DRY })
  assert.equal(get.status, 200)
  assert.equal(get.headers['preference-applied'], undefined)
  // Other preferences alone are no dry run.
  const other = await call(t.app, 'POST', '/contacts', { token: owner.token, body: { ...body, email: `${unique('o')}@example.com` }, headers: { prefer: 'return=minimal, x-dry-run' } })
  assert.equal(other.status, 201)
  assert.equal(other.headers['preference-applied'], undefined)
  assert.equal((await owner.get(`/contacts/${other.body.id}`)).status, 200)
  // Authentication first: without a credential, 401 as for any request.
  assert.equal((await call(t.app, 'POST', '/contacts', { body, headers: DRY })).status, 401)
})

test('the payment processor routes and uploads answer 400 DRY_RUN_UNSUPPORTED', async () => {
  const product = await createLicensedProduct(owner, { billing: 'recurring', interval: 'month' })
  const checkout = await call(t.app, 'POST', '/billing/checkout', { token: owner.token, headers: DRY, body: { items: [{ productId: product.id, quantity: 1 }], successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/no' } })
  assert.equal(checkout.status, 400)
  assert.equal(checkout.body.code, 'DRY_RUN_UNSUPPORTED')
  assert.equal(checkout.headers['preference-applied'], undefined)
  const form = multipartForm({ version: '19.0.1.0.0' }, { name: 'file', filename: 'm.zip', content: EMPTY_ZIP })
  const upload = await t.app.inject({ method: 'POST', url: `/api/products/${product.id}/builds`, headers: { authorization: `Bearer ${owner.token}`, 'content-type': form.contentType, ...DRY }, payload: form.body })
  assert.equal(upload.statusCode, 400)
  assert.equal(JSON.parse(upload.body).code, 'DRY_RUN_UNSUPPORTED')
  // Any multipart body, on any route.
  const other = await t.app.inject({ method: 'POST', url: '/api/contacts', headers: { authorization: `Bearer ${owner.token}`, 'content-type': form.contentType, ...DRY }, payload: form.body })
  assert.equal(other.statusCode, 400)
  assert.equal(JSON.parse(other.body).code, 'DRY_RUN_UNSUPPORTED')
  // Without the header, the same routes work.
  assert.equal((await call(t.app, 'POST', '/billing/checkout', { token: owner.token, body: { items: [{ productId: product.id, quantity: 1 }], successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/no' } })).status, 201)
})

test('an Idempotency-Key under dry run keeps no record: a later real request with that key runs, and its repeat replays', async () => {
  const key = unique('idem')
  const body = { name: unique('Idem '), email: `${unique('i')}@example.com` }
  const headers = { 'idempotency-key': key }
  const dry = await call(t.app, 'POST', '/contacts', { token: owner.token, body, headers: { ...headers, ...DRY } })
  assert.equal(dry.status, 201)
  assert.equal(dry.headers['idempotent-replayed'], undefined)
  assert.equal((await t.app.ctx.db.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key])).rowCount, 0)
  const again = await call(t.app, 'POST', '/contacts', { token: owner.token, body, headers: { ...headers, ...DRY } })
  assert.equal(again.headers['idempotent-replayed'], undefined)
  assert.notEqual(again.body.id, dry.body.id)
  const real = await call(t.app, 'POST', '/contacts', { token: owner.token, body, headers })
  assert.equal(real.status, 201)
  assert.equal(real.headers['idempotent-replayed'], undefined)
  assert.notEqual(real.body.id, dry.body.id)
  const replay = await call(t.app, 'POST', '/contacts', { token: owner.token, body, headers })
  assert.equal(replay.headers['idempotent-replayed'], 'true')
  assert.equal(replay.body.id, real.body.id)
  // A dry run with a key already used: not replayed, carried out and rolled back.
  const dryAfter = await call(t.app, 'POST', '/contacts', { token: owner.token, body, headers: { ...headers, ...DRY } })
  assert.equal(dryAfter.headers['idempotent-replayed'], undefined)
  assert.equal(dryAfter.status, 409, 'the e-mail is taken now')
})

test('dry runs in parallel with real writes on the same record: every real one is kept, no dry one', async () => {
  const invoice = await createInvoice(owner)
  const sent = await owner.post(`/invoices/${invoice.id}/send`, {})
  assert.ok(sent.status < 300, JSON.stringify(sent.body))
  const pay = (dry: boolean) => call(t.app, 'POST', `/invoices/${invoice.id}/pay`, { token: owner.token, body: { amount: 100 }, headers: dry ? DRY : {} })
  const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => pay(i % 2 === 0)))
  for (const a of answers) assert.ok(a.status < 300, JSON.stringify(a.body))
  const after = await owner.get(`/invoices/${invoice.id}`)
  assert.equal(after.body.amountPaid, 800)
  const payments = await owner.get(`/invoices/${invoice.id}/payments`)
  assert.equal((payments.body.data ?? payments.body).length, 8)
})

test('Db.dryRun: a refused transaction inside is undone as a savepoint, the rest rolled back at the end, and a statement sent after the end is refused', async () => {
  const db = t.app.ctx.db
  const id = randomUUID()
  let stray: Promise<unknown> | undefined
  const seen = await db.dryRun(async () => {
    await db.query(`INSERT INTO settings (key, value) VALUES ($1, 'a')`, [`dry-${id}`])
    await assert.rejects(db.tx(async (q) => {
      await q.query(`INSERT INTO settings (key, value) VALUES ($1, 'b')`, [`dry-tx-${id}`])
      throw new Error('refused')
    }), /refused/)
    // A failed statement leaves the transaction usable, as it leaves the database.
    await assert.rejects(db.query(`INSERT INTO settings (key, value) VALUES ($1, 'a')`, [`dry-${id}`]))
    const both = await Promise.all([db.query(`SELECT key FROM settings WHERE key LIKE $1`, [`dry-%${id}`]), db.tx((q) => q.query('SELECT 1'))])
    stray = new Promise((resolve) => setTimeout(resolve, 20)).then(() => db.query(`INSERT INTO settings (key, value) VALUES ($1, 'c')`, [`dry-late-${id}`]))
    stray.catch(() => {})
    return both[0].rows.map((r) => r.key)
  })
  assert.deepEqual(seen, [`dry-${id}`])
  await assert.rejects(stray!, DryRunEndedError)
  assert.equal((await db.query(`SELECT 1 FROM settings WHERE key LIKE $1`, [`dry-%${id}`])).rowCount, 0)
  // Errors come out as they are.
  await assert.rejects(db.dryRun(async () => { throw new Error('as is') }), /as is/)
})
