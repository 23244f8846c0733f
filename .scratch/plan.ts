import { buildTestApp, createOrg } from '../test/helpers/app.ts'
import { loadModuleFixtures } from '../test/helpers/tenancy.ts'
const t = await buildTestApp()
const fixtures = await loadModuleFixtures()
let make: any
for (const f of fixtures.values()) for (const [p, m] of Object.entries(f.lists ?? {})) if (p === '/inventory/transfers') make = m
const owner = await createOrg(t.app)
await (typeof make === 'function' ? make(owner) : make.make(owner))
const db = t.app.ctx.db
const r = await db.query(`SELECT id, organization_id, reference, type, status, created_at FROM transfers WHERE organization_id = $1`, [owner.id])
console.log(r.rows)
const idx = await db.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'transfers'`)
console.log(idx.rows.map((x: any) => x.indexdef))
await t.close()
