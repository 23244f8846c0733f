import { Type, type Static, type TSchema } from 'typebox'
import { ContactRef } from '../../core/documents/index.ts'
import { CurrencyInput } from '../../core/money.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'

// Query strings. Dates are checked by the routes' preValidation (422, not 400,
// docs/analytics.md "Common rules") before the schema runs, so `format: date`
// here documents them; the service checks everything again for callers that
// are not routes (report runs).

const Day = (description: string) => Type.String({ format: 'date', maxLength: 10, description })
const Currency = { ...CurrencyInput, default: 'usd', description: 'Only documents in this currency (ISO 4217, any case); default usd' }
const Uuid = (description: string) => Type.String({ format: 'uuid', maxLength: 36, description })

export const AgingQuery = Type.Object({
  asOf: Type.Optional(Day('The day (YYYY-MM-DD, UTC) the report is as of, included; default today')),
  contactId: Type.Optional(Uuid('Only this customer (a contact of another organization gives an empty report)')),
  currency: Type.Optional(Currency),
}, { additionalProperties: false })
export type AgingQuery = Static<typeof AgingQuery>

export const PayablesAgingQuery = Type.Object({
  asOf: Type.Optional(Day('The day (YYYY-MM-DD, UTC) the report is as of, included; default today')),
  vendorId: Type.Optional(Uuid('Only this vendor (a vendor of another organization gives an empty report)')),
  currency: Type.Optional(Currency),
}, { additionalProperties: false })
export type PayablesAgingQuery = Static<typeof PayablesAgingQuery>

export const ValuationQuery = Type.Object({
  asOf: Type.Optional(Day('Quantities from the moves done up to the end of this day (YYYY-MM-DD, UTC); default today')),
  warehouseId: Type.Optional(Uuid("Only the internal locations of this warehouse (another organization's warehouse holds nothing)")),
  currency: Type.Optional(Currency),
}, { additionalProperties: false })
export type ValuationQuery = Static<typeof ValuationQuery>

export const GROUP_BY = ['product', 'customer', 'salesperson'] as const
export type SalesGroupBy = (typeof GROUP_BY)[number]

const rangeQuery = {
  from: Type.Optional(Day('First day (YYYY-MM-DD, UTC), included; default the first day of the month of `to`')),
  to: Type.Optional(Day('Last day (YYYY-MM-DD, UTC), included; default today')),
  currency: Type.Optional(Currency),
}

export const SalesQuery = Type.Object({
  ...rangeQuery,
  groupBy: StringEnum(GROUP_BY, { description: 'Required (422 when missing)' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Groups shown (the totals count every group)' })),
}, { additionalProperties: false })
export type SalesQuery = Static<typeof SalesQuery>

export const OverviewQuery = Type.Object(rangeQuery, { additionalProperties: false })
export type OverviewQuery = Static<typeof OverviewQuery>

// Answers.

const Cents = (description: string) => Type.Integer({ description: `${description}, cents` })
const buckets = {
  current: Cents('Open amount not yet due (0 days past due or less)'),
  days1to30: Cents('1 to 30 days past due'),
  days31to60: Cents('31 to 60 days past due'),
  days61to90: Cents('61 to 90 days past due'),
  over90: Cents('More than 90 days past due'),
  total: Cents('Sum of the buckets'),
}

const AgingTotals = Named('AgingTotals', Type.Object({ ...buckets, invoices: Type.Integer({ description: 'Open documents counted' }) }))

export const ReceivablesAgingRow = Named('ReceivablesAgingRow', Type.Object({
  contact: ContactRef,
  ...buckets,
  invoices: Type.Integer({ description: "The contact's invoices with something open as of asOf" }),
}))
export const ReceivablesAging = Named('ReceivablesAging', Type.Object({
  asOf: Type.String({ format: 'date' }),
  currency: Type.String(),
  data: Type.Array(ReceivablesAgingRow, { description: 'Sorted by total descending, then contact name' }),
  totals: AgingTotals,
}))
export type ReceivablesAging = Static<typeof ReceivablesAging>

export const PayablesAgingRow = Named('PayablesAgingRow', Type.Object({
  vendor: ContactRef,
  ...buckets,
  invoices: Type.Integer({ description: "The vendor's bills with an amount due as of asOf" }),
}))
export const PayablesAging = Named('PayablesAging', Type.Object({
  asOf: Type.String({ format: 'date' }),
  currency: Type.String(),
  data: Type.Array(PayablesAgingRow, { description: 'Sorted by total descending, then vendor name' }),
  totals: AgingTotals,
}))
export type PayablesAging = Static<typeof PayablesAging>

export const StockValuationRow = Named('StockValuationRow', Type.Object({
  product: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String(), sku: Nullable(Type.String()) }),
  quantity: Type.Number({ description: 'At the internal locations at the end of asOf' }),
  unitCost: Cents("The product's cost (0 when it has none)"),
  value: Cents('round(quantity x unitCost), half away from zero'),
}))
export const StockValuation = Named('StockValuation', Type.Object({
  asOf: Type.String({ format: 'date' }),
  currency: Type.String(),
  data: Type.Array(StockValuationRow, { description: 'Sorted by value descending, then product name' }),
  totals: Type.Object({ value: Cents('Sum of the values') }),
}))
export type StockValuation = Static<typeof StockValuation>

