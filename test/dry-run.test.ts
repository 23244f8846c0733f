import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { preferenceNames } from '../src/core/dry-run.ts'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import { fake, operationsOf, prng, realistic, responseRules, type Json, type Operation } from './helpers/fuzz.ts'
import { adminUserId, createLicensedProduct, EMPTY_ZIP, issueLicense, multipartForm } from './helpers/licenses.ts'
import { createContact, createInvoice, createProduct } from './helpers/sales-fixtures.ts'
import { createEmployee, loadModuleFixtures, warehouseOf, type Params, type TenancyFixtures } from './helpers/tenancy.ts'

// Prefer: dry-run (issue 28, docs/platform.md "Dry runs"): every POST, PATCH and DELETE of
// openapi.json is sent with a valid request under dry run, and no table may change (row count
// and checksum of every table, before and after); then the same request for real must answer
// the status the dry run answered.

let t: TestApp
let doc: Json
let owner: TestOrg
let fixtures: Required<TenancyFixtures>
let snapshotSql: string
let licenseKey: string
const ownIds: Record<string, string[]> = {}
const ownValues: Record<string, unknown[]> = {}

before(async () => {
  t = await buildTestApp()
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

interface Prepared {
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
}

async function prepare(o: Operation): Promise<Prepared> {
  const key = `${o.method} ${o.route}`
  const pathFixture = fixtures.paths[o.route] ?? otherPaths[o.route]
  const params = pathFixture ? await pathFixture(owner) : {}
  const url = o.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? 'x'))
  const token = o.path.startsWith('/api/licenses/') ? licenseKey : owner.token
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (o.bodies['multipart/form-data'] && !o.bodies['application/json']) {
    const form = multipartForm({ version: '19.0.1.0.0' }, { name: 'file', filename: 'm.zip', content: EMPTY_ZIP })
    return { url, headers: { ...headers, 'content-type': form.contentType }, payload: form.body }
  }
  const schema = o.bodies['application/json']
  if (!schema) return { url, headers }
  const reference = fixtures.references[key]
  let body: unknown
  if (validBodies[o.id]) body = validBodies[o.id](owner)
  else if (fixtures.bodies[key] !== undefined) body = fixtures.bodies[key]
  else if (reference) body = await reference.body(owner)
  else body = realistic(schema, fake(schema, 1), { ids: ownIds, values: ownValues, random: prng(1) })
  return { url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) }
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
