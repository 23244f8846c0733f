import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Import, ImportError, ImportListQuery, ImportMode, ImportResource, ImportStatus } from './imports.schemas.ts'

export interface ImportRow {
  id: string
  organization_id: string
  resource: ImportResource
  mode: ImportMode
  dry_run: boolean
  csv: boolean
  status: ImportStatus
  total_rows: number
  processed_rows: number
  created: number
  updated: number
  errors: ImportError[]
  requested_by: string
  attempts: number
  created_at: Date
  completed_at: Date | null
}

export interface StagedRow {
  row: number
  data: Record<string, unknown>
}

export const toImport = (r: ImportRow): Import => ({
  id: r.id,
  resource: r.resource,
  mode: r.mode,
  dryRun: r.dry_run,
  status: r.status,
  totalRows: r.total_rows,
  processedRows: r.processed_rows,
  created: r.created,
  updated: r.updated,
  errors: typeof r.errors === 'string' ? JSON.parse(r.errors) : r.errors,
  createdAt: iso(r.created_at),
  completedAt: iso(r.completed_at),
})

export const importsRepository = {
  /** Staged rows numbered from `first`, in one statement. */
  async stage(q: Queryable, organizationId: string, importId: string, first: number, rows: ReadonlyArray<Record<string, unknown>>) {
    await q.query(
      `INSERT INTO import_rows (import_id, row, organization_id, data)
       SELECT $1, $2 + x.ord - 1, $4, x.value FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS x(value, ord)`,
      [importId, first, JSON.stringify(rows), organizationId],
    )
  },

  /** Deletes the staged rows of uploads that never became an import (their process died) staged before `olderThanSeconds`; how many. */
  async dropAbandoned(q: Queryable, olderThanSeconds: number, organizationId?: string) {
    // One organization's run pins its rows; the scheduled run sweeps every organization's.
    const { rowCount } = await q.query(
      `DELETE ${organizationId === undefined ? '/* across organizations: the scheduled sweep of abandoned uploads covers every organization */ ' : ''}FROM import_rows r
        WHERE ${organizationId === undefined ? '' : 'r.organization_id = $2 AND '}r.staged_at < now() - make_interval(secs => $1)
          AND NOT EXISTS (SELECT 1 FROM imports i WHERE i.organization_id = r.organization_id AND i.id = r.import_id)`,
      organizationId === undefined ? [olderThanSeconds] : [olderThanSeconds, organizationId],
    )
    return rowCount
  },

  async dropStaged(q: Queryable, organizationId: string, importId: string) {
    await q.query('DELETE FROM import_rows WHERE organization_id = $1 AND import_id = $2', [organizationId, importId])
  },

  /** Staged rows after `after`, in order, at most `limit`. */
  async staged(q: Queryable, organizationId: string, importId: string, after: number, limit: number) {
    const { rows } = await q.query<StagedRow>(
      'SELECT row, data FROM import_rows WHERE organization_id = $4 AND import_id = $1 AND row > $2 ORDER BY row LIMIT $3',
      [importId, after, limit, organizationId],
    )
    return rows
  },

  async insert(q: Queryable, v: { id: string; organizationId: string; resource: ImportResource; mode: ImportMode; dryRun: boolean; csv: boolean; totalRows: number; requestedBy: string }) {
    const { rows } = await q.query<ImportRow>(
      `INSERT INTO imports (id, organization_id, resource, mode, dry_run, csv, total_rows, requested_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [v.id, v.organizationId, v.resource, v.mode, v.dryRun, v.csv, v.totalRows, v.requestedBy],
    )
    return rows[0]
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<ImportRow>('SELECT * FROM imports WHERE organization_id = $1 AND id = $2', [organizationId, id])
    return rows[0]
  },

  list(q: Queryable, organizationId: string, query: ImportListQuery & PageParams) {
    const where = new Where().scope('organization_id', organizationId).counted('status', query.status).counted('resource', query.resource)
    return paginate(q, query, {
      from: 'imports',
      select: '*',
      where,
      sortColumns: { createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      counter: 'imports',
      map: toImport,
    })
  },

  /** Extends the lease of a claim; false when the claim is no longer this one's. */
  async renew(q: Queryable, organizationId: string, id: string, attempt: number, leaseSeconds: number) {
    const { rowCount } = await q.query(
      `UPDATE imports SET locked_until = now() + make_interval(secs => $3) WHERE organization_id = $4 AND id = $1 AND attempts = $2 AND status = 'running'`,
      [id, attempt, leaseSeconds, organizationId],
    )
    return rowCount > 0
  },

  async progress(q: Queryable, organizationId: string, id: string, attempt: number, processed: number) {
    await q.query(
      `UPDATE imports SET processed_rows = $3 WHERE organization_id = $4 AND id = $1 AND attempts = $2 AND status = 'running'`,
      [id, attempt, processed, organizationId],
    )
  },

  /** The end of an import, if this claim still holds it; its staged rows go. */
  async finish(q: Queryable, organizationId: string, id: string, attempt: number, v: { status: 'succeeded' | 'failed'; processed: number; created: number; updated: number; errors: ImportError[] }) {
    const { rows } = await q.query<ImportRow>(
      `UPDATE imports SET status = $3, processed_rows = $4, created = $5, updated = $6, errors = $7, locked_until = NULL, completed_at = now()
        WHERE organization_id = $8 AND id = $1 AND attempts = $2 AND status = 'running' RETURNING *`,
      [id, attempt, v.status, v.processed, v.created, v.updated, JSON.stringify(v.errors), organizationId],
    )
    if (rows[0]) await q.query('DELETE FROM import_rows WHERE organization_id = $1 AND import_id = $2', [organizationId, id])
    return rows[0]
  },

  /** Gives the import back to the queue (this process stops): pending again, this claim not counted. */
  async release(q: Queryable, organizationId: string, id: string, attempt: number) {
    await q.query(
      `UPDATE imports SET status = 'pending', attempts = attempts - 1, locked_until = NULL
        WHERE organization_id = $3 AND id = $1 AND attempts = $2 AND status = 'running'`,
      [id, attempt, organizationId],
    )
  },

  /** Serializes the writes of the imports of one resource of an organization until the transaction ends (their checks of the keys hold). */
  async lockResource(q: Queryable, organizationId: string, resource: ImportResource) {
    await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`imports:${organizationId}:${resource}`])
  },
}
