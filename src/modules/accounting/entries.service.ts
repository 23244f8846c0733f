import type { Db } from '../../core/db.ts'
import { NotFoundError, StateConflictError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { utcDay } from '../../core/dates.ts'
import { currencyOf, manualLineProblem, parseDay, reversedLines } from './accounting.lib.ts'
import { toEntry, type AccountingService } from './accounting.service.ts'
import { entriesRepository as repo } from './entries.repository.ts'
import type { CreateEntry, EntryListQuery, JournalEntry, ReverseEntry } from './entries.schemas.ts'

registerUniqueMessage('journal_entries_reverses_idx', 'This entry has already been reversed')

/** Whether an entry may still be reversed: once only (docs/accounting.md "Journal entries"). */
export function canBeReversed(entry: Pick<JournalEntry, 'reversedBy'>): boolean {
  return entry.reversedBy === null
}

/**
 * Journal entries as the API shows them, manual entries and reversals
 * (docs/accounting.md "Journal entries"); both post through
 * `accounting.post` inside one transaction, as every other entry does.
 */
export class EntriesService {
  constructor(
    private readonly db: Db,
    private readonly accounting: AccountingService,
  ) {}

  list(organizationId: string, query: EntryListQuery & PageParams) {
    const from = query.from === undefined ? undefined : parseDay(query.from, 'from')
    const to = query.to === undefined ? undefined : parseDay(query.to, 'to')
    if (from && to && from > to) throw new ValidationError('from must not be after to')
    return repo.list(this.db, organizationId, {
      accountId: query.accountId, sourceType: query.sourceType, sourceId: query.sourceId,
      currency: query.currency === undefined ? undefined : currencyOf(query.currency), from, to, search: query.search || undefined,
    }, query, toEntry)
  }

  async get(organizationId: string, id: string) {
    const row = await repo.find(this.db, organizationId, id)
    if (!row) throw new NotFoundError('Journal entry')
    return toEntry(row)
  }

  /**
   * A manual entry: every line one debit or one credit above 0 (422 naming
   * the line), then `accounting.post` checks the balance, the accounts and
   * the lock date. `source` names the credential that posted it.
   */
  async createManual(organizationId: string, postedBy: string, input: CreateEntry): Promise<JournalEntry> {
    const date = parseDay(input.date, 'date')
    const problems = input.lines.map(manualLineProblem).filter((p): p is string => p !== undefined)
    if (problems.length) throw new ValidationError(problems)
    return this.db.tx(async (q) => (await this.accounting.post(q, organizationId, {
      date,
      currency: currencyOf(input.currency),
      memo: input.memo?.trim() ?? '',
      source: { type: 'manual', id: postedBy },
      lines: input.lines.map((l) => ({ accountId: l.accountId, debit: l.debit ?? 0, credit: l.credit ?? 0, description: l.description ?? null })),
    }))!)
  }

  /**
   * A reversal: the entry's lines with debit and credit swapped, dated `date`
   * (default today), once per entry (409). The original may lie in a locked
   * period; the reversal's own date may not (PERIOD_LOCKED).
   */
  async reverse(organizationId: string, id: string, input: ReverseEntry): Promise<JournalEntry> {
    const date = input.date === undefined ? utcDay() : parseDay(input.date, 'date')
    return this.db.tx(async (q) => {
      const row = await repo.find(q, organizationId, id)
      if (!row) throw new NotFoundError('Journal entry')
      const original = toEntry(row)
      if (!canBeReversed(original)) throw new StateConflictError(`${original.number} has already been reversed by ${original.reversedBy!.number}`)
      return (await this.accounting.post(q, organizationId, {
        date,
        currency: original.currency,
        memo: input.memo?.trim() || `Reversal of ${original.number}`,
        source: { type: 'reversal', id: original.id },
        reverses: original.id,
        lines: reversedLines(original.lines),
      }))!
    })
  }
}
