import type { TestApp } from './app.ts'

/**
 * The ledger as tests check it, read with SQL (the posting rules' tests state
 * the expected lines by hand; docs/accounting.md "Posting rules").
 */
export interface EntryLines {
  number: string
  date: string
  currency: string
  source: string | null
  /** [account code, debit, credit] in line order. */
  lines: Array<[string, number, number]>
}

/** The entries of one source (`invoice`, id), oldest first. */
export async function entriesOf(t: TestApp, organizationId: string, sourceType: string, sourceId: string): Promise<EntryLines[]> {
  return entriesWhere(t, organizationId, 'e.source_type = $2 AND e.source_id = $3', [sourceType, sourceId])
}

/** Every entry of the organization, oldest first. */
export async function allEntries(t: TestApp, organizationId: string): Promise<EntryLines[]> {
  return entriesWhere(t, organizationId, 'true', [])
}

async function entriesWhere(t: TestApp, organizationId: string, where: string, params: unknown[]): Promise<EntryLines[]> {
  const { rows } = await t.app.ctx.db.query<{ number: string; date: string; currency: string; source: string | null; lines: Array<[string, string, string]> }>(
    `SELECT e.number, to_char(e.date, 'YYYY-MM-DD') AS date, e.currency, e.source_type || ':' || e.source_id AS source,
            (SELECT json_agg(json_build_array(a.code, l.debit, l.credit) ORDER BY l.line_no) FROM journal_lines l JOIN accounts a ON a.id = l.account_id WHERE l.entry_id = e.id) AS lines
       FROM journal_entries e WHERE e.organization_id = $1 AND ${where} ORDER BY e.created_at, e.number`,
    [organizationId, ...params])
  return rows.map((r) => ({ ...r, lines: r.lines.map(([c, d, k]) => [c, Number(d), Number(k)] as [string, number, number]) }))
}

/** Balance (debit - credit) of each account code with lines in the currency, from the lines themselves (not the daily balances). */
export async function balances(t: TestApp, organizationId: string, currency = 'usd'): Promise<Record<string, number>> {
  const { rows } = await t.app.ctx.db.query<{ code: string; balance: string }>(
    `SELECT a.code, sum(l.debit - l.credit) AS balance FROM journal_lines l JOIN accounts a ON a.id = l.account_id
      WHERE l.organization_id = $1 AND l.currency = $2 GROUP BY a.code ORDER BY a.code`, [organizationId, currency])
  return Object.fromEntries(rows.map((r) => [r.code, Number(r.balance)]))
}
