import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { EMPTY_ZIP, createCustomer, createLicensedProduct, issueLicense, multipartForm, type Customer } from '../../../test/helpers/licenses.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

/** A ZIP with one stored file: enough bytes to tell builds apart. */
function zipOf(text: string) {
  const data = Buffer.from(text)
  const header = Buffer.alloc(30)
  header.writeUInt32LE(0x04034b50, 0)
  header.writeUInt16LE(1, 26) // file name length
  header.writeUInt32LE(data.length, 18)
  header.writeUInt32LE(data.length, 22)
  return Buffer.concat([header, Buffer.from('a'), data])
}

async function upload(productId: string, fields: Record<string, string>, file: { filename: string; content: Buffer } | null = { filename: 'module.zip', content: EMPTY_ZIP }, token = org.token) {
  const form = multipartForm(fields, file ? { name: 'file', ...file } : undefined)
  return org.post(`/products/${productId}/builds`, form.body, token, { 'content-type': form.contentType })
}

describe('upload', () => {
  test('201 with the build; the same version twice is 409', async () => {
    const product = await createLicensedProduct(org)
    const content = zipOf('v2')
    const res = await upload(product.id, { version: '19.0.2.0.0' }, { filename: 'connector-19.0.2.0.0.zip', content })
    expectStatus(res, 201)
    assert.deepEqual(
      { ...res.body, id: undefined, createdAt: undefined },
      { id: undefined, productId: product.id, productName: product.name, erpVersion: '19.0', version: '19.0.2.0.0', filename: 'connector-19.0.2.0.0.zip', size: content.length, sha256: createHash('sha256').update(content).digest('hex'), createdAt: undefined },
    )
    expectStatus(await upload(product.id, { version: '19.0.2.0.0' }), 409, 'already exists')
    const list = await org.get(`/products/${product.id}/builds`)
    expectStatus(list, 200)
    assert.deepEqual(list.body.data.map((b: any) => b.version), ['19.0.2.0.0'])
  })

  test('422 for a bad or foreign version, a missing or non-ZIP file, unknown fields, a product without licenses', async () => {
    const product = await createLicensedProduct(org)
    expectStatus(await upload(product.id, { version: '19.0.2.0' }), 422, 'version must look like 19.0.2.0.0')
    expectStatus(await upload(product.id, { version: '18.0.2.0.0' }), 422, 'is not for ERP 19.0')
    expectStatus(await upload(product.id, {}), 422, 'version is required')
    expectStatus(await upload(product.id, { version: '19.0.1.0.0' }, null), 422, 'file is required')
    expectStatus(await upload(product.id, { version: '19.0.1.0.0' }, { filename: 'x.zip', content: Buffer.from('not a zip') }), 422, 'file must be a ZIP archive')
    expectStatus(await upload(product.id, { version: '19.0.1.0.0', colour: 'blue' }), 422, 'colour is not allowed')
    const plain = (await org.post('/products', { name: 'Plain' })).body
    expectStatus(await upload(plain.id, { version: '19.0.1.0.0' }), 422, 'licensed products')
  })

  test('a file over 50 MiB is 413', async () => {
    const product = await createLicensedProduct(org)
    const big = Buffer.alloc(50 * 1024 * 1024 + 1)
    EMPTY_ZIP.copy(big)
    expectStatus(await upload(product.id, { version: '19.0.1.0.0' }, { filename: 'big.zip', content: big }), 413)
    assert.equal((await org.get(`/products/${product.id}/builds`)).body.meta.total, 0)
  })

  test('415 for JSON, 404 for another organization, 403 for roles other than admin, 401 without credential', async () => {
    const product = await createLicensedProduct(org)
    expectStatus(await org.post(`/products/${product.id}/builds`, { version: '19.0.1.0.0' }), 415, 'multipart/form-data')
    const stranger = await createOrg(t.app)
    const form = multipartForm({ version: '19.0.1.0.0' }, { name: 'file', filename: 'a.zip', content: EMPTY_ZIP })
    expectStatus(await stranger.post(`/products/${product.id}/builds`, form.body, undefined, { 'content-type': form.contentType }), 404, 'Product not found')
    expectStatus(await upload(product.id, { version: '19.0.1.0.0' }, null, await org.as('member')), 403)
    expectStatus(await call(t.app, 'POST', `/products/${product.id}/builds`, { body: {} }), 401)
  })
})

