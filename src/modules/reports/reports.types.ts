import { Type, type Static } from 'typebox'
import { ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import { toCsvRecords, type CsvReport } from '../analytics/index.ts'
import { CurrencyInput } from '../../core/money.ts'
import { StringEnum } from '../../core/schemas.ts'
import { Day } from './reports.schemas.ts'
import type { ReportColumn, ReportsService, ReportType } from './reports.service.ts'

/** {from, to}: whole UTC days, inclusive; from after to is 422. */
export const DateRangeParameters = Type.Object({
  from: Day('First day'),
  to: Day('Last day, inclusive'),
}, { additionalProperties: false })
type DateRange = Static<typeof DateRangeParameters>

const validateRange = (p: DateRange) => {
  if (p.from > p.to) throw new ValidationError('parameters.from must not be after parameters.to')
}

const money = (key: string): ReportColumn => ({ key, money: true })

/** A type of rows dated from..to, read through the owning module's streaming export. */
const rowExport = (description: string, columns: ReadonlyArray<string | ReportColumn>, read: (organizationId: string, range: DateRange) => AsyncIterable<object>): ReportType<DateRange> => ({
  description: `${description}; parameters from, to`,
  parameters: DateRangeParameters,
  validate: validateRange,
  columns,
  rows: (_q, organizationId, p) => read(organizationId, p),
})

/**
 * The row exports this module registers; each reads through the public face
 * of the module that owns the rows (a streaming read in keyset batches).
 */
export function registerRowExports(reports: ReportsService, { invoices, inventory, projects }: Pick<Services, 'invoices' | 'inventory' | 'projects'>) {
  reports.registerType('invoices', rowExport(
    'every invoice dated (invoiceDate) from..to, whatever its status',
    ['id', 'number', 'status', 'contactId', 'contactName', 'contactEmail', 'invoiceDate', 'dueDate', 'currency', money('subtotal'), money('taxAmount'), money('total'), money('amountPaid'), money('amountDue')],
    (organizationId, range) => invoices.exportRows(organizationId, range),
  ))
  reports.registerType('stock_moves', rowExport(
    'every stock move done (doneAt) from..to',
    ['id', 'reference', 'doneAt', 'productId', 'productName', 'productSku', 'quantity', 'sourceLocationId', 'destinationLocationId', 'transferId', 'adjustmentId'],
    (organizationId, range) => inventory.exportMoves(organizationId, range),
  ))
  reports.registerType('timesheets', rowExport(
    'every timesheet entry dated from..to over every project',
    ['id', 'date', 'projectId', 'projectName', 'taskId', 'taskTitle', 'employeeId', 'employeeName', 'hours', 'billable', 'description'],
    (organizationId, range) => projects.exportTimesheets(organizationId, range),
  ))
}


/**
 * A report of the analytics module as a run: the answer of its GET for the
 * parameters (checked by the analytics service itself: 422), written through
 * analytics' own CSV records, so that the file is the GET's `Accept: text/csv`.
 */
function analyticsReport<P>(description: string, parameters: ReturnType<typeof Type.Object>, type: CsvReport['type'], compute: (organizationId: string, p: P) => Promise<CsvReport['answer']>): ReportType<P> {
  return {
    description,
    parameters,
    rows: async (_q, organizationId, p) => {
      const { columns, rows } = toCsvRecords({ type, answer: await compute(organizationId, p) } as CsvReport)
      return { columns, rows: rows.map((r) => Object.fromEntries(columns.map((c, i) => [c, r[i]]))) }
    },
  }
}

/**
 * The four reports of the analytics module (CONTRACT "Analytics and
 * reports"), with the parameters of their GETs but the record filters
 * (contactId, vendorId, warehouseId): those are on the GETs only for now.
 */
export function registerAnalyticsReports(reports: ReportsService, { analytics }: Pick<Services, 'analytics'>) {
  const asOf = Type.Object({ asOf: Type.Optional(Day('The day the figures are as of; default today')), currency: Type.Optional(CurrencyInput) }, { additionalProperties: false })
  reports.registerType('receivables_aging', analyticsReport('open invoices by contact and age as of a day (GET /analytics/receivables/aging); parameters asOf, currency', asOf, 'receivables_aging', (o, p: { asOf?: string; currency?: string }) => analytics.receivablesAging(o, p)))
  reports.registerType('payables_aging', analyticsReport('open vendor bills by vendor and age as of a day (GET /analytics/payables/aging); parameters asOf, currency', asOf, 'payables_aging', (o, p: { asOf?: string; currency?: string }) => analytics.payablesAging(o, p)))
  reports.registerType('stock_valuation', analyticsReport('stock at internal locations valued at cost as of a day (GET /analytics/stock/valuation); parameters asOf, currency', asOf, 'stock_valuation', (o, p: { asOf?: string; currency?: string }) => analytics.stockValuation(o, p)))
  reports.registerType('sales', analyticsReport(
    'revenue by product, customer or salesperson (GET /analytics/sales); parameters from, to, groupBy (required), limit, currency',
    Type.Object({
      from: Type.Optional(Day('First day; default the first day of the month of to')),
      to: Type.Optional(Day('Last day, inclusive; default today')),
      groupBy: StringEnum(['product', 'customer', 'salesperson'] as const),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      currency: Type.Optional(CurrencyInput),
    }, { additionalProperties: false }),
    'sales',
    (o, p: { from?: string; to?: string; groupBy: string; limit?: number; currency?: string }) => analytics.sales(o, p),
  ))
}
