// Tenancy contract fixtures of the CRM module (see test/helpers/tenancy.ts).
import { unique, type TestOrg } from '../../../test/helpers/app.ts'
import { captureLead } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

const lead = async (o: TestOrg) => ({ id: (await captureLead(o)).id })

export default defineTenancyFixtures({
  paths: {
    '/crm/leads/:id': lead,
    '/crm/leads/:id/convert': lead,
  },
  lists: {
    '/crm/leads': async (o) => {
      const email = `${unique('lead')}@example.com`
      return [(await captureLead(o, { email })).id, email]
    },
    // Not a list, but the capture token is the organization's alone.
    '/crm/capture-settings': async (o) => [(await o.get('/crm/capture-settings')).body.captureToken],
  },
})
