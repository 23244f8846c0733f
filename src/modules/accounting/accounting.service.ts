import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import { PeriodLockedError, ValidationError } from '../../core/errors.ts'
import type { DomainEvents } from '../../core/events.ts'
import { CHART, normalizeLines } from './accounting.lib.ts'
import type { HistoryProvider, Posting } from './accounting.types.ts'
import { entriesRepository as repo, type EntryRow, type NewEntry } from './entries.repository.ts'
import { LedgerReportsService } from './ledger-reports.service.ts'
import type { AsOfQuery } from './ledger-reports.schemas.ts'
import type { JournalEntry } from './entries.schemas.ts'

/** Entries per statement when the history is posted. */
const HISTORY_BATCH = 500

export function toEntry(r: EntryRow): JournalEntry {
  return {
    id: r.id,
    number: r.number,
    date: r.date,
    currency: r.currency,
    memo: r.memo,
    source: r.source_type && r.source_id !== null ? { type: r.source_type, id: r.source_id } : null,
    lines: r.lines.map((l) => ({ ...l, debit: Number(l.debit), credit: Number(l.credit) })),
    reverses: r.reverses_id && r.reverses_number ? { id: r.reverses_id, number: r.reverses_number } : null,
    reversedBy: r.reversed_by_id && r.reversed_by_number ? { id: r.reversed_by_id, number: r.reversed_by_number } : null,
    createdAt: r.created_at.toISOString(),
  }
}

/**
 * The ledger's public face for the other modules
 * (docs/accounting.md "Posting"): `post` writes one journal entry inside the caller's
 * transaction, so the business change and its entry commit or fail together.
 */
