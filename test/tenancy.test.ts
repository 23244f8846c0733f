import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { RouteInfo } from '../src/core/module.ts'
import { buildTestApp, call, createOrg, type Res, type TestApp, type TestOrg } from './helpers/app.ts'
import { loadModuleFixtures, type ListFixture, type Params, type TenancyFixtures } from './helpers/tenancy.ts'

// The tenancy contract, over every registered route:
// - without a credential each non-public route is 401;
// - with another organization's admin credential each record is 404 (and its owner still sees it);
// - no list shows another organization's rows, nor counts them;
// - a body that names another organization's record (contactId, lineItems[].productId, ...)
//   is refused without a trace: the module's status, the error body
//   (docs/errors.md "The error body"), nothing of the record in the answer, nothing created
//   or changed.
// What each module's routes need lives beside its code, in src/modules/<module>/*.fixtures.ts
// (the default export, typed by test/helpers/tenancy.ts); this file finds them.

/** Routes of the kernel (registered by no module). */
const KERNEL = '(kernel)'
const kernelFixtures: TenancyFixtures = {
  exempt: {
    'GET /admin/jobs': 'the scheduled jobs of the service, the same for every organization',
    'POST /admin/jobs/:name/run': 'names a job of the service, not a record',
    'GET /admin/queues': "counts per queue, not records; that another organization's rows are not counted is tested in test/worker.test.ts",
  },
}

const fixtureFile = (module: string) => (module === KERNEL ? 'test/tenancy.test.ts (kernelFixtures)' : `src/modules/${module}/${module}.fixtures.ts`)

/** Every module's fixtures, by module folder, and the kernel's. */
async function loadFixtures(): Promise<Map<string, TenancyFixtures>> {
  return new Map<string, TenancyFixtures>([[KERNEL, kernelFixtures], ...(await loadModuleFixtures())])
}

let t: TestApp
let owner: TestOrg
let stranger: TestOrg
/** A third organization, owner of the foreign records named in bodies (the stranger keeps no records of its own). */
let other: TestOrg
let fixtures: Map<string, TenancyFixtures>
before(async () => {
  t = await buildTestApp()
  owner = await createOrg(t.app)
  stranger = await createOrg(t.app)
  other = await createOrg(t.app)
  fixtures = await loadFixtures()
})
after(() => t.close())

const api = (url: string) => url.replace(/^\/api/, '')
const moduleOf = (r: RouteInfo) => r.module ?? KERNEL
const fixturesOf = (r: RouteInfo): TenancyFixtures => fixtures.get(moduleOf(r)) ?? {}
const keyOf = (r: RouteInfo) => `${r.method} ${api(r.url)}`
const isExempt = (r: RouteInfo) => keyOf(r) in (fixturesOf(r).exempt ?? {})
const privateRoutes = () => t.app.routeList.filter((r) => !r.config.access?.public)

/** Where else a fixture was declared, for a message when it sits in the wrong module's file. */
function declaredElsewhere(part: keyof TenancyFixtures, key: string, module: string) {
  const found = [...fixtures].filter(([m, f]) => m !== module && f[part] && key in f[part]!).map(([m]) => fixtureFile(m))
  return found.length ? ` (declared in ${found.join(', ')}, but the route belongs to this module)` : ''
}

function fill(path: string, params: Params, label: string) {
  return path.replace(/:(\w+)/g, (_, name: string) => {
    assert.ok(params[name], `${label}: the fixture gave no ${name}`)
    return encodeURIComponent(params[name])
  })
}

