// Tenancy contract fixtures of the contacts module (see test/helpers/tenancy.ts).
import { createContact } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

export default defineTenancyFixtures({
  paths: {
    '/contacts/:id': async (o) => ({ id: (await createContact(o)).id }),
  },
  bodies: {
    'PATCH /contacts/:id': { name: 'Renamed' },
  },
  lists: {
    '/contacts': async (o) => {
      const c = await createContact(o)
      return [c.id, c.name, c.email]
    },
  },
})
