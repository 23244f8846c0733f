// Tenancy contract fixtures of the webhooks module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createContact } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

/** Port 9 (discard) on loopback: accepted in the test environment, never answers with success. */
const URL = 'http://127.0.0.1:9/hooks'

async function endpoint(o: TestOrg) {
  const res = await o.post('/webhook-endpoints', { url: URL, enabledEvents: ['*'], description: `Tenancy ${o.id}` })
  if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; url: string }
}

async function delivery(o: TestOrg) {
  const ep = await endpoint(o)
  const res = await o.post(`/webhook-endpoints/${ep.id}/test`, {})
  if (res.status !== 202) throw new Error(`webhook ping: ${res.status} ${JSON.stringify(res.body)}`)
  return { id: ep.id, deliveryId: res.body.id as string }
}

/** An event of the organization: the contact.created of a new contact. */
async function event(o: TestOrg) {
  const c = await createContact(o)
  const res = await o.get(`/events?resourceId=${c.id}`)
  return { id: res.body.data[0].id as string, resourceId: c.id as string }
}

export default defineTenancyFixtures({
  paths: {
    '/webhook-endpoints/:id': async (o) => ({ id: (await endpoint(o)).id }),
    '/webhook-endpoints/:id/rotate-secret': async (o) => ({ id: (await endpoint(o)).id }),
    '/webhook-endpoints/:id/test': async (o) => ({ id: (await endpoint(o)).id }),
    '/webhook-endpoints/:id/deliveries': async (o) => ({ id: (await endpoint(o)).id }),
    '/webhook-endpoints/:id/deliveries/:deliveryId/retry': delivery,
    '/events/:id': async (o) => ({ id: (await event(o)).id }),
  },
  bodies: {
    'PATCH /webhook-endpoints/:id': { description: 'Renamed' },
  },
  lists: {
    '/webhook-endpoints': async (o) => {
      const ep = await endpoint(o)
      return [ep.id]
    },
    '/events': async (o) => {
      const e = await event(o)
      return [e.id, e.resourceId]
    },
  },
})
