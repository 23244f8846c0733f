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

/** An entry as insertMany wrote it: its number and its lines as the API shows them. */
export interface InsertedEntry {
  id: string
  number: string
  lines: EntryRow['lines']
}

export interface NewEntry {
  id: string
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
  FROM journal_lines l JOIN accounts a ON a.organization_id = l.organization_id AND a.id = l.account_id
  WHERE l.organization_id = e.organization_id AND l.entry_id = e.id), '[]'::json)`

export const ENTRY_COLUMNS = `e.id, e.number, to_char(e.date, 'YYYY-MM-DD') AS date, e.currency, e.memo, e.source_type, e.source_id,
  e.reverses_id, (SELECT r.number FROM journal_entries r WHERE r.organization_id = e.organization_id AND r.id = e.reverses_id) AS reverses_number,
  (SELECT x.id FROM journal_entries x WHERE x.organization_id = e.organization_id AND x.reverses_id = e.id) AS reversed_by_id,
  (SELECT x.number FROM journal_entries x WHERE x.organization_id = e.organization_id AND x.reverses_id = e.id) AS reversed_by_number, e.created_at, ${LINES} AS lines`

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
  /** Text in the number or the memo. */
  search?: string
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
      .search(f.search, ['e.number', 'e.memo'])
    const unfiltered = Object.values(f).every((v) => v === undefined)
    return paginate(q, page, {
      from: ENTRY_FROM,
      select: ENTRY_COLUMNS,
      where,
      sortColumns: { date: 'e.date', createdAt: 'e.created_at' },
      defaultSort: 'date',
      tieBreaker: 'e.id',
      map,
      // Without filters, the entries are as many as the numbers given: gapless per year, never deleted.
      ...(unfiltered ? { total: (t: Queryable) => entriesRepository.numbered(t, organizationId) } : {}),
    })
  },

  /**
   * Numbers and inserts entries and their lines in one statement, unless the
   * organization's lock date is on or after one of their dates: then nothing
   * is written and the answer is `locked`. The numbers come from the
   * organization's JE sequence of each entry's year, in the order given,
   * taken in this same statement: postings of one organization and year wait
   * for each other there until their commit (gapless numbers), so a service
   * posts last in its transaction (docs/decisions/0014-general-ledger.md).
   * The sequence rows are taken before the lines' daily balance rows, so two
   * postings never lock those in opposite orders. A line names an account by
   * code or by id, of this organization only; each entry comes back with its
   * lines as the API shows them (fewer than given: an unknown account).
   */
  async insertMany(q: Queryable, organizationId: string, entries: readonly NewEntry[]): Promise<{ locked: true } | { locked: false; rows: InsertedEntry[] }> {
    const lines = entries.flatMap((e, i) => e.lines.map((l, j) => ({ ...l, entry: i + 1, lineNo: j + 1 })))
    const minDate = entries.reduce((m, e) => (e.date < m ? e.date : m), entries[0].date)
    const { rows } = await q.query<InsertedEntry>(
      `WITH lock AS (SELECT 1 FROM organizations WHERE id = $1 AND lock_date >= $2::date),
       x AS (SELECT * FROM unnest($3::uuid[], $4::int[], $5::date[], $6::text[], $7::text[], $8::text[], $9::text[], $10::uuid[])
               WITH ORDINALITY AS x(id, year, date, currency, memo, source_type, source_id, reverses_id, ord)),
       n AS (
         INSERT INTO sequences AS s (organization_id, name, year, value)
         SELECT $1, 'JE', year, count(*) FROM x WHERE NOT EXISTS (SELECT 1 FROM lock) GROUP BY year ORDER BY year
         ON CONFLICT (organization_id, name, year) DO UPDATE SET value = s.value + EXCLUDED.value
         RETURNING year, value),
       numbered AS (
         SELECT x.*, n.value - count(*) OVER (PARTITION BY x.year) + row_number() OVER (PARTITION BY x.year ORDER BY x.ord) AS v
           FROM x JOIN n ON n.year = x.year),
       e AS (
         INSERT INTO journal_entries (id, organization_id, number, date, currency, memo, source_type, source_id, reverses_id, created_at)
         SELECT id, $1, 'JE/' || year || '/' || lpad(v::text, greatest(5, length(v::text)), '0'), date, currency, memo, source_type, source_id, reverses_id, $11
           FROM numbered ORDER BY ord
         RETURNING id, number),
       l AS (
         INSERT INTO journal_lines (entry_id, line_no, organization_id, account_id, currency, date, debit, credit, description)
         SELECT e.id, li.line_no, $1, a.id, x.currency, x.date, li.debit, li.credit, li.description
           FROM unnest($12::int[], $13::int[], $14::text[], $15::uuid[], $16::bigint[], $17::bigint[], $18::text[])
                  AS li(entry, line_no, code, account_id, debit, credit, description)
           JOIN x ON x.ord = li.entry
           JOIN e ON e.id = x.id
           JOIN accounts a ON a.organization_id = $1 AND (a.id = li.account_id OR li.account_id IS NULL AND a.code = li.code)
         RETURNING entry_id, line_no, account_id, debit, credit, description)
       SELECT e.id, e.number,
              COALESCE((SELECT json_agg(json_build_object('accountId', a.id, 'accountCode', a.code, 'accountName', a.name,
                  'debit', l.debit, 'credit', l.credit, 'description', l.description) ORDER BY l.line_no)
                FROM l JOIN accounts a ON a.organization_id = $1 AND a.id = l.account_id WHERE l.entry_id = e.id), '[]'::json) AS lines
         FROM e`,
      [organizationId, minDate, entries.map((e) => e.id), entries.map((e) => e.year), entries.map((e) => e.date), entries.map((e) => e.currency),
        entries.map((e) => e.memo), entries.map((e) => e.sourceType), entries.map((e) => e.sourceId), entries.map((e) => e.reversesId), entries[0].createdAt,
        lines.map((l) => l.entry), lines.map((l) => l.lineNo), lines.map((l) => l.code), lines.map((l) => l.accountId),
        lines.map((l) => l.debit), lines.map((l) => l.credit), lines.map((l) => l.description)],
    )
    return rows.length === 0 ? { locked: true } : { locked: false, rows }
  },

  /** How many entry numbers the organization was given, over every year (its JE sequences). */
  async numbered(q: Queryable, organizationId: string): Promise<number> {
    const { rows } = await q.query<{ n: number }>(`SELECT coalesce(sum(value), 0)::int AS n FROM sequences WHERE organization_id = $1 AND name = 'JE'`, [organizationId])
    return rows[0].n
  },

  /** The organization's lock date, YYYY-MM-DD or null (for the PERIOD_LOCKED message). */
  async lockDate(q: Queryable, organizationId: string): Promise<string | null> {
    const { rows } = await q.query<{ d: string | null }>(`SELECT to_char(lock_date, 'YYYY-MM-DD') AS d FROM organizations WHERE id = $1`, [organizationId])
    return rows[0]?.d ?? null
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
      `DELETE /* across organizations: a queue's claim of the next pending organization, any one */ FROM accounting_history_pending WHERE organization_id = (
         SELECT organization_id FROM accounting_history_pending ORDER BY organization_id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING organization_id`)
    return rows[0]?.organization_id
  },

  async pendingHistory(q: Queryable): Promise<number> {
    const { rows } = await q.query<{ n: number }>('SELECT /* across organizations: the size of the queue of every pending organization */ count(*)::int AS n FROM accounting_history_pending')
    return rows[0].n
  },
}
