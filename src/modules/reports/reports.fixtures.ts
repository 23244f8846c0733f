// Tenancy contract fixtures of the reports module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

const body = { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' } }

/** A run of the owner, succeeded: the job runs the queue (tests do not start the workers). */
const run = async (o: TestOrg) => {
  const res = await o.post('/reports', body)
  if (res.status !== 201) throw new Error(`report run: ${res.status} ${JSON.stringify(res.body)}`)
  const job = await o.post('/admin/jobs/report-runs/run')
  if (job.status !== 200) throw new Error(`report-runs job: ${job.status} ${JSON.stringify(job.body)}`)
  return { id: res.body.id as string }
}

export default defineTenancyFixtures({
  paths: {
    '/reports/:id': run,
    '/reports/:id/file': run,
  },
  bodies: {
    'POST /reports': body,
  },
  lists: {
    '/reports': async (o) => [(await run(o)).id],
  },
})
