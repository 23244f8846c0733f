import type { Queryable } from '../db.ts'

/**
 * A document row by organization and id, optionally locked for a transition.
 * `table` is a constant of the calling repository, never input.
 */
export async function findDocument<Row>(q: Queryable, table: string, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
  const { rows } = await q.query<Row>(`SELECT * FROM ${table} WHERE organization_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`, [organizationId, id])
  return rows[0] as Row | undefined
}
