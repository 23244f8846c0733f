import { Type, type Static } from 'typebox'
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
