import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from './helpers/app.ts'
import { pathFixtures, routeBodies, tenancyExempt } from './helpers/fixtures.ts'

// Walks every registered route: without a credential each non-public route is
// 401, and with another organization's admin credential each record is 404.

let t: TestApp
let owner: TestOrg
let stranger: TestOrg
before(async () => {
  t = await buildTestApp()
  owner = await createOrg(t.app)
  stranger = await createOrg(t.app)
})
after(() => t.close())

const api = (url: string) => url.replace(/^\/api/, '')

test('every non-public route answers 401 without a credential', async () => {
  const routes = t.app.routeList.filter((r) => !r.config.access?.public)
  assert.ok(routes.length > 10)
  for (const r of routes) {
    const path = api(r.url).replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000')
    const res = await call(t.app, r.method as 'GET', path, r.method === 'GET' || r.method === 'DELETE' ? {} : { body: {} })
    assert.equal(res.status, 401, `${r.method} ${r.url} gave ${res.status}`)
    assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'message', 'statusCode'], `${r.method} ${r.url}`)
  }
})

test("every route with a record id answers 404 for another organization's record", async () => {
  const routes = t.app.routeList.filter((r) => !r.config.access?.public && r.url.includes(':'))
  const missing: string[] = []
  for (const r of routes) {
    const path = api(r.url)
    const key = `${r.method} ${path}`
    if (tenancyExempt.has(key)) continue
    const fixture = pathFixtures[path]
    if (!fixture) {
      missing.push(path)
      continue
    }
    const params = await fixture(owner)
    const url = path.replace(/:(\w+)/g, (_, name) => {
      assert.ok(params[name], `fixture of ${path} gave no ${name}`)
      return encodeURIComponent(params[name])
    })
    const body = routeBodies[key] ?? (r.method === 'GET' || r.method === 'DELETE' ? undefined : {})
    const res = await call(t.app, r.method as 'GET', url, { token: stranger.token, body })
    assert.equal(res.status, 404, `${key} as another organization gave ${res.status}: ${JSON.stringify(res.body)}`)
    // The owner still sees it: the 404 is about tenancy, not a broken fixture.
    if (r.method === 'GET') {
      const own = await call(t.app, 'GET', url, { token: owner.token })
      assert.ok(own.status < 400, `${key} for its owner gave ${own.status}`)
    }
  }
  assert.deepEqual([...new Set(missing)], [], 'routes without a tenancy fixture in test/helpers/fixtures.ts')
})