describe('portal downloads', () => {
  let product: Awaited<ReturnType<typeof createLicensedProduct>>
  let holder18: Customer
  let holder19: Customer
  let build18: string
  let build19: string
  const content18 = zipOf('eighteen')

  before(async () => {
    // One product moved from ERP 18.0 to 19.0: its 18.0 licenses keep their version.
    product = await createLicensedProduct(org, { erpVersion: '18.0' })
    holder18 = await createCustomer(t.app, org)
    holder19 = await createCustomer(t.app, org)
    await issueLicense(org, { productId: product.id, userId: holder18.id })
    build18 = (await upload(product.id, { version: '18.0.1.0.2' }, { filename: 'c18.zip', content: content18 })).body.id
    expectStatus(await org.patch(`/products/${product.id}`, { erpVersion: '19.0' }), 200)
    await issueLicense(org, { productId: product.id, userId: holder19.id })
    build19 = (await upload(product.id, { version: '19.0.2.0.0' })).body.id
    await upload(product.id, { version: '19.0.10.0.0' })
  })

  test('each holder sees only the builds of their license\'s ERP version', async () => {
    const seen18 = await call(t.app, 'GET', '/portal/downloads', { token: holder18.token })
    expectStatus(seen18, 200)
    assert.deepEqual(seen18.body.data.map((b: any) => b.id), [build18])
    assert.deepEqual(Object.keys(seen18.body.data[0]).sort(), ['createdAt', 'erpVersion', 'filename', 'id', 'productId', 'productName', 'sha256', 'size', 'version'])
    const seen19 = await call(t.app, 'GET', `/portal/downloads?productId=${product.id}&sortBy=version&sortOrder=desc`, { token: holder19.token })
    assert.deepEqual(seen19.body.data.map((b: any) => b.version), ['19.0.10.0.0', '19.0.2.0.0'])
    assert.equal(seen19.body.meta.total, 2)
    assert.equal((await call(t.app, 'GET', '/portal/downloads?erpVersion=18.0', { token: holder19.token })).body.meta.total, 0)
  })

  test('the file download enforces the same rule', async () => {
    const file = await t.app.inject({ method: 'GET', url: `/api/portal/downloads/${build18}/file`, headers: { authorization: `Bearer ${holder18.token}` } })
    assert.equal(file.statusCode, 200)
    assert.equal(file.headers['content-type'], 'application/zip')
    assert.match(String(file.headers['content-disposition']), /attachment; filename="c18.zip"/)
    assert.deepEqual(file.rawPayload, content18)
    expectStatus(await call(t.app, 'GET', `/portal/downloads/${build19}/file`, { token: holder18.token }), 403, 'No active license')
    expectStatus(await call(t.app, 'GET', `/portal/downloads/${build18}/file`, { token: holder19.token }), 403)
    expectStatus(await call(t.app, 'GET', '/portal/downloads/00000000-0000-4000-8000-000000000000/file', { token: holder18.token }), 404)
  })

  test('a suspended license entitles to nothing; other roles and organizations are refused', async () => {
    const holder = await createCustomer(t.app, org)
    const l = await issueLicense(org, { productId: product.id, userId: holder.id })
    assert.equal((await call(t.app, 'GET', '/portal/downloads', { token: holder.token })).body.meta.total, 2)
    await org.post(`/admin/licenses/${l.id}/suspend`)
    assert.equal((await call(t.app, 'GET', '/portal/downloads', { token: holder.token })).body.meta.total, 0)
    expectStatus(await call(t.app, 'GET', `/portal/downloads/${build19}/file`, { token: holder.token }), 403)
    expectStatus(await call(t.app, 'GET', '/portal/downloads', { token: await org.as('member') }), 403)
    expectStatus(await call(t.app, 'GET', '/portal/downloads'), 401)
    const stranger = await createOrg(t.app)
    expectStatus(await stranger.get(`/portal/downloads/${build19}/file`), 404)
  })
})
