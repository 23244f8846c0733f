// In Chromium: the dashboard's Import page and the Preview of new invoices
// and quotations (issue 28). A member imports contacts: a CSV with one bad row
// is checked (the dry run shows the error with its row number and nothing is
// written), the fixed file is dropped on the page and checked (the counts it
// would make), then imported, and the contacts are in the API. An admin
// previews a quotation and an invoice (the totals the API computes under
// `Prefer: dry-run`, nothing created), then creates them. At 1440x900 and at
// 390x844 (a phone), axe-core on every state.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createOrg, unique, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, rows, shot, signIn, SKIP_E2E, startE2E, text, type E2E } from '../helpers/browser.ts'

let e: E2E
before(async () => {
  // With its background work (JOBS=on), as a server runs: the queue worker runs the imports the page starts.
  if (!SKIP_E2E) e = await startE2E({ JOBS: 'on' })
})
after(async () => await e?.close())

const total = async (o: TestOrg, path: string) => (await ok(o.get(`${path}?limit=1`), 200)).meta.total as number


const BAD = ['name,email,type,vendor', 'Acme Corporation,billing@acme.example,company,false', 'Globex Ltd,not-an-email,company,', '"Initech, Inc.",ap@initech.example,individual,true', ''].join('\r\n')
const FIXED = BAD.replace('not-an-email', 'accounts@globex.example')

