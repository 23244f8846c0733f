import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { ReportListQuery, ReportRun, RunStatus } from './reports.schemas.ts'

export interface RunRow {
  id: string
  organization_id: string
  type: string
  parameters: Record<string, unknown>
  status: RunStatus
  error: string | null
  row_count: number | null
  requested_by: string
  requested_by_name: string
  requested_by_email: string
  attempts: number
  filename: string | null
  file_size: number | null
  created_at: Date
  completed_at: Date | null
  expires_at: Date | null
  file_deleted_at: Date | null
  /** expires_at has passed (computed by the database clock). */
  expired: boolean
}

const SELECT = `r.*, coalesce(r.expires_at <= now(), false) AS expired`

export const toRun = (r: RunRow): ReportRun => ({
  id: r.id,
  type: r.type,
  parameters: typeof r.parameters === 'string' ? JSON.parse(r.parameters) : r.parameters,
  status: r.status,
  error: r.error,
  rows: r.row_count,
  createdAt: iso(r.created_at),
  completedAt: iso(r.completed_at),
  requestedBy: { id: r.requested_by, name: r.requested_by_name },
  file:
    r.status === 'succeeded' && !r.expired && !r.file_deleted_at && r.filename !== null
      ? { filename: r.filename, size: r.file_size ?? 0, expiresAt: iso(r.expires_at!) }
      : null,
})