/** The body of docs/errors.md "The error body": statusCode, message and error, and nothing else but the machine `code`. */
function assertErrorBody(res: Res, status: number, label: string) {
  assert.equal(res.status, status, `${label} gave ${res.status}: ${JSON.stringify(res.body)}`)
  assert.equal(res.body?.statusCode, status, `${label}: statusCode of ${JSON.stringify(res.body)}`)
  assert.equal(typeof res.body.error, 'string', `${label}: error of ${JSON.stringify(res.body)}`)
  assert.ok(typeof res.body.message === 'string' || Array.isArray(res.body.message), `${label}: message of ${JSON.stringify(res.body)}`)
  const extra = Object.keys(res.body).filter((k) => !['statusCode', 'message', 'error', 'code'].includes(k))
  assert.deepEqual(extra, [], `${label}: unexpected keys in the error body ${JSON.stringify(res.body)}`)
}

const isEnvelope = (body: any) => Array.isArray(body?.data) && typeof body?.meta?.total === 'number'

// Body schemas: the fields that name records (format uuid, or a name ending in Id), as
// paths such as 'contactId' or 'lineItems[].productId'; $refs resolve to the app's shared schemas.

type Schema = Record<string, any>
function walkSchema(schema: Schema | undefined, visit: (path: string, name: string, prop: Schema) => boolean, path = '', seen = new Set<Schema>()) {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return
  seen.add(schema)
  if (typeof schema.$ref === 'string') {
    const shared = (t.app.getSchemas() as Record<string, Schema>)[schema.$ref.replace(/#.*$/, '')]
    assert.ok(shared, `unknown schema reference ${schema.$ref}`)
    return walkSchema(shared, visit, path, seen)
  }
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walkSchema(branch, visit, path, seen)
  if (schema.items) walkSchema(schema.items, visit, `${path}[]`, seen)
  for (const [name, prop] of Object.entries<Schema>(schema.properties ?? {})) {
    const at = path ? `${path}.${name}` : name
    if (visit(at, name, prop)) walkSchema(prop, visit, at, seen)
  }
}
// Fields whose name ends in Id but that name no record: a tax identification number.
const NOT_RECORDS = new Set(['taxId'])
const namesRecord = (name: string, prop: Schema) =>
  (/Id$/.test(name) && !NOT_RECORDS.has(name)) || prop.format === 'uuid' || (prop.anyOf ?? []).some((b: Schema) => b.format === 'uuid')
function referenceFields(body: Schema | undefined): string[] {
  const out: string[] = []
  walkSchema(body, (path, name, prop) => (namesRecord(name, prop) ? (out.push(path), false) : true))
  return out
}
function schemaFields(body: Schema | undefined): Set<string> {
  const out = new Set<string>()
  walkSchema(body, (path) => (out.add(path), true))
  return out
}

/** Sets a field given as 'a.b' or 'items[].productId' (every element of the array). */
function setField(target: any, path: string, value: string) {
  const [head, ...rest] = path.split('.')
  const name = head.replace(/\[\]$/, '')
  if (!rest.length) {
    target[name] = value
    return
  }
  if (head.endsWith('[]')) {
    assert.ok(Array.isArray(target[name]) && target[name].length, `the fixture's body has no ${name}[] to put ${path} in`)
    for (const item of target[name]) setField(item, rest.join('.'), value)
  } else {
    target[name] ??= {}
    setField(target[name], rest.join('.'), value)
  }
}

test('every fixture names a route of its own module', () => {
  const stale: string[] = []
  for (const [module, f] of fixtures) {
    const routes = t.app.routeList.filter((r) => moduleOf(r) === module)
    const keys = new Set(routes.map(keyOf))
    const paths = new Set(routes.map((r) => api(r.url)))
    const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => api(r.url)))
    for (const path of Object.keys(f.paths ?? {})) if (!paths.has(path)) stale.push(`paths['${path}']`)
    for (const path of Object.keys(f.lists ?? {})) if (!gets.has(path)) stale.push(`lists['${path}']`)
    for (const part of ['bodies', 'references', 'exempt'] as const) {
      for (const key of Object.keys(f[part] ?? {})) if (!keys.has(key)) stale.push(`${part}['${key}']`)
    }
    assert.deepEqual(stale, [], `${fixtureFile(module)} names no route of module ${module}`)
  }
})

