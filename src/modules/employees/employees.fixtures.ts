// Tenancy contract fixtures of the employees module (see test/helpers/tenancy.ts).
import { createEmployee, createUser, defineTenancyFixtures, foreignUser } from '../../../test/helpers/tenancy.ts'

const employee = async (o: Parameters<typeof createEmployee>[0]) => ({ id: (await createEmployee(o)).id })
const userId = { status: 422, foreign: foreignUser } as const

export default defineTenancyFixtures({
  paths: {
    '/employees/:id': employee,
  },
  bodies: {
    'PATCH /employees/:id': { name: 'Renamed' },
  },
  references: {
    'POST /employees': {
      body: async (o) => ({ name: 'Linked employee', userId: (await createUser(o)).id }),
      unchanged: '/employees',
      fields: { userId },
    },
    'PATCH /employees/:id': {
      params: employee,
      body: async (o) => ({ userId: (await createUser(o)).id }),
      unchanged: '/employees/:id',
      fields: { userId },
    },
  },
  lists: {
    '/employees': async (o) => {
      const e = await createEmployee(o)
      return [e.id, e.name, e.email]
    },
  },
})
