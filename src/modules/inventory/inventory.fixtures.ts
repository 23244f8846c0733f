// Tenancy contract fixtures of the inventory module (see test/helpers/tenancy.ts):
// locations, transfers, adjustments, product stock and the ledger of moves.
import type { TestOrg } from '../../../test/helpers/app.ts'
import { unique } from '../../../test/helpers/app.ts'
import { createProduct } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures, foreignProduct, foreignWarehouse, warehouseOf, type ForeignRecord } from '../../../test/helpers/tenancy.ts'

const code = () => unique('L').toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 20)
const location = async (o: TestOrg) => {
  const res = await o.post('/inventory/locations', { code: code(), name: unique('Shelf ') })
  if (res.status !== 201) throw new Error(`location: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string }
}
const warehouseId = { status: 422, foreign: foreignWarehouse } as const

/** A location only another organization has: its LOC-<code> names nothing in the owner's. */
const foreignLocation = async (other: TestOrg): Promise<ForeignRecord> => {
  const l = await location(other)
  return { id: l.id, secrets: [l.name] }
}

/** A receipt of `quantity` units of a new storable product, LOC-SUPPLIER -> LOC-STOCK, in draft. */
async function receipt(o: TestOrg, quantity = 5) {
  const product = await createProduct(o, { type: 'storable' })
  const res = await o.post('/inventory/transfers', { type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK', moves: [{ productId: product.id, demandQty: quantity }] })
  if (res.status !== 201) throw new Error(`transfer: ${res.status} ${JSON.stringify(res.body)}`)
  return { transfer: res.body as { id: string; reference: string }, product }
}

/** A product with stock at LOC-STOCK (a validated receipt). */
async function stocked(o: TestOrg, quantity = 5) {
  const r = await receipt(o, quantity)
  const res = await o.post(`/inventory/transfers/${r.transfer.id}/validate`, {})
  if (res.status !== 200) throw new Error(`validate: ${res.status} ${JSON.stringify(res.body)}`)
  return r
}

async function adjustment(o: TestOrg) {
  const product = await createProduct(o, { type: 'storable' })
  const res = await o.post('/inventory/adjustments', { locationId: 'LOC-STOCK', reason: 'count', lines: [{ productId: product.id, theoreticalQty: 0, realQty: 3, difference: 3 }] })
  if (res.status !== 201) throw new Error(`adjustment: ${res.status} ${JSON.stringify(res.body)}`)
  return { adjustment: res.body as { id: string }, product }
}

const transferBody = async (o: TestOrg) => ({
  type: 'internal',
  sourceLocationId: 'LOC-SUPPLIER',
  destinationLocationId: (await location(o)).id,
  moves: [{ productId: (await createProduct(o, { type: 'storable' })).id, demandQty: 2 }],
})

export default defineTenancyFixtures({
  paths: {
    '/inventory/locations/:id': async (o) => ({ id: (await location(o)).id }),
    '/inventory/transfers/:id': async (o) => ({ id: (await receipt(o)).transfer.id }),
    '/inventory/transfers/:id/confirm': async (o) => ({ id: (await receipt(o)).transfer.id }),
    '/inventory/transfers/:id/validate': async (o) => ({ id: (await receipt(o)).transfer.id }),
    '/inventory/transfers/:id/cancel': async (o) => ({ id: (await receipt(o)).transfer.id }),
    '/inventory/adjustments/:id': async (o) => ({ id: (await adjustment(o)).adjustment.id }),
    '/inventory/products/:productId/stock': async (o) => ({ productId: (await stocked(o)).product.id }),
  },
  bodies: {
    'PATCH /inventory/locations/:id': { name: 'Renamed' },
  },
  references: {
    'POST /inventory/locations': {
      body: async (o) => ({ code: code(), warehouseId: await warehouseOf(o) }),
      unchanged: '/inventory/locations?limit=100',
      fields: { warehouseId },
    },
    'PATCH /inventory/locations/:id': {
      params: async (o) => ({ id: (await location(o)).id }),
      body: async (o) => ({ warehouseId: await warehouseOf(o) }),
      unchanged: '/inventory/locations/:id',
      fields: { warehouseId },
    },
    'POST /inventory/transfers': {
      body: transferBody,
      unchanged: '/inventory/transfers?limit=100',
      fields: {
        sourceLocationId: { status: 422, foreign: foreignLocation },
        destinationLocationId: { status: 422, foreign: foreignLocation },
        'moves[].productId': { status: 422, foreign: foreignProduct },
      },
    },
    'POST /inventory/transfers/:id/validate': {
      params: async (o) => ({ id: (await receipt(o)).transfer.id }),
      body: async (o) => {
        const moves = (await o.get('/inventory/transfers?limit=1&sortBy=createdAt&sortOrder=desc')).body.data[0].moves
        return { moves: [{ productId: moves[0].productId, doneQty: 1 }] }
      },
      unchanged: '/inventory/transfers/:id',
      fields: { 'moves[].productId': { status: 422, foreign: foreignProduct } },
    },
    'POST /inventory/adjustments': {
      body: async (o) => ({ locationId: (await location(o)).id, lines: [{ productId: (await createProduct(o, { type: 'storable' })).id, realQty: 4 }] }),
      unchanged: '/inventory/adjustments?limit=100',
      fields: {
        locationId: { status: 422, foreign: foreignLocation },
        'lines[].productId': { status: 422, foreign: foreignProduct },
      },
    },
  },
  lists: {
    // The owner's warehouse shows on its default locations: nobody else may see it.
    '/inventory/locations': async (o) => {
      const l = await location(o)
      return [l.id, l.name, await warehouseOf(o)]
    },
    // References (WH/IN/00001) repeat across organizations; ids and product names do not.
    '/inventory/transfers': async (o) => {
      const r = await receipt(o)
      return [r.transfer.id, r.product.name]
    },
    '/inventory/moves': async (o) => {
      const r = await stocked(o)
      return [r.transfer.id, r.product.name]
    },
    '/inventory/adjustments': async (o) => {
      const a = await adjustment(o)
      return [a.adjustment.id, a.product.name]
    },
    '/inventory/products': async (o) => {
      const r = await stocked(o)
      return [r.product.id, r.product.name]
    },
  },
})
