import { Type, type Static } from 'typebox'
import { ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import { reportParameters, toCsvRecords, type CsvReport } from '../analytics/index.ts'
import { asOfParameters, ledgerCsvRecords } from '../accounting/index.ts'
import { parseRange } from '../../core/dates.ts'
import { CurrencyInput } from '../../core/money.ts'
import { StringEnum } from '../../core/schemas.ts'
import { referenced } from '../../core/documents/index.ts'
import { Day, RecordId } from './reports.schemas.ts'
import type { ReportColumn, ReportsService, ReportType } from './reports.service.ts'

/** {from, to}: whole UTC days, inclusive; from after to is 422. */
export const DateRangeParameters = Type.Object({
  from: Day('First day'),
  to: Day('Last day, inclusive'),
}, { additionalProperties: false })
type DateRange = Static<typeof DateRangeParameters>

/**
 * Runs the check a GET makes of its query on a run's parameters, so that
 * POST /reports refuses what the GET refuses (422), its messages naming
 * `parameters.<field>`.
 */
function asParameters(check: () => unknown) {
  try {
    check()
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err
    throw new ValidationError([err.messages].flat().map((m) => `parameters.${m}`))
  }
}

/** The rule of the listing GETs' from/to filters (core/dates.ts parseRange): from after to is 422. */
const validateRange = (p: DateRange) => asParameters(() => parseRange(p.from, p.to))

const money = (key: string): ReportColumn => ({ key, money: true })
const number = (key: string): ReportColumn => ({ key, number: true })

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
    ['id', 'reference', 'doneAt', 'productId', 'productName', 'productSku', number('quantity'), 'sourceLocationId', 'destinationLocationId', 'transferId', 'adjustmentId'],
    (organizationId, range) => inventory.exportMoves(organizationId, range),
  ))
  reports.registerType('timesheets', rowExport(
    'every timesheet entry dated from..to over every project',
    ['id', 'date', 'projectId', 'projectName', 'taskId', 'taskTitle', 'employeeId', 'employeeName', number('hours'), 'billable', 'description'],
    (organizationId, range) => projects.exportTimesheets(organizationId, range),
  ))
}


/**
 * A report of the analytics module as a run: the answer of its GET for the
 * parameters, written through analytics' own CSV records, so that the file is
 * the GET's `Accept: text/csv`. The parameters are checked at POST with the
 * GET's own rules (analytics' reportParameters: from after to, a day out of
 * range ...: 422), then by `validate` (a record of the organization).
 */
function analyticsReport<P>(description: string, parameters: ReturnType<typeof Type.Object>, type: CsvReport['type'], compute: (organizationId: string, p: P) => Promise<CsvReport['answer']>, validate?: ReportType<P>['validate']): ReportType<P> {
  return {
    description,
    parameters,
    async validate(p, organizationId) {
      asParameters(() => reportParameters[type](p as never))
      await validate?.(p, organizationId)
    },
    rows: async (_q, organizationId, p) => {
      const { columns, rows } = toCsvRecords({ type, answer: await compute(organizationId, p) } as CsvReport)
      return { columns, rows: rows.map((r) => Object.fromEntries(columns.map((c, i) => [c.key, r[i]]))) }
    },
  }
}

const asOfParameter = () => Type.Optional(Day('The day the figures are as of; default today'))

/**
 * The four reports of the analytics module (docs/analytics.md "Types",
 * docs/analytics.md "Common rules"), with the parameters of their GETs, record filters included
 * (contactId, vendorId, warehouseId). A filter is checked at POST against the
 * caller's organization through the service of the module that owns the
 * record: a record of another organization, or of none, is 422 (a bad
 * reference in a body, docs/errors.md), where the GET, whose filter only
 * narrows, answers no rows.
 */
