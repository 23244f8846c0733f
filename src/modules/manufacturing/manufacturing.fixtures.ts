// Tenancy contract fixtures of the manufacturing module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createBom, createItem } from '../../../test/helpers/manufacturing.ts'
import { defineTenancyFixtures, foreignProduct } from '../../../test/helpers/tenancy.ts'

const bom = async (o: TestOrg) => ({ id: (await createBom(o)).id as string })

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
  },
  bodies: {
    'PATCH /manufacturing/boms/:id': { name: 'Renamed BOM' },
  },
  references: {
    'POST /manufacturing/boms': { body: bomBody, unchanged: '/manufacturing/boms', fields: bomFields },
    'PATCH /manufacturing/boms/:id': { params: bom, body: bomBody, unchanged: '/manufacturing/boms/:id', fields: bomFields },
  },
  lists: {
    '/manufacturing/boms': async (o) => {
      const b = await createBom(o)
      return [b.id, b.name]
    },
  },
})
