import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { STATUS_CODES } from 'node:http'
import { after, before, test } from 'node:test'
import { ERROR_CODES, codeToStatus, type ErrorCode } from '../src/core/errors.ts'
import { adminUserId, clientCall, clientRequest, createLicensedProduct, issueLicense } from './helpers/licenses.ts'
import { buildTestApp, call, createOrg, unique, type Res, type TestApp, type TestOrg } from './helpers/app.ts'
import { createContact, createInvoice, createQuotation } from './helpers/sales-fixtures.ts'
import { expectStatus } from './helpers/assert.ts'

// Every machine code of core/errors.ts driven through HTTP (docs/errors.md).

/** Codes no route can answer yet: their modules are still to come (docs/errors.md "The codes"). */
const NOT_YET_REACHABLE = new Set<ErrorCode>(['INSUFFICIENT_STOCK', 'LIMIT_EXCEEDED'])

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close().catch(() => {}))

const seen = new Set<ErrorCode>()

/** The body of docs/errors.md "The error body" (statusCode, message, error) plus `code`, nothing else, with the status of codeToStatus. */
function expectCode(res: Res | { statusCode: number; json(): any }, code: ErrorCode, message?: string | RegExp) {
  const status = 'status' in res ? res.status : res.statusCode
  const body = 'status' in res ? res.body : res.json()
  assert.equal(status, codeToStatus[code], `expected ${code} (${codeToStatus[code]}), got ${status}: ${JSON.stringify(body)}`)
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'statusCode'])
  assert.deepEqual([body.code, body.statusCode, body.error], [code, status, STATUS_CODES[status]])
  if (message !== undefined) {
    const text = Array.isArray(body.message) ? body.message.join('\n') : body.message
    if (typeof message === 'string') assert.ok(text.includes(message), `message "${text}" lacks "${message}"`)
    else assert.match(text, message)
  }
  seen.add(code)
  return body
}

const json = (method: 'POST' | 'PATCH', url: string, payload: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method, url: `/api${url}`, payload, headers: { authorization: `Bearer ${org.token}`, 'content-type': 'application/json', ...headers } })

test('the request itself: MALFORMED_REQUEST, VALIDATION_FAILED, UNSUPPORTED_MEDIA_TYPE, PAYLOAD_TOO_LARGE', async () => {
  expectCode(await json('POST', '/contacts', '{"name": '), 'MALFORMED_REQUEST', 'Malformed JSON in request body')
  // The license scope parses JSON itself (it keeps the raw bytes for the signature).
  expectCode(await clientCall(t.app, 'validate', {}, { token: org.token, raw: '{not json' }), 'MALFORMED_REQUEST', 'Malformed JSON')
  const invalid = expectCode(await org.post('/contacts', { email: 'not-an-email' }), 'VALIDATION_FAILED', 'name is required')
  assert.ok(Array.isArray(invalid.message))
  expectCode(await org.post('/invoices', { contactId: (await createContact(org)).id, invoiceDate: '2026-03-10', dueDate: '2026-03-01', lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }] }), 'VALIDATION_FAILED', 'dueDate must not be before invoiceDate')
  expectCode(await json('POST', '/contacts', 'name=x', { 'content-type': 'text/plain' }), 'UNSUPPORTED_MEDIA_TYPE')
  const product = await createLicensedProduct(org)
  expectCode(await org.post(`/products/${product.id}/builds`, { version: '19.0.1.0.0' }), 'UNSUPPORTED_MEDIA_TYPE', 'multipart/form-data')
  expectCode(await json('POST', '/contacts', JSON.stringify({ name: 'x'.repeat(t.config.bodyLimit) })), 'PAYLOAD_TOO_LARGE')
})

test('the address: INVALID_PARAMETER, ROUTE_NOT_FOUND, NOT_FOUND', async () => {
  expectCode(await org.get('/contacts?sortBy=nope'), 'INVALID_PARAMETER', 'sortBy')
  expectCode(await org.get('/contacts/not-a-uuid'), 'INVALID_PARAMETER')
  expectCode(await org.post('/contacts', { name: 'Idem' }, undefined, { 'idempotency-key': 'k'.repeat(256) }), 'INVALID_PARAMETER', 'Idempotency-Key')
  expectCode(await org.get('/no-such-route'), 'ROUTE_NOT_FOUND', 'Route GET /api/no-such-route not found')
  expectCode(await org.get('/contacts/00000000-0000-4000-8000-000000000000'), 'NOT_FOUND', 'Contact not found')
})

test('the credential: UNAUTHENTICATED, FORBIDDEN, INVALID_SIGNATURE', async () => {
  expectCode(await call(t.app, 'GET', '/contacts'), 'UNAUTHENTICATED', 'Missing bearer credential')
  expectCode(await call(t.app, 'GET', '/contacts', { token: 'not-a-token' }), 'UNAUTHENTICATED')
  expectCode(await org.get('/admin/jobs', await org.as('member')), 'FORBIDDEN', 'Role member')
  const hook = await t.app.inject({ method: 'POST', url: '/api/billing/webhooks', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, payload: '{}' })
  expectCode(hook, 'INVALID_SIGNATURE', 'Invalid signature')
})

