import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'
import { adminUserId, createLicensedProduct, EMPTY_ZIP, multipartForm } from './helpers/licenses.ts'
import { createContact, createInvoice, createProduct } from './helpers/sales-fixtures.ts'

// Issue 10: bad input is the caller's error (4xx naming the field), never a 500.
// One case per defect found; test/fuzz.test.ts looks for the ones nobody thought of.

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

/** A JSON body sent as this exact text (1e400 cannot be written with JSON.stringify). */
const rawJson = (method: 'POST' | 'PATCH', path: string, text: string | Buffer) =>
  call(t.app, method, path, { token: org.token, body: text, headers: { 'content-type': 'application/json' } })

test('an unbounded or non-finite page of the billing invoices is 400, not 500', async () => {
  for (const page of ['1e400', 'Infinity', '1e21', '-Infinity', 'NaN', '1000000001']) {
    expectStatus(await org.get(`/billing/invoices?page=${page}`), 400, 'page')
  }
  expectStatus(await org.get('/billing/invoices?page=1000000000'), 200)
})

test('NUL or a lone surrogate in any string of a body is 422 naming the field, JSON columns included', async () => {
  const contactId = (await createContact(org)).id
  for (const bad of ['\u0000', 'a\u0000b', '\ud800', 'x\udc00', '\udbff']) {
    const created = await org.post('/invoices', { contactId, lineItems: [{ description: bad, quantity: 1, unitPrice: 100 }] })
    expectStatus(created, 422, 'lineItems.0.description')
    const invoice = await createInvoice(org)
    const patched = await org.patch(`/invoices/${invoice.id}`, { lineItems: [{ description: 'ok', quantity: 1, unitPrice: 1 }, { description: bad, quantity: 1, unitPrice: 1 }] })
    expectStatus(patched, 422, 'lineItems.1.description')
    expectStatus(await org.post('/contacts', { name: `n${bad}`, email: 'nul@example.com' }), 422, 'name')
  }
  // A well-formed pair (an emoji) and other unusual text are fine.
  const ok = await org.post('/invoices', { contactId, lineItems: [{ description: '😀 مرحبا \u202e ✓', quantity: 1, unitPrice: 100 }] })
  expectStatus(ok, 201)
  assert.equal(ok.body.lineItems[0].description, '😀 مرحبا \u202e ✓')
})

test('NUL or a lone surrogate in a query string is 400 naming the parameter', async () => {
  expectStatus(await org.get('/contacts?search=a%00b'), 400, 'search')
  // A JSON escape cannot reach a query, but a raw surrogate can through the path of inject.
  expectStatus(await org.get(`/contacts?search=${encodeURIComponent('a')}%ED%A0%80`), 200)
})

test('a date whose UTC value falls outside the years 1900 to 9999 is 422', async () => {
  const contactId = (await createContact(org)).id
  const line = [{ description: 'x', quantity: 1, unitPrice: 100 }]
  for (const date of ['9999-12-31T23:00:00-01:00', '10000-01-01', '1899-12-31T23:59:59Z', '1900-01-01T00:30:00+01:00', '0000-01-01']) {
    expectStatus(await org.post('/invoices', { contactId, lineItems: line, dueDate: date }), 422, 'dueDate')
    expectStatus(await org.post('/invoices', { contactId, lineItems: line, invoiceDate: date }), 422, 'invoiceDate')
  }
  const edge = await org.post('/invoices', { contactId, lineItems: line, invoiceDate: '1900-01-01', dueDate: '9999-12-31T22:00:00-01:00' })
  expectStatus(edge, 201)
  assert.equal(edge.body.dueDate, '9999-12-31T23:00:00.000Z')

  const invoice = await createInvoice(org)
  expectStatus(await org.post(`/invoices/${invoice.id}/pay`, { amount: 1, paymentDate: '9999-12-31T23:00:00-01:00' }), 422, 'paymentDate')

  const productId = (await createProduct(org)).id
  const quotation = await org.post('/sales/quotations', { contactId, lineItems: [{ productId, quantity: 1 }], validUntil: '9999-12-31T23:00:00-01:00' })
  expectStatus(quotation, 422, 'validUntil')

  const product = await createLicensedProduct(org)
  const userId = await adminUserId(org)
  expectStatus(await org.post('/admin/licenses', { productId: product.id, userId, expiresAt: '9999-12-31T23:00:00-01:00' }), 422, 'expiresAt')
})