test('every non-public route answers 401 without a credential', async () => {
  const routes = privateRoutes()
  assert.ok(routes.length > 10)
  for (const r of routes) {
    const path = api(r.url).replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000')
    const res = await call(t.app, r.method as 'GET', path, r.method === 'GET' || r.method === 'DELETE' ? {} : { body: {} })
    assertErrorBody(res, 401, `${r.method} ${r.url}`)
  }
})

test("no list shows another organization's rows or counts them", async (ctx) => {
  const routes = privateRoutes().filter((r) => r.method === 'GET' && !r.url.includes(':') && !isExempt(r))
  const missing: string[] = []
  const checked: Array<{ r: RouteInfo; fixture: ListFixture }> = []
  // Everything that names a record of the owner: its organization, then what each list fixture made.
  const marks = [owner.id, owner.name]
  for (const r of routes) {
    const path = api(r.url)
    const fixture = fixturesOf(r).lists?.[path]
    if (!fixture) {
      const own = await owner.get(path)
      const isList = Array.isArray(own.body) || Array.isArray(own.body?.data)
      if (isList) missing.push(`GET ${path}: add lists['${path}'] to ${fixtureFile(moduleOf(r))}${declaredElsewhere('lists', path, moduleOf(r))}`)
      continue
    }
    const made = typeof fixture === 'function' ? await fixture(owner) : await fixture.make(owner)
    // The owner sees what its fixture made (right away: later fixtures may push it off the first page).
    const own = await owner.get(path)
    assert.equal(own.status, 200, `GET ${path} for its owner gave ${own.status}: ${JSON.stringify(own.body)}`)
    const text = JSON.stringify(own.body)
    for (const mark of made) assert.ok(text.includes(mark), `GET ${path}: the owner's answer lacks "${mark}", made by its fixture`)
    if (typeof fixture !== 'function') assert.ok(fixture.count(own.body) > 0, `GET ${path}: the owner's answer counts none of its records`)
    marks.push(...made)
    checked.push({ r, fixture })
  }
  assert.deepEqual(missing, [], 'list routes without a tenancy fixture')
  ctx.diagnostic(`lists checked: ${checked.map(({ r }) => api(r.url)).join(', ')}`)

  // Once every fixture has run, no answer to the stranger names anything of the owner's.
  for (const { r, fixture } of checked) {
    const path = api(r.url)
    const theirs = await stranger.get(path)
    assert.equal(theirs.status, 200, `GET ${path} for another organization gave ${theirs.status}: ${JSON.stringify(theirs.body)}`)
    const text = JSON.stringify(theirs.body)
    const leaked = marks.filter((mark) => text.includes(mark))
    assert.deepEqual(leaked, [], `GET ${path} shows another organization the owner's records: ${text.slice(0, 500)}`)
    if (isEnvelope(theirs.body) && theirs.body.data.length < theirs.body.meta.limit) {
      assert.equal(theirs.body.meta.total, theirs.body.data.length, `GET ${path}: meta.total counts rows the caller does not see`)
    }
    if (typeof fixture !== 'function') assert.equal(fixture.count(theirs.body), 0, `GET ${path} counts the owner's records for another organization: ${text.slice(0, 500)}`)
  }
})

