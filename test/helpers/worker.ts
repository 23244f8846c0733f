// The scratch queue of test/worker.test.ts: a table of its own, created by the
// test, declared as a module declares its queue; also run by worker-child.ts
// in a second Node process on the same PostgreSQL database.
import type { FastifyBaseLogger } from 'fastify'
import type { Queryable, Db } from '../../src/core/db.ts'
import { Queue, type QueueSpec } from '../../src/core/worker.ts'

export interface ScratchRow {
  id: number
  grp: string
  attempts: number
}

export const SCRATCH_BACKOFF = { baseSeconds: 30, maxSeconds: 3600 }

export async function createScratchTable(q: Queryable) {
  await q.query(`CREATE TABLE IF NOT EXISTS worker_test_jobs (
    id integer PRIMARY KEY, grp text NOT NULL DEFAULT 'a', status text NOT NULL DEFAULT 'pending',
    attempts integer NOT NULL DEFAULT 0, next_attempt_at timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz, last_error text, done_at timestamptz)`)
  await q.query('CREATE TABLE IF NOT EXISTS worker_test_log (id integer NOT NULL, by text NOT NULL)')
  await q.query('TRUNCATE worker_test_jobs, worker_test_log')
}

/** Rows 1..n, due now. */
export async function addRows(q: Queryable, n: number, from = 1) {
  await q.query(`INSERT INTO worker_test_jobs (id, grp) SELECT g, 'g' || (g % 3) FROM generate_series($1::int, $2::int) g`, [from, from + n - 1])
}

/** The scratch queue; `handle` defaults to logging the row as handled by `by`, then waiting delayMs. */
export function scratchQueue(db: Db, log: FastifyBaseLogger, by: string, over: Partial<QueueSpec<ScratchRow>> = {}, delayMs = 2) {
  return new Queue<ScratchRow>(db, log, {
    name: 'worker-test',
    channel: 'worker_test',
    pollMs: 50,
    table: 'worker_test_jobs',
    key: [{ column: 'id', type: 'integer' }],
    due: `t.status = 'pending' AND t.next_attempt_at <= now()`,
    dueAt: 't.next_attempt_at',
    order: 't.next_attempt_at, t.id',
    leaseSeconds: 60,
    batch: 5,
    concurrency: 5,
    done: `status = 'done', done_at = now()`,
    failed: { retry: `status = 'pending'`, dead: `status = 'dead'`, maxAttempts: 3, backoff: SCRATCH_BACKOFF },
    onStop: 'finish',
    handle: async (row) => {
      await db.query('INSERT INTO worker_test_log (id, by) VALUES ($1, $2)', [row.id, by])
      await new Promise((r) => setTimeout(r, delayMs))
    },
    ...over,
  })
}

/**
 * Pages (shared buffers hit or read) that the claim statement of a pass reads:
 * `pass` runs one pass of a queue built over the Db it is handed, which runs
 * every statement as the real one does except the claim (the first statement
 * with FOR UPDATE SKIP LOCKED): that one is explained with ANALYZE and BUFFERS
 * in a transaction that is rolled back, and answers no rows. Work, not time:
 * a claim that reads every pending row for each candidate shows as pages.
 */
export async function claimPages(db: Db, pass: (spy: Db) => Promise<unknown>): Promise<number> {
  let pages: number | undefined
  const rollback = new Error('rolled back')
  const spy: Db = {
    ...db,
    query: async <T>(sql: string, params?: unknown[]) => {
      if (pages !== undefined || !/FOR UPDATE SKIP LOCKED/.test(sql)) return db.query<T>(sql, params)
      await db.tx(async (q) => {
        const { rows } = await q.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, params)
        const raw = rows[0]['QUERY PLAN']
        const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: Record<string, number> }>
        pages = plan[0].Plan['Shared Hit Blocks'] + plan[0].Plan['Shared Read Blocks']
        throw rollback
      }).catch((err) => {
        if (err !== rollback) throw err
      })
      return { rows: [] as T[], rowCount: 0 }
    },
  }
  await pass(spy)
  if (pages === undefined) throw new Error('the pass sent no claim')
  return pages
}