test('a payment amount of 1e21 or more is 422, and no number in exponent notation reaches SQL', async () => {
  const invoice = await createInvoice(org)
  for (const amount of ['1e21', '1e22', '9007199254740993', '1e400']) {
    expectStatus(await rawJson('POST', `/invoices/${invoice.id}/pay`, `{"amount": ${amount}}`), 422, 'amount')
  }
  expectStatus(await org.post(`/invoices/${invoice.id}/credit-note`, { amount: 1e21 }), 422, 'amount')
})

test('a leap second in a date-time is 422, not 500', async () => {
  const product = await createLicensedProduct(org)
  const userId = await adminUserId(org)
  for (const expiresAt of ['2024-06-30T23:59:60Z', '2030-12-31T23:59:60Z', '2030-02-30T10:00:00Z', '10000-01-01T00:00:00Z']) {
    expectStatus(await org.post('/admin/licenses', { productId: product.id, userId, expiresAt }), 422, 'expiresAt')
  }
  expectStatus(await org.post('/admin/licenses', { productId: product.id, userId, expiresAt: '2099-12-31T23:59:59Z' }), 201)
})

test('a truncated or malformed multipart upload is 400', async () => {
  const product = await createLicensedProduct(org)
  const form = multipartForm({ version: '19.0.1.0.0' }, { name: 'file', filename: 'm.zip', content: EMPTY_ZIP })
  const upload = (body: Buffer | string, contentType = form.contentType) =>
    call(t.app, 'POST', `/products/${product.id}/builds`, { token: org.token, body, headers: { 'content-type': contentType } })
  expectStatus(await upload(form.body.subarray(0, form.body.length - 20)), 400)
  expectStatus(await upload(form.body.subarray(0, 60)), 400)
  expectStatus(await upload('not a multipart body at all'), 400)
  expectStatus(await upload(form.body, 'multipart/form-data'), 400)
  expectStatus(await upload(form.body), 201)
})

test('numbers must be finite: 1e400 in a body is 422', async () => {
  expectStatus(await rawJson('POST', '/products', '{"name": "Huge", "reorderPoint": 1e400}'), 422, 'reorderPoint')
  expectStatus(await rawJson('POST', '/products', '{"name": "Huge", "price": -1e400}'), 422, 'price')
  const contactId = (await createContact(org)).id
  expectStatus(await rawJson('POST', '/invoices', `{"contactId": "${contactId}", "lineItems": [{"description": "x", "quantity": 1e400, "unitPrice": 1}]}`), 422, 'quantity')
})

test('a JSON body that is not UTF-8 is 400 and stores nothing, not U+FFFD in place of the bytes sent', async () => {
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))))
  const name = unique('Vendor')
  // Bytes that are no UTF-8 at all, an overlong '/', a lone continuation byte, a surrogate encoded in UTF-8.
  for (const bad of [[0xff, 0xfe], [0xc0, 0xaf], [0x80], [0xed, 0xa0, 0x80]]) {
    const res = expectStatus(await rawJson('POST', '/purchase/vendors', bytes(`{"name":"${name}`, bad, '"}')), 400, 'Malformed UTF-8')
    assert.equal(res.code, 'MALFORMED_REQUEST')
  }
  const list = await org.get(`/purchase/vendors?search=${name}`)
  expectStatus(list, 200)
  assert.equal(list.body.meta.total, 0)
  // Every route: an update too, and the license scope that keeps the raw bytes for its signature.
  const contact = await createContact(org)
  expectStatus(await rawJson('PATCH', `/contacts/${contact.id}`, bytes('{"name":"', [0xff], '"}')), 400, 'Malformed UTF-8')
  expectStatus(await rawJson('POST', '/licenses/validate', bytes('{"key":"', [0xfe], '"}')), 400, 'Malformed UTF-8')
  // Well-formed UTF-8 of every length is kept as sent; a leading byte order mark is still allowed (RFC 8259, 8.1).
  const kept = `${name} Müller 東京 😀`
  const created = expectStatus(await rawJson('POST', '/purchase/vendors', Buffer.from(JSON.stringify({ name: kept }))), 201)
  assert.equal(created.name, kept)
  assert.equal(expectStatus(await rawJson('POST', '/purchase/vendors', bytes([0xef, 0xbb, 0xbf], JSON.stringify({ name }))), 201).name, name)
})

