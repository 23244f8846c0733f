// Cursor pagination (docs/platform.md "Cursor pagination"): one mechanism in
// core/pagination.ts for every enveloped list.
// Contacts stand for every list: the kernel writes the same SQL for all.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const expectError = (res: Parameters<typeof expectStatus>[0], status: number, code: string) => assert.equal(expectStatus(res, status).code, code)

const contact = async (o: TestOrg, overrides: Record<string, unknown> = {}) =>
  expectStatus(await o.post('/contacts', { name: unique('Contact '), email: `${unique('c')}@example.com`, ...overrides }), 201)

/** Follows nextCursor from the first page to null; `between` runs after each page. */
async function follow(o: TestOrg, query: string, between: (page: number) => Promise<void> = async () => {}) {
  const seen: any[] = []
  let res = expectStatus(await o.get(`/contacts?${query}`), 200)
  for (let page = 1; ; page++) {
    seen.push(...res.data)
    if (page > 1) assert.deepEqual([res.meta.page, res.meta.totalPages], [null, null])
    if (res.meta.nextCursor === null) return seen
    await between(page)
    res = expectStatus(await o.get(`/contacts?${query}&cursor=${encodeURIComponent(res.meta.nextCursor)}`), 200)
  }
}

test('following cursors returns every row that existed throughout exactly once while rows are inserted and deleted', async () => {
  const o = await createOrg(t.app)
  const kept: string[] = []
  const doomed: string[] = []
  for (let i = 0; i < 23; i++) (i % 4 === 1 ? doomed : kept).push((await contact(o)).id)
  for (const order of ['desc', 'asc']) {
    const inserted: string[] = []
    const rows = await follow(o, `limit=4&sortOrder=${order}`, async (page) => {
      // Each page: two new rows and one row deleted (one already passed, or one still ahead).
      inserted.push((await contact(o)).id, (await contact(o)).id)
      const gone = doomed.shift()
      if (gone) expectStatus(await o.del(`/contacts/${gone}`), 204)
      assert.ok(page < 50, 'cursor loop')
    })
    const ids = rows.map((r) => r.id)
    assert.equal(new Set(ids).size, ids.length, `a row repeated (${order})`)
    for (const id of kept) assert.ok(ids.includes(id), `row ${id} skipped (${order})`)
    kept.push(...inserted)
  }
})

test('cursors over a nullable sort column (email) visit null and non-null rows once, both ways', async () => {
  const o = await createOrg(t.app)
  const all = []
  for (let i = 0; i < 5; i++) all.push(await contact(o, { email: null }))
  for (let i = 0; i < 6; i++) all.push(await contact(o))
  for (const order of ['asc', 'desc']) {
    const rows = await follow(o, `limit=3&sortBy=email&sortOrder=${order}`)
    assert.deepEqual(rows.map((r) => r.id).sort(), all.map((r) => r.id).sort(), order)
    const byPages = expectStatus(await o.get(`/contacts?limit=100&sortBy=email&sortOrder=${order}`), 200).data.map((r: any) => r.id)
    assert.deepEqual(rows.map((r) => r.id), byPages, `cursor order is the page order (${order})`)
  }
})

test('meta: a cursor answer has total and limit, page and totalPages null; the last page has nextCursor null', async () => {
  const o = await createOrg(t.app)
  for (let i = 0; i < 5; i++) await contact(o, { type: 'individual' })
  await contact(o)
  const first = expectStatus(await o.get('/contacts?limit=2&type=individual'), 200)
  assert.equal(first.meta.total, 5)
  assert.equal(typeof first.meta.nextCursor, 'string')
  const second = expectStatus(await o.get(`/contacts?limit=3&type=individual&cursor=${encodeURIComponent(first.meta.nextCursor)}`), 200)
  assert.deepEqual(second.meta, { total: 5, page: null, limit: 3, totalPages: null, nextCursor: null })
  assert.equal(second.data.length, 3)
  assert.deepEqual(expectStatus(await o.get('/contacts?limit=6&type=individual'), 200).meta.nextCursor, null)
})

test('cursor with page, a malformed cursor, or one of another filter, sort, list or organization: 400', async () => {
  const o = await createOrg(t.app)
  const other = await createOrg(t.app)
  for (let i = 0; i < 3; i++) {
    await contact(o)
    await contact(other)
  }
  const cursor = encodeURIComponent(expectStatus(await o.get('/contacts?limit=1'), 200).meta.nextCursor)
  expectStatus(await o.get(`/contacts?limit=1&cursor=${cursor}`), 200)
  expectError(await o.get(`/contacts?limit=1&cursor=${cursor}&page=1`), 400, 'INVALID_PARAMETER')
  expectError(await o.get(`/contacts?limit=1&cursor=${cursor}&page=2`), 400, 'INVALID_PARAMETER')
  for (const bad of ['x', 'not-base64!', Buffer.from('[1,2]').toString('base64url'), Buffer.from('{"a":1}').toString('base64url')]) {
    expectError(await o.get(`/contacts?cursor=${encodeURIComponent(bad)}`), 400, 'INVALID_PARAMETER')
  }
  expectError(await o.get(`/contacts?limit=1&type=company&cursor=${cursor}`), 400, 'INVALID_PARAMETER')
  expectError(await o.get(`/contacts?limit=1&sortOrder=asc&cursor=${cursor}`), 400, 'INVALID_PARAMETER')
  expectError(await o.get(`/contacts?limit=1&sortBy=name&cursor=${cursor}`), 400, 'INVALID_PARAMETER')
  expectError(await o.get(`/contacts?limit=1&search=x&cursor=${cursor}`), 400, 'INVALID_PARAMETER')
  expectError(await other.get(`/contacts?limit=1&cursor=${cursor}`), 400, 'INVALID_PARAMETER')
  expectError(await o.get(`/products?limit=1&cursor=${cursor}`), 400, 'INVALID_PARAMETER')
  // A forged position of the right list but a value its column cannot hold.
  const [fp] = JSON.parse(Buffer.from(decodeURIComponent(cursor), 'base64url').toString())
  const forged = Buffer.from(JSON.stringify([fp, 'not a time', 'not a uuid'])).toString('base64url')
  expectError(await o.get(`/contacts?limit=1&cursor=${forged}`), 400, 'INVALID_PARAMETER')
})

test('a search keeps its total when paged by cursor', async () => {
  const o = await createOrg(t.app)
  for (let i = 0; i < 5; i++) await contact(o, { name: `Zebra ${unique()}` })
  await contact(o, { name: 'Other' })
  const first = expectStatus(await o.get('/contacts?limit=2&search=zebra'), 200)
  const next = expectStatus(await o.get(`/contacts?limit=2&search=zebra&cursor=${encodeURIComponent(first.meta.nextCursor)}`), 200)
  assert.equal(next.meta.total, 5)
  assert.equal(next.data.length, 2)
  assert.ok(next.data.every((c: any) => c.name.startsWith('Zebra')))
})
