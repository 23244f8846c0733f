import { buildTestApp, createOrg } from '../test/helpers/app.ts'
import { loadModuleFixtures } from '../test/helpers/tenancy.ts'
const t = await buildTestApp()
const fixtures = await loadModuleFixtures()
let make: any
for (const f of fixtures.values()) for (const [p, m] of Object.entries(f.lists ?? {})) if (p === '/inventory/transfers') make = m
const owner = await createOrg(t.app)
const other = await createOrg(t.app)
await make(owner); await make(other)
const db = t.app.ctx.db
for (const [org, n] of [[owner.id, 20000], [other.id, 2000]] as const) {
  const { rows: columns } = await db.query<{ name: string; type: string }>(`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'transfers' AND coalesce(column_default, '') NOT LIKE 'nextval(%' ORDER BY ordinal_position`)
  console.log(columns.map((c) => c.name + ':' + c.type).join(' '))
}
const c = await db.query(`SELECT organization_id, count(*) FROM transfers GROUP BY 1`)
console.log(c.rows)
await t.close()