test('rules and states: INVALID_STATE (400), STATE_CONFLICT (409), ACTION_NOT_ALLOWED, ALREADY_EXISTS, CONFLICT', async () => {
  const invoice = await createInvoice(org)
  assert.equal((await org.post(`/invoices/${invoice.id}/cancel`)).status, 200)
  expectCode(await org.post(`/invoices/${invoice.id}/send`, {}), 'INVALID_STATE', 'cancelled invoice')
  const quotation = await createQuotation(org)
  assert.equal((await org.post(`/sales/quotations/${quotation.id}/confirm`)).status, 201)
  expectCode(await org.post(`/sales/quotations/${quotation.id}/confirm`), 'STATE_CONFLICT', 'Quotation already confirmed')
  expectCode(await org.del(`/users/${await adminUserId(org)}`), 'ACTION_NOT_ALLOWED', 'You cannot delete yourself')
  const contact = await createContact(org)
  expectCode(await org.post('/contacts', { name: 'Twin', email: contact.email }), 'ALREADY_EXISTS', 'already exists')
  expectCode(await call(t.app, 'POST', '/auth/register', { body: { organizationName: 'Again', name: 'A', email: org.adminEmail, password: org.password } }), 'ALREADY_EXISTS')
  const billed = await createContact(org)
  await createInvoice(org, { contactId: billed.id })
  expectCode(await org.del(`/contacts/${billed.id}`), 'CONFLICT', 'referenced by other records')
})

test('Idempotency-Key: IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE', async () => {
  const key = unique('idem')
  assert.equal((await org.post('/contacts', { name: 'First' }, undefined, { 'idempotency-key': key })).status, 201)
  expectCode(await org.post('/contacts', { name: 'Other' }, undefined, { 'idempotency-key': key }), 'IDEMPOTENCY_KEY_REUSED', 'another request body')
  // As if the first request were still running.
  await t.app.ctx.db.query(`UPDATE idempotency_keys SET state = 'running' WHERE key = $1`, [key])
  expectCode(await org.post('/contacts', { name: 'First' }, undefined, { 'idempotency-key': key }), 'IDEMPOTENCY_KEY_IN_USE', 'in progress')
})

test('license client codes keep their spelling, statuses and bodies (docs/errors.md "The codes")', async () => {
  const product = await createLicensedProduct(org)
  const userId = await adminUserId(org)
  const license = await issueLicense(org, { productId: product.id, userId, activationsLimit: 1 })
  const req = clientRequest(license.key, product, 'one.example.com')
  assert.equal((await clientCall(t.app, 'activate', req)).status, 200)
  const limit = expectCode(await clientCall(t.app, 'activate', { ...req, domain: 'two.example.com' }), 'ACTIVATION_LIMIT_REACHED')
  assert.deepEqual(limit, { statusCode: 409, message: 'Activation limit reached', error: 'Conflict', code: 'ACTIVATION_LIMIT_REACHED' })
  expectCode(await clientCall(t.app, 'activate', { ...req, module_name: 'another_module' }), 'MODULE_MISMATCH')
  expectCode(await clientCall(t.app, 'activate', { ...req, erp_version: '18.0' }), 'VERSION_MISMATCH')
  expectCode(await clientCall(t.app, 'deactivate', { ...req, domain: 'never.example.com' }), 'NOT_ACTIVATED_ON_DOMAIN', 'License is not activated on this domain')
  expectCode(await clientCall(t.app, 'activate', req, { signature: `sha256=${'0'.repeat(64)}` }), 'INVALID_SIGNATURE', 'Invalid signature')
  const missing = license.key.slice(0, -1) + (license.key.endsWith('A') ? 'B' : 'A')
  const notFound = expectCode(await clientCall(t.app, 'activate', { ...req, key: missing }, { token: org.token }), 'LICENSE_NOT_FOUND')
  assert.deepEqual(notFound, { statusCode: 404, message: 'License not found', error: 'Not Found', code: 'LICENSE_NOT_FOUND' })

  assert.equal((await org.post(`/admin/licenses/${license.id}/suspend`)).status, 200)
  expectCode(await clientCall(t.app, 'activate', req), 'LICENSE_INACTIVE', 'License suspended')
  expectCode(await org.post(`/admin/licenses/${license.id}/suspend`), 'STATE_CONFLICT', 'cannot be')

  const soon = await issueLicense(org, { productId: product.id, userId, expiresAt: new Date(Date.now() + 1000).toISOString() })
  while (Date.now() < Date.parse((await org.get(`/admin/licenses/${soon.id}`)).body.expiresAt) + 5) await new Promise((r) => setTimeout(r, 100))
  expectCode(await clientCall(t.app, 'activate', clientRequest(soon.key, product)), 'LICENSE_EXPIRED', 'License expired')
})

