import { Type, type Static } from 'typebox'
import { ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import type { ReportColumn, ReportsService, ReportType } from './reports.service.ts'

/** {from, to}: whole UTC days, inclusive; from after to is 422. */
export const DateRangeParameters = Type.Object({
  from: Type.String({ format: 'date', maxLength: 10, description: 'First day (YYYY-MM-DD)' }),
  to: Type.String({ format: 'date', maxLength: 10, description: 'Last day, inclusive (YYYY-MM-DD)' }),
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
