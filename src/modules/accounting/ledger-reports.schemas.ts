import { Type, type Static, type TSchema } from 'typebox'
import { cursorPagingProperties } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import { AccountRef } from './accounts.schemas.ts'
import { SOURCE_TYPES } from './entries.schemas.ts'

/** Query dates are checked by the service (422 for a malformed one), not by the schema (400). */
const DayQuery = (description: string, example: string) => Type.Optional(Type.String({ maxLength: 10, description: `${description} (YYYY-MM-DD)`, examples: [example] }))
const CurrencyQuery = Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', maxLength: 3, description: 'ISO 4217 code; default usd', examples: ['usd'] }))
const Cents = (description: string) => Type.Integer({ description: `Integer cents: ${description}` })

export const AsOfQuery = Type.Object({
  asOf: DayQuery('The last day counted; default today (UTC)', '2026-03-31'),
  currency: CurrencyQuery,
}, { additionalProperties: false })
export type AsOfQuery = Static<typeof AsOfQuery>

export const PeriodQuery = Type.Object({
  from: DayQuery('First day; default the first day of the month of to', '2026-03-01'),
  to: DayQuery('Last day, inclusive; default the last day of the current month', '2026-03-31'),
  currency: CurrencyQuery,
}, { additionalProperties: false })
export type PeriodQuery = Static<typeof PeriodQuery>

export const TrialBalance = Named('TrialBalance', Type.Object({
  asOf: Type.String({ format: 'date' }),
  currency: Type.String(),
  data: Type.Array(Type.Object({
    account: AccountRef,
    debit: Cents('the debits of the lines dated up to asOf'),
    credit: Cents('the credits of the lines dated up to asOf'),
    balance: Cents('debit - credit'),
  })),
  totals: Type.Object({ debit: Type.Integer(), credit: Type.Integer({ description: 'Always equal to totals.debit' }) }),
}))
export type TrialBalance = Static<typeof TrialBalance>

const AccountAmount = Type.Object({ account: AccountRef, amount: Type.Integer({ description: 'Integer cents' }) })
export type AccountAmount = Static<typeof AccountAmount>

export const ProfitAndLoss = Named('ProfitAndLoss', Type.Object({
  period: Type.Object({ from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }) }),
  currency: Type.String(),
  income: Type.Array(AccountAmount, { description: 'Income accounts: credit - debit over the period' }),
  expenses: Type.Array(AccountAmount, { description: 'Expense accounts: debit - credit over the period' }),
  totals: Type.Object({ income: Type.Integer(), expenses: Type.Integer(), net: Type.Integer({ description: 'income - expenses' }) }),
}))
export type ProfitAndLoss = Static<typeof ProfitAndLoss>

export const BalanceSheet = Named('BalanceSheet', Type.Object({
  asOf: Type.String({ format: 'date' }),
  currency: Type.String(),
  assets: Type.Array(AccountAmount, { description: 'debit - credit' }),
  liabilities: Type.Array(AccountAmount, { description: 'credit - debit' }),
  equity: Type.Array(AccountAmount, { description: 'credit - debit' }),
  totals: Type.Object({
    assets: Type.Integer(),
    liabilities: Type.Integer(),
    equity: Type.Integer(),
    earnings: Type.Integer({ description: 'income - expenses of every line up to asOf (not yet closed to equity)' }),
    liabilitiesAndEquity: Type.Integer({ description: 'liabilities + equity + earnings; always equal to assets' }),
  }),
}))
export type BalanceSheet = Static<typeof BalanceSheet>

export const LedgerQuery = Type.Object({
  ...cursorPagingProperties,
  from: DayQuery('First day; meta.openingBalance is the balance before it', '2026-01-01'),
  to: DayQuery('Last day, inclusive', '2026-12-31'),
  currency: CurrencyQuery,
}, { additionalProperties: false })
export type LedgerQuery = Static<typeof LedgerQuery>

export const LedgerLine = Type.Object({
  entryId: Type.String({ format: 'uuid', maxLength: 36 }),
  number: Type.String(),
  date: Type.String({ format: 'date' }),
  memo: Type.String(),
  source: Nullable(Type.Object({ type: StringEnum(SOURCE_TYPES), id: Type.String() })),
  description: Nullable(Type.String()),
  debit: Type.Integer({ minimum: 0 }),
  credit: Type.Integer({ minimum: 0 }),
  balance: Type.Integer({ description: 'Running balance (debit - credit) from the first line ever of the account, this line included' }),
})
export type LedgerLine = Static<typeof LedgerLine>

export const AccountLedger = Named('AccountLedger', Type.Object({
  data: Type.Array(LedgerLine),
  meta: Type.Object({
    total: Type.Integer(),
    page: Nullable(Type.Integer()),
    limit: Type.Integer(),
    totalPages: Nullable(Type.Integer()),
    nextCursor: Nullable(Type.String()),
    openingBalance: Type.Integer({ description: 'The balance (debit - credit) of the lines dated before from; 0 without from' }),
    account: AccountRef,
    currency: Type.String(),
  }),
}))
export type AccountLedger = Static<typeof AccountLedger>

/** A report's two media types: JSON by its schema, or CSV with Accept: text/csv. */
export function jsonOrCsv(schema: TSchema) {
  return {
    description: 'The report as JSON, or as CSV when the request says Accept: text/csv',
    content: {
      'application/json': { schema },
      'text/csv': { schema: { type: 'string', description: 'Header row, then one line per account; money in decimal major units; a currency column on every line' } },
    },
  }
}
