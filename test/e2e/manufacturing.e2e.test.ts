// In Chromium: the manufacturing pages (issue 29, item 4: from BOM to finished
// goods without the API). An admin writes a BOM with its product and storable
// components picked by name (a component that is the BOM's own product refused
// in the form), reads its cost as money, edits it; plans a production order
// too big for the stock (the API's refusal said, nothing reserved, then closed:
// cancelled), then one that fits: checks the stock, confirms it, runs its work
// orders, produces part of it (more than is open refused), and closes it. Each
// step checked through HTTP: the finished goods on hand, the components
// consumed and nothing left reserved, figures computed by hand. A BOM in use
// cannot be deleted (the API's 409 said), then is. axe-core on every state, the
// main pages at 390x844, the calls to the API counted.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createOrg, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, needsBrowser, ok, onPhone, rows, shot, signIn, SKIP_E2E, startE2E, type E2E } from '../helpers/browser.ts'
import { stockUp } from '../helpers/manufacturing.ts'

let e: E2E
let o: TestOrg
before(async () => {
  if (!SKIP_E2E) {
    e = await startE2E()
    o = await createOrg(e.t.app, 'Birch and Steel Works')
  }
})
after(async () => await e?.close())

const said = (page: Page, words: string) => page.getByRole('status').filter({ hasText: words }).first().waitFor()

