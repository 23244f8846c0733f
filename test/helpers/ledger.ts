import assert from 'node:assert/strict'
import type { Queryable } from '../../src/core/db.ts'
import type { TestApp } from './app.ts'

/**
 * The inventory ledger balances (issue 12), checked by SQL on the test app's
 * database handle, for one organization or all:
 * - every quant equals the done moves into its location minus those out of it,
 *   and no (product, location) with moves lacks a quant;
 * - every quant's reserved equals the reservations of the open (draft or
 *   ready) transfers taking from that location, and never exceeds the
 *   quantity of an internal location, which is never negative;
 * - stock_levels equal the sums of the internal quants of each product;
 * - no open transfer move reserves more than its demand, and done or
 *   cancelled transfers reserve nothing.
 * Fails with the offending rows.
 */
export async function assertLedgerBalances(db: Queryable, organizationId?: string) {
  const org = organizationId ?? null
  const check = async (label: string, sql: string) => {
    const { rows } = await db.query(sql, [org])
    assert.deepEqual(rows, [], `${label}: ${JSON.stringify(rows.slice(0, 5))}`)
  }
  await check('quant = moves in - moves out', `
    WITH flows AS (
      SELECT organization_id, product_id, destination_location_id AS location_id, quantity AS q FROM stock_moves
      UNION ALL
      SELECT organization_id, product_id, source_location_id, -quantity FROM stock_moves),
    sums AS (SELECT organization_id, product_id, location_id, sum(q) AS q FROM flows GROUP BY 1, 2, 3)
    SELECT coalesce(s.organization_id, sq.organization_id) AS org, coalesce(s.product_id, sq.product_id) AS product,
           coalesce(s.location_id, sq.location_id) AS location, s.q AS ledger, sq.quantity AS quant
    FROM sums s FULL JOIN stock_quants sq USING (organization_id, product_id, location_id)
    WHERE ($1::uuid IS NULL OR coalesce(s.organization_id, sq.organization_id) = $1)
      AND coalesce(s.q, 0) <> coalesce(sq.quantity, 0)`)
  await check('quant.reserved = open reservations', `
    WITH res AS (
      SELECT t.organization_id, m.product_id, t.source_location_id AS location_id, sum(m.reserved_qty) AS r
      FROM transfer_moves m JOIN transfers t ON t.id = m.transfer_id
      WHERE t.status IN ('draft', 'ready') GROUP BY 1, 2, 3)
    SELECT sq.organization_id, sq.product_id, sq.location_id, sq.reserved, res.r
    FROM stock_quants sq FULL JOIN res USING (organization_id, product_id, location_id)
    WHERE ($1::uuid IS NULL OR coalesce(sq.organization_id, res.organization_id) = $1)
      AND coalesce(sq.reserved, 0) <> coalesce(res.r, 0)`)
  await check('internal quants: 0 <= reserved <= quantity', `
    SELECT organization_id, product_id, location_id, quantity, reserved FROM stock_quants
    WHERE ($1::uuid IS NULL OR organization_id = $1) AND internal AND (quantity < 0 OR reserved < 0 OR reserved > quantity)`)
  await check('quant.internal = location is internal', `
    SELECT sq.organization_id, sq.product_id, sq.location_id, sq.internal, l.type FROM stock_quants sq
    JOIN locations l ON l.organization_id = sq.organization_id AND l.id = sq.location_id
    WHERE ($1::uuid IS NULL OR sq.organization_id = $1) AND sq.internal <> (l.type = 'internal')`)
  await check('stock_levels = sum of internal quants', `
    WITH sums AS (SELECT organization_id, product_id, sum(quantity) AS on_hand, sum(reserved) AS reserved
                  FROM stock_quants WHERE internal GROUP BY 1, 2)
    SELECT coalesce(s.organization_id, l.organization_id) AS org, coalesce(s.product_id, l.product_id) AS product,
           s.on_hand, l.on_hand AS level_on_hand, s.reserved, l.reserved AS level_reserved
    FROM sums s FULL JOIN stock_levels l USING (organization_id, product_id)
    WHERE ($1::uuid IS NULL OR coalesce(s.organization_id, l.organization_id) = $1)
      AND (coalesce(s.on_hand, 0) <> coalesce(l.on_hand, 0) OR coalesce(s.reserved, 0) <> coalesce(l.reserved, 0))`)
  await check('reservations of closed transfers, or above demand', `
    SELECT t.reference, t.status, m.product_id, m.demand_qty, m.reserved_qty FROM transfer_moves m JOIN transfers t ON t.id = m.transfer_id
    WHERE ($1::uuid IS NULL OR t.organization_id = $1)
      AND (m.reserved_qty > m.demand_qty OR (t.status IN ('done', 'cancelled') AND m.reserved_qty <> 0))`)
}


// The general ledger (issue 27, docs/accounting.md): journal entries as tests check them.

/**
 * The journal as tests check it, read with SQL (the posting rules' tests state
 * the expected lines by hand; docs/accounting.md "Posting rules: invoices and payments" and the rules after it).
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
