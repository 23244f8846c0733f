// Tenancy contract fixtures of the reports module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createVendor } from '../../../test/helpers/purchase.ts'
import { createContact } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures, foreignContact, foreignWarehouse, warehouseOf, type ForeignRecord } from '../../../test/helpers/tenancy.ts'

const body = { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' } }

/** A run of the owner, succeeded: the job runs the queue (tests do not start the workers). */
const run = async (o: TestOrg) => {
  const res = await o.post('/reports', body)
  if (res.status !== 201) throw new Error(`report run: ${res.status} ${JSON.stringify(res.body)}`)
  const job = await o.post('/admin/jobs/report-runs/run')
  if (job.status !== 200) throw new Error(`report-runs job: ${job.status} ${JSON.stringify(job.body)}`)
  return { id: res.body.id as string }
}

const foreignVendor = async (other: TestOrg): Promise<ForeignRecord> => {
  const v = await createVendor(other)
  return { id: v.id, secrets: [v.name, v.email] }
}

export default defineTenancyFixtures({
  paths: {
    '/reports/:id': run,
    '/reports/:id/file': run,
  },
  bodies: {
    'POST /reports': body,
  },
  references: {
    // The record filters of the analytics run types, each taken by its own type.
    'POST /reports': {
      body: async (o) => ({ type: 'receivables_aging', parameters: { contactId: (await createContact(o)).id } }),
      unchanged: '/reports',
      fields: {
        'parameters.contactId': { status: 422, foreign: foreignContact },
        'parameters.vendorId': {
          status: 422,
          foreign: foreignVendor,
          body: async (o) => ({ type: 'payables_aging', parameters: { vendorId: (await createVendor(o)).id } }),
        },
        'parameters.warehouseId': {
          status: 422,
          foreign: foreignWarehouse,
          body: async (o) => ({ type: 'stock_valuation', parameters: { warehouseId: await warehouseOf(o) } }),
        },
      },
    },
  },
  lists: {
    '/reports': async (o) => [(await run(o)).id],
  },
})
