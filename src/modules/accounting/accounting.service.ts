import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import { PeriodLockedError, ValidationError } from '../../core/errors.ts'
import type { DomainEvents } from '../../core/events.ts'
import { CHART, normalizeLines } from './accounting.lib.ts'
import type { HistoryProvider, Posting } from './accounting.types.ts'
import { entriesRepository as repo, type EntryRow } from './entries.repository.ts'
import { LedgerReportsService } from './ledger-reports.service.ts'
import type { AsOfQuery } from './ledger-reports.schemas.ts'
import type { JournalEntry } from './entries.schemas.ts'

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
   * refusal after the insert must roll it back). Lines of 0 are dropped, and
   * an entry left without lines posts nothing (answers null). Throws
   * PERIOD_LOCKED when the date is on or before the organization's lock date,
   * VALIDATION_FAILED for unbalanced lines or an account the organization
   * does not have. Appends `journal_entry.posted` unless `quiet` (history).
   */
  async post(q: Queryable, organizationId: string, p: Posting, opts: { quiet?: boolean } = {}): Promise<JournalEntry | null> {
    const lines = normalizeLines(p.lines)
    if (lines.length === 0) return null
    const debit = lines.reduce((s, l) => s + l.debit, 0)
    const credit = lines.reduce((s, l) => s + l.credit, 0)
    if (debit !== credit) throw new ValidationError(`The debits (${debit}) do not equal the credits (${credit})`)
    const id = randomUUID()
    const out = await repo.insert(q, {
      id,
      organizationId,
      date: p.date,
      year: Number(p.date.slice(0, 4)),
      currency: p.currency,
      memo: p.memo,
      sourceType: p.source?.type ?? null,
      sourceId: p.source?.id ?? null,
      reversesId: p.reverses ?? null,
      createdAt: new Date(),
      lines: lines.map((l) => ({ code: l.account ?? null, accountId: l.accountId ?? null, debit: l.debit, credit: l.credit, description: l.description ?? null })),
    })
    if (out.locked) throw new PeriodLockedError(p.date)
    if (out.lines !== lines.length) throw new ValidationError('A line names an account this organization does not have')
    const entry = toEntry((await repo.find(q, organizationId, id))!)
    if (!opts.quiet) await this.events.append(q, { organizationId, type: 'journal_entry.posted', resource: { type: 'journal_entry', id }, object: entry })
    return entry
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
        for (const { p } of ordered) {
          if (p.source && posted.has(`${p.source.type}:${p.source.id}`)) continue
          await this.post(q, organizationId, p, { quiet: true })
        }
        return true
      })
      if (!took) return done
      done++
    }
  }
}