test('manufacturing: an admin goes from BOM to finished goods in the pages: cost, confirm, work orders, partial produce, close', { timeout: 240_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const product = (name: string, sku: string, extra: Record<string, unknown> = {}) => ok(o.post('/products', { name, sku, price: 10000, currency: 'usd', type: 'storable', uom: 'unit', ...extra }))
  const desk = await product('Oak desk', 'DSK-OAK', { price: 64900 })
  const top = await product('Oak top', 'TOP-OAK', { cost: 12000 })
  const leg = await product('Steel leg', 'LEG-STL', { cost: 1550 })
  const screws = await product('Screw pack', 'SCR-PK')
  await product('Assembly service', 'SRV-ASM', { type: 'service', uom: 'hour' })
  await stockUp(o, top.id, 5)
  await stockUp(o, leg.id, 20)
  await stockUp(o, screws.id, 10)
  const onHand = async (id: string) => (await ok<{ locationId: string; quantity: number }[]>(o.get(`/inventory/products/${id}/stock`), 200)).find((s) => s.locationId === 'LOC-STOCK')?.quantity ?? 0
  const reserved = async (name: string) => (await ok(o.get(`/inventory/products?search=${encodeURIComponent(name)}`), 200)).data.find((p: any) => p.productName === name)?.reserved

  const page = await e.page()
  await page.setViewportSize({ width: 1440, height: 900 })
  const calls: string[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) calls.push(`${r.method()} ${url.pathname}`)
  })
  await signIn(page, o.adminEmail, o.password)
  const nav = page.getByRole('navigation', { name: 'Main' })

  // No BOM yet: the empty list says how to make one.
  await nav.getByRole('link', { name: 'Bills of materials' }).click()
  await page.getByRole('heading', { name: 'Bills of materials', level: 1 }).waitFor()
  await page.getByText('No BOMs yet.').waitFor()
  await expectAccessible(page, 'BOMs, empty')

  // A new BOM: the product found by name, storable components only (the service is not offered).
  await page.getByRole('link', { name: 'New BOM' }).click()
  const form = page.getByRole('form', { name: 'New BOM' })
  await form.getByLabel('Name', { exact: true }).fill('Oak desk, standard')
  await form.getByLabel('Find the product').fill('oak desk')
  await expectSoon(async () => await form.getByLabel('Product', { exact: true }).locator('option').allInnerTexts(), ['choose a product', 'Oak desk (DSK-OAK)'])
  await form.getByLabel('Product', { exact: true }).selectOption({ label: 'Oak desk (DSK-OAK)' })
  await form.getByRole('button', { name: 'Add a component' }).click()
  await expectSoon(async () => await form.getByLabel('Component 1', { exact: true }).locator('option').allInnerTexts(), ['choose a product', 'Oak desk (DSK-OAK)', 'Oak top (TOP-OAK)', 'Screw pack (SCR-PK)', 'Steel leg (LEG-STL)'])
  // The BOM's own product as its component: said in the form, nothing sent.
  await form.getByLabel('Component 1', { exact: true }).selectOption({ label: 'Oak desk (DSK-OAK)' })
  await form.getByRole('button', { name: 'Create BOM' }).click()
  await form.getByRole('alert').filter({ hasText: 'Component 1: Oak desk is the product the BOM makes; a product cannot be made from itself.' }).waitFor()
  assert.equal((await ok(o.get('/manufacturing/boms'), 200)).meta.total, 0)
  await expectAccessible(page, 'new BOM, refused')
  await form.getByLabel('Component 1', { exact: true }).selectOption({ label: 'Oak top (TOP-OAK)' })
  await form.getByRole('button', { name: 'Add a component' }).click()
  await form.getByLabel('Component 2', { exact: true }).selectOption({ label: 'Steel leg (LEG-STL)' })
  await form.getByLabel('Quantity, component 2').fill('3')
  await form.getByRole('button', { name: 'Add a component' }).click()
  await form.getByLabel('Component 3', { exact: true }).selectOption({ label: 'Screw pack (SCR-PK)' })
  await form.getByLabel('Unit, component 3').fill('pack')
  await form.getByRole('button', { name: 'Add an operation' }).click()
  await form.getByLabel('Operation 1', { exact: true }).fill('Cut')
  await form.getByLabel('Work centre, operation 1').fill('Saw 1')
  await form.getByLabel('Minutes, operation 1').fill('20')
  await form.getByRole('button', { name: 'Add an operation' }).click()
  await form.getByLabel('Operation 2', { exact: true }).fill('Assemble')
  await form.getByLabel('Work centre, operation 2').fill('Bench 1')
  await form.getByLabel('Minutes, operation 2').fill('45')
  await expectAccessible(page, 'new BOM, filled in')
  await onPhone(page, 'new BOM', 'manufacturing-bom-new')
  await form.getByRole('button', { name: 'Create BOM' }).click()
  await page.getByRole('status').filter({ hasText: 'Oak desk, standard created.' }).waitFor()
  const [bom] = (await ok(o.get('/manufacturing/boms'), 200)).data
  assert.deepEqual(
    [bom.name, bom.product.id, bom.quantity, bom.uom, bom.type, bom.components.map((c: any) => [c.name, c.quantity, c.uom]), bom.operations],
    ['Oak desk, standard', desk.id, 1, 'unit', 'manufacture', [['Oak top', 1, 'unit'], ['Steel leg', 3, 'unit'], ['Screw pack', 1, 'pack']], [{ name: 'Cut', workcenter: 'Saw 1', durationMinutes: 20 }, { name: 'Assemble', workcenter: 'Bench 1', durationMinutes: 45 }]],
  )
  await expectSoon(async () => await rows(page, 'Bills of materials'), [['Oak desk, standard', 'Oak desk', '1 unit', 'manufacture', '3', '2', 'Delete Oak desk, standard']])
  await expectAccessible(page, 'BOMs')
  await shot(page, 'manufacturing-boms')
  await onPhone(page, 'BOMs', 'manufacturing-boms')

  // The BOM's cost as money: 1 x $120.00 + 3 x $15.50 + the screws without a cost = $166.50.
  let before = calls.length
  await page.getByRole('link', { name: 'Oak desk, standard' }).click()
  await page.getByRole('heading', { name: 'Oak desk, standard', level: 1 }).waitFor()
  await expectSoon(() => page.getByTestId('bom-total').innerText(), '$166.50')
  // The BOM, its cost, its product's currency, and the two product searches of the form.
  await expectSoon(async () => (await rows(page, 'Cost of Oak desk, standard')).length, 3)
  assert.ok(calls.length - before <= 5, `the BOM's page: ${calls.slice(before).join(', ')}`)
  assert.equal(await page.getByTestId('bom-unit-cost').innerText(), '$166.50')
  await expectSoon(() => rows(page, 'Cost of Oak desk, standard'), [['Oak top', '1', '$120.00', '$120.00'], ['Steel leg', '3', '$15.50', '$46.50'], ['Screw pack', '1', 'no cost', '$0.00']])
  await page.getByText('No cost on Screw pack: counted as $0.00.').waitFor()
  await expectAccessible(page, 'BOM with its cost')
  // Edited: four legs, and the cost follows: $120.00 + 4 x $15.50 = $182.00.
  const edit = page.getByRole('form', { name: 'Edit BOM' })
  assert.equal(await edit.getByLabel('Quantity, component 2').inputValue(), '3')
  await edit.getByLabel('Quantity, component 2').fill('4')
  await edit.getByRole('button', { name: 'Save changes' }).click()
  await page.getByText('Changes saved.').waitFor()
  await expectSoon(() => page.getByTestId('bom-total').innerText(), '$182.00')
  const cost = await ok(o.get(`/manufacturing/boms/${bom.id}/cost`), 200)
  assert.deepEqual([cost.total, cost.unitCost, cost.missingCosts], [12000 + 4 * 1550, 18200, [screws.id]])
  await expectAccessible(page, 'BOM, edited')
  await shot(page, 'manufacturing-bom')
  await onPhone(page, 'BOM', 'manufacturing-bom')

  // An order of 6 desks from the BOM's page: the stock (5 tops) falls short, said by Check stock and by Confirm; nothing is reserved.
  await page.getByRole('link', { name: 'New production order' }).click()
  const newOrder = page.getByRole('form', { name: 'New production order' })
  await expectSoon(() => newOrder.getByLabel('Product', { exact: true }).inputValue(), desk.id)
  await expectSoon(() => newOrder.getByLabel('Bill of materials').inputValue(), bom.id)
  await newOrder.getByLabel('Quantity').fill('6')
  await newOrder.getByRole('button', { name: 'Create order' }).click()
  const status = page.getByTestId('mo-status')
  await status.waitFor()
  const big = (await ok(o.get('/manufacturing/orders?limit=1'), 200)).data[0]
  assert.deepEqual([big.status, big.quantity, big.bomId, big.components.map((c: any) => [c.name, c.quantity])], ['draft', 6, bom.id, [['Oak top', 6], ['Steel leg', 24], ['Screw pack', 6]]])
  await page.getByText(`Production order ${big.reference} created: 6 × Oak desk.`).waitFor()
  await page.getByRole('button', { name: 'Check stock' }).click()
  await page.getByRole('alert').filter({ hasText: 'Insufficient stock for Oak top, Steel leg.' }).waitFor()
  await page.getByRole('button', { name: 'Confirm', exact: true }).click()
  await page.getByRole('alert').filter({ hasText: 'Insufficient stock for Oak top, Steel leg.' }).nth(1).waitFor()
  assert.equal((await ok(o.get(`/manufacturing/orders/${big.id}`), 200)).status, 'draft')
  assert.deepEqual([await reserved('Oak top'), await reserved('Steel leg')], [0, 0])
  await expectAccessible(page, 'production order, short of stock')
  await page.getByRole('button', { name: 'Close order' }).click()
  await said(page, `${big.reference} closed: cancelled, nothing was made.`)
  await expectSoon(() => status.innerText(), 'cancelled')
  assert.equal((await ok(o.get(`/manufacturing/orders/${big.id}`), 200)).status, 'cancelled')
  assert.equal(await page.getByRole('button', { name: 'Close order' }).count(), 0)

  // An order of 3 from the Production page: the product found by name, its BOM offered.
  await nav.getByRole('link', { name: 'Production', exact: true }).click()
  await page.getByRole('heading', { name: 'Production', level: 1 }).waitFor()
  await page.getByRole('link', { name: 'New production order' }).click()
  await newOrder.getByLabel('Find the product').fill('desk')
  await expectSoon(async () => await newOrder.getByLabel('Product', { exact: true }).locator('option').allInnerTexts(), ['choose a product', 'Oak desk (DSK-OAK)'])
  await newOrder.getByLabel('Product', { exact: true }).selectOption({ label: 'Oak desk (DSK-OAK)' })
  await expectSoon(async () => await newOrder.getByLabel('Bill of materials').locator('option').allInnerTexts(), ["the product's first BOM", 'Oak desk, standard (makes 1 unit)'])
  await newOrder.getByLabel('Quantity').fill('3')
  await expectAccessible(page, 'new production order')
  await onPhone(page, 'new production order', 'manufacturing-order-new')
  await newOrder.getByRole('button', { name: 'Create order' }).click()
  await status.waitFor()
  const mo = (await ok(o.get('/manufacturing/orders?limit=1'), 200)).data[0]
  assert.notEqual(mo.id, big.id)
  await page.getByRole('heading', { name: `Production order ${mo.reference}`, level: 1 }).waitFor()
  await page.getByRole('button', { name: 'Check stock' }).click()
  await page.getByText('The stock covers every component: the order can be confirmed.').waitFor()
  assert.equal((await ok(o.get(`/manufacturing/orders/${mo.id}`), 200)).status, 'draft')
  assert.equal(await reserved('Oak top'), 0)
  await expectSoon(() => rows(page, `Work orders of ${mo.reference}`), [['Cut', 'Saw 1', '20 min', 'to do', '—', '—'], ['Assemble', 'Bench 1', '45 min', 'to do', '—', '—']])
  await expectAccessible(page, 'production order, draft')

  // Confirmed: every need reserved (3 tops, 12 legs, 3 screw packs).
  await page.getByRole('button', { name: 'Confirm', exact: true }).click()
  await said(page, `Confirmed: the components of ${mo.reference} are reserved.`)
  await expectSoon(() => status.innerText(), 'confirmed')
  assert.equal(await page.getByText('The stock covers every component').count(), 0)
  await expectSoon(async () => await rows(page, `Components of ${mo.reference}`), [['Oak top', '3', '0', '3'], ['Steel leg', '12', '0', '12'], ['Screw pack', '3', '0', '3']])
  assert.deepEqual([await reserved('Oak top'), await reserved('Steel leg'), await reserved('Screw pack')], [3, 12, 3])
  await expectAccessible(page, 'production order, confirmed')

  // Work orders: Cut started (the order is in progress) and done, Assemble started.
  await page.getByRole('button', { name: 'Start Cut' }).click()
  await said(page, 'Cut started at Saw 1.')
  await expectSoon(() => status.innerText(), 'in progress')
  await page.getByRole('button', { name: 'Done Cut' }).click()
  await said(page, 'Cut done.')
  await page.getByRole('button', { name: 'Start Assemble' }).click()
  await said(page, 'Assemble started at Bench 1.')
  await expectSoon(async () => (await rows(page, `Work orders of ${mo.reference}`)).map((r) => [r[0], r[3], r[5]]), [['Cut', 'done', '—'], ['Assemble', 'in progress', 'Done Assemble']])
  assert.deepEqual((await ok(o.get(`/manufacturing/orders/${mo.id}/work-orders`), 200)).data.map((w: any) => w.status), ['done', 'in_progress'])
  await expectAccessible(page, 'production order, work orders')

  // Produce: more than is open is the API's 422 in its words; then 2 of the 3, with a lot.
  const produce = page.getByRole('form', { name: 'Produce' })
  assert.equal(await produce.getByLabel('Quantity to produce').inputValue(), '3')
  await produce.getByLabel('Quantity to produce').fill('5')
  await produce.getByRole('button', { name: 'Produce' }).click()
  await produce.getByRole('alert').filter({ hasText: `qty 5 exceeds the open quantity 3 of ${mo.reference}` }).waitFor()
  assert.equal((await ok(o.get(`/manufacturing/orders/${mo.id}`), 200)).producedQty, 0)
  await expectAccessible(page, 'production order, produce refused')
  await produce.getByLabel('Quantity to produce').fill('2')
  await produce.getByLabel('Lot number').fill('LOT-0001')
  await produce.getByRole('button', { name: 'Produce' }).click()
  await said(page, 'Produced 2 × Oak desk; 1 still to make.')
  await expectSoon(() => page.getByTestId('mo-produced').innerText(), '2 of 3')
  await expectSoon(async () => await rows(page, `Components of ${mo.reference}`), [['Oak top', '3', '2', '1'], ['Steel leg', '12', '8', '4'], ['Screw pack', '3', '2', '1']])
  await expectSoon(async () => (await rows(page, `Production of ${mo.reference}`)).map((r) => r.slice(1, 3)), [['2 unit', 'LOT-0001']])
  assert.equal(await produce.getByLabel('Quantity to produce').inputValue(), '1')
  await expectAccessible(page, 'production order, partly produced')
  await shot(page, 'manufacturing-order')
  await onPhone(page, 'production order', 'manufacturing-order')

  // Closed with 2 of 3 made: done, the rest of the reservation released.
  await page.getByRole('button', { name: 'Close order' }).click()
  await said(page, `${mo.reference} closed: done, 2 of 3 made.`)
  await expectSoon(() => status.innerText(), 'done')
  assert.equal(await page.getByRole('form', { name: 'Produce' }).count(), 0)
  const done = await ok(o.get(`/manufacturing/orders/${mo.id}`), 200)
  assert.deepEqual([done.status, done.producedQty, done.productions.map((p: any) => [p.quantity, p.lotNumber]), done.components.map((c: any) => c.consumedQty)], ['done', 2, [[2, 'LOT-0001']], [2, 8, 2]])
  // By hand: 2 desks made; 5 - 2 tops, 20 - 2 x 4 legs, 10 - 2 screw packs left; nothing reserved any more.
  assert.deepEqual([await onHand(desk.id), await onHand(top.id), await onHand(leg.id), await onHand(screws.id)], [2, 3, 12, 8])
  assert.deepEqual([await reserved('Oak top'), await reserved('Steel leg'), await reserved('Screw pack'), await reserved('Oak desk')], [0, 0, 0, 0])
  await expectAccessible(page, 'production order, done')

  // The list: newest first, filtered by status in the address.
  await nav.getByRole('link', { name: 'Production', exact: true }).click()
  await expectSoon(async () => (await rows(page, 'Production orders')).map((r) => [r[0], r[1], r[2], r[3], r[5]]), [
    [mo.reference, 'Oak desk', '3 unit', '2', 'done'],
    [big.reference, 'Oak desk', '6 unit', '0', 'cancelled'],
  ])
  await page.getByLabel('Status').selectOption('done')
  await expectSoon(async () => (await rows(page, 'Production orders')).map((r) => r[0]), [mo.reference])
  assert.match(page.url(), /\/manufacturing\/orders\?status=done$/)
  await page.getByLabel('Status').selectOption('in_progress')
  await page.getByText('No production order matches these filters.').waitFor()
  await expectAccessible(page, 'production orders, filtered')
  await page.getByLabel('Status').selectOption('')
  await expectSoon(async () => (await rows(page, 'Production orders')).length, 2)
  await shot(page, 'manufacturing-orders')
  await onPhone(page, 'production orders', 'manufacturing-orders')
  // An order's page: the order and its work orders (and the component transfer while one is open).
  before = calls.length
  await page.getByRole('link', { name: mo.reference }).click()
  await expectSoon(async () => (await rows(page, `Work orders of ${mo.reference}`)).length, 2)
  assert.equal(await status.innerText(), 'done')
  assert.ok(calls.length - before <= 3, `the order's page: ${calls.slice(before).join(', ')}`)

  // A BOM an open order uses cannot be deleted (the API's 409 in its words); once that order is closed, it can.
  const open = await ok(o.post('/manufacturing/orders', { productId: desk.id, bomId: bom.id, quantity: 1 }))
  await nav.getByRole('link', { name: 'Bills of materials' }).click()
  await page.getByRole('button', { name: 'Delete Oak desk, standard' }).click()
  await page.getByRole('alert').filter({ hasText: 'BOM is used by a production order that is not done or cancelled.' }).waitFor()
  assert.equal((await o.get(`/manufacturing/boms/${bom.id}`)).status, 200)
  await expectAccessible(page, 'BOMs, delete refused')
  await ok(o.post(`/manufacturing/orders/${open.id}/close`), 200)
  await page.getByRole('button', { name: 'Delete Oak desk, standard' }).click()
  await page.getByRole('status').filter({ hasText: 'Oak desk, standard deleted.' }).waitFor()
  assert.equal((await o.get(`/manufacturing/boms/${bom.id}`)).status, 404)
  assert.equal((await ok(o.get(`/manufacturing/orders/${mo.id}`), 200)).bomId, null)
  await page.getByText('No BOMs yet.').waitFor()

  assert.ok(calls.length <= 95, `${calls.length} calls to the API:\n${calls.join('\n')}`)
  t.diagnostic(`${calls.length} calls to the API in the walk-through`)
  assert.deepEqual(e.errors, [])
  await page.close()
})
