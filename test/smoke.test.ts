import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp } from './helpers/app.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

test('register, create a contact, list it', async () => {
  const org = await createOrg(t.app)
  const created = await org.post('/contacts', { name: 'Acme', email: 'a@acme.test' })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  const list = await org.get('/contacts')
  assert.equal(list.status, 200)
  assert.equal(list.body.meta.total, 1)
  const health = await call(t.app, 'GET', '/health')
  assert.equal(health.status, 200)
})
