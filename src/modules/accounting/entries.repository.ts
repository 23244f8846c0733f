import type { Queryable } from '../../core/db.ts'
import { paginate, Where, type PageParams } from '../../core/pagination.ts'
import type { SourceType } from './accounting.types.ts'

export interface EntryRow {
  id: string
  number: string
  date: string
  currency: string
  memo: string
  source_type: SourceType | null
  source_id: string | null
  reverses_id: string | null
  reverses_number: string | null
  reversed_by_id: string | null
  reversed_by_number: string | null
  created_at: Date
  lines: Array<{ accountId: string; accountCode: string; accountName: string; debit: number; credit: number; description: string | null }>
}

export interface NewEntry {
  id: string
  organizationId: string
  date: string
  year: number
  currency: string
  memo: string
  sourceType: SourceType | null
  sourceId: string | null
  reversesId: string | null
  createdAt: Date
  lines: Array<{ code: string | null; accountId: string | null; debit: number; credit: number; description: string | null }>
}

/** The lines of entry e as the API shows them, in their order. */
const LINES = `COALESCE((SELECT json_agg(json_build_object('accountId', a.id, 'accountCode', a.code, 'accountName', a.name,
    'debit', l.debit, 'credit', l.credit, 'description', l.description) ORDER BY l.line_no)
  FROM journal_lines l JOIN accounts a ON a.id = l.account_id WHERE l.entry_id = e.id), '[]'::json)`

export const ENTRY_COLUMNS = `e.id, e.number, to_char(e.date, 'YYYY-MM-DD') AS date, e.currency, e.memo, e.source_type, e.source_id,
  e.reverses_id, (SELECT number FROM journal_entries WHERE id = e.reverses_id) AS reverses_number,
  (SELECT x.id FROM journal_entries x WHERE x.reverses_id = e.id) AS reversed_by_id,
  (SELECT x.number FROM journal_entries x WHERE x.reverses_id = e.id) AS reversed_by_number, e.created_at, ${LINES} AS lines`

/**
 * FROM clause for ENTRY_COLUMNS: the entries alone (an entry's reversal, at
 * most one by journal_entries_reverses_idx, is read by the columns), so that
 * a list's count reads nothing else.
 */
export const ENTRY_FROM = `journal_entries e`

/** The list's filters as the service checked them (dates parsed, currency lower-case). */
export interface EntryFilters {
  accountId?: string
  sourceType?: SourceType
  sourceId?: string
  currency?: string
  from?: string
  to?: string
}