test("every route with a record id answers 404 for another organization's record", async () => {
  const routes = privateRoutes().filter((r) => r.url.includes(':') && !isExempt(r))
  const missing: string[] = []
  for (const r of routes) {
    const path = api(r.url)
    const key = keyOf(r)
    const { paths, bodies } = fixturesOf(r)
    const fixture = paths?.[path]
    if (!fixture) {
      missing.push(`${key}: add paths['${path}'] to ${fixtureFile(moduleOf(r))}${declaredElsewhere('paths', path, moduleOf(r))}`)
      continue
    }
    const url = fill(path, await fixture(owner), key)
    const body = bodies?.[key] ?? (r.method === 'GET' || r.method === 'DELETE' ? undefined : {})
    const res = await call(t.app, r.method as 'GET', url, { token: stranger.token, body })
    assertErrorBody(res, 404, `${key} as another organization`)
    // The owner still sees it: the 404 is about tenancy, not a broken fixture.
    if (r.method === 'GET') {
      const own = await call(t.app, 'GET', url, { token: owner.token })
      assert.ok(own.status < 400, `${key} for its owner gave ${own.status}`)
    }
  }
  assert.deepEqual([...new Set(missing)], [], 'routes without a tenancy fixture')
})

test("a body naming another organization's record is refused and leaves no trace", async (ctx) => {
  const routes = privateRoutes().filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && !isExempt(r))
  const missing: string[] = []
  const covered: string[] = []
  for (const r of routes) {
    const key = keyOf(r)
    const where = fixtureFile(moduleOf(r))
    const fields = referenceFields(r.schema?.body as Schema)
    const fixture = fixturesOf(r).references?.[key]
    if (!fixture) {
      if (fields.length) missing.push(`${key} (${fields.join(', ')}): add references['${key}'] to ${where}${declaredElsewhere('references', key, moduleOf(r))}`)
      continue
    }
    const known = schemaFields(r.schema?.body as Schema)
    for (const field of Object.keys(fixture.fields)) assert.ok(known.has(field), `${where}: ${key} has no body field ${field}`)
    for (const field of fields) if (!fixture.fields[field]) missing.push(`${key} ${field}: add it to references['${key}'].fields in ${where}`)

    for (const [field, spec] of Object.entries(fixture.fields)) {
      const label = `${key} with ${field} of another organization`
      const foreign = await spec.foreign(other)
      const params = fixture.params ? await fixture.params(owner) : {}
      const url = fill(api(r.url), params, key)
      const body = await (spec.body ?? fixture.body)(owner)
      setField(body, field, foreign.id)
      const watched = fill(fixture.unchanged, params, `${key} unchanged`)
      const before = await owner.get(watched)
      assert.equal(before.status, 200, `GET ${watched} gave ${before.status}`)

      const res = await call(t.app, r.method as 'POST', url, { token: owner.token, body })
      assertErrorBody(res, spec.status, label)
      const text = JSON.stringify(res.body)
      for (const secret of [...foreign.secrets, other.id, other.name]) assert.ok(!text.includes(secret), `${label}: the answer shows "${secret}": ${text}`)

      const afterwards = await owner.get(watched)
      if (isEnvelope(before.body)) assert.equal(afterwards.body.meta?.total, before.body.meta.total, `${label}: GET ${watched} counts a new record`)
      if (Array.isArray(before.body)) assert.equal(afterwards.body.length, before.body.length, `${label}: GET ${watched} has a new record`)
      assert.deepEqual(afterwards.body, before.body, `${label}: GET ${watched} changed`)
      covered.push(`${key} ${field} (${spec.status})`)
    }
    // The same request naming the owner's own records passes: the refusal was about the foreign id.
    for (const make of [fixture.body, ...Object.values(fixture.fields).flatMap((f) => (f.body ? [f.body] : []))]) {
      const params = fixture.params ? await fixture.params(owner) : {}
      const res = await call(t.app, r.method as 'POST', fill(api(r.url), params, key), { token: owner.token, body: await make(owner) })
      assert.ok(res.status < 300, `${key} with the owner's own records gave ${res.status}: ${JSON.stringify(res.body)}`)
    }
  }
  assert.deepEqual(missing, [], 'body fields that name records, without a tenancy fixture')
  ctx.diagnostic(`reference fields checked: ${covered.join('; ')}`)
  assert.ok(covered.length >= 10, `only ${covered.length} reference fields checked`)
})
