import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'
import { multipartForm } from './helpers/licenses.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const post = (body: unknown, key: string, o = org) => o.post('/contacts', body, o.token, { 'idempotency-key': key })
const countByEmail = async (email: string) => (await org.get(`/contacts?email=${encodeURIComponent(email)}`)).body.meta.total

test('the same key and body returns the stored response', async () => {
  const first = await post({ name: 'Idem', email: 'idem@example.com' }, 'k-1')
  expectStatus(first, 201)
  assert.equal(first.headers['idempotent-replayed'], undefined)
  const again = await post({ name: 'Idem', email: 'idem@example.com' }, 'k-1')
  assert.equal(again.status, 201)
  assert.equal(again.headers['idempotent-replayed'], 'true')
  assert.deepEqual(again.body, first.body)
  assert.equal(await countByEmail('idem@example.com'), 1)
})

test('the same key with another body: 422', async () => {
  await post({ name: 'A', email: 'a1@example.com' }, 'k-2')
  expectStatus(await post({ name: 'B', email: 'b1@example.com' }, 'k-2'), 422, 'Idempotency-Key was already used with another request body')
  assert.equal(await countByEmail('b1@example.com'), 0)
})

test('error responses are replayed too', async () => {
  await post({ name: 'Dup', email: 'dup@example.com' }, 'k-3a')
  const conflict = await post({ name: 'Dup', email: 'dup@example.com' }, 'k-3b')
  expectStatus(conflict, 409)
  const replay = await post({ name: 'Dup', email: 'dup@example.com' }, 'k-3b')
  assert.equal(replay.status, 409)
  assert.equal(replay.headers['idempotent-replayed'], 'true')
})

test('concurrent duplicates: one runs, the others get 409 or the replay; one record', async () => {
  const body = { name: 'Race', email: 'race@example.com' }
  const results = await Promise.all(Array.from({ length: 15 }, () => post(body, 'k-race')))
  const created = results.filter((r) => r.status === 201)
  assert.ok(created.length >= 1)
  assert.ok(results.every((r) => r.status === 201 || r.status === 409), JSON.stringify(results.map((r) => r.status)))
  assert.ok(created.filter((r) => r.headers['idempotent-replayed'] !== 'true').length === 1)
  assert.ok(new Set(created.map((r) => r.body.id)).size === 1)
  for (const r of results.filter((x) => x.status === 409)) assert.match(r.body.message, /in progress/)
  assert.equal(await countByEmail('race@example.com'), 1)
})

test('keys are scoped to the organization', async () => {
  const other = await createOrg(t.app)
  expectStatus(await post({ name: 'Mine', email: 'scoped@example.com' }, 'k-shared'), 201)
  const theirs = await post({ name: 'Theirs', email: 'scoped@example.com' }, 'k-shared', other)
  expectStatus(theirs, 201)
  assert.equal(theirs.headers['idempotent-replayed'], undefined)
})

test('a key past its 24 hours runs again', async () => {
  const first = await post({ name: 'Old', email: 'old1@example.com' }, 'k-old')
  await t.app.ctx.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'k-old'`)
  const second = await post({ name: 'Old', email: 'old1@example.com' }, 'k-old')
  expectStatus(second, 409)
  assert.notEqual(second.body, first.body)
})

test('key too long: 400', async () => {
  expectStatus(await post({ name: 'X' }, 'k'.repeat(256)), 400, 'Idempotency-Key')
})

test('the housekeeping job deletes keys past their 24 hours, and only those', async () => {
  await post({ name: 'Fresh', email: 'fresh-hk@example.com' }, 'k-hk-fresh')
  await post({ name: 'Stale', email: 'stale-hk@example.com' }, 'k-hk-stale')
  await t.app.ctx.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'k-hk-stale'`)
  const run = expectStatus(await org.post('/admin/jobs/housekeeping/run', {}), 200)
  assert.equal(run.result.idempotencyKeys, 1)
  const { rows } = await t.app.ctx.db.query<{ key: string }>(`SELECT key FROM idempotency_keys WHERE key LIKE 'k-hk-%'`)
  assert.deepEqual(rows.map((r) => r.key), ['k-hk-fresh'])
})

test('routes that answer tokens ignore the key: nothing is stored, each login answers its own pair', async () => {
  const login = () => call(t.app, 'POST', '/auth/login', { body: { email: org.adminEmail, password: org.password }, headers: { 'idempotency-key': 'login-key' } })
  const [a, b] = [await login(), await login()]
  expectStatus(a, 200)
  expectStatus(b, 200)
  assert.equal(b.headers['idempotent-replayed'], undefined)
  assert.notEqual(a.body.refreshToken, b.body.refreshToken)
  const refreshed = await call(t.app, 'POST', '/auth/refresh', { body: { refreshToken: a.body.refreshToken }, headers: { 'idempotency-key': 'refresh-key' } })
  expectStatus(refreshed, 200)
  const { rows } = await t.app.ctx.db.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE key IN ('login-key', 'refresh-key')`)
  assert.equal(rows[0].n, 0)
})

test('a multipart upload is fingerprinted by its length: the same file is replayed, another size is 422 (docs/platform.md "Idempotency")', async () => {
  const upload = (csv: string) => multipartForm({ resource: 'contacts', dryRun: 'true' }, { name: 'file', filename: 'rows.csv', content: Buffer.from(csv) })
  const form = upload('name,email\nUp Load,upload@example.com\n')
  const send = (f: { body: Buffer; contentType: string }) => org.post('/imports', f.body, org.token, { 'content-type': f.contentType, 'idempotency-key': 'k-upload' })
  const first = await send(form)
  expectStatus(first, 202)
  const again = await send(form)
  assert.equal(again.status, 202)
  assert.equal(again.headers['idempotent-replayed'], 'true')
  assert.equal(again.body.id, first.body.id)
  expectStatus(await send(upload('name,email\nAnother File,another-file@example.com\n')), 422, 'Idempotency-Key was already used with another request body')
  assert.equal((await org.get('/imports')).body.meta.total, 1)
})
