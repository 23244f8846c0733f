// In Chromium: Inventory's adjustments, moves and locations (issue 29, item 4), and licenses issued
// by support to a customer picked by name (item 10). An admin creates a location and edits it,
// counts two locations with products picked by name (a count made against figures that moved since
// is refused in the API's words, nothing posted), reads each adjustment with its moves, filters the
// ledger in the address and deletes a location (one still in use refused); support issues a license
// to a customer found by name and sees the holder's name. Each step checked through HTTP with the
// figures computed by hand; axe-core on every state, the main pages at 390x844, the calls counted.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, rows, shot, signIn, SKIP_E2E, startE2E, text, type E2E } from '../helpers/browser.ts'
import { createLicensedProduct } from '../helpers/licenses.ts'

let e: E2E
let o: TestOrg
before(async () => {
  if (!SKIP_E2E) {
    e = await startE2E()
    o = await createOrg(e.t.app, 'Harbour Hardware')
  }
})
after(async () => await e?.close())

/** What `locationId` holds of the product, through HTTP. */
const held = async (productId: string, locationId: string) => (await ok<{ locationId: string; quantity: number }[]>(o.get(`/inventory/products/${productId}/stock`), 200)).find((s) => s.locationId === locationId)?.quantity ?? 0

/** Counts the page's calls to /api from now on. */
function counting(page: Page) {
  const calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}${url.search}`)
  })
  return calls
}

test('inventory: a location made and used, two counts with products picked by name, the moves filtered, a location deleted', { timeout: 240_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const widget = await ok(o.post('/products', { name: 'Wall anchor, 8 mm', sku: 'ANC-8', price: 120, currency: 'usd', type: 'storable', uom: 'unit' }))
  const gadget = await ok(o.post('/products', { name: 'Gate hinge', sku: 'HNG-1', price: 890, currency: 'usd', type: 'storable', uom: 'unit' }))
  await ok(o.post('/products', { name: 'Wall mounting service', price: 4500, currency: 'usd', type: 'service', uom: 'hour' }))
  // Received: 10 anchors and 5 hinges into Stock.
  const receipt = await ok(o.post('/inventory/transfers', { type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK', scheduledDate: new Date().toISOString(), moves: [{ productId: widget.id, demandQty: 10 }, { productId: gadget.id, demandQty: 5 }] }))
  await ok(o.post(`/inventory/transfers/${receipt.id}/validate`, {}), 200)
  const warehouseId = (await ok(o.get('/inventory/locations/LOC-STOCK'), 200)).warehouseId
  const bin = await ok(o.post('/inventory/locations', { code: 'BIN-Z', name: 'Returns bin', warehouseId }))

  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls = counting(page)
  await signIn(page, o.adminEmail, o.password)
  const nav = page.getByRole('navigation', { name: 'Main' })
  await nav.getByRole('link', { name: 'Inventory', exact: true }).click()
  const tabs = page.getByRole('navigation', { name: 'Inventory' })

  // Locations, A to Z; a new one in the warehouse picked by name; the same code again is refused in the API's words.
  await tabs.getByRole('link', { name: 'Locations' }).click()
  await expectSoon(async () => (await rows(page, 'Locations')).map((r) => r.slice(0, 4)), [
    ['Partners/Customers', 'CUSTOMER', 'customer', 'Warehouse of Returns bin, WH/Stock'],
    ['Partners/Vendors', 'SUPPLIER', 'supplier', 'Warehouse of Returns bin, WH/Stock'],
    ['Returns bin', 'BIN-Z', 'internal (stock)', 'Warehouse of Returns bin, WH/Stock'],
    ['Virtual/Inventory loss', 'LOSS', 'inventory loss', 'Warehouse of Returns bin, WH/Stock'],
    ['Virtual/Production', 'PRODUCTION', 'production', 'Warehouse of Returns bin, WH/Stock'],
    ['WH/Stock', 'STOCK', 'internal (stock)', 'Warehouse of Returns bin, WH/Stock'],
  ])
  await expectAccessible(page, 'locations')
  await onPhone(page, 'locations', 'inventory-locations')
  await page.getByRole('link', { name: 'New location' }).click()
  const newForm = page.getByRole('form', { name: 'New location' })
  await newForm.getByLabel('Code').fill('shelf-a')
  await newForm.getByLabel('Name').fill('Shelf A')
  await newForm.getByLabel('Warehouse').selectOption({ label: 'Warehouse of Returns bin, WH/Stock' })
  await expectAccessible(page, 'new location')
  await newForm.getByRole('button', { name: 'Create location' }).click()
  await page.getByRole('status').filter({ hasText: 'Shelf A created (LOC-SHELF-A).' }).waitFor()
  const shelf = await ok(o.get('/inventory/locations/LOC-SHELF-A'), 200)
  assert.deepEqual([shelf.name, shelf.type, shelf.warehouseId], ['Shelf A', 'internal', warehouseId])
  await page.getByRole('link', { name: 'New location' }).click()
  await newForm.getByLabel('Code').fill('SHELF-A')
  await newForm.getByRole('button', { name: 'Create location' }).click()
  await newForm.getByRole('alert').filter({ hasText: 'Location LOC-SHELF-A already exists.' }).waitFor()
  await expectAccessible(page, 'new location, refused')
  await tabs.getByRole('link', { name: 'Locations' }).click()
  await page.getByRole('link', { name: 'Shelf A', exact: true }).click()
  const editForm = page.getByRole('form', { name: 'Edit location' })
  await editForm.getByLabel('Name').fill('Shelf A (north)')
  await editForm.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('status').filter({ hasText: 'Changes saved.' }).waitFor()
  await page.getByRole('heading', { name: 'Shelf A (north)', level: 1 }).waitFor()
  assert.equal((await ok(o.get('/inventory/locations/LOC-SHELF-A'), 200)).name, 'Shelf A (north)')
  await expectAccessible(page, 'location, edited')

  // A count of Stock: anchors 10 -> 7 (-3), hinges 5 -> 8 (+3), the products found by name.
  await tabs.getByRole('link', { name: 'Adjustments' }).click()
  await page.getByText('No adjustments yet.').waitFor()
  await expectAccessible(page, 'adjustments, none yet')
  await page.getByRole('link', { name: 'New adjustment' }).first().click()
  const count = page.getByRole('form', { name: 'New adjustment' })
  await count.getByLabel('Location').selectOption({ label: 'WH/Stock (STOCK)' })
  await count.getByLabel('Reason').fill('Yearly count')
  const blocked = count.getByRole('status')
  await expectSoon(() => blocked.innerText(), 'Choose a product on every line.')
  await count.getByLabel('Find product, line 1').fill('anchor')
  await expectSoon(async () => await count.getByLabel('Product, line 1', { exact: true }).locator('option').allInnerTexts(), ['choose a product', 'Wall anchor, 8 mm (ANC-8)'])
  await count.getByLabel('Product, line 1', { exact: true }).selectOption({ label: 'Wall anchor, 8 mm (ANC-8)' })
  await expectSoon(() => blocked.innerText(), 'Type the quantity counted on every line (a number from 0, like 12 or 2.5).')
  await count.getByLabel('Counted, line 1').fill('7')
  await count.getByRole('button', { name: 'Add a product' }).click()
  // The service is not storable: not offered.
  await expectSoon(async () => await count.getByLabel('Product, line 2', { exact: true }).locator('option').allInnerTexts(), ['choose a product', 'Gate hinge (HNG-1)', 'Wall anchor, 8 mm (ANC-8)'])
  await count.getByLabel('Product, line 2', { exact: true }).selectOption({ label: 'Gate hinge (HNG-1)' })
  await count.getByLabel('Counted, line 2').fill('8')
  const line = (n: number) => count.getByRole('group', { name: `Line ${n}` })
  await expectSoon(async () => text(await line(1).locator('dl').innerText()), 'Held now 10 Difference −3')
  await expectSoon(async () => text(await line(2).locator('dl').innerText()), 'Held now 5 Difference +3')
  await expectSoon(() => blocked.innerText(), '')
  await expectAccessible(page, 'new adjustment, filled')
  await onPhone(page, 'new adjustment', 'inventory-adjustment-new')
  await count.getByRole('button', { name: 'Post adjustment' }).click()
  await page.getByRole('heading', { name: 'Adjustment WH/ADJ/00001', level: 1 }).waitFor()
  await page.getByRole('status').filter({ hasText: 'WH/ADJ/00001 posted: Wall anchor, 8 mm −3, Gate hinge +3.' }).waitFor()
  assert.deepEqual([await held(widget.id, 'LOC-STOCK'), await held(gadget.id, 'LOC-STOCK')], [7, 8])
  const adj1 = (await ok(o.get('/inventory/adjustments?limit=1'), 200)).data[0]
  assert.deepEqual([adj1.reference, adj1.locationId, adj1.reason, adj1.lines.map((l: any) => [l.productName, l.theoreticalQty, l.realQty, l.difference])], ['WH/ADJ/00001', 'LOC-STOCK', 'Yearly count', [['Wall anchor, 8 mm', 10, 7, -3], ['Gate hinge', 5, 8, 3]]])
  const moves1 = (await ok(o.get('/inventory/moves?reference=WH/ADJ/00001&sortBy=quantity&sortOrder=asc'), 200)).data
  assert.deepEqual(moves1.map((m: any) => [m.product.name, m.quantity, m.sourceLocationId, m.destinationLocationId, m.adjustmentId]).sort(), [
    ['Gate hinge', 3, 'LOC-LOSS', 'LOC-STOCK', adj1.id],
    ['Wall anchor, 8 mm', 3, 'LOC-STOCK', 'LOC-LOSS', adj1.id],
  ])
  await expectSoon(() => rows(page, 'Lines of WH/ADJ/00001'), [['Wall anchor, 8 mm', '10', '7', '−3'], ['Gate hinge', '5', '8', '+3']])
  await expectSoon(async () => (await rows(page, 'Moves of WH/ADJ/00001')).map((r) => r.slice(0, 5)).sort(), [
    ['WH/ADJ/00001', 'Gate hinge', '3', 'Virtual/Inventory loss', 'WH/Stock'],
    ['WH/ADJ/00001', 'Wall anchor, 8 mm', '3', 'WH/Stock', 'Virtual/Inventory loss'],
  ])
  await expectAccessible(page, 'adjustment')
  await shot(page, 'inventory-adjustment')
  await onPhone(page, 'adjustment', 'inventory-adjustment')

  // The new location used: a count of Shelf A made while 1 anchor moves there is refused, nothing posted.
  await page.getByRole('link', { name: 'New adjustment' }).click()
  await count.getByLabel('Location').selectOption({ label: 'Shelf A (north) (SHELF-A)' })
  await count.getByLabel('Product, line 1', { exact: true }).selectOption({ label: 'Wall anchor, 8 mm (ANC-8)' })
  await count.getByLabel('Counted, line 1').fill('4')
  await expectSoon(async () => text(await line(1).locator('dl').innerText()), 'Held now 0 Difference +4')
  const internal = await ok(o.post('/inventory/transfers', { type: 'internal', sourceLocationId: 'LOC-STOCK', destinationLocationId: 'LOC-SHELF-A', scheduledDate: new Date().toISOString(), moves: [{ productId: widget.id, demandQty: 1 }] }))
  const moved = await ok(o.post(`/inventory/transfers/${internal.id}/validate`, {}), 200)
  await count.getByRole('button', { name: 'Post adjustment' }).click()
  await count.getByRole('alert').filter({ hasText: 'Nothing was posted: the stock of Shelf A (north) moved while you counted (Wall anchor, 8 mm: 1 now, not 0). The figures held now are shown again: check the counts, then post.' }).waitFor()
  assert.doesNotMatch(await count.getByRole('alert').innerText(), /VALIDATION_FAILED|422|theoreticalQty/)
  assert.equal((await ok(o.get('/inventory/adjustments?limit=1'), 200)).meta.total, 1)
  assert.equal(await held(widget.id, 'LOC-SHELF-A'), 1)
  await expectAccessible(page, 'new adjustment, refused')
  // The page reads what the shelf holds now; the count of 4 stands and posts the difference to it.
  await expectSoon(async () => text(await line(1).locator('dl').innerText()), 'Held now 1 Difference +3')
  await count.getByRole('button', { name: 'Post adjustment' }).click()
  await page.getByRole('heading', { name: 'Adjustment WH/ADJ/00002', level: 1 }).waitFor()
  // Anchors: Stock 10 - 3 - 1 = 6, Shelf A 1 + 3 = 4, on hand 10; hinges 8.
  assert.deepEqual([await held(widget.id, 'LOC-STOCK'), await held(widget.id, 'LOC-SHELF-A')], [6, 4])
  const stock = (await ok(o.get('/inventory/products?limit=100'), 200)).data
  assert.deepEqual(stock.map((p: any) => [p.productName, p.onHand]).sort(), [['Gate hinge', 8], ['Wall anchor, 8 mm', 10]])
  await expectSoon(async () => (await rows(page, 'Moves of WH/ADJ/00002')).map((r) => r.slice(0, 5)), [['WH/ADJ/00002', 'Wall anchor, 8 mm', '3', 'Virtual/Inventory loss', 'Shelf A (north)']])

  // The adjustments, filtered by location.
  await tabs.getByRole('link', { name: 'Adjustments' }).click()
  await expectSoon(async () => (await rows(page, 'Inventory adjustments')).map((r) => [r[0], r[2], r[3], r[4]]), [
    ['WH/ADJ/00002', 'Shelf A (north)', 'Wall anchor, 8 mm +3', '—'],
    ['WH/ADJ/00001', 'WH/Stock', 'Wall anchor, 8 mm −3, Gate hinge +3', 'Yearly count'],
  ])
  await page.getByLabel('Location').selectOption({ label: 'WH/Stock (STOCK)' })
  await expectSoon(async () => (await rows(page, 'Inventory adjustments')).map((r) => r[0]), ['WH/ADJ/00001'])
  assert.match(page.url(), /\/inventory\/adjustments\?location=LOC-STOCK$/)
  await expectAccessible(page, 'adjustments')
  await onPhone(page, 'adjustments', 'inventory-adjustments')

  // The ledger, filtered in the address: by product (picked by name), location, reference and date.
  await tabs.getByRole('link', { name: 'Moves' }).click()
  await expectSoon(async () => (await rows(page, 'Stock moves')).length, 6)
  await page.getByLabel('Find product').fill('anchor')
  await expectSoon(async () => await page.getByLabel('Product', { exact: true }).locator('option').allInnerTexts(), ['all products', 'Wall anchor, 8 mm (ANC-8)'])
  await page.getByLabel('Product', { exact: true }).selectOption({ label: 'Wall anchor, 8 mm (ANC-8)' })
  await page.getByLabel('Location').selectOption({ label: 'Shelf A (north) (SHELF-A)' })
  await expectSoon(async () => (await rows(page, 'Stock moves')).map((r) => r.slice(1)), [
    ['WH/ADJ/00002', 'Wall anchor, 8 mm', '3', 'Virtual/Inventory loss', 'Shelf A (north)'],
    [moved.reference, 'Wall anchor, 8 mm', '1', 'WH/Stock', 'Shelf A (north)'],
  ])
  assert.equal(new URL(page.url()).search, `?product=${widget.id}&location=LOC-SHELF-A`)
  await expectAccessible(page, 'moves, by product and location')
  // A shared link of the same filters shows the same list, the product by name.
  await page.goto(`/inventory/moves?product=${widget.id}&location=LOC-SHELF-A`)
  await expectSoon(async () => (await rows(page, 'Stock moves')).length, 2)
  await expectSoon(async () => await page.getByLabel('Product', { exact: true }).evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.text), 'Wall anchor, 8 mm (ANC-8)')
  await page.getByLabel('Location').selectOption('')
  await page.getByLabel('Product', { exact: true }).selectOption('')
  await page.getByLabel('Reference').fill('wh/adj/00001')
  await expectSoon(async () => (await rows(page, 'Stock moves')).map((r) => [r[1], r[2], r[3]]).sort(), [['WH/ADJ/00001', 'Gate hinge', '3'], ['WH/ADJ/00001', 'Wall anchor, 8 mm', '3']])
  const tomorrow = new Date(Date.now() + 86400_000).toISOString().slice(0, 10)
  await page.getByLabel('Done from').fill(tomorrow)
  await page.getByText('No move matches these filters.').waitFor()
  assert.equal((await ok(o.get(`/inventory/moves?from=${tomorrow}`), 200)).meta.total, 0)
  await expectAccessible(page, 'moves, none match')
  await page.getByLabel('Done from').fill('')
  await page.getByLabel('Reference').fill('')
  await expectSoon(async () => (await rows(page, 'Stock moves')).length, 6)
  await shot(page, 'inventory-moves')
  await onPhone(page, 'moves', 'inventory-moves')

  // A location deleted from the list; one with moves is refused in the API's words and stays.
  await tabs.getByRole('link', { name: 'Locations' }).click()
  await page.getByRole('button', { name: `Delete ${bin.name}` }).click()
  await page.getByRole('status').filter({ hasText: 'Returns bin deleted.' }).waitFor()
  assert.equal((await o.get(`/inventory/locations/${bin.id}`)).status, 404)
  await page.getByRole('button', { name: 'Delete Shelf A (north)' }).click()
  const refusal = page.getByRole('alert')
  await refusal.waitFor()
  assert.doesNotMatch(await refusal.innerText(), /CONFLICT|409/)
  assert.equal((await o.get('/inventory/locations/LOC-SHELF-A')).status, 200)
  await expectAccessible(page, 'locations, a delete refused')

  assert.ok(calls.length <= 90, `${calls.length} calls to the API:\n${calls.join('\n')}`)
  t.diagnostic(`${calls.length} calls to the API in the walk-through`)
  assert.deepEqual(e.errors, [])
  await page.close()
})

test('licenses: support issues a license to a customer picked by name and sees the holder by name', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const product = await createLicensedProduct(o, { name: 'Harbour ERP connector' })
  const user = async (name: string, email: string, role: string) => ok(o.post('/users', { name, email, password: 'long enough password', role }))
  const wanda = await user('Wanda Whitlock', 'wanda@whitlock.example', 'customer')
  await user('Walter Wynne', 'walter@wynne.example', 'customer')
  const mel = await user('Wally Member', 'wally@harbour.example', 'member')
  await user('Sam Support', 'sam@harbour.example', 'support')
  // A license an admin issued to a staff account: support does not see that account's details.
  const staffLicense = await ok(o.post('/admin/licenses', { productId: product.id, userId: mel.id }))

  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls = counting(page)
  await signIn(page, 'sam@harbour.example', 'long enough password')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Licenses (admin)' }).click()
  await page.getByRole('heading', { name: 'Licenses (admin)', level: 1 }).waitFor()
  const list = page.getByRole('table', { name: 'Licenses of the organization' })
  await list.getByRole('cell', { name: staffLicense.key, exact: true }).waitFor()
  assert.match(text(await list.locator('tbody tr').first().innerText()), /A staff account/)
  assert.doesNotMatch(await list.innerText(), /wally@harbour\.example|Wally Member/)
  const form = page.getByRole('form', { name: 'Issue a license' })
  await form.getByLabel('Product').selectOption({ label: 'Harbour ERP connector (ERP 19.0)' })
  await form.getByLabel('Find a customer').fill('wa')
  // Customers only, by name, A to Z; the member named Wally is not offered.
  await expectSoon(async () => await form.getByLabel('Holder').locator('option').allInnerTexts(), ['Choose a customer', 'Walter Wynne (walter@wynne.example)', 'Wanda Whitlock (wanda@whitlock.example)'])
  await form.getByLabel('Holder').selectOption({ label: 'Wanda Whitlock (wanda@whitlock.example)' })
  await expectAccessible(page, 'licenses (admin) as support, holder picked')
  await form.getByRole('button', { name: 'Issue license' }).click()
  await page.getByText(/^Issued license/).waitFor()
  const [issued] = (await ok(o.get(`/admin/licenses?userId=${wanda.id}`), 200)).data
  assert.deepEqual([issued.productId, issued.userId, issued.holder], [product.id, wanda.id, { id: wanda.id, name: 'Wanda Whitlock', email: 'wanda@whitlock.example' }])
  assert.equal(text(await page.getByText(/^Issued license/).innerText()), `Issued license ${issued.key} for Harbour ERP connector to Wanda Whitlock (wanda@whitlock.example).`)
  const row = list.locator('tbody tr').filter({ hasText: issued.key })
  await expectSoon(async () => text(await row.getByRole('cell').nth(2).innerText()), 'Wanda Whitlock wanda@whitlock.example')
  assert.doesNotMatch(await row.innerText(), new RegExp(wanda.id.slice(0, 8)))
  await expectAccessible(page, 'licenses (admin) as support, issued')
  // The holder filter names customers too.
  await page.getByLabel('Holder', { exact: true }).last().selectOption({ label: 'Wanda Whitlock' })
  await expectSoon(async () => (await list.locator('tbody tr').count()), 1)
  assert.match(page.url(), new RegExp(`userId=${wanda.id}`))
  await shot(page, 'licenses-admin-support')
  await onPhone(page, 'licenses (admin) as support', 'licenses-admin-support')
  assert.ok(calls.length <= 20, `${calls.length} calls to the API:\n${calls.join('\n')}`)
  t.diagnostic(`${calls.length} calls to the API as support`)
  assert.deepEqual(e.errors, [])
  await page.close()
})