test('PERIOD_LOCKED: a posting dated on or before the lock date (docs/accounting.md "Lock date")', async () => {
  expectStatus(await org.patch('/organization', { lockDate: '2026-01-31' }), 200)
  const accounts = expectStatus(await org.get('/accounting/accounts?limit=100'), 200).data as Array<{ id: string; code: string }>
  const id = (code: string) => accounts.find((a) => a.code === code)!.id
  expectCode(await org.post('/accounting/entries', { date: '2026-01-31', currency: 'usd', memo: 'Late',
    lines: [{ accountId: id('1000'), debit: 100, credit: 0 }, { accountId: id('3000'), debit: 0, credit: 100 }] }), 'PERIOD_LOCKED', /locked up to 2026-01-31/)
  expectStatus(await org.patch('/organization', { lockDate: null }), 200)
})

test('DRY_RUN_UNSUPPORTED: Prefer: dry-run on a route that calls the payment processor, or with an upload (docs/platform.md "Dry runs")', async () => {
  const prefer = { prefer: 'dry-run' }
  expectCode(await json('POST', '/billing/payment-methods', JSON.stringify({ paymentMethodId: 'pm_card_visa' }), prefer), 'DRY_RUN_UNSUPPORTED', 'not supported')
  const product = await createLicensedProduct(org)
  const boundary = 'dryrunboundary'
  const form = `--${boundary}\r\ncontent-disposition: form-data; name="version"\r\n\r\n19.0.1.0.0\r\n--${boundary}--\r\n`
  expectCode(await json('POST', `/products/${product.id}/builds`, form, { 'content-type': `multipart/form-data; boundary=${boundary}`, ...prefer }), 'DRY_RUN_UNSUPPORTED', 'uploads')
})

test('GONE: the file of a report run past its 30 days', async () => {
  const run = await org.post('/reports', { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' } })
  assert.equal(run.status, 201)
  assert.equal((await org.post('/admin/jobs/report-runs/run')).status, 200)
  await t.app.ctx.db.query(`UPDATE report_runs SET expires_at = now() - interval '1 day' WHERE id = $1`, [run.body.id])
  expectCode(await org.get(`/reports/${run.body.id}/file`), 'GONE', 'kept 30 days')
})

test('QUEUE_FULL: past 20 pending report runs of the organization, with Retry-After', async () => {
  const full = await createOrg(t.app)
  for (let day = 1; day <= 20; day++) {
    const res = await full.post('/reports', { type: 'invoices', parameters: { from: `2026-03-${String(day).padStart(2, '0')}`, to: '2026-03-31' } })
    assert.equal(res.status, 201, JSON.stringify(res.body))
  }
  const res = await full.post('/reports', { type: 'invoices', parameters: { from: '2026-03-21', to: '2026-03-31' } })
  expectCode(res, 'QUEUE_FULL', 'already has 20 report runs waiting')
  assert.equal(res.headers['retry-after'], '30')
})

test('RATE_LIMITED: the rate limiter answers with the same body', async () => {
  const limited = await buildTestApp({ RATE_LIMIT: 'on', RATE_LIMIT_GENERAL: '1' })
  try {
    expectCode(await call(limited.app, 'GET', '/contacts'), 'UNAUTHENTICATED')
    const body = expectCode(await call(limited.app, 'GET', '/contacts'), 'RATE_LIMITED')
    assert.equal(body.message, 'ThrottlerException: Too Many Requests')
  } finally {
    await limited.close()
  }
})

// Last: these break the app's database.
test('INTERNAL_ERROR without internals, then SERVICE_UNAVAILABLE from /ready', async () => {
  await t.app.ctx.db.query('DROP TABLE employees CASCADE')
  expectCode(await org.get('/employees'), 'INTERNAL_ERROR', 'Internal Server Error')
  await t.app.ctx.db.close()
  expectCode(await call(t.app, 'GET', '/ready'), 'SERVICE_UNAVAILABLE', 'Database unavailable')
})

test('every code above was answered through HTTP, except those of modules still to come', () => {
  const missing = ERROR_CODES.filter((c) => !seen.has(c) && !NOT_YET_REACHABLE.has(c))
  assert.deepEqual(missing, [], 'add a case for each new code to this file')
})

test('every code has one status, named by HTTP, and openapi.json lists exactly the set', () => {
  assert.deepEqual(Object.keys(codeToStatus).sort(), [...ERROR_CODES].sort())
  for (const code of ERROR_CODES) {
    const status = codeToStatus[code]
    assert.ok(Number.isInteger(status) && status >= 400 && status < 600 && STATUS_CODES[status], `${code}: ${status}`)
  }
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length)
  const doc = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'))
  const schema = doc.components.schemas.ErrorResponse
  assert.deepEqual(schema.properties.code.enum, [...ERROR_CODES])
  assert.ok(schema.required.includes('code'))
  assert.equal(schema.properties.code.type, 'string')
})
