// Tenancy contract fixtures of the imports module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

const body = { resource: 'contacts', rows: [{ name: 'Imported contact' }] }

/** An import of the owner, run: the job runs the queue (tests do not start the workers). */
const run = async (o: TestOrg) => {
  const res = await o.post('/imports', body)
  if (res.status !== 202) throw new Error(`import: ${res.status} ${JSON.stringify(res.body)}`)
  const job = await o.post('/admin/jobs/imports/run')
  if (job.status !== 200) throw new Error(`imports job: ${job.status} ${JSON.stringify(job.body)}`)
  return { id: res.body.id as string }
}

export default defineTenancyFixtures({
  paths: {
    '/imports/:id': run,
  },
  bodies: {
    'POST /imports': body,
  },
  lists: {
    '/imports': async (o) => [(await run(o)).id],
  },
})
