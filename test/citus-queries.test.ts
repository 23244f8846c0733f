// The checker of queries against Citus's routing (scripts/citus-queries.ts,
// docs/scale-out.md "Queries of one organization"), on statements written
// here: which distributed tables a statement leaves without its organization.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { checkQueries, readCaptured } from '../scripts/citus-queries.ts'

const distributed = new Map([
  ['organizations', 'id'],
  ['invoices', 'organization_id'],
  ['invoice_lines', 'organization_id'],
  ['contacts', 'organization_id'],
  ['products', 'organization_id'],
])
const unpinned = async (sql: string) => {
  const r = await checkQueries([sql], distributed)
  return [...r.refused, ...r.across].flatMap((x) => x.tables)
}

describe('Citus routing of a statement', () => {
  test('a table pinned by a parameter, a literal or a cast; the organizations table by its id', async () => {
    assert.deepEqual(await unpinned('SELECT * FROM invoices WHERE organization_id = $1 AND id = $2'), [])
    assert.deepEqual(await unpinned("SELECT * FROM invoices i WHERE i.status = 'draft' AND $1::uuid = i.organization_id"), [])
    assert.deepEqual(await unpinned('SELECT name FROM organizations WHERE id = $1'), [])
    assert.deepEqual(await unpinned('UPDATE invoices SET status = $3 WHERE organization_id = $1 AND id = $2'), [])
    assert.deepEqual(await unpinned('DELETE FROM contacts WHERE organization_id = $1 AND id = $2'), [])
    assert.deepEqual(await unpinned("INSERT INTO contacts (id, organization_id, name) VALUES ($1, $2, 'A')"), [])
  })

  test('a table left unpinned: by id alone, by an OR, by a list of organizations, by a subquery', async () => {
    assert.deepEqual(await unpinned('SELECT * FROM invoices WHERE id = $1'), ['invoices'])
    assert.deepEqual(await unpinned('UPDATE invoices SET status = $2 WHERE id = $1'), ['invoices'])
    assert.deepEqual(await unpinned('SELECT * FROM invoices WHERE organization_id = $1 OR id = $2'), ['invoices'])
    assert.deepEqual(await unpinned('SELECT * FROM invoices WHERE organization_id = ANY($1::uuid[])'), ['invoices'])
    assert.deepEqual(await unpinned('SELECT * FROM invoices WHERE organization_id = (SELECT organization_id FROM contacts WHERE id = $1)'), ['invoices', 'contacts'])
    assert.deepEqual(await unpinned('SELECT count(*) FROM organizations'), ['organizations'])
  })

  test('joins: pinned through organization_id = organization_id, not through the parent id alone', async () => {
    assert.deepEqual(await unpinned('SELECT i.*, c.name FROM invoices i JOIN contacts c ON c.organization_id = i.organization_id AND c.id = i.contact_id WHERE i.organization_id = $1'), [])
    assert.deepEqual(await unpinned('SELECT i.*, c.name FROM invoices i, contacts c WHERE c.organization_id = i.organization_id AND c.id = i.contact_id AND i.organization_id = $1'), [])
    assert.deepEqual(await unpinned('SELECT i.*, c.name FROM invoices i LEFT JOIN contacts c ON c.id = i.contact_id WHERE i.organization_id = $1'), ['contacts c'])
    assert.deepEqual(await unpinned('SELECT l.* FROM invoice_lines l JOIN invoices i ON i.organization_id = l.organization_id AND i.id = l.invoice_id WHERE i.id = $1'), ['invoice_lines l', 'invoices i'])
  })

  test('subqueries, CTEs and set operations: each names its own organization or takes it from the outer row', async () => {
    assert.deepEqual(await unpinned('SELECT i.*, (SELECT count(*) FROM invoice_lines l WHERE l.organization_id = i.organization_id AND l.invoice_id = i.id) FROM invoices i WHERE i.organization_id = $1'), [])
    assert.deepEqual(await unpinned('SELECT i.*, (SELECT count(*) FROM invoice_lines l WHERE l.invoice_id = i.id) FROM invoices i WHERE i.organization_id = $1'), ['invoice_lines l'])
    assert.deepEqual(await unpinned('SELECT * FROM invoices i WHERE i.organization_id = $1 AND EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id)'), ['invoice_lines l'])
    assert.deepEqual(await unpinned('WITH x AS (SELECT id FROM invoices WHERE organization_id = $1) SELECT * FROM x JOIN contacts c ON c.id = x.id'), ['contacts c'])
    assert.deepEqual(await unpinned('WITH x AS (SELECT id FROM invoices WHERE id = $1) SELECT * FROM x'), ['invoices'])
    assert.deepEqual(await unpinned('SELECT id FROM invoices WHERE organization_id = $1 UNION ALL SELECT id FROM contacts'), ['contacts'])
    assert.deepEqual(await unpinned('SELECT * FROM (SELECT * FROM contacts WHERE organization_id = $1) c'), [])
    assert.deepEqual(await unpinned('INSERT INTO invoice_lines (organization_id, invoice_id) SELECT i.organization_id, i.id FROM invoices i WHERE i.id = $1'), ['invoices i'])
    assert.deepEqual(await unpinned('UPDATE invoice_lines l SET qty = v.q FROM unnest($2::uuid[], $3::int[]) AS v(p, q) WHERE l.organization_id = $1 AND l.product_id = v.p'), [])
  })

  test('a statement across organizations by design says why; DDL is not checked', async () => {
    const sql = 'SELECT id FROM invoices /* across organizations: the overdue job */ WHERE status = $1'
    const r = await checkQueries([sql, 'CREATE TABLE x (id int); SELECT 1', 'SELECT * FROM contacts WHERE id = $1'], distributed)
    assert.equal(r.checked, 2)
    assert.deepEqual(r.across, [{ sql, tables: ['invoices'], why: 'the overdue job' }])
    assert.deepEqual(r.refused, [{ sql: 'SELECT * FROM contacts WHERE id = $1', tables: ['contacts'] }])
  })

  test('a capture folder: the distinct texts of every process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bp-capture-'))
    try {
      writeFileSync(join(dir, '1.sql'), `${JSON.stringify('SELECT 1')}\n${JSON.stringify('SELECT\n2')}\n`)
      writeFileSync(join(dir, '2.sql'), `${JSON.stringify('SELECT 1')}\n`)
      assert.deepEqual([...readCaptured(dir)].sort(), ['SELECT\n2', 'SELECT 1'])
    } finally {
      rmSync(dir, { recursive: true })
    }
  })
})
