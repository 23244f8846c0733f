import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { expectListQueryRules, expectPage, expectSortable, afterTimestamp } from '../../../test/helpers/lists.ts'
import { createBom, createItem } from '../../../test/helpers/manufacturing.ts'
import { createProduct } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const UNKNOWN = '00000000-0000-4000-8000-000000000000'

describe('BOMs', () => {
  test('POST /manufacturing/boms: 201 with product and component names, defaults; GET returns the same', async () => {
    const product = await createItem(org, { name: 'Table', uom: 'unit' })
    const leg = await createItem(org, { name: 'Leg', uom: 'unit' })
    const top = await createItem(org, { name: 'Top', uom: 'unit' })
    const glue = await createItem(org, { name: 'Glue', uom: 'ml' })
    const bom = expectStatus(await org.post('/manufacturing/boms', {
      name: 'Table BOM',
      productId: product.id,
      components: [{ productId: leg.id, quantity: 4 }, { productId: top.id, quantity: 1, uom: 'piece' }, { productId: glue.id, quantity: 12.5 }],
      operations: [{ name: 'Cut', workcenter: 'Saw', durationMinutes: 10 }, { name: 'Assemble', workcenter: 'Bench', durationMinutes: 25.5 }],
    }), 201)
    assert.deepEqual(
      { name: bom.name, product: bom.product, quantity: bom.quantity, uom: bom.uom, type: bom.type, organizationId: bom.organizationId },
      { name: 'Table BOM', product: { id: product.id, name: 'Table' }, quantity: 1, uom: 'unit', type: 'manufacture', organizationId: org.id },
    )
    assert.deepEqual(bom.components, [
      { productId: leg.id, name: 'Leg', quantity: 4, uom: 'unit' },
      { productId: top.id, name: 'Top', quantity: 1, uom: 'piece' },
      { productId: glue.id, name: 'Glue', quantity: 12.5, uom: 'ml' },
    ])
    assert.deepEqual(bom.operations, [{ name: 'Cut', workcenter: 'Saw', durationMinutes: 10 }, { name: 'Assemble', workcenter: 'Bench', durationMinutes: 25.5 }])
    assert.deepEqual(expectStatus(await org.get(`/manufacturing/boms/${bom.id}`), 200), bom)
    // Explicit type, quantity and uom; no components or operations.
    const kit = expectStatus(await org.post('/manufacturing/boms', { name: 'Kit', productId: product.id, type: 'subcontract', quantity: 10, uom: 'box' }), 201)
    assert.deepEqual([kit.type, kit.quantity, kit.uom, kit.components, kit.operations], ['subcontract', 10, 'box', [], []])
    // A renamed product shows its new name.
    expectStatus(await org.patch(`/products/${leg.id}`, { name: 'Table leg' }), 200)
    assert.equal(expectStatus(await org.get(`/manufacturing/boms/${bom.id}`), 200).components[0].name, 'Table leg')
  })

  test('422 for a bad body or unknown products; 404 for an unknown BOM', async () => {
    const p = await createItem(org)
    const c = await createItem(org)
    const cases: Array<[unknown, string]> = [
      [{ productId: p.id }, 'name'],
      [{ name: '', productId: p.id }, 'name'],
      [{ name: 'X' }, 'productId'],
      [{ name: 'X', productId: p.id, type: 'kit' }, 'type'],
      [{ name: 'X', productId: p.id, quantity: 0 }, 'quantity'],
      [{ name: 'X', productId: p.id, components: [{ productId: c.id, quantity: -1 }] }, 'quantity'],
      [{ name: 'X', productId: p.id, components: [{ productId: c.id }] }, 'quantity'],
      [{ name: 'X', productId: p.id, operations: [{ name: 'Op', workcenter: 'W' }] }, 'durationMinutes'],
      [{ name: 'X', productId: p.id, organizationId: org.id }, 'organizationId is not allowed'],
      [{ name: 'X', productId: UNKNOWN }, 'productId does not name a product of this organization'],
      [{ name: 'X', productId: p.id, components: [{ productId: UNKNOWN, quantity: 1 }] }, 'components[0].productId does not name a product of this organization'],
      [{ name: 'X', productId: p.id, components: [{ productId: p.id, quantity: 1 }] }, 'components[0].productId is the product the BOM makes'],
      [{ name: 'X', productId: p.id, components: [{ productId: c.id, quantity: 1 }, { productId: c.id, quantity: 2 }] }, 'components[1].productId appears twice'],
    ]
    for (const [body, message] of cases) expectStatus(await org.post('/manufacturing/boms', body), 422, message)
    // Every failed reference is named at once.
    const res = expectStatus(await org.post('/manufacturing/boms', { name: 'X', productId: UNKNOWN, components: [{ productId: UNKNOWN, quantity: 1 }] }), 422)
    assert.equal(res.message.length, 2)
    expectStatus(await org.get(`/manufacturing/boms/${UNKNOWN}`), 404, 'BOM not found')
    expectStatus(await org.patch(`/manufacturing/boms/${UNKNOWN}`, { name: 'Y' }), 404, 'BOM not found')
    expectStatus(await org.del(`/manufacturing/boms/${UNKNOWN}`), 404, 'BOM not found')
    expectStatus(await org.get(`/manufacturing/boms/${UNKNOWN}/cost`), 404, 'BOM not found')
  })

  test('a component line of a product that is not storable is 422, on create and on PATCH; the BOM\'s own product may be of any type', async () => {
    const p = await createItem(org)
    const service = await createProduct(org, { type: 'service' })
    const consumable = await createProduct(org, { type: 'consumable' })
    const storable = await createItem(org)
    const before = expectStatus(await org.get('/manufacturing/boms'), 200).meta.total
    const refused = expectStatus(await org.post('/manufacturing/boms', { name: 'X', productId: p.id, components: [{ productId: storable.id, quantity: 1 }, { productId: service.id, quantity: 1 }, { productId: consumable.id, quantity: 2 }] }), 422)
    assert.deepEqual(refused.message, [
      `components[1].productId: ${service.name} is a service product; only storable products move through stock`,
      `components[2].productId: ${consumable.name} is a consumable product; only storable products move through stock`,
    ])
    assert.equal(expectStatus(await org.get('/manufacturing/boms'), 200).meta.total, before)
    const bom = await createBom(org, { productId: p.id, components: [{ productId: storable.id, quantity: 1 }] })
    expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { components: [{ productId: service.id, quantity: 1 }] }), 422, `components[0].productId: ${service.name} is a service product`)
    assert.deepEqual(expectStatus(await org.get(`/manufacturing/boms/${bom.id}`), 200).components.map((c: { productId: string }) => c.productId), [storable.id])
    // The rules apply to the result: a component whose product has become a consumable since is named by the next PATCH.
    expectStatus(await org.patch(`/products/${storable.id}`, { type: 'consumable' }), 200)
    expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { name: 'Renamed' }), 422, `components[0].productId: ${storable.name} is a consumable product`)
    // What the BOM makes is not a component line: a kit (phantom BOM) of a consumable product is accepted.
    expectStatus(await org.post('/manufacturing/boms', { name: 'Kit', productId: consumable.id, type: 'phantom', components: [{ productId: p.id, quantity: 1 }] }), 201)
  })

  test('PATCH: changes the fields given, components and operations replace the lists; the rules of create apply', async () => {
    const bom = await createBom(org)
    const other = await createItem(org, { uom: 'kg' })
    const patched = expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { name: 'Renamed', quantity: 5, type: 'phantom' }), 200)
    assert.deepEqual([patched.name, patched.quantity, patched.type, patched.uom], ['Renamed', 5, 'phantom', bom.uom])
    assert.deepEqual(patched.components, bom.components)
    assert.deepEqual(patched.operations, bom.operations)
    assert.ok(patched.updatedAt >= bom.updatedAt)
    const replaced = expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { components: [{ productId: other.id, quantity: 7 }], operations: [] }), 200)
    assert.deepEqual(replaced.components, [{ productId: other.id, name: (await org.get(`/products/${other.id}`)).body.name, quantity: 7, uom: 'kg' }])
    assert.deepEqual(replaced.operations, [])
    assert.deepEqual(expectStatus(await org.get(`/manufacturing/boms/${bom.id}`), 200), replaced)
    // A new product: the uom follows it unless given.
    const newProduct = await createItem(org, { uom: 'litre' })
    assert.equal(expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { productId: newProduct.id }), 200).uom, 'litre')
    expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { productId: other.id }), 422, 'components[0].productId is the product the BOM makes')
    expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { components: [{ productId: UNKNOWN, quantity: 1 }] }), 422, 'components[0].productId does not name')
    expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { name: '' }), 422, 'name')
    expectStatus(await org.patch(`/manufacturing/boms/${bom.id}`, { status: 'x' }), 422, 'status is not allowed')
    assert.equal(expectStatus(await org.get(`/manufacturing/boms/${bom.id}`), 200).productId, undefined)
    assert.equal(expectStatus(await org.get(`/manufacturing/boms/${bom.id}`), 200).product.id, newProduct.id)
  })

  test('phantom BOM cycles are 422 with the path; a phantom kit inside a manufactured product is fine', async () => {
    const a = await createItem(org)
    const b = await createItem(org)
    const c = await createItem(org)
    const x = await createItem(org)
    // b is a kit of c; c is a kit of x: fine.
    await createBom(org, { productId: b.id, type: 'phantom', components: [{ productId: c.id, quantity: 1 }] })
    const cKit = await createBom(org, { productId: c.id, type: 'phantom', components: [{ productId: x.id, quantity: 2 }] })
    // a made from b: fine.
    await createBom(org, { productId: a.id, components: [{ productId: b.id, quantity: 1 }] })
    // x as a kit of b closes b -> c -> x -> b.
    const res = expectStatus(await org.post('/manufacturing/boms', { name: 'Loop', productId: x.id, type: 'phantom', components: [{ productId: b.id, quantity: 1 }] }), 422)
    assert.match(res.message[0], new RegExp(`phantom BOM cycle ${x.id} -> ${b.id} -> ${c.id} -> ${x.id}`))
    // Making x (not a kit) from b needs x itself through the kits: refused too.
    expectStatus(await org.post('/manufacturing/boms', { name: 'Loop', productId: x.id, components: [{ productId: b.id, quantity: 1 }] }), 422, 'phantom BOM cycle')
    // Through PATCH: c's kit made of b closes b -> c -> b.
    expectStatus(await org.patch(`/manufacturing/boms/${cKit.id}`, { components: [{ productId: b.id, quantity: 1 }] }), 422, `phantom BOM cycle ${c.id} -> ${b.id} -> ${c.id}`)
    assert.deepEqual(expectStatus(await org.get(`/manufacturing/boms/${cKit.id}`), 200).components.map((k: any) => k.productId), [x.id])
    // Another organization's BOMs play no part.
    const other = await createOrg(t.app)
    const ox = await createItem(other)
    const ob = await createItem(other)
    await createBom(other, { productId: ob.id, type: 'phantom', components: [{ productId: ox.id, quantity: 1 }] })
    await createBom(other, { productId: ox.id, type: 'manufacture', components: [{ productId: ob.id, quantity: 1 }] }).then(
      () => assert.fail('ox from ob where ob is a kit of ox is a cycle'),
      (err: Error) => assert.match(err.message, /422/),
    )
  })

  test('DELETE: 204, then 404', async () => {
    const bom = await createBom(org)
    const res = await org.del(`/manufacturing/boms/${bom.id}`)
    assert.equal(res.status, 204)
    expectStatus(await org.get(`/manufacturing/boms/${bom.id}`), 404)
    // Its products stay.
    expectStatus(await org.get(`/products/${bom.product.id}`), 200)
    expectStatus(await org.get(`/products/${bom.components[0].productId}`), 200)
  })

  test('GET /manufacturing/boms: envelope, productId filter, sorts, paging rules', async () => {
    const o = await createOrg(t.app)
    const product = await createItem(o)
    const a = await createBom(o, { productId: product.id, name: 'Alpha' })
    await afterTimestamp(new Date().toISOString())
    const b = await createBom(o, { name: 'Bravo' })
    await afterTimestamp(new Date().toISOString())
    const c = await createBom(o, { productId: product.id, name: 'Charlie' })
    const all = expectPage(await o.get('/manufacturing/boms'), { total: 3, page: 1, limit: 20 })
    assert.deepEqual(all.map((x) => x.id), [c.id, b.id, a.id])
    assert.deepEqual(all[2], a)
    const mine = expectPage(await o.get(`/manufacturing/boms?productId=${product.id}`), { total: 2, page: 1, limit: 20 })
    assert.deepEqual(mine.map((x) => x.id), [c.id, a.id])
    expectPage(await o.get(`/manufacturing/boms?productId=${UNKNOWN}`), { total: 0, page: 1, limit: 20 })
    expectPage(await o.get('/manufacturing/boms?limit=2&page=2'), { total: 3, page: 2, limit: 2 })
    assert.deepEqual(expectPage(await o.get('/manufacturing/boms?search=rav'), { total: 1, page: 1, limit: 20 }).map((x) => x.id), [b.id])
    expectPage(await o.get(`/manufacturing/boms?search=alpha&productId=${product.id}`), { total: 1, page: 1, limit: 20 })
    for (const field of ['name', 'createdAt', 'updatedAt']) await expectSortable((p) => o.get(p), '/manufacturing/boms', field)
    await expectListQueryRules((p) => o.get(p), '/manufacturing/boms', 'quantity')
    expectStatus(await o.get('/manufacturing/boms?productId=nope'), 400)
    // The total follows deletes.
    await o.del(`/manufacturing/boms/${a.id}`)
    expectPage(await o.get(`/manufacturing/boms?productId=${product.id}`), { total: 1, page: 1, limit: 20 })
    expectPage(await o.get('/manufacturing/boms'), { total: 2, page: 1, limit: 20 })
  })

  test('GET /manufacturing/boms/:id/cost: component cost x quantity, per unit of the BOM quantity', async () => {
    const product = await createItem(org)
    const a = await createItem(org, { cost: 250 })
    const b = await createItem(org, { cost: 333 })
    const free = await createItem(org, { cost: null })
    const bom = await createBom(org, {
      productId: product.id,
      quantity: 4,
      components: [{ productId: a.id, quantity: 3 }, { productId: b.id, quantity: 0.5 }, { productId: free.id, quantity: 2 }],
    })
    const cost = expectStatus(await org.get(`/manufacturing/boms/${bom.id}/cost`), 200)
    // 3 x 250 = 750; 0.5 x 333 = 166.5 -> 167; free: 0. Total 917 for 4 units: 229.25 -> 229.
    assert.deepEqual(cost, {
      bomId: bom.id,
      product: bom.product,
      quantity: 4,
      components: [
        { productId: a.id, name: bom.components[0].name, quantity: 3, unitCost: 250, total: 750 },
        { productId: b.id, name: bom.components[1].name, quantity: 0.5, unitCost: 333, total: 167 },
        { productId: free.id, name: bom.components[2].name, quantity: 2, unitCost: null, total: 0 },
      ],
      total: 917,
      unitCost: 229,
      missingCosts: [free.id],
    })
    // A BOM without components costs 0.
    const empty = expectStatus(await org.post('/manufacturing/boms', { name: 'Empty', productId: product.id }), 201)
    const zero = expectStatus(await org.get(`/manufacturing/boms/${empty.id}/cost`), 200)
    assert.deepEqual([zero.total, zero.unitCost, zero.components, zero.missingCosts], [0, 0, [], []])
  })

  test("another organization's BOM is 404", async () => {
    const bom = await createBom(org)
    const other = await createOrg(t.app)
    expectStatus(await other.get(`/manufacturing/boms/${bom.id}`), 404)
    expectStatus(await other.get(`/manufacturing/boms/${bom.id}/cost`), 404)
    expectStatus(await other.del(`/manufacturing/boms/${bom.id}`), 404)
    expectPage(await other.get('/manufacturing/boms'), { total: 0, page: 1, limit: 20 })
  })
})
