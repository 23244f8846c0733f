import type { Queryable } from '../../core/db.ts'

/**
 * SQL shared by the document tables (quotations, orders, invoices): each is
 * read by organization and id, optionally locking the row for a transition.
 */
export async function findDocument<Row>(q: Queryable, table: 'quotations' | 'orders' | 'invoices', organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  const { rows } = await q.query<Row>(`SELECT * FROM ${table} WHERE organization_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`, [organizationId, id])
  return rows[0] as Row | undefined
}

/** column within the whole UTC days from $a to $b (dates), whatever the session time zone. */
export const inDays = (column: string, a: string, b: string) =>
  `${column} >= (${a}::date)::timestamp AT TIME ZONE 'UTC' AND ${column} < (${b}::date + 1)::timestamp AT TIME ZONE 'UTC'`
