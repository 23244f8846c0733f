import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { citusMarkdown, citusSql, COORDINATOR_LOCAL_TABLES, readCitusSchema, REFERENCE_TABLES, type CitusSchema } from '../src/core/citus.ts'
import { buildTestApp, createOrg, unique, type TestApp } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'

// The schema after the migrations, as Citus would take it (docs/scale-out.md "Citus"):
// every table distributed by organization_id, a reference table or a coordinator-local
// one (src/core/citus.ts lists the last two with their reasons); the keys and foreign
// keys of distributed tables include organization_id. On both databases: PGlite reads
// the same pg_catalog.

let t: TestApp
let schema: CitusSchema
let tables: string[]
before(async () => {
  t = await buildTestApp()
  schema = await readCitusSchema(t.app.ctx.db)
  tables = (
    await t.app.ctx.db.query<{ relname: string }>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
    )
  ).rows.map((r) => r.relname)
})
after(() => t.close())

test('the schema breaks no Citus rule: every table has a role, every key and foreign key of a distributed table includes organization_id', () => {
  assert.deepEqual(schema.violations, [], `The schema breaks ${schema.violations.length} Citus rule(s) (fix them with a migration, or list the table in src/core/citus.ts with its reason):\n${schema.violations.join('\n')}`)
})

test('the rules are those of the catalog: a table that breaks one is found', async () => {
  const db = t.app.ctx.db
  const rolledBack = new Error('rolled back')
  const ran = db.tx(async (q) => {
    await q.query(`CREATE TABLE citus_probe_parent (id uuid PRIMARY KEY, organization_id uuid NOT NULL REFERENCES organizations (id))`)
    await q.query(`CREATE TABLE citus_probe_child (parent_id uuid REFERENCES citus_probe_parent (id), code text UNIQUE, organization_id uuid NOT NULL)`)
    await q.query(`CREATE TABLE citus_probe_orphan (id uuid PRIMARY KEY)`)
    await q.query(`ALTER TABLE settings ADD COLUMN probe_parent uuid, ADD CONSTRAINT settings_probe_fkey FOREIGN KEY (probe_parent) REFERENCES citus_probe_parent (id)`)
    const found = (await readCitusSchema(q)).violations.filter((v) => v.includes('citus_probe'))
    const expect = [
      /primary key citus_probe_parent_pkey of citus_probe_parent lacks organization_id/,
      /unique index citus_probe_child_code_key of citus_probe_child lacks organization_id/,
      /foreign key citus_probe_child_parent_id_fkey: .* between distributed tables/,
      /foreign key settings_probe_fkey: .* from a reference table to a distributed table/,
      /table citus_probe_orphan: no organization_id/,
    ]
    for (const e of expect) assert.ok(found.some((v) => e.test(v)), `expected a violation matching ${e}, found:\n${found.join('\n')}`)
    assert.equal(found.length, expect.length, found.join('\n'))
    // Thrown to roll the probes back.
    throw rolledBack
  })
  await assert.rejects(ran, (err) => err === rolledBack)
})

test("the coordinator's calls name every table once, reference tables first, each distributed table after those its foreign keys name", () => {
  const sql = citusSql(schema)
  const reference = [...sql.matchAll(/create_reference_table\('(\w+)'\)/g)].map((m) => m[1])
  const distributed = [...sql.matchAll(/create_distributed_table\('(\w+)', '(\w+)'(, colocate_with => 'organizations')?\)/g)].map((m) => ({ name: m[1], column: m[2], colocated: !!m[3] }))
  const local = (/-- Left on the coordinator as plain tables: (.*)\./.exec(sql)?.[1] ?? '').split(', ').filter(Boolean)
  assert.deepEqual([...reference, ...distributed.map((d) => d.name), ...local].sort(), tables, 'every table of schema public, each once')
  assert.deepEqual(reference.sort(), Object.keys(REFERENCE_TABLES).sort())
  assert.deepEqual(local.sort(), Object.keys(COORDINATOR_LOCAL_TABLES).sort())
  assert.ok(sql.indexOf('create_reference_table') < sql.indexOf('create_distributed_table'))
  assert.deepEqual(distributed[0], { name: 'organizations', column: 'id', colocated: false })
  for (const d of distributed.slice(1)) assert.deepEqual(d, { name: d.name, column: 'organization_id', colocated: true })
  // Each foreign key between distributed tables points to a table distributed before, unless the generator drops it first and adds it again after.
  const at = new Map(distributed.map((d, i) => [d.name, i]))
  for (const fk of schema.foreignKeys) {
    if (!at.has(fk.table) || !at.has(fk.refTable) || fk.table === fk.refTable) continue
    if (at.get(fk.refTable)! < at.get(fk.table)!) continue
    assert.ok(sql.includes(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${fk.name};`) && sql.includes(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${fk.name} `), `${fk.name} names ${fk.refTable}, distributed after ${fk.table}`)
  }
  const md = citusMarkdown(schema)
  for (const name of tables) assert.match(md, new RegExp(`\\| \`${name}\` \\| (distributed|reference|coordinator-local) \\|`), `${name} in the Markdown table`)
})

test('an email stays unique across organizations (user_emails), follows a change and is freed by a deletion', async () => {
  const a = await createOrg(t.app)
  const b = await createOrg(t.app)
  const password = 'correct horse battery'
  expectStatus(await b.post('/users', { name: 'Twin', email: a.adminEmail.toUpperCase(), password, role: 'member' }), 409, 'A user with this email already exists')
  const email = `${unique('citus')}@example.com`
  const u = expectStatus(await b.post('/users', { name: 'Moving', email, password, role: 'member' }), 201)
  expectStatus(await b.patch(`/users/${u.id}`, { email: a.adminEmail }), 409, 'A user with this email already exists')
  const moved = `${unique('moved')}@example.com`
  expectStatus(await b.patch(`/users/${u.id}`, { email: moved }), 200)
  // The old address is free again, the new one is taken, also for another organization.
  expectStatus(await a.post('/users', { name: 'Reuse', email, password, role: 'member' }), 201)
  expectStatus(await a.post('/users', { name: 'Taken', email: moved, password, role: 'member' }), 409)
  expectStatus(await b.del(`/users/${u.id}`), 204)
  expectStatus(await a.post('/users', { name: 'Freed', email: moved, password, role: 'member' }), 201)
  const { rows } = await t.app.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users u FULL JOIN user_emails e ON e.user_id = u.id WHERE e.user_id IS NULL OR u.id IS NULL OR e.email <> lower(u.email)')
  assert.equal(rows[0].n, 0, 'user_emails holds exactly the email of every user')
})
