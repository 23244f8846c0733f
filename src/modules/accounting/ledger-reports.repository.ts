import type { Queryable } from '../../core/db.ts'
import type { AccountType, SourceType } from './accounting.types.ts'

/** One account's sums over a span of days, read from the daily balances. */
export interface AccountSums {
  id: string
  code: string
  name: string
  type: AccountType
  debit: string
  credit: string
}

export interface LedgerLineRow {
  entry_id: string
  number: string
  date: string
  memo: string
  source_type: SourceType | null
  source_id: string | null
  description: string | null
  debit: string
  credit: string
  balance: string
}

export interface ExportLineRow {
  entryId: string
  number: string
  date: string
  currency: string
  memo: string
  sourceType: string | null
  sourceId: string | null
  accountCode: string
  accountName: string
  debit: number
  credit: number
  description: string | null
  key: string
  lineNo: number
}

/**
 * The reports' reads. Sums come from journal_balances (one row per account
 * and day, kept by the statement trigger of migrations/0129), never from a
 * sum over every line: a few thousand rows for years of entries.
 */
export const ledgerReportsRepository = {
  /** Per account with lines in the currency, the sums of the days from..to (from null: since the first). Sorted by code. */
  async sums(q: Queryable, organizationId: string, currency: string, from: string | null, to: string, types: readonly AccountType[] | null): Promise<AccountSums[]> {
    const { rows } = await q.query<AccountSums>(
      `SELECT a.id, a.code, a.name, a.type, s.debit::text AS debit, s.credit::text AS credit
         FROM (SELECT account_id, sum(debit) AS debit, sum(credit) AS credit
                 FROM journal_balances
                WHERE organization_id = $1 AND currency = $2 AND date <= $4::date AND ($3::date IS NULL OR date >= $3::date)
                GROUP BY account_id) s
         JOIN accounts a ON a.organization_id = $1 AND a.id = s.account_id
        WHERE $5::text[] IS NULL OR a.type = ANY ($5::text[])
        ORDER BY a.code`,
      [organizationId, currency, from, to, types],
    )
    return rows
  },

  /** The balance (debit - credit) of the account's lines dated before `before`. */
  async balanceBefore(q: Queryable, organizationId: string, accountId: string, currency: string, before: string): Promise<string> {
    const { rows } = await q.query<{ b: string }>(
      `SELECT coalesce(sum(debit - credit), 0)::text AS b FROM journal_balances
        WHERE organization_id = $1 AND account_id = $2 AND currency = $3 AND date < $4::date`,
      [organizationId, accountId, currency, before],
    )
    return rows[0].b
  },

  async countLines(q: Queryable, organizationId: string, accountId: string, currency: string, from: string | null, to: string | null): Promise<number> {
    const { rows } = await q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM journal_lines
        WHERE organization_id = $1 AND account_id = $2 AND currency = $3
          AND ($4::date IS NULL OR date >= $4::date) AND ($5::date IS NULL OR date <= $5::date)`,
      [organizationId, accountId, currency, from, to],
    )
    return rows[0].n
  },

  /**
   * A page of the account's lines from..to, oldest first (date, then the
   * order entries were posted), each with `opening` plus the running sum of
   * debit - credit over the range up to it.
   */
  async ledgerPage(q: Queryable, organizationId: string, accountId: string, currency: string, from: string | null, to: string | null, opening: string, offset: number, limit: number) {
    const { rows } = await q.query<LedgerLineRow>(
      `SELECT x.* FROM (
         SELECT l.entry_id, e.number, to_char(l.date, 'YYYY-MM-DD') AS date, e.memo, e.source_type, e.source_id, l.description,
                l.debit::text AS debit, l.credit::text AS credit,
                ($6::numeric + sum(l.debit - l.credit) OVER w)::text AS balance,
                row_number() OVER w AS ord
           FROM journal_lines l JOIN journal_entries e ON e.organization_id = l.organization_id AND e.id = l.entry_id
          WHERE l.organization_id = $1 AND l.account_id = $2 AND l.currency = $3
            AND ($4::date IS NULL OR l.date >= $4::date) AND ($5::date IS NULL OR l.date <= $5::date)
         WINDOW w AS (ORDER BY l.date, e.created_at, e.number, l.line_no ROWS UNBOUNDED PRECEDING)) x
       ORDER BY x.ord LIMIT $7 OFFSET $8`,
      [organizationId, accountId, currency, from, to, opening, limit, offset],
    )
    return rows
  },

  /** Journal lines dated from..to, in (date, entry, line) order after `after`: one batch of an export. */
  async exportBatch(q: Queryable, organizationId: string, from: string, to: string, after: ExportLineRow | undefined, limit: number) {
    const { rows } = await q.query<ExportLineRow>(
      `SELECT e.id AS "entryId", e.number, to_char(l.date, 'YYYY-MM-DD') AS date, e.currency, e.memo, e.source_type AS "sourceType", e.source_id AS "sourceId",
              a.code AS "accountCode", a.name AS "accountName", l.debit::float8 AS debit, l.credit::float8 AS credit, l.description,
              l.date::text AS key, l.line_no AS "lineNo"
         FROM journal_lines l JOIN journal_entries e ON e.organization_id = l.organization_id AND e.id = l.entry_id
         JOIN accounts a ON a.organization_id = l.organization_id AND a.id = l.account_id
        WHERE l.organization_id = $1 AND l.date >= $2::date AND l.date <= $3::date
          AND ($4::date IS NULL OR (l.date, l.entry_id, l.line_no) > ($4::date, $5::uuid, $6::int))
        ORDER BY l.date, l.entry_id, l.line_no LIMIT $7`,
      [organizationId, from, to, after?.key ?? null, after?.entryId ?? null, after?.lineNo ?? null, limit],
    )
    return rows
  },
}