test('import: a member checks a CSV of contacts (the bad row by number), drops the fixed file, checks it and imports it', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const o = await createOrg(e.t.app, 'Northwind Movers')
  const password = 'member-password-2026'
  const member = await ok(o.post('/users', { name: 'Mo Member', email: `${unique('mo')}@example.com`, password, role: 'member' }))

  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  await signIn(page, member.email, password)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import' }).click()
  await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor()
  await page.getByRole('table', { name: 'Recent imports' }).or(page.getByText('No imports yet.')).waitFor()
  await expectAccessible(page, 'import, empty')

  // The columns of the chosen resource are listed; a stock import shows the location ids to put in them.
  assert.match(text(await page.locator('.columns-help').innerText()), /name \(required\), email, phone, type, vendor/)
  await page.getByLabel('Records').selectOption('stock')
  await page.getByText('Location ids').click()
  await page.getByRole('table', { name: 'Internal locations: a locationId cell takes the code or the id' }).getByRole('cell', { name: 'LOC-STOCK' }).waitFor()
  await page.getByLabel('Records').selectOption('contacts')

  // A file with one bad row: the dry run ends failed, with the row, the field and the API's message; nothing is written.
  const file = page.getByLabel('CSV file', { exact: true })
  await file.setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(BAD) })
  await page.getByRole('button', { name: 'Check the file' }).click()
  const errors = page.getByRole('table', { name: 'Errors of the check by row' })
  await errors.waitFor()
  const [bad, ...more] = await rows(page, 'Errors of the check by row')
  assert.deepEqual(more, [])
  assert.deepEqual(bad.slice(0, 2), ['2', 'email'])
  assert.ok(bad[2].length > 0, 'the error has a message')
  assert.equal(text(await page.getByTestId('dry-run-result').getByRole('alert').innerText()), '1 error in 3 rows: nothing was written. Fix the file and check it again.')
  assert.equal(await page.getByRole('button', { name: /^Import \d/ }).count(), 0, 'no import while the check failed')
  assert.equal(await total(o, '/contacts'), 0)
  await expectAccessible(page, 'import, the dry run with an error')
  await shot(page, 'import-errors')
  await onPhone(page, 'import, the dry run with an error', 'import-errors', '[data-testid=dry-run-result]')

  // The fixed file, dropped on the page: the dry run ends with the counts it would make, and still writes nothing.
  const dropped = await page.evaluateHandle((csv) => {
    const data = new DataTransfer()
    data.items.add(new File([csv], 'contacts-fixed.csv', { type: 'text/csv' }))
    return data
  }, FIXED)
  await page.getByTestId('dropzone').dispatchEvent('drop', { dataTransfer: dropped })
  await page.getByText('contacts-fixed.csv').waitFor()
  assert.equal(await errors.count(), 0, 'a new file drops the last check')
  await page.getByRole('button', { name: 'Check the file' }).click()
  const valid = page.getByTestId('dry-run-result').getByRole('status')
  await valid.filter({ hasText: 'The file is valid' }).waitFor()
  assert.equal(text(await valid.innerText()), 'The file is valid: importing it would create 3 records and update 0 (3 rows). Nothing was written.')
  assert.equal(await total(o, '/contacts'), 0)
  await expectAccessible(page, 'import, the dry run passed')
  await shot(page, 'import-dry-run')

  // Import: the same file for real; the contacts are in the API.
  await page.getByRole('button', { name: 'Import 3 rows' }).click()
  const done = page.getByTestId('import-result').getByRole('status')
  await done.filter({ hasText: 'Imported' }).waitFor()
  assert.equal(text(await done.innerText()), 'Imported 3 rows: 3 created, 0 updated.')
  const contacts = (await ok(o.get('/contacts?limit=10'), 200)).data
  assert.deepEqual(
    contacts.map((c: any) => [c.name, c.email, c.type, c.vendor]).sort(),
    [
      ['Acme Corporation', 'billing@acme.example', 'company', false],
      ['Globex Ltd', 'accounts@globex.example', 'company', false],
      ['Initech, Inc.', 'ap@initech.example', 'individual', true],
    ],
  )

  // The recent imports, newest first: the import, the passing check, the failed one.
  await expectSoon(async () => (await rows(page, 'Recent imports')).map((r) => r.slice(1)), [
    ['contacts', 'import, insert', 'succeeded', '3', '3', '0', '0'],
    ['contacts', 'dry run, insert', 'succeeded', '3', '3', '0', '0'],
    ['contacts', 'dry run, insert', 'failed', '3', '0', '0', '1'],
  ])
  assert.equal(await total(o, '/imports'), 3)
  await expectAccessible(page, 'import, imported')
  await shot(page, 'import', '[data-testid=dry-run-result]')
  await onPhone(page, 'import, imported', 'import', '[data-testid=import-result]')

  // An import of the list opens on its own page, with its errors.
  await page.getByRole('table', { name: 'Recent imports' }).getByRole('link').nth(2).click()
  await page.getByRole('heading', { name: 'Dry run of contacts, insert' }).waitFor()
  await expectSoon(async () => (await rows(page, 'Errors of the check by row')).map((r) => r.slice(0, 2)), [['2', 'email']])
  await expectAccessible(page, 'an import')

  // Upsert: a row whose e-mail is known updates that contact, the others are new; checked first, then imported.
  await page.getByRole('link', { name: 'All imports' }).click()
  await page.getByLabel('Mode').selectOption('upsert')
  const upsert = ['name,email,phone', 'Acme Corporation,billing@acme.example,+1 555 0100', 'Hooli,it@hooli.example,', ''].join('\n')
  await file.setInputFiles({ name: 'more.csv', mimeType: 'text/csv', buffer: Buffer.from(upsert) })
  await page.getByRole('button', { name: 'Check the file' }).click()
  await valid.filter({ hasText: 'The file is valid' }).waitFor()
  assert.equal(text(await valid.innerText()), 'The file is valid: importing it would create 1 record and update 1 (2 rows). Nothing was written.')
  await page.getByRole('button', { name: 'Import 2 rows' }).click()
  await done.filter({ hasText: 'Imported' }).waitFor()
  assert.equal(text(await done.innerText()), 'Imported 2 rows: 1 created, 1 updated.')
  const after = (await ok(o.get('/contacts?limit=10'), 200)).data
  assert.deepEqual(after.map((c: any) => [c.name, c.phone]).sort(), [['Acme Corporation', '+1 555 0100'], ['Globex Ltd', null], ['Hooli', null], ['Initech, Inc.', null]])
  await page.close()
})

async function seedSales(o: TestOrg) {
  const contact = await ok(o.post('/contacts', { name: 'Acme Corporation', email: 'billing@acme.example', type: 'company' }))
  const desk = await ok(o.post('/products', { name: 'Oak standing desk', sku: 'DSK-OAK', price: 64900, currency: 'usd', type: 'storable', uom: 'unit' }))
  const lamp = await ok(o.post('/products', { name: 'Desk lamp', sku: 'LMP-LED', price: 4500, currency: 'usd', type: 'storable', uom: 'unit' }))
  return { contact, desk, lamp }
}

