import type { Queryable } from './db.ts'

/**
 * Next number of a per-organization, per-year sequence (INV/2026/00001, HD-2026-00001).
 * One atomic upsert: concurrent callers never get the same value.
 */
export async function nextSequence(q: Queryable, organizationId: string, name: string, year = new Date().getUTCFullYear()): Promise<number> {
  const { rows } = await q.query<{ value: number }>(
    `INSERT INTO sequences (organization_id, name, year, value) VALUES ($1, $2, $3, 1)
     ON CONFLICT (organization_id, name, year) DO UPDATE SET value = sequences.value + 1
     RETURNING value`,
    [organizationId, name, year],
  )
  return rows[0].value
}

/** `INV/2026/00001` style: prefix, year and the zero-padded sequence joined by sep. */
export async function nextNumber(q: Queryable, organizationId: string, prefix: string, sep = '/'): Promise<string> {
  const year = new Date().getUTCFullYear()
  const value = await nextSequence(q, organizationId, prefix, year)
  return `${prefix}${sep}${year}${sep}${String(value).padStart(5, '0')}`
}
