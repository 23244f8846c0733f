import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import type { PublicEventType } from '../../core/events.ts'

export const SOURCE_TYPES = ['invoice', 'invoice_payment', 'invoice_cancellation', 'vendor_bill', 'bill_payment', 'stock_move', 'revaluation', 'manual', 'reversal'] as const

const Uuid = Type.String({ format: 'uuid', maxLength: 36 })
const EntryRef = Type.Object({ id: Uuid, number: Type.String({ description: 'JE/<year>/<5 digits>' }) })

export const JournalLine = Type.Object({
  accountId: Uuid,
  accountCode: Type.String(),
  accountName: Type.String(),
  debit: Type.Integer({ minimum: 0, description: 'Cents; exactly one of debit and credit is above 0' }),
  credit: Type.Integer({ minimum: 0, description: 'Cents' }),
  description: Nullable(Type.String()),
})

export const JournalEntry = Named('JournalEntry', Type.Object({
  id: Uuid,
  number: Type.String({ description: 'JE/<year>/<5 digits>, per organization and year of the entry\'s date' }),
  date: Type.String({ format: 'date' }),
  currency: Type.String(),
  memo: Type.String(),
  source: Nullable(Type.Object({ type: StringEnum(SOURCE_TYPES), id: Type.String() })),
  lines: Type.Array(JournalLine),
  reverses: Nullable(EntryRef),
  reversedBy: Nullable(EntryRef),
  createdAt: Type.String({ format: 'date-time' }),
}))
export type JournalEntry = Static<typeof JournalEntry>

export const accountingEventTypes: PublicEventType[] = [
  { type: 'journal_entry.posted', description: 'A journal entry was posted: by a business change (invoice, payment, bill, stock move, revaluation), by hand, or as a reversal', object: JournalEntry, version: 1 },
]

const Day = (description: string) => Type.String({ format: 'date', maxLength: 10, description: `${description} (YYYY-MM-DD)`, examples: ['2026-03-31'] })
const Currency = Type.String({ pattern: '^[A-Za-z]{3}$', maxLength: 3, description: 'ISO 4217 code; stored lower-case', examples: ['usd'] })
/** Cents: a whole number from 0 to 10^12 (ten billion in major units). */
const Cents = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Integer cents, 0 to 10^12', examples: [150000] })

export const ManualLine = Type.Object({
  accountId: Type.String({ format: 'uuid', maxLength: 36, description: 'An account of the chart (GET /accounting/accounts)' }),
  debit: Type.Optional(Cents),
  credit: Type.Optional(Cents),
  description: Type.Optional(Type.String({ maxLength: 500, examples: ['March rent'] })),
}, { additionalProperties: false })

export const CreateEntryBody = Type.Object({
  date: Day('The entry\'s date; on or before the lock date is 422 PERIOD_LOCKED'),
  currency: Type.Optional(Currency),
  memo: Type.Optional(Type.String({ maxLength: 500, examples: ['Office rent, March'] })),
  lines: Type.Array(ManualLine, { minItems: 2, maxItems: 100, description: '2 to 100 lines; on each exactly one of debit and credit above 0; the debits equal the credits' }),
}, { additionalProperties: false })
export type CreateEntry = Static<typeof CreateEntryBody>

export const ReverseEntryBody = Type.Object({
  date: Type.Optional(Day('The reversal\'s date; default today (UTC)')),
  memo: Type.Optional(Type.String({ maxLength: 500, examples: ['Posted twice by mistake'] })),
}, { additionalProperties: false })
export type ReverseEntry = Static<typeof ReverseEntryBody>

export const ENTRY_SORTABLE = ['date', 'createdAt'] as const
export const EntryListQuery = listQuery(ENTRY_SORTABLE, {
  accountId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36, description: 'Entries with a line on this account' })),
  sourceType: Type.Optional(StringEnum(SOURCE_TYPES)),
  sourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The id of the document (with sourceType: the entries of one document)' })),
  currency: Type.Optional(Currency),
  from: Type.Optional(Type.String({ maxLength: 10, description: 'First day (YYYY-MM-DD); a malformed date is 422', examples: ['2026-01-01'] })),
  to: Type.Optional(Type.String({ maxLength: 10, description: 'Last day, inclusive (YYYY-MM-DD)', examples: ['2026-12-31'] })),
})
export type EntryListQuery = Static<typeof EntryListQuery>
export const JournalEntryList = Named('JournalEntryList', listOf(JournalEntry))