const Period = Named('AnalyticsPeriod', Type.Object({ from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }) }))

export const SalesBreakdownRow = Named('SalesBreakdownRow', Type.Object({
  key: Type.Object({
    id: Nullable(Type.String({ format: 'uuid', description: 'null for lines without a product, orders without a customer or salesperson' })),
    name: Type.String({ description: 'As on the newest order of the group' }),
  }),
  revenue: Cents('Sum of line totals after discount, before tax'),
  orders: Type.Integer({ description: 'Distinct orders' }),
  quantity: Type.Optional(Type.Number({ description: 'Units sold (product rows only)' })),
}))
export const SalesBreakdown = Named('SalesBreakdown', Type.Object({
  period: Period,
  currency: Type.String(),
  groupBy: StringEnum(GROUP_BY),
  data: Type.Array(SalesBreakdownRow, { description: 'The first `limit` groups by revenue descending, then name' }),
  totals: Type.Object({ revenue: Cents('Over every group'), orders: Type.Integer({ description: 'Over every group' }) }),
}))
export type SalesBreakdown = Static<typeof SalesBreakdown>

export const Overview = Named('AnalyticsOverview', Type.Object({
  period: Period,
  currency: Type.String(),
  sales: Type.Object({
    revenue: Cents('Totals of GET /analytics/sales for the period'),
    orders: Type.Integer(),
    quotations: Type.Integer({ description: 'Quotations created in the period' }),
    conversionRate: Type.Number({ minimum: 0, maximum: 1, description: 'Share of those quotations confirmed (0 without quotations)' }),
  }),
  receivables: Type.Object({ outstanding: Cents('Aging total as of `to`'), overdue: Cents('Outstanding minus current') }),
  payables: Type.Object({ outstanding: Cents('Payables aging total as of `to`') }),
  inventory: Type.Object({
    stockValue: Cents('Valuation total as of `to`'),
    belowReorder: Type.Integer({ description: 'meta.total of GET /inventory/products?belowReorder=true, now' }),
  }),
  manufacturing: Type.Object({
    ordersDone: Type.Integer({ description: 'Production orders that became done in the period' }),
    unitsProduced: Type.Number({ description: 'Quantities produced in the period' }),
  }),
  projects: Type.Object({
    hoursLogged: Type.Number({ description: 'Timesheet hours dated in the period, every project' }),
    billableHours: Type.Number(),
  }),
  helpdesk: Type.Object({
    ticketsCreated: Type.Integer(),
    ticketsClosed: Type.Integer(),
    slaBreachRate: Type.Number({ minimum: 0, maximum: 1 }),
  }),
}))
export type Overview = Static<typeof Overview>

/** The 200 answer of a report route: the JSON report, or with `Accept: text/csv` its CSV. */
export function jsonOrCsv(schema: TSchema) {
  return {
    description: 'The report as JSON, or as CSV when the request says Accept: text/csv',
    content: {
      'application/json': { schema },
      'text/csv': { schema: { type: 'string', description: 'Header row, then one line per row of data; money in decimal major units; a currency column on every line' } },
    },
  }
}
