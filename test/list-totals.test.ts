// Issue 11: list totals come from per-organization counters kept by triggers
// in the writing transaction (migrations/0050). They must stay exact under
// concurrent creates, deletes and updates, for the unfiltered list and for a
// counted filter, and agree with a count(*) of the table.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, unique, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'

let t: TestApp
before(async () => {
  t = await buildTestApp()
})
after(() => t.close())

const create = async (org: TestOrg, vendor: boolean) =>
  expectStatus(await org.post('/contacts', { name: unique('Total '), email: `${unique('t')}@example.com`, vendor }), 201)

async function realCount(organizationId: string, where = 'TRUE') {
  const { rows } = await t.app.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM contacts WHERE organization_id = $1 AND ${where}`, [organizationId])
  return rows[0].n
}

async function totals(org: TestOrg) {
  const all = expectStatus(await org.get('/contacts?limit=1'), 200).meta.total
  const vendors = expectStatus(await org.get('/contacts?vendor=true&limit=1'), 200).meta.total
  const companies = expectStatus(await org.get('/contacts?type=company&limit=1'), 200).meta.total
  const searched = expectStatus(await org.get('/contacts?search=Total&limit=1'), 200).meta.total
  return { all, vendors, companies, searched }
}

test('totals stay exact under 50 parallel creates, deletes and counted updates', async () => {
  const org = await createOrg(t.app)
  const other = await createOrg(t.app)
  const first = await Promise.all(Array.from({ length: 30 }, (_, i) => create(org, i % 3 === 0)))
  await Promise.all(Array.from({ length: 5 }, () => create(other, true)))

  await Promise.all([
    ...Array.from({ length: 50 }, (_, i) => create(org, i % 2 === 0)),
    ...first.slice(0, 20).map(async (c) => expectStatus(await org.del(`/contacts/${c.id}`), 204)),
    ...first.slice(20).map(async (c) => expectStatus(await org.patch(`/contacts/${c.id}`, { vendor: !c.vendor, type: 'individual' }), 200)),
  ])

  const expected = {
    all: await realCount(org.id),
    vendors: await realCount(org.id, 'vendor'),
    companies: await realCount(org.id, "type = 'company'"),
    searched: await realCount(org.id, "name ILIKE '%Total%'"),
  }
  assert.equal(expected.all, 60)
  assert.deepEqual(await totals(org), expected)
  assert.deepEqual(await totals(other), { all: 5, vendors: 5, companies: 5, searched: 5 })
})

test('counters match count(*) for every counted table and key after the run', async () => {
  // Every (table, organization, key) whose counter sum differs from the rows it counts.
  const { rows } = await t.app.ctx.db.query<{ bad: number }>(
    `SELECT count(*)::int AS bad FROM (
       SELECT organization_id, key, sum(n) AS n FROM list_counts WHERE table_name = 'contacts' GROUP BY 1, 2) c
     WHERE c.n <> (SELECT count(*) FROM contacts r WHERE r.organization_id = c.organization_id AND
       (c.key = '' OR c.key = 'type=' || r.type OR c.key = 'vendor=' || r.vendor::text))`,
  )
  assert.equal(rows[0].bad, 0)
})
