import { Type, type Static } from 'typebox'
import { CurrencyInput } from '../../core/money.ts'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'

export const RUN_STATUSES = ['pending', 'running', 'succeeded', 'failed'] as const
export type RunStatus = (typeof RUN_STATUSES)[number]

/** A whole UTC day, YYYY-MM-DD (report parameters). */
export const Day = (description: string) => Type.String({ format: 'date', maxLength: 10, description: `${description} (YYYY-MM-DD, UTC day)` })

/** The id of a record of the organization (a report filter). */
export const RecordId = (description: string) => Type.String({ format: 'uuid', maxLength: 36, description })

/**
 * Every parameter name some report type takes, each bounded. The route checks
 * this closed shape; the service then checks the parameters against the
 * schema the type registered (ReportsService.registerType), so a name another
 * type takes, or a value its schema refuses, is 422 too. A type that needs a
 * new parameter name adds it here (a record id, such as contactId, also
 * needs a `references` entry in reports.fixtures.ts, and the type's
 * `validate` refuses another organization's record with 422, through the
 * owning module's service).
 */
export const ReportParameters = Named('ReportParameters', Type.Object({
  from: Type.Optional(Day('First day')),
  to: Type.Optional(Day('Last day, inclusive')),
  asOf: Type.Optional(Day('The day the figures are as of')),
  currency: Type.Optional(CurrencyInput),
  groupBy: Type.Optional(StringEnum(['product', 'customer', 'salesperson'] as const, { description: 'sales: product, customer or salesperson' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'sales: the number of groups' })),
  contactId: Type.Optional(RecordId('receivables_aging: only this contact (of the organization; 422 otherwise)')),
  vendorId: Type.Optional(RecordId('payables_aging: only this vendor (of the organization; 422 otherwise)')),
  warehouseId: Type.Optional(RecordId('stock_valuation: only the internal locations of this warehouse (of the organization; 422 otherwise)')),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'contacts: name or e-mail contains it; products: name or SKU (as the list\'s search)' })),
  vendor: Type.Optional(Type.Boolean({ description: 'contacts: only vendors (true) or only the others (false)' })),
  contactType: Type.Optional(StringEnum(['company', 'individual'] as const, { description: 'contacts: only this type' })),
  productType: Type.Optional(StringEnum(['storable', 'consumable', 'service'] as const, { description: 'products: only this type' })),
}, { additionalProperties: false, description: 'The parameters of the report type; which ones each type takes is told by POST /reports' }))

export const CreateReportBody = Named('CreateReportRun', Type.Object({
  type: Type.String({ minLength: 1, maxLength: 50, description: 'A report type (see the operation description)', examples: ['invoices'] }),
  parameters: Type.Optional(ReportParameters),
}, { additionalProperties: false }))
export type CreateReport = Static<typeof CreateReportBody>

export const ReportRun = Named('ReportRun', Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String(),
  parameters: Type.Record(Type.String(), Type.Unknown(), { description: 'As given, with the defaults of the type' }),
  status: StringEnum(RUN_STATUSES),
  error: Nullable(Type.String({ description: 'Why a failed run failed' })),
  rows: Nullable(Type.Integer({ description: 'Data lines of the file (the header not counted); null until succeeded' })),
  createdAt: Type.String({ format: 'date-time' }),
  completedAt: Nullable(Type.String({ format: 'date-time' })),
  requestedBy: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }),
  file: Nullable(Type.Object({
    filename: Type.String(),
    size: Type.Integer({ description: 'Bytes' }),
    expiresAt: Type.String({ format: 'date-time', description: 'After this instant the file is deleted (GET file: 410)' }),
  }, { description: 'The CSV of a succeeded run within its 30 days; null otherwise' })),
}))
export type ReportRun = Static<typeof ReportRun>
export const ReportRunList = Named('ReportRunList', listOf(ReportRun))

export const ReportListQuery = listQuery(['createdAt'] as const, {
  status: Type.Optional(StringEnum(RUN_STATUSES)),
  type: Type.Optional(Type.String({ maxLength: 50, description: 'A report type (one POST /reports takes); another: 400' })),
})
export type ReportListQuery = Static<typeof ReportListQuery>

export const CsvFile = {
  description: 'The CSV file: a header row, then one line per row; money in decimal major units',
  content: { 'text/csv': { schema: { type: 'string' } } },
}
