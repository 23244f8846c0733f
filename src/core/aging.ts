/**
 * Age buckets of open amounts by due date (receivables and payables aging,
 * docs/analytics.md), for the modules that own the documents: the caller
 * gives the buckets as day thresholds, the owning module sums its own rows.
 */

const DAY_MS = 24 * 3600 * 1000

/**
 * The due-date cutoffs of day thresholds as of a day: days past due =
 * asOf - due day, and "at least b days past due" is "due before the start of
 * the UTC day asOf - b + 1". Thresholds ascending give cutoffs descending.
 * ageCutoffs('2026-06-30', [1, 31]) = [2026-06-30T00:00Z, 2026-05-31T00:00Z].
 */
export function ageCutoffs(asOf: string, thresholds: readonly number[]): Date[] {
  const start = Date.parse(`${asOf}T00:00:00Z`)
  return thresholds.map((b) => new Date(start - (b - 1) * DAY_MS))
}

/**
 * SQL: n + 1 sums of `amount`, bucketed by `due` against n cutoff parameters
 * given one by one (`['$5', '$6', ...]`, timestamptz, descending), as bigint
 * columns `b0` .. `bn` (0 when none): [due >= c1, c1 > due >= c2, ...,
 * due < cn]. For use in an aggregate query. Scalar parameters and plain
 * columns spare the server an array subscript per row and the client an
 * array to parse.
 */
export function bucketColumns(due: string, amount: string, params: readonly string[]): string {
  const c = (k: number) => `${params[k]}::timestamptz`
  const sums = [`(WHERE ${due} >= ${c(0)})`]
  for (let k = 1; k < params.length; k++) sums.push(`(WHERE ${due} < ${c(k - 1)} AND ${due} >= ${c(k)})`)
  sums.push(`(WHERE ${due} < ${c(params.length - 1)})`)
  return sums.map((where, k) => `coalesce(sum(${amount}) FILTER ${where}, 0)::bigint AS b${k}`).join(', ')
}

/** The amounts of the columns bucketColumns made, in bucket order. */
export function bucketAmounts(row: Record<string, unknown>, n: number): number[] {
  const amounts = new Array<number>(n + 1)
  for (let k = 0; k <= n; k++) amounts[k] = Number(row[`b${k}`])
  return amounts
}
