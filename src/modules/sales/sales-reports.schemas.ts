import { Type, type Static } from 'typebox'
import { Named, StringEnum } from '../../core/schemas.ts'
import { TimestampInput } from '../../core/dates.ts'
import { EmployeeRef } from '../../core/documents/index.ts'
import { CurrencyInput } from '../../core/money.ts'

// Dates (YYYY-MM-DD); a date-time is accepted and read as its UTC day.
const Day = (description: string) => ({ ...TimestampInput, description })
const rangeQuery = {
  from: Type.Optional(Day('First day (YYYY-MM-DD); defaults to 1 January of the year of `to`')),
  to: Type.Optional(Day('Last day, included (YYYY-MM-DD); defaults to today (UTC)')),
  currency: Type.Optional({ ...CurrencyInput, description: 'Only documents in this currency; defaults to the currency most of them use' }),
}

const Period = Named('ReportPeriod', Type.Object({ from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }) }))

export const PipelineQuery = Type.Object(rangeQuery, { additionalProperties: false })
export type PipelineQuery = Static<typeof PipelineQuery>

export const PIPELINE_STAGES = ['draft', 'sent', 'confirmed', 'cancelled'] as const
export const Pipeline = Named('SalesPipeline', Type.Object({
  stages: Type.Array(Type.Object({
    stage: StringEnum(PIPELINE_STAGES, { description: 'Quotation status' }),
    count: Type.Integer(),
    value: Type.Integer({ description: 'Sum of quotation totals, cents' }),
  })),
  totalPipeline: Type.Integer({ description: 'Value of the open stages (draft and sent), cents' }),
  currency: Type.String(),
  period: Period,
}))

export const RevenueQuery = Type.Object(
  { ...rangeQuery, groupBy: StringEnum(['day', 'week', 'month'] as const, { default: 'month', description: 'week periods start on Monday' }) },
  { additionalProperties: false },
)
export type RevenueQuery = Static<typeof RevenueQuery>

export const Revenue = Named('RevenueReport', Type.Object({
  data: Type.Array(Type.Object({
    period: Type.String({ description: 'YYYY-MM-DD for days and weeks (the Monday), YYYY-MM for months' }),
    revenue: Type.Integer({ description: 'Sum of order totals, cents' }),
    orders: Type.Integer(),
  })),
  total: Type.Object({ revenue: Type.Integer(), orders: Type.Integer() }),
  currency: Type.String(),
  groupBy: Type.String(),
  period: Period,
}))

export const TeamQuery = Type.Object(rangeQuery, { additionalProperties: false })
export type TeamQuery = Static<typeof TeamQuery>

export const TeamMember = Named('SalesTeamMember', Type.Object({
  salesperson: EmployeeRef,
  quotations: Type.Integer({ description: 'Quotations created in the period' }),
  quotationsValue: Type.Integer({ description: 'Their total, cents' }),
  quotationsConfirmed: Type.Integer({ description: 'Of those, how many are confirmed' }),
  conversionRate: Type.Number({ description: 'quotationsConfirmed / quotations (0 to 1)' }),
  orders: Type.Integer({ description: 'Orders confirmed in the period (not cancelled or refunded)' }),
  revenue: Type.Integer({ description: 'Their total, cents' }),
}))
export type TeamMember = Static<typeof TeamMember>
export const Team = Named('SalesTeamReport', Type.Object({ data: Type.Array(TeamMember), currency: Type.String(), period: Period }))
