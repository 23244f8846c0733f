import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Db } from './db.ts'

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url))
// Any fixed number shared by every process of this service.
const MIGRATION_LOCK = 72_461_903

/**
 * Applies migrations/*.sql in name order, each once and in its own transaction.
 * The advisory lock makes a second process that starts at the same moment wait
 * and then find nothing left to do.
 */
export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort()
  return db.withLock(MIGRATION_LOCK, async (q) => {
    await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
    const done = new Set((await q.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name))
    const applied: string[] = []
    for (const file of files) {
      if (done.has(file)) continue
      const sql = await readFile(dir + file, 'utf8')
      await q.query('BEGIN')
      try {
        await q.query(sql)
        await q.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file])
        await q.query('COMMIT')
      } catch (err) {
        await q.query('ROLLBACK')
        throw new Error(`Migration ${file} failed: ${(err as Error).message}`)
      }
      applied.push(file)
    }
    return applied
  })
}
