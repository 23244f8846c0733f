import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, unique, type Res, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { entriesOf } from '../../../test/helpers/ledger.ts'
import { multipartForm } from '../../../test/helpers/licenses.ts'

let t: TestApp
let org: TestOrg

before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(async () => {
  await t.app.services.imports!.queue.stop()
  await t.close()
})

function expectStatus(res: Res, status: number, message?: string) {
  assert.equal(res.status, status, `${res.status} ${JSON.stringify(res.body)}`)
  if (message) assert.match([res.body.message].flat().join('; '), new RegExp(message))
  return res.body
}

const csvUpload = (o: TestOrg, fields: Record<string, string>, csv: string | Buffer | null) => {
  const form = multipartForm(fields, csv === null ? undefined : { name: 'file', filename: 'rows.csv', content: Buffer.from(csv) })
  return o.post('/imports', form.body, undefined, { 'content-type': form.contentType })
}

/** Runs the queue (tests do not start the workers) and answers the import as GET gives it. */
async function ran(o: TestOrg, res: Res) {
  const queued = expectStatus(res, 202)
  assert.equal(queued.status, 'pending')
  expectStatus(await o.post('/admin/jobs/imports/run'), 200)
  return expectStatus(await o.get(`/imports/${queued.id}`), 200)
}

