// Tenancy contract fixtures of the identity module (see test/helpers/tenancy.ts).
import { unique } from '../../../test/helpers/app.ts'
import { createUser, defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

const apiKey = async (o: Parameters<typeof createUser>[0]) => {
  const res = await o.post('/api-keys', { name: 'Tenancy key', environment: 'test' })
  if (res.status !== 201) throw new Error(`api key: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; prefix: string }
}

export default defineTenancyFixtures({
  paths: {
    '/users/:id': async (o) => ({ id: (await createUser(o)).id }),
    '/api-keys/:id': async (o) => ({ id: (await apiKey(o)).id }),
  },
  bodies: {
    'PATCH /users/:id': { name: 'Renamed' },
  },
  lists: {
    '/users': async (o) => {
      const u = await createUser(o)
      return [u.id, u.email, u.name]
    },
    '/api-keys': async (o) => [(await apiKey(o)).id],
    // Not a list, but a record of the caller's organization all the same: another organization's profile never shows it.
    '/organization': async (o) => {
      const profile = { legalName: unique('Legal name '), taxId: unique('TAX'), paymentInstructions: unique('IBAN ') }
      const res = await o.patch('/organization', profile)
      if (res.status !== 200) throw new Error(`organization profile: ${res.status} ${JSON.stringify(res.body)}`)
      return [profile.legalName, profile.taxId, profile.paymentInstructions]
    },
  },
})
