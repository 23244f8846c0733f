// Tenancy contract fixtures of the locations module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { unique } from '../../../test/helpers/app.ts'
import { defineTenancyFixtures, foreignWarehouse, warehouseOf } from '../../../test/helpers/tenancy.ts'

const code = () => unique('L').toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 20)
const location = async (o: TestOrg) => {
  const res = await o.post('/inventory/locations', { code: code(), name: unique('Shelf ') })
  if (res.status !== 201) throw new Error(`location: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string }
}
const warehouseId = { status: 422, foreign: foreignWarehouse } as const

export default defineTenancyFixtures({
  paths: {
    '/inventory/locations/:id': async (o) => ({ id: (await location(o)).id }),
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
  },
  lists: {
    // The owner's warehouse shows on its default locations: nobody else may see it.
    '/inventory/locations': async (o) => {
      const l = await location(o)
      return [l.id, l.name, await warehouseOf(o)]
    },
  },
})