// No input is unbounded (DESIGN habit 13): every string of a request (path, query, header,
// body) has a maxLength, every array a maxItems, every number both ends of a range and every
// object closed, so that nothing of any size or value reaches SQL unchecked.

type Schema = Record<string, any>
/** What the bound of a request schema node lacks, if anything. */
function unbounded(s: Schema): string[] {
  const types = [s.type].flat()
  const missing: string[] = []
  const fixed = s.enum !== undefined || s.const !== undefined
  // A file of a multipart form: bounded by the upload limit (413), not by a length in characters.
  if (types.includes('string') && !fixed && s.maxLength === undefined && s.format !== 'binary') missing.push('string without maxLength')
  if ((types.includes('number') || types.includes('integer')) && !fixed) {
    if (s.minimum === undefined && s.exclusiveMinimum === undefined) missing.push(`${types.join('|')} without minimum`)
    if (s.maximum === undefined && s.exclusiveMaximum === undefined) missing.push(`${types.join('|')} without maximum`)
  }
  if (types.includes('array') && s.maxItems === undefined) missing.push('array without maxItems')
  if ((types.includes('object') || s.properties) && s.additionalProperties !== false) missing.push('object open to any property')
  return missing
}

function walkRequestSchema(doc: Schema, schema: Schema | undefined, where: string, out: string[], seen = new Set<Schema>()) {
  const s = schema?.$ref ? doc.components.schemas[String(schema.$ref).split('/').pop()!] : schema
  if (!s || typeof s !== 'object' || seen.has(s)) return
  seen.add(s)
  for (const problem of unbounded(s)) out.push(`${where}: ${problem}`)
  for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walkRequestSchema(doc, branch, where, out, seen)
  if (s.items) walkRequestSchema(doc, s.items, `${where}[]`, out, seen)
  for (const [name, prop] of Object.entries<Schema>(s.properties ?? {})) walkRequestSchema(doc, prop, `${where}.${name}`, out, seen)
  if (s.additionalProperties && typeof s.additionalProperties === 'object') walkRequestSchema(doc, s.additionalProperties, `${where}.*`, out, seen)
}

/**
 * Objects open to any property on purpose, each bounded otherwise and checked field by field before any SQL:
 * an import's JSON rows (at most 100 fields each) are checked by their resource's closed POST or PATCH schema in the
 * worker, so that an unknown field errs by row with the POST's message (docs/imports.md "Errors").
 */
const OPEN_ON_PURPOSE = new Set(['POST /api/imports body (application/json).rows[]: object open to any property'])

test('every request parameter and body of openapi.json is bounded: maxLength, maxItems, minimum and maximum, closed objects', () => {
  const doc = t.app.swagger() as Schema
  const out: string[] = []
  let checked = 0
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const at = `${method.toUpperCase()} ${path}`
      const inputs: Array<[string, Schema]> = [
        ...(op.parameters ?? []).map((p: Schema): [string, Schema] => [`${at} ${p.in} ${p.name}`, p.schema]),
        ...Object.entries<Schema>(op.requestBody?.content ?? {}).map(([type, content]): [string, Schema] => [`${at} body (${type})`, content.schema]),
      ]
      for (const [where, schema] of inputs) walkRequestSchema(doc, schema, where, out)
      checked += inputs.length
    }
  }
  assert.ok(checked > 100, `only ${checked} parameters and bodies found`)
  assert.deepEqual(out.filter((problem) => !OPEN_ON_PURPOSE.has(problem)), [], 'unbounded request inputs')
})