export class AccountingService {
  private readonly history: Array<{ name: string; provide: HistoryProvider }> = []

  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
  ) {
    this.reports = new LedgerReportsService(db)
  }

  /** The reports, for the routes and the report runs (docs/accounting.md "Reports"). */
  readonly reports: LedgerReportsService

  /** The trial balance as GET /accounting/trial-balance answers it (the `trial_balance` report run). */
  trialBalance(organizationId: string, query: AsOfQuery) {
    return this.reports.trialBalance(organizationId, query)
  }

  /** Every journal line dated from..to, oldest first (the `journal_entries` report run). */
  exportLines(organizationId: string, range: { from: string; to: string }) {
    return this.reports.exportLines(organizationId, range)
  }

  /** Made with every organization (ctx.onOrganizationCreated). */
  createChart = async (q: Queryable, organizationId: string) => {
    await repo.createChart(q, organizationId, CHART)
  }

  /**
   * Posts an entry in the caller's transaction `q` (never the Db itself: a
   * refusal after the insert must roll it back); `postAll` for several.
   * Lines of 0 are dropped, and an entry left without lines posts nothing
   * (answers null). Throws PERIOD_LOCKED when the date is on or before the
   * organization's lock date, VALIDATION_FAILED for unbalanced lines or an
   * account the organization does not have. Appends `journal_entry.posted`
   * unless `quiet` (history). Call it last in the transaction: the entry's
   * number keeps the organization's JE sequence row locked until the commit
   * (docs/decisions/0014-general-ledger.md).
   */
  async post(q: Queryable, organizationId: string, p: Posting, opts: { quiet?: boolean } = {}): Promise<JournalEntry | null> {
    return (await this.postAll(q, organizationId, [p], opts))[0] ?? null
  }

  /**
   * Posts several entries in one statement, numbered in the order given (a
   * transfer's moves); answers the entries posted (postings left without
   * lines are skipped), and appends their events in one more statement.
   */
  async postAll(q: Queryable, organizationId: string, postings: readonly Posting[], opts: { quiet?: boolean } = {}): Promise<JournalEntry[]> {
    const createdAt = new Date()
    const entries: NewEntry[] = []
    const posted: Array<{ p: Posting; e: NewEntry }> = []
    for (const p of postings) {
      const lines = normalizeLines(p.lines)
      if (lines.length === 0) continue
      const debit = lines.reduce((s, l) => s + l.debit, 0)
      const credit = lines.reduce((s, l) => s + l.credit, 0)
      if (debit !== credit) throw new ValidationError(`The debits (${debit}) do not equal the credits (${credit})`)
      const e: NewEntry = {
        id: randomUUID(),
        date: p.date,
        year: Number(p.date.slice(0, 4)),
        currency: p.currency,
        memo: p.memo,
        sourceType: p.source?.type ?? null,
        sourceId: p.source?.id ?? null,
        reversesId: p.reverses ?? null,
        createdAt,
        lines: lines.map((l) => ({ code: l.account ?? null, accountId: l.accountId ?? null, debit: l.debit, credit: l.credit, description: l.description ?? null })),
      }
      entries.push(e)
      posted.push({ p, e })
    }
    if (entries.length === 0) return []
    const out = await repo.insertMany(q, organizationId, entries)
    if (out.locked) throw new PeriodLockedError(entries.reduce((m, e) => (e.date < m ? e.date : m), entries[0].date), (await repo.lockDate(q, organizationId)) ?? undefined)
    const byId = new Map(out.rows.map((r) => [r.id, r]))
    const result = posted.map(({ p, e }): JournalEntry => {
      const row = byId.get(e.id)!
      if (row.lines.length !== e.lines.length) throw new ValidationError('A line names an account this organization does not have')
      return {
        id: e.id, number: row.number, date: e.date, currency: e.currency, memo: e.memo, source: p.source,
        lines: row.lines.map((l) => ({ ...l, debit: Number(l.debit), credit: Number(l.credit) })),
        reverses: null, reversedBy: null, createdAt: createdAt.toISOString(),
      }
    })
    // A reversal shows the entry it reverses (read after: its number is the original's).
    for (const r of result) {
      const reverses = posted.find((x) => x.e.id === r.id)!.p.reverses
      if (reverses) r.reverses = toEntry((await repo.find(q, organizationId, r.id))!).reverses
    }
    if (!opts.quiet) {
      await this.events.appendAll(q, result.map((entry) => ({ organizationId, type: 'journal_entry.posted', resource: { type: 'journal_entry', id: entry.id }, object: entry })))
    }
    return result
  }

  /**
   * A module that posts registers, from its register(), how to post the
   * documents an organization had before the ledger existed (migrations/0129
   * lists those organizations); `postHistory` runs them at start.
   */
  registerHistory(name: string, provide: HistoryProvider) {
    this.history.push({ name, provide })
  }

  /**
   * Posts the history of every organization still pending, one transaction
   * each: every provider's postings, oldest date first, skipping a source
   * that already has an entry, without events (they are not news). Safe with
   * several processes: each organization is taken by one of them.
   */
  async postHistory(): Promise<number> {
    let done = 0
    for (;;) {
      const took = await this.db.tx(async (q) => {
        const organizationId = await repo.takePendingHistory(q)
        if (!organizationId) return false
        const posted = await repo.postedSources(q, organizationId)
        const postings: Posting[] = []
        for (const h of this.history) postings.push(...(await h.provide(q, organizationId)))
        // Stable: the providers' order, and each provider's own order, within a day.
        const ordered = postings.map((p, i) => ({ p, i })).sort((a, b) => (a.p.date < b.p.date ? -1 : a.p.date > b.p.date ? 1 : a.i - b.i))
        const todo = ordered.map((x) => x.p).filter((p) => !(p.source && posted.has(`${p.source.type}:${p.source.id}`)))
        for (let i = 0; i < todo.length; i += HISTORY_BATCH) await this.postAll(q, organizationId, todo.slice(i, i + HISTORY_BATCH), { quiet: true })
        return true
      })
      if (!took) return done
      done++
    }
  }
}