export function registerAnalyticsReports(reports: ReportsService, { analytics, contacts, purchase, inventory }: Pick<Services, 'analytics' | 'contacts' | 'purchase' | 'inventory'>) {
  type Aging = { asOf?: string; currency?: string; contactId?: string }
  reports.registerType('receivables_aging', analyticsReport(
    'open invoices by contact and age as of a day (GET /analytics/receivables/aging); parameters asOf, contactId, currency',
    Type.Object({ asOf: asOfParameter(), contactId: Type.Optional(RecordId('Only this contact')), currency: Type.Optional(CurrencyInput) }, { additionalProperties: false }),
    'receivables_aging',
    (o, p: Aging) => analytics.receivablesAging(o, p),
    async (p, o) => {
      if (p.contactId) await referenced(contacts.get(o, p.contactId), 'parameters.contactId does not name a contact of this organization')
    },
  ))
  type Payables = { asOf?: string; currency?: string; vendorId?: string }
  reports.registerType('payables_aging', analyticsReport(
    'open vendor bills by vendor and age as of a day (GET /analytics/payables/aging); parameters asOf, vendorId, currency',
    Type.Object({ asOf: asOfParameter(), vendorId: Type.Optional(RecordId('Only this vendor')), currency: Type.Optional(CurrencyInput) }, { additionalProperties: false }),
    'payables_aging',
    (o, p: Payables) => analytics.payablesAging(o, p),
    async (p, o) => {
      if (p.vendorId) await purchase.referencedVendor(o, p.vendorId, 'parameters.vendorId')
    },
  ))
  type Valuation = { asOf?: string; currency?: string; warehouseId?: string }
  reports.registerType('stock_valuation', analyticsReport(
    'stock at internal locations valued at cost as of a day (GET /analytics/stock/valuation); parameters asOf, warehouseId, currency',
    Type.Object({ asOf: asOfParameter(), warehouseId: Type.Optional(RecordId('Only the internal locations of this warehouse')), currency: Type.Optional(CurrencyInput) }, { additionalProperties: false }),
    'stock_valuation',
    (o, p: Valuation) => analytics.stockValuation(o, p),
    async (p, o) => {
      if (p.warehouseId) await inventory.referencedWarehouse(o, p.warehouseId, 'parameters.warehouseId')
    },
  ))
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

/**
 * The two report runs of the accounting module
 * (docs/accounting.md "Reports"): every journal line dated from..to, and the trial balance as of
 * a day, written as GET /accounting/trial-balance writes its CSV.
 */
export function registerAccountingReports(reports: ReportsService, { accounting }: Pick<Services, 'accounting'>) {
  reports.registerType('journal_entries', rowExport(
    'every journal line dated from..to, oldest first, with its entry (number, date, currency, memo, source)',
    ['entryId', 'number', 'date', 'currency', 'memo', 'sourceType', 'sourceId', 'accountCode', 'accountName', money('debit'), money('credit'), 'description'],
    (organizationId, range) => accounting.exportLines(organizationId, range),
  ))
  type AsOf = { asOf?: string; currency?: string }
  reports.registerType<AsOf>('trial_balance', {
    description: 'the trial balance as of a day (GET /accounting/trial-balance); parameters asOf, currency',
    parameters: Type.Object({ asOf: asOfParameter(), currency: Type.Optional(CurrencyInput) }, { additionalProperties: false }),
    validate: (p) => asParameters(() => asOfParameters(p)),
    rows: async (_q, organizationId, p) => {
      const { columns, rows } = ledgerCsvRecords({ type: 'trial_balance', answer: await accounting.trialBalance(organizationId, p) })
      return { columns, rows: rows.map((r) => Object.fromEntries(columns.map((c, i) => [c.key, r[i]]))) }
    },
  })
}

/**
 * The lists of the Contacts and Products pages as runs (their Export CSV): every
 * record the list shows with its filters (search, vendor, type), A to Z, read
 * through the owning module's service a page at a time (docs/analytics.md "Types").
 */
export function registerRecordExports(reports: ReportsService, { contacts, products }: Pick<Services, 'contacts' | 'products'>) {
  type ContactFilters = { search?: string; vendor?: boolean; contactType?: 'company' | 'individual' }
  reports.registerType<ContactFilters>('contacts', {
    description: 'the contacts GET /contacts lists, A to Z; parameters search, vendor, contactType',
    parameters: Type.Object({
      search: Type.Optional(Type.String({ maxLength: 200 })),
      vendor: Type.Optional(Type.Boolean()),
      contactType: Type.Optional(StringEnum(['company', 'individual'] as const)),
    }, { additionalProperties: false }),
    columns: ['id', 'name', 'email', 'phone', 'type', 'vendor', 'taxId', 'street', 'city', 'postalCode', 'country', 'paymentTerms', 'currency', number('leadTimeDays'), number('minOrderQty'), 'createdAt'],
    rows: async function* (_q, organizationId, p) {
      for await (const c of contacts.exportRows(organizationId, { search: p.search, vendor: p.vendor, type: p.contactType })) {
        const { address, organizationId: _o, updatedAt: _u, ...rest } = c
        yield { ...rest, street: address?.lines.join(', ') ?? null, city: address?.city ?? null, postalCode: address?.postalCode ?? null, country: address?.country ?? null }
      }
    },
  })
  type ProductFilters = { search?: string; productType?: 'storable' | 'consumable' | 'service' }
  reports.registerType<ProductFilters>('products', {
    description: 'the products GET /products lists, A to Z; parameters search, productType',
    parameters: Type.Object({
      search: Type.Optional(Type.String({ maxLength: 200 })),
      productType: Type.Optional(StringEnum(['storable', 'consumable', 'service'] as const)),
    }, { additionalProperties: false }),
    columns: ['id', 'name', 'sku', 'type', 'currency', money('price'), money('cost'), 'uom', number('reorderPoint'), 'licensed', 'moduleName', 'description', 'createdAt'],
    rows: (_q, organizationId, p) => products.exportRows(organizationId, { search: p.search, type: p.productType }),
  })
}