export const reportsRepository = {
  async insert(q: Queryable, v: { id: string; organizationId: string; type: string; parameters: unknown; requestedBy: { id: string; name: string; email: string } }) {
    const { rows } = await q.query<RunRow>(
      `INSERT INTO report_runs (id, organization_id, type, parameters, requested_by, requested_by_name, requested_by_email)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *, false AS expired`,
      [v.id, v.organizationId, v.type, JSON.stringify(v.parameters), v.requestedBy.id, v.requestedBy.name, v.requestedBy.email],
    )
    return rows[0]
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<RunRow>(`SELECT ${SELECT} FROM report_runs r WHERE r.organization_id = $1 AND r.id = $2`, [organizationId, id])
    return rows[0]
  },

  list(q: Queryable, organizationId: string, query: ReportListQuery & PageParams) {
    const where = new Where().scope('r.organization_id', organizationId).counted('r.status', query.status).counted('r.type', query.type)
    return paginate(q, query, {
      from: 'report_runs r',
      select: SELECT,
      where,
      sortColumns: { createdAt: 'r.created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'r.id',
      counter: 'report_runs',
      map: toRun,
    })
  },

  /**
   * Serializes, until the transaction ends, the writers that count an
   * organization's runs before changing them (POST's backlog check, a
   * worker's claim under the running cap), in every process.
   */
  async lockOrganization(q: Queryable, organizationId: string) {
    await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`report_runs:${organizationId}`])
  },

  async pendingCount(q: Queryable, organizationId: string) {
    const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM report_runs WHERE organization_id = $1 AND status = 'pending'`, [organizationId])
    return rows[0].n
  },

  /**
   * The organizations (only `organizationId` when given) with a due run of
   * these types and fewer than `maxRunning` runs running under a live lease,
   * in the order a worker should serve them: fewest running first, then the
   * one whose last run started longest ago (or never), then the oldest due
   * run. A hint read without locks; the claim checks again.
   */
  async dueOrganizations(q: Queryable, types: string[], maxRunning: number, organizationId: string | undefined, limit: number) {
    // One organization's run pins every read to it ($4); the worker's unscoped pass reads every organization's queue (by design).
    const scoped = organizationId !== undefined
    const org = scoped ? '$4' : 'd.organization_id'
    const { rows } = await q.query<{ organization_id: string }>(
      `SELECT ${scoped ? '' : '/* across organizations: the report queue picks the organizations with due runs among all */ '}d.organization_id FROM (
         SELECT organization_id, min(created_at) AS oldest FROM report_runs
          WHERE ${scoped ? 'organization_id = $4 AND ' : ''}(status = 'pending' OR (status = 'running' AND locked_until < now())) AND type = ANY($1::text[])
          GROUP BY organization_id) d
       CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM report_runs r
                            WHERE r.organization_id = ${org} AND r.status = 'running' AND r.locked_until >= now()) running
       CROSS JOIN LATERAL (SELECT max(r.started_at) AS at FROM report_runs r WHERE r.organization_id = ${org}) served
        WHERE running.n < $2
        ORDER BY running.n, served.at NULLS FIRST, d.oldest, d.organization_id
        LIMIT $3`,
      scoped ? [types, maxRunning, limit, organizationId] : [types, maxRunning, limit],
    )
    return rows.map((r) => r.organization_id)
  },

  /**
   * Claims the organization's oldest due run of these types (pending, or
   * running with its lease run out: its worker died) unless `maxRunning` of
   * its runs already run under a live lease. Call it in a transaction that
   * holds lockOrganization: the count and the claim are then one step for
   * every process. SKIP LOCKED lets several processes share the queue; each
   * claim has its own number (attempts).
   */
  async claim(q: Queryable, organizationId: string, types: string[], leaseSeconds: number, maxRunning: number) {
    const { rows } = await q.query<RunRow>(
      `UPDATE report_runs SET status = 'running', attempts = attempts + 1, locked_until = now() + make_interval(secs => $3),
              started_at = coalesce(started_at, now())
        WHERE organization_id = $1 AND id = (SELECT id FROM report_runs
                     WHERE organization_id = $1 AND (status = 'pending' OR (status = 'running' AND locked_until < now())) AND type = ANY($2::text[])
                       AND (SELECT count(*) FROM report_runs WHERE organization_id = $1 AND status = 'running' AND locked_until >= now()) < $4
                     ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *, false AS expired`,
      [organizationId, types, leaseSeconds, maxRunning],
    )
    return rows[0]
  },

  /** Extends the lease of a claim; false when the claim is no longer this one's. */
  async renew(q: Queryable, organizationId: string, id: string, attempt: number, leaseSeconds: number) {
    const { rowCount } = await q.query(
      `UPDATE report_runs SET locked_until = now() + make_interval(secs => $3) WHERE organization_id = $4 AND id = $1 AND attempts = $2 AND status = 'running'`,
      [id, attempt, leaseSeconds, organizationId],
    )
    return rowCount > 0
  },

  async insertChunk(q: Queryable, organizationId: string, id: string, attempt: number, seq: number, data: Buffer) {
    await q.query(
      `INSERT INTO report_file_chunks (organization_id, run_id, attempt, seq, data)
       SELECT r.organization_id, r.id, $2, $3, $4 FROM report_runs r WHERE r.organization_id = $5 AND r.id = $1`,
      [id, attempt, seq, data, organizationId],
    )
  },

  async chunk(q: Queryable, organizationId: string, id: string, attempt: number, seq: number): Promise<Uint8Array | undefined> {
    const { rows } = await q.query<{ data: Uint8Array }>(
      'SELECT data FROM report_file_chunks WHERE organization_id = $4 AND run_id = $1 AND attempt = $2 AND seq = $3',
      [id, attempt, seq, organizationId],
    )
    return rows[0]?.data
  },

  /** Succeeded, if this claim still holds the run; then the chunks of earlier claims go. */
  async succeed(q: Queryable, organizationId: string, id: string, attempt: number, v: { rows: number; filename: string; size: number; keepDays: number }) {
    const { rows } = await q.query<RunRow>(
      `UPDATE report_runs SET status = 'succeeded', row_count = $3, filename = $4, file_size = $5, error = NULL, locked_until = NULL,
              completed_at = now(), expires_at = now() + make_interval(days => $6)
        WHERE organization_id = $7 AND id = $1 AND attempts = $2 AND status = 'running' RETURNING *, false AS expired`,
      [id, attempt, v.rows, v.filename, v.size, v.keepDays, organizationId],
    )
    if (rows[0]) await q.query('DELETE FROM report_file_chunks WHERE organization_id = $3 AND run_id = $1 AND attempt <> $2', [id, attempt, organizationId])
    return rows[0]
  },

  /** Failed, if this claim still holds the run; no chunk is kept. */
  async fail(q: Queryable, organizationId: string, id: string, attempt: number, error: string) {
    const { rows } = await q.query<RunRow>(
      `UPDATE report_runs SET status = 'failed', error = $3, locked_until = NULL, completed_at = now()
        WHERE organization_id = $4 AND id = $1 AND attempts = $2 AND status = 'running' RETURNING *, false AS expired`,
      [id, attempt, error.slice(0, 1000), organizationId],
    )
    if (rows[0]) await q.query('DELETE FROM report_file_chunks WHERE organization_id = $1 AND run_id = $2', [organizationId, id])
    return rows[0]
  },

  /** Gives the run back to the queue (this process stops): pending again, this claim not counted. */
  async release(q: Queryable, organizationId: string, id: string, attempt: number) {
    await q.query(
      `UPDATE report_runs SET status = 'pending', attempts = attempts - 1, locked_until = NULL
        WHERE organization_id = $3 AND id = $1 AND attempts = $2 AND status = 'running'`,
      [id, attempt, organizationId],
    )
  },

  async dropChunks(q: Queryable, organizationId: string, id: string, attempt: number) {
    await q.query('DELETE FROM report_file_chunks WHERE organization_id = $3 AND run_id = $1 AND attempt = $2', [id, attempt, organizationId])
  },

  /** Deletes the files of up to `limit` runs past their expiry (of one organization, or of every one); how many. */
  async deleteExpired(q: Queryable, limit: number, organizationId?: string) {
    // One organization's run pins its runs ($2); the scheduled run sweeps every organization's (by design).
    const { rows } = await q.query<{ id: string; organization_id: string }>(
      organizationId === undefined
        ? `UPDATE /* across organizations: the housekeeping job deletes the expired files of every organization */ report_runs SET file_deleted_at = now()
            WHERE (organization_id, id) IN (SELECT organization_id, id FROM report_runs WHERE expires_at <= now() AND file_deleted_at IS NULL
                          ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING id, organization_id`
        : `UPDATE report_runs SET file_deleted_at = now()
            WHERE organization_id = $2 AND id IN (SELECT id FROM report_runs WHERE organization_id = $2 AND expires_at <= now() AND file_deleted_at IS NULL
                                                   ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING id, organization_id`,
      organizationId === undefined ? [limit] : [limit, organizationId],
    )
    // The runs found name their organizations: their chunks go organization by organization.
    const byOrganization = new Map<string, string[]>()
    for (const r of rows) byOrganization.set(r.organization_id, [...(byOrganization.get(r.organization_id) ?? []), r.id])
    for (const [org, ids] of byOrganization) {
      await q.query('DELETE FROM report_file_chunks WHERE organization_id = $1 AND run_id = ANY($2::uuid[])', [org, ids])
    }
    return rows.length
  },
}
