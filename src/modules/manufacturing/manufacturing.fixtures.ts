// Tenancy contract fixtures of the manufacturing module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createBom, createItem, createProductionOrder } from '../../../test/helpers/manufacturing.ts'
import { defineTenancyFixtures, foreignProduct, type ForeignRecord } from '../../../test/helpers/tenancy.ts'

const bom = async (o: TestOrg) => ({ id: (await createBom(o)).id as string })
const order = async (o: TestOrg) => ({ id: (await createProductionOrder(o)).id as string })
/** A production order and its first work order. */
const workOrder = async (o: TestOrg) => {
  const { id } = await order(o)
  const wos = await o.get(`/manufacturing/orders/${id}/work-orders`)
  return { id, woId: wos.body.data[0].id as string }
}
const foreignBom = async (other: TestOrg): Promise<ForeignRecord> => {
  const b = await createBom(other)
  return { id: b.id, secrets: [b.name] }
}
/** A valid production order body naming the owner's own product and BOM. */
const orderBody = async (o: TestOrg) => {
  const b = await createBom(o)
  return { productId: b.product.id, bomId: b.id, quantity: 2 }
}

/** A valid BOM body naming the owner's own products. */
const bomBody = async (o: TestOrg) => ({
  name: 'Tenancy BOM',
  productId: (await createItem(o)).id,
  components: [{ productId: (await createItem(o)).id, quantity: 1 }],
})
const bomFields = {
  productId: { status: 422, foreign: foreignProduct },
  'components[].productId': { status: 422, foreign: foreignProduct },
} as const

export default defineTenancyFixtures({
  paths: {
    '/manufacturing/boms/:id': bom,
    '/manufacturing/boms/:id/cost': bom,
    '/manufacturing/orders/:id': order,
    '/manufacturing/orders/:id/confirm': order,
    '/manufacturing/orders/:id/produce': order,
    '/manufacturing/orders/:id/close': order,
    '/manufacturing/orders/:id/work-orders': order,
    '/manufacturing/orders/:id/work-orders/:woId/start': workOrder,
    '/manufacturing/orders/:id/work-orders/:woId/done': workOrder,
  },
  bodies: {
    'PATCH /manufacturing/boms/:id': { name: 'Renamed BOM' },
    'POST /manufacturing/orders/:id/produce': { qty: 1 },
  },
  references: {
    'POST /manufacturing/boms': { body: bomBody, unchanged: '/manufacturing/boms', fields: bomFields },
    'PATCH /manufacturing/boms/:id': { params: bom, body: bomBody, unchanged: '/manufacturing/boms/:id', fields: bomFields },
    'POST /manufacturing/orders': {
      body: orderBody,
      unchanged: '/manufacturing/orders',
      fields: { productId: { status: 422, foreign: foreignProduct }, bomId: { status: 422, foreign: foreignBom } },
    },
  },
  lists: {
    '/manufacturing/boms': async (o) => {
      const b = await createBom(o)
      return [b.id, b.name]
    },
    // The reference (MO/<year>/<n>) is numbered per organization, so another organization may hold the same one.
    '/manufacturing/orders': async (o) => [(await order(o)).id],
  },
})
