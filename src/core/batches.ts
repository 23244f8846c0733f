/**
 * Rows of a query read in keyset batches: each batch is one statement that
 * continues after the last row of the one before (`WHERE (col, id) > (...)`
 * on an index), so a read over millions of rows holds one batch in memory,
 * holds no transaction open, and on PGlite lets other statements run between
 * batches. The streaming exports of the modules (invoices, stock moves,
 * timesheets) read this way for the report runs (docs/analytics.md).
 */
export const EXPORT_BATCH_SIZE = 1000

export async function* keysetBatches<R>(fetch: (after: R | undefined, limit: number) => Promise<R[]>, batchSize = EXPORT_BATCH_SIZE): AsyncGenerator<R> {
  let after: R | undefined
  for (;;) {
    const rows = await fetch(after, batchSize)
    yield* rows
    if (rows.length < batchSize) return
    after = rows[rows.length - 1]
  }
}