const stagedCount = async () => (await t.app.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM import_rows')).rows[0].n
const contactsByEmail = async (o: TestOrg, email: string) => (await o.get(`/contacts?email=${encodeURIComponent(email)}`)).body.data

describe('contacts', () => {
  test('a CSV file (BOM, quotes, empty cells) creates every contact, with its contact.created event', async () => {
    const a = `${unique('a')}@example.com`
    const b = `${unique('b')}@example.com`
    const csv = `\ufeffname,email,vendor,leadTimeDays,phone\r\n"Acme, Inc.",${a},true,5,\r\n"Say ""hi""",${b},,,+1 555\r\n`
    const imp = await ran(org, await csvUpload(org, { resource: 'contacts' }, csv))
    assert.deepEqual({ status: imp.status, totalRows: imp.totalRows, processedRows: imp.processedRows, created: imp.created, updated: imp.updated, errors: imp.errors, mode: imp.mode, dryRun: imp.dryRun },
      { status: 'succeeded', totalRows: 2, processedRows: 2, created: 2, updated: 0, errors: [], mode: 'insert', dryRun: false })
    assert.ok(imp.completedAt)
    const [acme] = await contactsByEmail(org, a)
    assert.deepEqual({ name: acme.name, vendor: acme.vendor, leadTimeDays: acme.leadTimeDays, phone: acme.phone, type: acme.type }, { name: 'Acme, Inc.', vendor: true, leadTimeDays: 5, phone: null, type: 'company' })
    const [say] = await contactsByEmail(org, b)
    assert.deepEqual({ name: say.name, vendor: say.vendor, phone: say.phone }, { name: 'Say "hi"', vendor: false, phone: '+1 555' })
    const events = await t.app.ctx.db.query<{ resource_id: string }>(`SELECT resource_id FROM domain_events WHERE type = 'contact.created' AND resource_id = ANY($1::text[])`, [[acme.id, say.id]])
    assert.equal(events.rows.length, 2)
    assert.equal(await stagedCount(), 0, 'the staged rows are deleted when the import ends')
  })

  test('the row errors give the same messages as the single POST, with row numbers; nothing is written', async () => {
    const good = `${unique('g')}@example.com`
    const bad = { name: '', email: 'not-an-email', leadTimeDays: -1, color: 'red' }
    const single = expectStatus(await org.post('/contacts', bad), 422)
    const imp = await ran(org, await org.post('/imports', { resource: 'contacts', rows: [{ name: 'Fine', email: good }, bad] }))
    assert.equal(imp.status, 'failed')
    assert.ok(imp.errors.every((e: { row: number }) => e.row === 2))
    assert.deepEqual(imp.errors.map((e: { message: string }) => e.message).sort(), [...single.message].sort())
    assert.deepEqual(imp.errors.map((e: { field: string }) => e.field).sort(), ['color', 'email', 'leadTimeDays', 'name'])
    assert.equal((await contactsByEmail(org, good)).length, 0, 'all or nothing')
  })

  test('a CSV cell of the wrong type stays text and gets the POST\'s message', async () => {
    const single = expectStatus(await org.post('/contacts', { name: 'X', vendor: 'yes' }), 422)
    const imp = await ran(org, await csvUpload(org, { resource: 'contacts' }, 'name,vendor\nX,yes\n'))
    assert.deepEqual(imp.errors, [{ row: 1, field: 'vendor', message: single.message[0] }])
  })

  test('an object field (address) takes a JSON object in its cell; other text is the POST\'s message', async () => {
    const email = `${unique('addr')}@example.com`
    const address = { lines: ['1 Main St'], city: 'Springfield', postalCode: '12345', country: 'US' }
    const cell = `"${JSON.stringify(address).replace(/"/g, '""')}"`
    const single = expectStatus(await org.post('/contacts', { name: 'X', address: 'Main St' }), 422)
    const bad = await ran(org, await csvUpload(org, { resource: 'contacts' }, `name,address\nX,Main St\n`))
    assert.deepEqual(bad.errors, [{ row: 1, field: 'address', message: single.message[0] }])
    const imp = await ran(org, await csvUpload(org, { resource: 'contacts' }, `name,email,address\nAddressed,${email},${cell}\n`))
    assert.equal(imp.status, 'succeeded', JSON.stringify(imp.errors))
    const [made] = await contactsByEmail(org, email)
    const single2 = expectStatus(await org.post('/contacts', { name: 'Same', address }), 201)
    assert.deepEqual(made.address, single2.address)
  })

  test('insert: a taken e-mail, and two rows of one e-mail, are errors (the second row)', async () => {
    const taken = `${unique('t')}@example.com`
    expectStatus(await org.post('/contacts', { name: 'Taken', email: taken }), 201)
    const conflict = expectStatus(await org.post('/contacts', { name: 'Again', email: taken }), 409)
    const twice = `${unique('d')}@example.com`
    const imp = await ran(org, await org.post('/imports', { resource: 'contacts', rows: [{ name: 'A', email: taken.toUpperCase() }, { name: 'B', email: twice }, { name: 'C', email: twice.toUpperCase() }] }))
    assert.equal(imp.status, 'failed')
    assert.deepEqual(imp.errors, [
      { row: 1, field: 'email', message: conflict.message },
      { row: 3, field: 'email', message: 'Row 2 has the same email' },
    ])
    assert.equal((await contactsByEmail(org, twice)).length, 0)
  })

  test('upsert updates only the fields given (PATCH) and creates the others; contact.updated is appended', async () => {
    const email = `${unique('u')}@example.com`
    const made = expectStatus(await org.post('/contacts', { name: 'Old', email, phone: '123', vendor: true, leadTimeDays: 3 }), 201)
    const fresh = `${unique('n')}@example.com`
    const imp = await ran(org, await csvUpload(org, { resource: 'contacts', mode: 'upsert' }, `email,name,leadTimeDays\n${email.toUpperCase()},New,\n${fresh},Fresh,2\n`))
    assert.deepEqual({ status: imp.status, created: imp.created, updated: imp.updated }, { status: 'succeeded', created: 1, updated: 1 })
    const after = expectStatus(await org.get(`/contacts/${made.id}`), 200)
    assert.deepEqual({ name: after.name, phone: after.phone, vendor: after.vendor, leadTimeDays: after.leadTimeDays, email: after.email }, { name: 'New', phone: '123', vendor: true, leadTimeDays: 3, email: email.toUpperCase() })
    const events = await t.app.ctx.db.query(`SELECT 1 FROM domain_events WHERE type = 'contact.updated' AND resource_id = $1`, [made.id])
    assert.equal(events.rows.length, 1)
    assert.equal((await contactsByEmail(org, fresh)).length, 1)
  })

  test('upsert of an existing row takes the PATCH schema: an empty name is the PATCH\'s message', async () => {
    const email = `${unique('p')}@example.com`
    const made = expectStatus(await org.post('/contacts', { name: 'Keep', email }), 201)
    const single = expectStatus(await org.patch(`/contacts/${made.id}`, { name: '' }), 422)
    const imp = await ran(org, await org.post('/imports', { resource: 'contacts', mode: 'upsert', rows: [{ email, name: '' }] }))
    assert.deepEqual(imp.errors, [{ row: 1, field: 'name', message: single.message[0] }])
  })

  test('a dry run checks and writes in a transaction rolled back: the counts, nothing kept', async () => {
    const email = `${unique('dry')}@example.com`
    const existing = `${unique('ex')}@example.com`
    expectStatus(await org.post('/contacts', { name: 'Ex', email: existing }), 201)
    const before = (await t.app.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM domain_events')).rows[0].n
    const imp = await ran(org, await csvUpload(org, { resource: 'contacts', mode: 'upsert', dryRun: 'true' }, `name,email\nDry,${email}\nEx2,${existing}\n`))
    assert.deepEqual({ status: imp.status, dryRun: imp.dryRun, created: imp.created, updated: imp.updated }, { status: 'succeeded', dryRun: true, created: 1, updated: 1 })
    assert.equal((await contactsByEmail(org, email)).length, 0)
    assert.equal((await contactsByEmail(org, existing))[0].name, 'Ex')
    assert.equal((await t.app.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM domain_events')).rows[0].n, before)
    const failing = await ran(org, await org.post('/imports', { resource: 'contacts', dryRun: true, rows: [{ email }] }))
    assert.deepEqual({ status: failing.status, errors: failing.errors }, { status: 'failed', errors: [{ row: 1, field: 'name', message: 'name is required' }] })
  })

  test('two imports of the same new contacts at once: exactly one succeeds, the other fails by row, no duplicates', async () => {
    const emails = [1, 2, 3].map(() => `${unique('c')}@example.com`)
    const rows = emails.map((email, i) => ({ name: `C${i}`, email }))
    const first = expectStatus(await org.post('/imports', { resource: 'contacts', rows }), 202)
    const second = expectStatus(await org.post('/imports', { resource: 'contacts', rows }), 202)
    // Both checked before either writes: the write's own check under the resource's lock settles it.
    await Promise.all([t.app.services.imports!.queue.runOnce({ organizationId: org.id }), t.app.services.imports!.queue.runOnce({ organizationId: org.id })])
    const ends = [expectStatus(await org.get(`/imports/${first.id}`), 200), expectStatus(await org.get(`/imports/${second.id}`), 200)]
    assert.deepEqual(ends.map((i) => i.status).sort(), ['failed', 'succeeded'])
    const lost = ends.find((i) => i.status === 'failed')
    assert.deepEqual(lost.errors.map((e: { row: number }) => e.row), [1, 2, 3])
    for (const email of emails) assert.equal((await contactsByEmail(org, email)).length, 1)
  })
})

describe('progress and limits', () => {
  test('processedRows is committed after each chunk of 1,000 rows checked; at most 1,000 errors are listed', async () => {
    const db = t.app.ctx.db
    const original = db.query
    const progress: unknown[] = []
    db.query = ((sql: string, params?: unknown[]) => {
      if (sql.startsWith('UPDATE imports SET processed_rows')) progress.push(params![2])
      return original.call(db, sql, params)
    }) as typeof db.query
    let imp
    try {
      imp = await ran(org, await csvUpload(org, { resource: 'contacts' }, 'name,vendor\n' + 'Bad,maybe\n'.repeat(2500)))
    } finally {
      db.query = original
    }
    assert.deepEqual(progress, [1000, 2000, 2500])
    assert.deepEqual({ status: imp.status, totalRows: imp.totalRows, processedRows: imp.processedRows, errors: imp.errors.length }, { status: 'failed', totalRows: 2500, processedRows: 2500, errors: 1000 })
    assert.deepEqual([imp.errors[0].row, imp.errors[999].row], [1, 1000])
  })
})

describe('upload', () => {
  test('a bad resource or mode, not CSV, too many rows: 422 at once, nothing staged', async () => {
    expectStatus(await org.post('/imports', { resource: 'planets', rows: [{}] }), 422, 'resource must be one of')
    expectStatus(await org.post('/imports', { resource: 'contacts', mode: 'merge', rows: [{}] }), 422, 'mode must be one of')
    expectStatus(await csvUpload(org, { resource: 'planets' }, 'name\nA\n'), 422, 'resource must be one of')
    expectStatus(await csvUpload(org, { resource: 'contacts', mode: 'merge' }, 'name\nA\n'), 422, 'mode must be one of')
    expectStatus(await csvUpload(org, { resource: 'contacts', dryRun: 'maybe' }, 'name\nA\n'), 422, 'dryRun must be boolean')
    expectStatus(await csvUpload(org, { resource: 'contacts' }, 'name,email\n"A,b@example.com\n'), 422, 'not CSV')
    expectStatus(await csvUpload(org, { resource: 'contacts' }, 'name,email\nA\n'), 422, 'not CSV')
    expectStatus(await csvUpload(org, { resource: 'contacts' }, Buffer.from([0x6e, 0x61, 0xff, 0xfe, 0x0a, 0x41])), 422, 'not UTF-8')
    expectStatus(await csvUpload(org, { resource: 'contacts' }, ''), 422, 'empty')
    expectStatus(await csvUpload(org, { resource: 'contacts' }, 'name\n'), 422, 'no data rows')
    expectStatus(await csvUpload(org, { resource: 'contacts' }, null), 422, 'file is required')
    expectStatus(await csvUpload(org, { resource: 'contacts', color: 'red' }, 'name\nA\n'), 422, 'color is not allowed')
    for (const rows of [3, 40_000]) {
      const whole = multipartForm({ resource: 'contacts' }, { name: 'file', filename: 'rows.csv', content: Buffer.from('name\n' + 'A\n'.repeat(rows)) })
      const cut = whole.body.subarray(0, whole.body.length - 20)
      expectStatus(await org.post('/imports', cut, undefined, { 'content-type': whole.contentType }), 400, 'Malformed multipart body')
    }
    expectStatus(await csvUpload(org, { resource: 'contacts' }, 'name\n' + 'A\n'.repeat(50_001)), 422, 'more than 50000 data rows')
    expectStatus(await csvUpload(org, { resource: 'contacts' }, 'name\n' + `${'A'.repeat(1023)}\n`.repeat(10 * 1024 + 1)), 413)
    expectStatus(await org.post('/imports', { resource: 'contacts', rows: Array.from({ length: 1001 }, () => ({ name: 'A' })) }), 422, 'rows must NOT have more than 1000 items')
    assert.equal(await stagedCount(), 0)
    const list = expectStatus(await org.get('/imports?status=pending'), 200)
    assert.equal(list.data.length, 0)
  })

  test('GET /imports lists newest first; GET /imports/:id of another organization is 404; customers may not import', async () => {
    const other = await createOrg(t.app)
    const mine = expectStatus(await org.post('/imports', { resource: 'contacts', rows: [{ name: 'L1' }] }), 202)
    const newer = expectStatus(await org.post('/imports', { resource: 'contacts', rows: [{ name: 'L2' }] }), 202)
    const list = expectStatus(await org.get('/imports?limit=2'), 200)
    assert.deepEqual(list.data.map((i: { id: string }) => i.id), [newer.id, mine.id])
    expectStatus(await other.get(`/imports/${mine.id}`), 404)
    expectStatus(await org.post('/imports', { resource: 'contacts', rows: [{ name: 'M' }] }, await org.as('member')), 202)
    expectStatus(await org.post('/imports', { resource: 'contacts', rows: [{ name: 'M' }] }, await org.as('customer')), 403)
    await org.post('/admin/jobs/imports/run')
  })
})

describe('products', () => {
  test('insert by CSV (money in cents, defaults of POST), a taken sku, the licensing rule; upsert by sku patches', async () => {
    const sku = unique('SKU-')
    const imp = await ran(org, await csvUpload(org, { resource: 'products' }, `name,sku,price,cost,type\nWidget,${sku},1250,700,storable\n`))
    assert.deepEqual({ status: imp.status, created: imp.created }, { status: 'succeeded', created: 1 })
    const [widget] = expectStatus(await org.get(`/products?search=${sku}`), 200).data
    assert.deepEqual({ price: widget.price, cost: widget.cost, currency: widget.currency, uom: widget.uom, type: widget.type, reorderPoint: widget.reorderPoint, licensed: widget.licensed },
      { price: 1250, cost: 700, currency: 'usd', uom: 'unit', type: 'storable', reorderPoint: 0, licensed: false })

    const taken = expectStatus(await org.post('/products', { name: 'Again', sku }), 409)
    const licensing = expectStatus(await org.post('/products', { name: 'Mod', moduleName: 'my_mod' }), 422)
    const failed = await ran(org, await org.post('/imports', { resource: 'products', rows: [{ name: 'Dup', sku }, { name: 'Mod', moduleName: 'my_mod' }] }))
    assert.deepEqual(failed.errors, [
      { row: 1, field: 'sku', message: taken.message },
      { row: 2, field: 'erpVersion', message: licensing.message[0] },
    ])

    const up = await ran(org, await org.post('/imports', { resource: 'products', mode: 'upsert', rows: [{ sku, price: 1500 }, { sku: unique('NEW-'), name: 'Fresh', moduleName: 'fresh_mod', erpVersion: '18.0' }] }))
    assert.deepEqual({ status: up.status, created: up.created, updated: up.updated }, { status: 'succeeded', created: 1, updated: 1 })
    const after = expectStatus(await org.get(`/products/${widget.id}`), 200)
    assert.deepEqual({ name: after.name, price: after.price, cost: after.cost }, { name: 'Widget', price: 1500, cost: 700 })
    const [fresh] = expectStatus(await org.get('/products?moduleName=fresh_mod'), 200).data
    assert.deepEqual({ licensed: fresh.licensed, billing: fresh.billing, activationsLimit: fresh.activationsLimit, secret: typeof fresh.signingSecret }, { licensed: true, billing: 'one_time', activationsLimit: 1, secret: 'string' })
  })

  test('upsert of a cost while stock is on hand revalues it as PATCH does: 4 x 350 - 4 x 333 = 68 against 5100', async () => {
    const o = await createOrg(t.app)
    const sku = unique('REV-')
    const p = expectStatus(await o.post('/products', { name: 'Revalued', sku, type: 'storable', cost: 333 }), 201)
    expectStatus(await o.post('/inventory/adjustments', { locationId: 'LOC-STOCK', lines: [{ productId: p.id, realQty: 4 }] }), 201)
    const imp = await ran(o, await csvUpload(o, { resource: 'products', mode: 'upsert' }, `sku,cost\n${sku},350\n`))
    assert.deepEqual({ status: imp.status, updated: imp.updated }, { status: 'succeeded', updated: 1 })
    const entries = (await entriesOf(t, o.id, 'revaluation', p.id)).map((e) => e.lines)
    assert.deepEqual(entries, [[['1200', 68, 0], ['5100', 0, 68]]])
  })
})

describe('employees', () => {
  test('insert and upsert by email; userId must name a user of the organization, as the single POST says', async () => {
    const email = `${unique('e')}@example.com`
    const bad = { name: 'Eve', userId: '00000000-0000-4000-8000-000000000000' }
    const single = expectStatus(await org.post('/employees', bad), 422)
    const failed = await ran(org, await org.post('/imports', { resource: 'employees', rows: [{ name: 'Ann', email }, bad] }))
    assert.deepEqual(failed.errors, [{ row: 2, field: 'userId', message: single.message[0] }])
    const imp = await ran(org, await csvUpload(org, { resource: 'employees' }, `name,email,hireDate,department\nAnn,${email},2026-01-05,Sales\n`))
    assert.deepEqual({ status: imp.status, created: imp.created }, { status: 'succeeded', created: 1 })
    const again = await ran(org, await csvUpload(org, { resource: 'employees' }, `name,email\nAnn,${email}\n`))
    assert.deepEqual(again.errors, [{ row: 1, field: 'email', message: 'An employee with this email already exists (mode upsert updates it)' }])
    const up = await ran(org, await csvUpload(org, { resource: 'employees', mode: 'upsert' }, `email,jobTitle\n${email.toUpperCase()},Lead\n`))
    assert.deepEqual({ status: up.status, updated: up.updated }, { status: 'succeeded', updated: 1 })
    const list = expectStatus(await org.get('/employees?limit=100'), 200).data.filter((e: { email: string }) => e.email?.toLowerCase() === email)
    assert.deepEqual(list.map((e: any) => [e.name, e.jobTitle, e.department, e.hireDate]), [['Ann', 'Lead', 'Sales', '2026-01-05']])
  })
})

describe('stock', () => {
  test('one adjustment per location (WH/ADJ/, reason Import) brings each location to its quantity; figures by hand', async () => {
    const o = await createOrg(t.app)
    const sku = unique('STK-')
    const product = expectStatus(await o.post('/products', { name: 'Bolt', sku, type: 'storable', cost: 100 }), 201)
    expectStatus(await o.post('/inventory/locations', { code: 'A', name: 'Shelf A' }), 201)
    expectStatus(await o.post('/inventory/locations', { code: 'B', name: 'Shelf B' }), 201)
    // On hand before: 5 at LOC-A (WH/ADJ/00001), 3 at LOC-B (WH/ADJ/00002).
    expectStatus(await o.post('/inventory/adjustments', { locationId: 'LOC-A', lines: [{ productId: product.id, realQty: 5 }] }), 201)
    expectStatus(await o.post('/inventory/adjustments', { locationId: 'LOC-B', lines: [{ productId: product.id, realQty: 3 }] }), 201)

    const insert = await ran(o, await csvUpload(o, { resource: 'stock' }, `sku,locationId,quantity\n${sku},LOC-A,12\n`))
    assert.deepEqual(insert.errors, [{ row: 1, field: 'locationId', message: 'This location already holds stock of this product (mode upsert sets it)' }])
    const imp = await ran(o, await csvUpload(o, { resource: 'stock', mode: 'upsert' }, `sku,locationId,quantity\n${sku},LOC-A,12\n${sku},LOC-B,0\n`))
    assert.deepEqual({ status: imp.status, created: imp.created, updated: imp.updated }, { status: 'succeeded', created: 0, updated: 2 })
    // LOC-A: held 5, counted 12: +7 from LOC-LOSS. LOC-B: held 3, counted 0: -3 to LOC-LOSS. Total on hand 12 + 0 = 12.
    const adjustments = expectStatus(await o.get('/inventory/adjustments?sortBy=reference&sortOrder=asc'), 200).data
    assert.deepEqual(adjustments.slice(2).map((a: any) => [a.reference, a.locationId, a.reason, a.lines.map((l: any) => [l.productId, l.theoreticalQty, l.realQty, l.difference])]), [
      ['WH/ADJ/00003', 'LOC-A', 'Import', [[product.id, 5, 12, 7]]],
      ['WH/ADJ/00004', 'LOC-B', 'Import', [[product.id, 3, 0, -3]]],
    ])
    const moves = expectStatus(await o.get('/inventory/moves?sortBy=quantity&sortOrder=asc&limit=100'), 200).data.filter((m: any) => m.reference >= 'WH/ADJ/00003')
    assert.deepEqual(moves.map((m: any) => [m.reference, m.sourceLocationId, m.destinationLocationId, m.quantity]), [
      ['WH/ADJ/00004', 'LOC-B', 'LOC-LOSS', 3],
      ['WH/ADJ/00003', 'LOC-LOSS', 'LOC-A', 7],
    ])
    const stock = expectStatus(await o.get(`/inventory/products/${product.id}/stock`), 200)
    assert.deepEqual(stock.map((s: any) => [s.locationId, s.quantity]), [['LOC-A', 12]])
    const [level] = expectStatus(await o.get('/inventory/products?limit=100'), 200).data.filter((p: any) => p.productId === product.id)
    assert.equal(level.onHand, 12)
  })

  test('stock rows: an unknown sku, a location that is not internal, two rows of one key; a dry run posts nothing', async () => {
    const o = await createOrg(t.app)
    const sku = unique('STK-')
    expectStatus(await o.post('/products', { name: 'Nut', sku, type: 'storable' }), 201)
    const failed = await ran(o, await o.post('/imports', { resource: 'stock', rows: [
      { sku: 'NOPE', locationId: 'LOC-STOCK', quantity: 1 },
      { sku, locationId: 'LOC-CUSTOMER', quantity: 1 },
      { sku, locationId: 'LOC-STOCK', quantity: -1 },
      { sku, locationId: 'LOC-STOCK', quantity: 2 },
      { sku, locationId: 'LOC-STOCK', quantity: 3 },
    ] }))
    assert.deepEqual(failed.errors, [
      { row: 1, field: 'sku', message: 'sku NOPE does not name a product of this organization' },
      { row: 2, field: 'locationId', message: 'locationId LOC-CUSTOMER is not an internal location: only internal locations are counted' },
      { row: 3, field: 'quantity', message: 'quantity must be >= 0' },
      { row: 4, field: 'locationId', message: 'Row 3 has the same sku and locationId' },
      { row: 5, field: 'locationId', message: 'Row 3 has the same sku and locationId' },
    ])
    const dry = await ran(o, await o.post('/imports', { resource: 'stock', dryRun: true, rows: [{ sku, locationId: 'LOC-STOCK', quantity: 4 }] }))
    assert.deepEqual({ status: dry.status, created: dry.created }, { status: 'succeeded', created: 1 })
    assert.equal(expectStatus(await o.get('/inventory/adjustments'), 200).data.length, 0)
    assert.equal(expectStatus(await o.get('/inventory/moves'), 200).data.length, 0)
  })
})

describe('cleanup', () => {
  test('the staged rows of an upload whose process died go an hour later; those of a queued import stay', async () => {
    const db = t.app.ctx.db
    const orphan = '00000000-0000-4000-8000-00000000dead'
    await db.query(`INSERT INTO import_rows (import_id, row, organization_id, staged_at, data) VALUES ($1, 1, $2, now() - interval '2 hours', '{}'), ($1, 2, $2, now(), '{}')`, [orphan, org.id])
    const queued = expectStatus(await org.post('/imports', { resource: 'contacts', rows: [{ name: 'Waits' }] }), 202)
    await db.query(`UPDATE import_rows SET staged_at = now() - interval '2 hours' WHERE import_id = $1`, [queued.id])
    const run = expectStatus(await org.post('/admin/jobs/import-rows-cleanup/run'), 200)
    assert.deepEqual(run.result, { deleted: 1 })
    const left = await db.query<{ import_id: string; row: number }>('SELECT import_id, row FROM import_rows WHERE import_id = ANY($1::uuid[]) ORDER BY import_id, row', [[orphan, queued.id]])
    assert.deepEqual(left.rows.map((r) => [r.import_id, r.row]).sort(), [[orphan, 2], [queued.id, 1]].sort())
    await db.query('DELETE FROM import_rows WHERE import_id = $1', [orphan])
    await org.post('/admin/jobs/imports/run')
  })
})

describe('rate limit', () => {
  test('an import of 1,000 rows counts as the one request it is', async () => {
    const limited = await buildTestApp({ RATE_LIMIT: 'on', RATE_LIMIT_GENERAL: '5' })
    try {
      const o = await createOrg(limited.app)
      const rows = Array.from({ length: 1000 }, (_, i) => ({ name: `Limited ${i}` }))
      const post = await o.post('/imports', { resource: 'contacts', rows })
      const queued = expectStatus(post, 202)
      const remaining = Number(post.headers['x-ratelimit-remaining'])
      assert.ok(Number.isInteger(remaining) && remaining > 0, String(post.headers['x-ratelimit-remaining']))
      await limited.app.services.imports!.queue.drain({ organizationId: o.id })
      const got = await o.get(`/imports/${queued.id}`)
      assert.equal(expectStatus(got, 200).created, 1000)
      assert.equal(Number(got.headers['x-ratelimit-remaining']), remaining - 1)
    } finally {
      await limited.app.services.imports!.queue.stop()
      await limited.close()
    }
  })
})