/** Fills a new invoice's or quotation's form: the customer, a desk (3, 10 % off, 20 % tax) and a lamp (2 at 40.00). */
async function fillDraft(page: Page, form: string, s: Awaited<ReturnType<typeof seedSales>>) {
  const f = page.getByRole('form', { name: form })
  await f.getByLabel('Find customer').fill('Acme')
  await expectSoon(async () => (await f.getByLabel('Customer', { exact: true }).locator('option').allInnerTexts()).length, 2)
  await f.getByLabel('Customer', { exact: true }).selectOption(s.contact.id)
  await expectSoon(async () => (await f.getByLabel('Product, line 1').locator('option').count()) >= 3, true)
  await f.getByLabel('Product, line 1').selectOption(s.desk.id)
  await f.getByLabel('Quantity, line 1').fill('3')
  await f.getByLabel('Discount percent, line 1').fill('10')
  await f.getByLabel('Tax percent, line 1').fill('20')
  await f.getByRole('button', { name: 'Add a line' }).click()
  await f.getByLabel('Product, line 2').selectOption(s.lamp.id)
  await f.getByLabel('Quantity, line 2').fill('2')
  await f.getByLabel('Unit price, line 2').fill('40.00')
  return f
}

// Desk: 3 x 649.00 less 10 % = 1,752.30, tax 20 % = 350.46; lamp: 2 x 40.00 = 80.00, no tax.
const PREVIEW = { lines: [['Oak standing desk', '3', '$649.00', '10 %', '20 %', '$1,752.30'], ['Desk lamp', '2', '$40.00', '—', '—', '$80.00']], totals: ['Subtotal', '$1,832.30', 'Tax', '$350.46', 'Total', '$2,182.76'] }

async function expectPreview(page: Page, what: string) {
  await page.getByRole('heading', { name: 'Preview' }).waitFor()
  await expectSoon(() => rows(page, `Preview of the ${what}'s lines`), PREVIEW.lines)
  assert.deepEqual((await page.locator('dl.preview-totals').locator('dt, dd').allInnerTexts()).map(text), PREVIEW.totals)
}

test('preview: a quotation and an invoice show the totals the API computes under Prefer: dry-run, nothing is created; then they are created', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const o = await createOrg(e.t.app, 'Contoso Furniture')
  const s = await seedSales(o)
  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  await signIn(page, o.adminEmail, o.password)

  // A quotation: Preview shows the API's totals; the list of quotations is unchanged.
  await page.goto('/quotations/new')
  const q = await fillDraft(page, 'New quotation', s)
  // What only the API refuses (a quantity above its maximum) is shown in its words, and nothing is created.
  await q.getByLabel('Quantity, line 1').fill('2000000000')
  await q.getByRole('button', { name: 'Preview' }).click()
  const refused = page.getByRole('alert').filter({ hasText: /quantity/i })
  await refused.waitFor()
  assert.doesNotMatch(await refused.innerText(), /VALIDATION_FAILED/, 'the error is a sentence, without its code')
  assert.equal(await total(o, '/sales/quotations'), 0)
  await q.getByLabel('Quantity, line 1').fill('3')
  await q.getByRole('button', { name: 'Preview' }).click()
  await expectPreview(page, 'quotation')
  assert.equal(await total(o, '/sales/quotations'), 0, 'the preview created no quotation')
  await expectAccessible(page, 'quotation, previewed')
  await shot(page, 'quotation-preview', 'fieldset.lines')
  await onPhone(page, 'quotation, previewed', 'quotation-preview', '.preview')
  // Any change drops the preview (it no longer says what would be created).
  await q.getByLabel('Quantity, line 2').fill('3')
  await page.getByRole('heading', { name: 'Preview' }).waitFor({ state: 'detached' })
  await q.getByLabel('Quantity, line 2').fill('2')
  await q.getByRole('button', { name: 'Create quotation' }).click()
  await page.getByTestId('quotation-status').waitFor()
  assert.equal(await total(o, '/sales/quotations'), 1)
  const [created] = (await ok(o.get('/sales/quotations?limit=1'), 200)).data
  assert.deepEqual([created.subtotal, created.taxAmount, created.total], [183230, 35046, 218276])

  // A draft invoice, from the invoice list: the same.
  await page.goto('/invoices')
  await page.getByRole('link', { name: 'New invoice' }).click()
  const inv = await fillDraft(page, 'New invoice', s)
  await inv.getByRole('button', { name: 'Preview' }).click()
  await expectPreview(page, 'invoice')
  assert.equal(await total(o, '/invoices'), 0, 'the preview created no invoice')
  await expectAccessible(page, 'invoice, previewed')
  await shot(page, 'invoice-preview', 'fieldset.lines')
  await inv.getByRole('button', { name: 'Create draft invoice' }).click()
  await page.getByTestId('invoice-status').filter({ hasText: 'draft' }).waitFor()
  const invoices = (await ok(o.get('/invoices?limit=10'), 200)).data
  assert.deepEqual(invoices.map((i: any) => [i.status, i.subtotal, i.taxAmount, i.total]), [['draft', 183230, 35046, 218276]])
  assert.deepEqual(e.errors, [])
  await page.close()
})