export const entriesRepository = {
  list<T>(q: Queryable, organizationId: string, f: EntryFilters, page: PageParams, map: (r: EntryRow) => T) {
    const where = new Where().scope('e.organization_id', organizationId)
    // Not correlated, so the planner makes it a semi-join read through journal_lines_account_idx.
    if (f.accountId !== undefined) where.add('e.id IN (SELECT l.entry_id FROM journal_lines l WHERE l.organization_id = ? AND l.account_id = ?)', organizationId, f.accountId)
    where
      .maybe(f.sourceType, 'e.source_type = ?')
      .maybe(f.sourceId, 'e.source_id = ?')
      .maybe(f.currency, 'e.currency = ?')
      .maybe(f.from, 'e.date >= ?::date')
      .maybe(f.to, 'e.date <= ?::date')
    return paginate(q, page, {
      from: ENTRY_FROM,
      select: ENTRY_COLUMNS,
      where,
      sortColumns: { date: 'e.date', createdAt: 'e.created_at' },
      defaultSort: 'date',
      tieBreaker: 'e.id',
      map,
    })
  },

  /**
   * Numbers and inserts an entry and its lines in one statement, unless the
   * organization's lock date is on or after the entry's date: then nothing is
   * written and the answer is `{ locked: true }`. The number comes from the
   * organization's JE sequence of the entry's year, taken first: postings of
   * one organization and year wait for each other there (gapless numbers),
   * and so never lock the daily balance rows in opposite orders. Lines name
   * an account by code or by id, of this organization only; `lines` is how
   * many were written (fewer than given: an unknown account).
   */
  async insert(q: Queryable, e: NewEntry): Promise<{ locked: true } | { locked: false; number: string; lines: number }> {
    const { rows } = await q.query<{ number: string | null; lines: number }>(
      `WITH lock AS (SELECT 1 FROM organizations WHERE id = $1 AND lock_date >= $3::date),
       n AS (
         INSERT INTO sequences AS s (organization_id, name, year, value)
         SELECT $1, 'JE', $2, 1 WHERE NOT EXISTS (SELECT 1 FROM lock)
         ON CONFLICT (organization_id, name, year) DO UPDATE SET value = s.value + 1
         RETURNING value),
       e AS (
         INSERT INTO journal_entries (id, organization_id, number, date, currency, memo, source_type, source_id, reverses_id, created_at)
         SELECT $4, $1, 'JE/' || $2 || '/' || lpad(n.value::text, greatest(5, length(n.value::text)), '0'), $3::date, $5, $6, $7, $8, $9, $10 FROM n
         RETURNING id, number),
       l AS (
         INSERT INTO journal_lines (entry_id, line_no, organization_id, account_id, currency, date, debit, credit, description)
         SELECT e.id, x.ord, $1, a.id, $5, $3::date, x.debit, x.credit, x.description
           FROM e, unnest($11::text[], $12::uuid[], $13::bigint[], $14::bigint[], $15::text[]) WITH ORDINALITY AS x(code, account_id, debit, credit, description, ord)
           JOIN accounts a ON a.organization_id = $1 AND (a.id = x.account_id OR x.account_id IS NULL AND a.code = x.code)
         RETURNING 1)
       SELECT (SELECT number FROM e) AS number, (SELECT count(*) FROM l)::int AS lines`,
      [e.organizationId, e.year, e.date, e.id, e.currency, e.memo, e.sourceType, e.sourceId, e.reversesId, e.createdAt,
        e.lines.map((l) => l.code), e.lines.map((l) => l.accountId), e.lines.map((l) => l.debit), e.lines.map((l) => l.credit), e.lines.map((l) => l.description)],
    )
    const row = rows[0]
    return row.number === null ? { locked: true } : { locked: false, number: row.number, lines: row.lines }
  },

  async find(q: Queryable, organizationId: string, id: string): Promise<EntryRow | undefined> {
    const { rows } = await q.query<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM} WHERE e.organization_id = $1 AND e.id = $2`, [organizationId, id])
    return rows[0]
  },

  /** Which of these sources already have an entry (the history skips them). */
  async postedSources(q: Queryable, organizationId: string): Promise<Set<string>> {
    const { rows } = await q.query<{ k: string }>(
      `SELECT source_type || ':' || source_id AS k FROM journal_entries WHERE organization_id = $1 AND source_id IS NOT NULL`, [organizationId])
    return new Set(rows.map((r) => r.k))
  },

  async createChart(q: Queryable, organizationId: string, chart: ReadonlyArray<{ code: string; name: string; type: string }>) {
    await q.query(
      `INSERT INTO accounts (organization_id, code, name, type, system)
       SELECT $1, c.code, c.name, c.type, true FROM unnest($2::text[], $3::text[], $4::text[]) AS c(code, name, type)
       ON CONFLICT (organization_id, code) DO NOTHING`,
      [organizationId, chart.map((c) => c.code), chart.map((c) => c.name), chart.map((c) => c.type)],
    )
  },

  /** Takes one organization off the pending list; undefined when none is left (or another process holds it). */
  async takePendingHistory(q: Queryable): Promise<string | undefined> {
    const { rows } = await q.query<{ organization_id: string }>(
      `DELETE FROM accounting_history_pending WHERE organization_id = (
         SELECT organization_id FROM accounting_history_pending ORDER BY organization_id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING organization_id`)
    return rows[0]?.organization_id
  },

  async pendingHistory(q: Queryable): Promise<number> {
    const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM accounting_history_pending')
    return rows[0].n
  },
}
