import type { Queryable } from './db.ts'

/**
 * Set-based writes of many rows (imports, docs/imports.md "Writes"): one
 * statement per call, whatever the number of rows, from a jsonb array
 * (jsonb_to_recordset), never one statement per row. The caller chunks.
 */
export interface BulkColumn {
  column: string
  /** The SQL type of the column (text, uuid, integer, bigint, numeric, boolean, date, timestamptz, jsonb). */
  type: string
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

/** The DEFAULT expressions of a table's NOT NULL columns, read once per table. */
const defaults = new Map<string, Promise<Map<string, string>>>()
function notNullDefaults(q: Queryable, table: string) {
  let found = defaults.get(table)
  if (!found) {
    found = q.query<{ name: string; expr: string }>(
      `SELECT a.attname AS name, pg_get_expr(d.adbin, d.adrelid) AS expr FROM pg_attrdef d
         JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
        WHERE d.adrelid = $1::regclass AND a.attnotnull`, [table],
    ).then((r) => new Map(r.rows.map((c) => [c.name, c.expr])))
    found.catch(() => defaults.delete(table))
    defaults.set(table, found)
  }
  return found
}

/**
 * Inserts rows given by column name; answers the stored rows (RETURNING *).
 * A row without a value for a NOT NULL column that has a DEFAULT gets the
 * default, as a single INSERT leaving the column out does.
 */
export async function bulkInsert<Row>(q: Queryable, table: string, columns: readonly BulkColumn[], rows: ReadonlyArray<Record<string, unknown>>): Promise<Row[]> {
  if (rows.length === 0) return []
  const names = columns.map((c) => quote(c.column)).join(', ')
  const withDefaults = await notNullDefaults(q, table)
  const values = columns.map((c) => (withDefaults.has(c.column) ? `coalesce(x.${quote(c.column)}, ${withDefaults.get(c.column)})` : `x.${quote(c.column)}`))
  const { rows: stored } = await q.query<Row>(
    `INSERT INTO ${quote(table)} (${names}) SELECT ${values.join(', ')} FROM jsonb_to_recordset($1::jsonb) AS x(${columns.map((c) => `${quote(c.column)} ${c.type}`).join(', ')}) RETURNING *`,
    [JSON.stringify(rows)],
  )
  return stored
}

/**
 * PATCH semantics over many rows of one organization: each row's `patch`
 * (API field names) changes only the fields it holds; updated_at is set.
 * Answers the updated rows (RETURNING *).
 */
export async function bulkPatch<Row>(
  q: Queryable, table: string, organizationId: string, fields: Readonly<Record<string, BulkColumn>>,
  patches: ReadonlyArray<{ id: string; patch: Record<string, unknown> }>,
): Promise<Row[]> {
  if (patches.length === 0) return []
  const sets = Object.entries(fields).map(([field, c]) => {
    const lit = `'${field.replace(/'/g, "''")}'`
    // A JSON null is SQL NULL (->> gives it for scalars; jsonb columns say it themselves).
    const value = c.type === 'jsonb' ? `nullif(x.p -> ${lit}, 'null'::jsonb)` : `(x.p ->> ${lit})::${c.type}`
    return `${quote(c.column)} = CASE WHEN x.p ? ${lit} THEN ${value} ELSE t.${quote(c.column)} END`
  })
  const { rows } = await q.query<Row>(
    `UPDATE ${quote(table)} t SET ${sets.join(', ')}, updated_at = now()
       FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, p jsonb)
      WHERE t.organization_id = $1 AND t.id = x.id RETURNING t.*`,
    [organizationId, JSON.stringify(patches.map((p) => ({ id: p.id, p: p.patch })))],
  )
  return rows
}
