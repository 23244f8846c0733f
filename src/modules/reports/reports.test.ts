import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../app.ts'
import type { App } from '../../core/module.ts'
import { buildTestApp, call, createOrg, type Res, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { createProject, createTask } from '../../../test/helpers/projects.ts'
import { createContact, createProduct } from '../../../test/helpers/sales-fixtures.ts'
import { createVendor } from '../../../test/helpers/purchase.ts'
import { createEmployee, warehouseOf } from '../../../test/helpers/tenancy.ts'
import { DateRangeParameters } from './report-types.lib.ts'

let t: TestApp
let org: TestOrg
const onPostgres = Boolean(process.env.DATABASE_URL)
const UNKNOWN = '00000000-0000-4000-8000-000000000000'

before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(async () => {
  await t.app.services.reports!.stop()
  await t.close()
})

function expectStatus(res: Res, status: number, message?: string) {
  assert.equal(res.status, status, `${res.status} ${JSON.stringify(res.body)}`)
  if (message) assert.match([res.body.message].flat().join('; '), new RegExp(message))
  return res.body
}

/** Polls GET /reports/:id until the run has ended. */
async function settled(o: TestOrg, id: string) {
  for (let i = 0; i < 400; i++) {
    const run = expectStatus(await o.get(`/reports/${id}`), 200)
    if (run.status === 'succeeded' || run.status === 'failed') return run
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`report run ${id} did not end`)
}

const file = async (o: TestOrg, id: string) => {
  const res = await o.get(`/reports/${id}/file`)
  assert.equal(res.status, 200, res.body)
  assert.match(String(res.headers['content-type']), /^text\/csv/)
  assert.match(String(res.headers['content-disposition']), /^attachment; filename=".+\.csv"$/)
  return res.body as string
}

const outbox = async (o: TestOrg, subject: string) =>
  expectStatus(await o.get(`/admin/outbox?search=${encodeURIComponent(subject)}`), 200).data.filter((m: { subject: string }) => m.subject === subject)

test('an invoices run goes from pending to succeeded in the background: exact CSV, rows, file, e-mail to the requester; 409 before', async () => {
  const contact = await createContact(org, { name: 'Acme, Inc.', email: 'billing@acme.test' })
  const line = (unitPrice: number, quantity = 1) => [{ description: 'Work', quantity, unitPrice }]
  const a = expectStatus(await org.post('/invoices', { contactId: contact.id, invoiceDate: '2026-01-10', lineItems: line(5000, 2) }), 201)
  const b = expectStatus(await org.post('/invoices', { contactId: contact.id, invoiceDate: '2026-01-31T23:59:59Z', dueDate: '2026-03-02', lineItems: line(123450) }), 201)
  expectStatus(await org.post(`/invoices/${b.id}/send`, {}), 200)
  expectStatus(await org.post(`/invoices/${b.id}/pay`, { amount: 123450 }), 200)
  // Outside the range: the day before and the day after.
  expectStatus(await org.post('/invoices', { contactId: contact.id, invoiceDate: '2025-12-31T23:59:59Z', lineItems: line(1) }), 201)
  expectStatus(await org.post('/invoices', { contactId: contact.id, invoiceDate: '2026-02-01', lineItems: line(1) }), 201)

  const run = expectStatus(await org.post('/reports', { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' } }), 201)
  const me = expectStatus(await org.get('/auth/me'), 200)
  assert.deepEqual({ ...run, id: undefined, createdAt: undefined }, {
    id: undefined, type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' }, status: 'pending', error: null, rows: null,
    createdAt: undefined, completedAt: null, requestedBy: { id: me.user?.id ?? me.id, name: 'Ada Admin' }, file: null,
  })
  // Not run yet (no worker started): no file.
  expectStatus(await org.get(`/reports/${run.id}/file`), 409, 'pending')

  await t.app.services.reports!.start()
  const done = await settled(org, run.id)
  assert.equal(done.status, 'succeeded', done.error)
  assert.equal(done.rows, 2)
  assert.ok(Date.parse(done.completedAt) >= Date.parse(done.createdAt))
  const csv = await file(org, run.id)
  assert.deepEqual(done.file, { filename: `invoices-${run.id.slice(0, 8)}.csv`, size: Buffer.byteLength(csv), expiresAt: done.file.expiresAt })
  assert.equal(Date.parse(done.file.expiresAt) - Date.parse(done.completedAt), 30 * 24 * 3600 * 1000)
  assert.equal(csv, [
    'id,number,status,contactId,contactName,contactEmail,invoiceDate,dueDate,currency,subtotal,taxAmount,total,amountPaid,amountDue',
    `${a.id},${a.number},draft,${contact.id},"Acme, Inc.",billing@acme.test,2026-01-10,2026-02-09,usd,100.00,0.00,100.00,0.00,100.00`,
    `${b.id},${b.number},paid,${contact.id},"Acme, Inc.",billing@acme.test,2026-01-31,2026-03-02,usd,1234.50,0.00,1234.50,1234.50,0.00`,
    '',
  ].join('\n'))

  const mails = await outbox(org, 'Report invoices succeeded')
  assert.equal(mails.length, 1)
  assert.equal(mails[0].to, org.adminEmail)
})

test('the analytics reports run as report runs: the file is what their GET answers as text/csv, record filters too', async () => {
  const o = await createOrg(t.app)
  const contact = await createContact(o, { name: 'Globex', email: 'ap@globex.test' })
  const other = await createContact(o, { name: 'Initech' })
  const product = await createProduct(o, { name: 'Widget', price: 2500 })
  for (const [c, unitPrice] of [[contact, 12345], [other, 999]] as const) {
    const inv = expectStatus(await o.post('/invoices', { contactId: c.id, invoiceDate: '2026-03-01', dueDate: '2026-03-15', lineItems: [{ description: 'Work', quantity: 3, unitPrice }] }), 201)
    expectStatus(await o.post(`/invoices/${inv.id}/send`, {}), 200)
  }
  // Two vendors with a bill each; stock in the main warehouse and on a shelf outside it.
  const vendors = [await createVendor(o, { name: 'Acme Supply' }), await createVendor(o, { name: 'Bolt Works' })]
  const storable = await createProduct(o, { type: 'storable', name: 'Bolt', sku: 'BOLT', cost: 250 })
  for (const [i, v] of vendors.entries()) {
    const rfq = expectStatus(await o.post('/purchase/rfqs', { vendorId: v.id, lineItems: [{ productId: storable.id, quantity: 10, unitPrice: 100 + i }] }), 201)
    expectStatus(await o.post(`/purchase/rfqs/${rfq.id}/confirm`, {}), 200)
    expectStatus(await o.post(`/purchase/orders/${rfq.id}/bill`, { vendorInvoiceNumber: `V-${i}`, invoiceDate: '2026-03-01', dueDate: '2026-03-31' }), 201)
  }
  expectStatus(await o.post('/inventory/locations', { code: 'SHELF', name: 'Shelf outside any warehouse', type: 'internal' }), 201)
  expectStatus(await o.post('/inventory/adjustments', { locationId: 'LOC-STOCK', date: '2026-03-01', lines: [{ productId: storable.id, realQty: 10 }] }), 201)
  expectStatus(await o.post('/inventory/adjustments', { locationId: 'LOC-SHELF', date: '2026-03-02', lines: [{ productId: storable.id, realQty: 3 }] }), 201)
  const warehouse = await warehouseOf(o)
  const quotation = expectStatus(await o.post('/sales/quotations', { contactId: contact.id, lineItems: [{ productId: product.id, quantity: 2, unitPrice: 2500 }] }), 201)
  expectStatus(await o.post(`/sales/quotations/${quotation.id}/send`, {}), 200)
  expectStatus(await o.post(`/sales/quotations/${quotation.id}/confirm`), 201)
  await t.app.services.reports!.start()
  const today = new Date().toISOString().slice(0, 10)
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['receivables_aging', { asOf: '2026-04-30' }, '/analytics/receivables/aging?asOf=2026-04-30'],
    ['payables_aging', { asOf: '2026-04-30' }, '/analytics/payables/aging?asOf=2026-04-30'],
    ['stock_valuation', { asOf: today }, `/analytics/stock/valuation?asOf=${today}`],
    ['sales', { groupBy: 'customer', to: today }, `/analytics/sales?groupBy=customer&to=${today}`],
    ['receivables_aging', { asOf: '2026-04-30', contactId: other.id }, `/analytics/receivables/aging?asOf=2026-04-30&contactId=${other.id}`],
    ['payables_aging', { asOf: '2026-04-30', vendorId: vendors[1].id }, `/analytics/payables/aging?asOf=2026-04-30&vendorId=${vendors[1].id}`],
    ['stock_valuation', { asOf: '2026-03-01', warehouseId: warehouse }, `/analytics/stock/valuation?asOf=2026-03-01&warehouseId=${warehouse}`],
    ['stock_valuation', { warehouseId: warehouse }, `/analytics/stock/valuation?warehouseId=${warehouse}`],
  ]
  const lines: string[][] = []
  for (const [type, parameters, path] of cases) {
    const run = await settled(o, expectStatus(await o.post('/reports', { type, parameters }), 201).id)
    assert.equal(run.status, 'succeeded', `${type}: ${run.error}`)
    assert.deepEqual(run.parameters, parameters, type)
    const res = await call(t.app, 'GET', path, { token: o.token, headers: { accept: 'text/csv' } })
    assert.equal(res.status, 200, path)
    assert.equal(await file(o, run.id), res.body, type)
    lines.push(String(res.body).trimEnd().split('\n').slice(1))
  }
  // Unfiltered, both contacts and both vendors; the filters keep one each (3 x 9.99 = 29.97;
  // 10 x 1.01 = 10.10, 30 days past due); the warehouse holds 10 x 2.50 of the 13 Bolts.
  assert.equal(lines[0].length, 2)
  assert.equal(lines[1].length, 2)
  assert.deepEqual(lines[4], [`${other.id},Initech,${other.email},0.00,0.00,29.97,0.00,0.00,29.97,1,usd`])
  assert.deepEqual(lines[5], [`${vendors[1].id},Bolt Works,${vendors[1].email},0.00,10.10,0.00,0.00,0.00,10.10,1,usd`])
  assert.deepEqual(lines[6], [`${storable.id},Bolt,BOLT,10,2.50,25.00,usd`])
  assert.deepEqual(lines[2], [`${storable.id},Bolt,BOLT,13,2.50,32.50,usd`])
  assert.deepEqual(lines[7], lines[6])
  // Globex's invoice in the aging (hand-computed: 3 x 123.45 = 370.35, 46 days past due on 04-30), and Initech's.
  const aging = await settled(o, expectStatus(await o.post('/reports', { type: 'receivables_aging', parameters: { asOf: '2026-04-30' } }), 201).id)
  assert.equal(aging.rows, 2)
  assert.match(await file(o, aging.id), /Globex.*,0\.00,0\.00,370\.35,0\.00,0\.00,370\.35,1,usd/)
  expectStatus(await o.post('/reports', { type: 'sales', parameters: {} }), 422, 'groupBy')

  // A filter names a record of the organization, of the kind the type filters by: 422 otherwise
  // (tenancy: test/tenancy.test.ts); the filter of another type is not taken.
  const stranger = await createOrg(t.app)
  const foreign = await createContact(stranger, { name: 'Stranger Ltd' })
  const refused: Array<[Record<string, unknown>, string]> = [
    [{ type: 'receivables_aging', parameters: { contactId: foreign.id } }, 'parameters.contactId does not name a contact of this organization'],
    [{ type: 'receivables_aging', parameters: { contactId: UNKNOWN } }, 'parameters.contactId does not name a contact'],
    [{ type: 'payables_aging', parameters: { vendorId: contact.id } }, 'parameters.vendorId does not name a vendor of this organization'],
    [{ type: 'payables_aging', parameters: { vendorId: (await createVendor(stranger)).id } }, 'parameters.vendorId does not name a vendor'],
    [{ type: 'stock_valuation', parameters: { warehouseId: await warehouseOf(stranger) } }, 'parameters.warehouseId does not name a warehouse of this organization'],
    [{ type: 'stock_valuation', parameters: { warehouseId: 'not-a-uuid' } }, 'parameters.warehouseId must match format'],
    [{ type: 'receivables_aging', parameters: { vendorId: vendors[0].id } }, 'parameters.vendorId is not taken by type receivables_aging'],
    [{ type: 'sales', parameters: { groupBy: 'customer', contactId: contact.id } }, 'parameters.contactId is not taken by type sales'],
  ]
  for (const [body, message] of refused) {
    const res = expectStatus(await o.post('/reports', body), 422, message)
    assert.ok(!JSON.stringify(res).includes('Stranger'), JSON.stringify(res))
  }
})

test('stock_moves and timesheets runs: the rows of the range, decimal quantities and hours, booleans', async () => {
  const o = await createOrg(t.app)
  await t.app.services.reports!.start()
  const product = await createProduct(o, { type: 'storable', name: 'Bolt', sku: 'B-1' })
  const adj = expectStatus(await o.post('/inventory/adjustments', { locationId: 'LOC-STOCK', date: '2026-03-05', lines: [{ productId: product.id, realQty: 2.5 }] }), 201)
  expectStatus(await o.post('/inventory/adjustments', { locationId: 'LOC-STOCK', date: '2026-03-07', lines: [{ productId: product.id, realQty: 2 }] }), 201)
  const moves = expectStatus(await o.get('/inventory/moves?sortBy=doneAt&sortOrder=asc'), 200).data
  const run = expectStatus(await o.post('/reports', { type: 'stock_moves', parameters: { from: '2026-03-05', to: '2026-03-06' } }), 201)
  const done = await settled(o, run.id)
  assert.equal(done.status, 'succeeded', done.error)
  assert.equal(done.rows, 1)
  assert.equal(await file(o, run.id), [
    'id,reference,doneAt,productId,productName,productSku,quantity,sourceLocationId,destinationLocationId,transferId,adjustmentId',
    `${moves[0].id},${adj.reference},2026-03-05T00:00:00.000Z,${product.id},Bolt,B-1,2.5,LOC-LOSS,LOC-STOCK,,${adj.id}`,
    '',
  ].join('\n'))

  const employee = await createEmployee(o, { name: 'Grace' })
  const project = await createProject(o, { name: 'Apollo' })
  const task = await createTask(o, project.id, { title: 'Guidance' })
  const path = `/projects/${project.id}/tasks/${task.id}/timesheets`
  const entry = expectStatus(await o.post(path, { employeeId: employee.id, date: '2026-04-30', hours: 1.25, billable: true, description: 'Line "one"' }), 201)
  expectStatus(await o.post(path, { employeeId: employee.id, date: '2026-05-01', hours: 2 }), 201)
  const sheets = expectStatus(await o.post('/reports', { type: 'timesheets', parameters: { from: '2026-04-01', to: '2026-04-30' } }), 201)
  const ended = await settled(o, sheets.id)
  assert.equal(ended.rows, 1)
  assert.equal(await file(o, sheets.id), [
    'id,date,projectId,projectName,taskId,taskTitle,employeeId,employeeName,hours,billable,description',
    `${entry.id},2026-04-30,${project.id},Apollo,${task.id},Guidance,${employee.id},Grace,1.25,true,"Line ""one"""`,
    '',
  ].join('\n'))

  // An empty range: the header alone, rows 0.
  const none = await settled(o, expectStatus(await o.post('/reports', { type: 'timesheets', parameters: { from: '2020-01-01', to: '2020-01-31' } }), 201).id)
  assert.equal(none.rows, 0)
  assert.equal(await file(o, none.id), 'id,date,projectId,projectName,taskId,taskTitle,employeeId,employeeName,hours,billable,description\n')
})

test('contacts and products runs: what their list shows with the same filters, A to Z, across pages; never a signing secret', async () => {
  const o = await createOrg(t.app)
  // 105 vendors named so that A to Z crosses the page of 100 the export reads at a time.
  for (let i = 0; i < 105; i++) expectStatus(await o.post('/contacts', { name: `Vendor ${String(i).padStart(3, '0')}`, vendor: true }), 201)
  const zed = expectStatus(await o.post('/contacts', { name: 'Zed Vendor', email: 'z@zed.example', vendor: true, address: { lines: ['Main 1', 'Suite 2'], city: 'Oslo', postalCode: '0150', country: 'no' } }), 201)
  expectStatus(await o.post('/contacts', { name: 'Vendor person', type: 'individual' }), 201)
  const vendors = await settled(o, expectStatus(await o.post('/reports', { type: 'contacts', parameters: { search: 'vendor', vendor: true, contactType: 'company' } }), 201).id)
  assert.deepEqual([vendors.status, vendors.rows, vendors.parameters], ['succeeded', 106, { search: 'vendor', vendor: true, contactType: 'company' }])
  const lines = (await file(o, vendors.id)).trim().split('\n')
  assert.equal(lines[0], 'id,name,email,phone,type,vendor,taxId,street,city,postalCode,country,paymentTerms,currency,leadTimeDays,minOrderQty,createdAt')
  assert.deepEqual(lines.slice(1).map((l) => l.split(',')[1]), [...Array.from({ length: 105 }, (_, i) => `Vendor ${String(i).padStart(3, '0')}`), 'Zed Vendor'])
  assert.match(lines.at(-1)!, new RegExp(`^${zed.id},Zed Vendor,z@zed.example,,company,true,,"Main 1, Suite 2",Oslo,0150,NO,,,,,`))

  const licensed = expectStatus(await o.post('/products', { name: 'Connector', sku: 'CON-1', price: 19900, currency: 'usd', type: 'service', moduleName: 'shop_connector', erpVersion: '17.0', activationsLimit: 2 }), 201)
  expectStatus(await o.post('/products', { name: 'Desk', price: 64950, cost: 41000, currency: 'usd', type: 'storable' }), 201)
  const services = await settled(o, expectStatus(await o.post('/reports', { type: 'products', parameters: { productType: 'service' } }), 201).id)
  const csv = await file(o, services.id)
  assert.equal(services.rows, 1)
  assert.doesNotMatch(csv, /signingSecret/)
  assert.equal(csv.split('\n')[0], 'id,name,sku,type,currency,price,cost,uom,reorderPoint,licensed,moduleName,description,createdAt')
  assert.match(csv.split('\n')[1]!, new RegExp(`^${licensed.id},Connector,CON-1,service,usd,199.00,,unit,0,true,shop_connector,`))
  // A parameter of the other list is refused.
  expectStatus(await o.post('/reports', { type: 'products', parameters: { vendor: true } }), 422)
})

test('422: unknown type, missing or unknown parameters, bad dates, from after to', async () => {
  const range = { from: '2026-01-01', to: '2026-01-31' }
  const cases: Array<[unknown, string]> = [
    [{ type: 'nope', parameters: range }, 'type must be one of: contacts, invoices, journal_entries, payables_aging, products, receivables_aging, sales, stock_moves, stock_valuation, timesheets, trial_balance'],
    [{ type: '', parameters: range }, 'type'],
    [{ type: 'invoices' }, 'parameters.from is required'],
    [{ type: 'invoices', parameters: { from: '2026-01-01' } }, 'parameters.to is required'],
    [{ type: 'invoices', parameters: { ...range, asOf: '2026-01-01' } }, 'parameters.asOf is not taken by type invoices'],
    [{ type: 'invoices', parameters: { ...range, color: 'red' } }, 'color'],
    [{ type: 'stock_moves', parameters: { from: '2026-02-30', to: '2026-03-01' } }, 'from'],
    [{ type: 'stock_moves', parameters: { from: '01/02/2026', to: '2026-03-01' } }, 'from'],
    [{ type: 'timesheets', parameters: { from: '2026-02-01', to: '2026-01-31' } }, 'from must not be after'],
    // The analytics types are checked with their GET's own rules: what the GET refuses (422), the run does too.
    [{ type: 'sales', parameters: { from: '2026-12-02', to: '2026-11-22', groupBy: 'product' } }, 'parameters.from must not be after to'],
    [{ type: 'sales', parameters: { from: '2999-01-01', groupBy: 'customer' } }, 'parameters.from must not be after to'],
    [{ type: 'sales', parameters: { from: '2026-01-01', to: '2026-01-31' } }, 'parameters.groupBy is required'],
    [{ type: 'receivables_aging', parameters: { asOf: '1899-12-31' } }, 'asOf'],
    [{ type: 'stock_valuation', parameters: { asOf: '2026-02-29' } }, 'asOf'],
    [{ type: 'invoices', parameters: { ...range, limit: 0 } }, 'limit'],
  ]
  for (const [body, message] of cases) {
    const res = await org.post('/reports', body)
    assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`)
    assert.equal(res.body.code, 'VALIDATION_FAILED')
    assert.match([res.body.message].flat().join('; '), new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), JSON.stringify(body))
  }
  expectStatus(await org.post('/reports', { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-01' } }), 201)
  expectStatus(await org.post('/reports', { type: 'sales', parameters: { from: '2026-11-22', to: '2026-11-22', groupBy: 'product' } }), 201)
  // The GET answers the same 422 for the same parameters.
  expectStatus(await org.get('/analytics/sales?from=2026-12-02&to=2026-11-22&groupBy=product'), 422, 'from must not be after to')
})

test('a run whose rows throw ends failed with the error, no file (409), and an e-mail', async () => {
  const reports = t.app.services.reports!
  reports.registerType('test_failure', {
    description: 'fails after a row',
    parameters: DateRangeParameters,
    async *rows() {
      yield { a: 1 }
      throw new Error('the source broke')
    },
  })
  const run = expectStatus(await org.post('/reports', { type: 'test_failure', parameters: { from: '2026-01-01', to: '2026-01-02' } }), 201)
  const done = await settled(org, run.id)
  assert.deepEqual([done.status, done.error, done.rows, done.file], ['failed', 'the source broke', null, null])
  expectStatus(await org.get(`/reports/${run.id}/file`), 409, 'failed')
  assert.equal((await t.app.ctx.db.query('SELECT 1 FROM report_file_chunks WHERE run_id = $1', [run.id])).rowCount, 0)
  const mails = await outbox(org, 'Report test_failure failed')
  assert.equal(mails.length, 1)
  assert.equal(mails[0].to, org.adminEmail)
})

test('410 once the file is past its 30 days; the housekeeping job deletes it', async () => {
  const run = await settled(org, expectStatus(await org.post('/reports', { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' } }), 201).id)
  assert.equal(run.status, 'succeeded')
  await t.app.ctx.db.query(`UPDATE report_runs SET completed_at = now() - interval '31 days', expires_at = now() - interval '1 day' WHERE id = $1`, [run.id])
  expectStatus(await org.get(`/reports/${run.id}/file`), 410, '30 days')
  assert.equal(expectStatus(await org.get(`/reports/${run.id}`), 200).file, null)
  const job = expectStatus(await org.post('/admin/jobs/report-files-cleanup/run'), 200)
  assert.ok(job.result.deleted >= 1)
  assert.equal((await t.app.ctx.db.query('SELECT 1 FROM report_file_chunks WHERE run_id = $1', [run.id])).rowCount, 0)
  const body = expectStatus(await org.get(`/reports/${run.id}/file`), 410)
  assert.deepEqual(body, { statusCode: 410, message: 'The file of this report run was kept 30 days and is deleted', error: 'Gone', code: 'GONE' })
})

test('GET /reports: newest first, status and type filters (an unknown status 400); 404 of an unknown id', async () => {
  const o = await createOrg(t.app)
  const ids: string[] = []
  for (const type of ['invoices', 'timesheets', 'invoices']) {
    ids.push(expectStatus(await o.post('/reports', { type, parameters: { from: '2026-01-01', to: '2026-01-31' } }), 201).id)
    await new Promise((r) => setTimeout(r, 5))
  }
  for (const id of ids) await settled(o, id)
  const all = expectStatus(await o.get('/reports'), 200)
  assert.deepEqual(all.data.map((r: { id: string }) => r.id), [...ids].reverse())
  assert.deepEqual(all.meta, { total: 3, page: 1, limit: 20, totalPages: 1, nextCursor: null })
  assert.deepEqual(expectStatus(await o.get('/reports?sortOrder=asc&limit=2'), 200).data.map((r: { id: string }) => r.id), ids.slice(0, 2))
  assert.deepEqual(expectStatus(await o.get('/reports?type=invoices'), 200).data.map((r: { id: string }) => r.id), [ids[2], ids[0]])
  assert.equal(expectStatus(await o.get('/reports?status=succeeded'), 200).meta.total, 3)
  assert.equal(expectStatus(await o.get('/reports?status=pending'), 200).meta.total, 0)
  assert.equal(expectStatus(await o.get('/reports?status=failed&type=timesheets'), 200).meta.total, 0)
  // The type filter takes a registered type; another is 400, as an unknown status is (docs/platform.md "Bodies and validation").
  expectStatus(await o.get('/reports?type=nope'), 400, 'type must be one of: contacts, invoices, journal_entries, payables_aging')
  expectStatus(await o.get('/reports?status=done'), 400)
  expectStatus(await o.get('/reports/00000000-0000-4000-8000-000000000000'), 404)
  expectStatus(await o.get('/reports/00000000-0000-4000-8000-000000000000/file'), 404)
  // Another organization sees none of them.
  assert.equal(expectStatus(await org.get(`/reports/${ids[0]}`), 404).code, 'NOT_FOUND')
})

test('roles: admin and member run and read reports; support, agent and customer get 403; no credential 401', async () => {
  const body = { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' } }
  const member = await org.as('member')
  const run = expectStatus(await org.post('/reports', body, member), 201)
  expectStatus(await org.get(`/reports/${run.id}`, member), 200)
  expectStatus(await org.get('/reports', member), 200)
  await settled(org, run.id)
  expectStatus(await org.get(`/reports/${run.id}/file`, member), 200)
  for (const role of ['customer', 'support', 'agent'] as const) {
    const token = await org.as(role)
    expectStatus(await org.post('/reports', body, token), 403)
    expectStatus(await org.get('/reports', token), 403)
    expectStatus(await org.get(`/reports/${run.id}`, token), 403)
    expectStatus(await org.get(`/reports/${run.id}/file`, token), 403)
  }
  expectStatus(await org.get('/reports', ''), 401)
})

test('a run whose worker died is taken again after its lease; the dead claim\'s chunks go', async () => {
  const reports = t.app.services.reports!
  await reports.stop()
  const run = expectStatus(await org.post('/reports', { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' } }), 201)
  // What a process that claimed it and died leaves: running, a lease in the past, a chunk of its claim.
  await t.app.ctx.db.query(`UPDATE report_runs SET status = 'running', attempts = 1, locked_until = now() + interval '1 hour' WHERE id = $1`, [run.id])
  await t.app.ctx.db.query(`INSERT INTO report_file_chunks (organization_id, run_id, attempt, seq, data) SELECT organization_id, id, 1, 0, '\\x00' FROM report_runs WHERE id = $1`, [run.id])
  assert.deepEqual(await reports.runDue(), { succeeded: 0, failed: 0 })
  assert.equal(expectStatus(await org.get(`/reports/${run.id}`), 200).status, 'running')
  await t.app.ctx.db.query(`UPDATE report_runs SET locked_until = now() - interval '1 second' WHERE id = $1`, [run.id])
  assert.deepEqual(await reports.runDue(), { succeeded: 1, failed: 0 })
  const done = expectStatus(await org.get(`/reports/${run.id}`), 200)
  assert.equal(done.status, 'succeeded')
  const chunks = await t.app.ctx.db.query<{ attempt: number }>('SELECT attempt FROM report_file_chunks WHERE run_id = $1', [run.id])
  assert.deepEqual(chunks.rows.map((r) => r.attempt), [2])
  assert.equal((await file(org, run.id)).split('\n')[0].slice(0, 10), 'id,number,')
})

describe('two app instances on one PostgreSQL database', { skip: !onPostgres && 'PostgreSQL only (PGlite is one process)' }, () => {
  // Two organizations of 10 runs each: at most 2 runs of an organization run at once
  // (test/security/reports.test.ts), so the four workers below all find a run at first.
  test('never run one report twice, and share the runs', async () => {
    const second: App = await buildApp(t.config, { logger: false })
    try {
      const executions: string[] = []
      const counting = (instance: string) => ({
        description: 'records each execution',
        parameters: DateRangeParameters,
        async *rows(_q: unknown, _org: string, p: { from: string }) {
          executions.push(`${p.from}`)
          await new Promise((r) => setTimeout(r, 20))
          yield { instance }
        },
      })
      t.app.services.reports!.registerType('test_counting', counting('first'))
      second.services.reports!.registerType('test_counting', counting('second'))
      const orgs = [await createOrg(t.app), await createOrg(t.app)]
      const ids: Array<[TestOrg, string]> = []
      for (let i = 1; i <= 20; i++) {
        const day = `2026-01-${String(i).padStart(2, '0')}`
        const o = orgs[i % 2]
        ids.push([o, expectStatus(await o.post('/reports', { type: 'test_counting', parameters: { from: day, to: day } }), 201).id])
      }
      const a = t.app.services.reports!
      const b = second.services.reports!
      await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()])
      assert.equal(executions.length, 20, `executions: ${executions.join(' ')}`)
      assert.equal(new Set(executions).size, 20)
      const instances = new Set<string>()
      for (const [o, id] of ids) {
        const run = expectStatus(await o.get(`/reports/${id}`), 200)
        assert.equal(run.status, 'succeeded')
        instances.add((await file(o, id)).split('\n')[1])
      }
      assert.deepEqual([...instances].sort(), ['first', 'second'])
    } finally {
      await second.close()
    }
  })
})
