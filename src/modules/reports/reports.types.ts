import { Type, type Static } from 'typebox'
import { ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import type { ReportColumn, ReportsService } from './reports.service.ts'

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

/**
 * The row exports this module registers; each reads through the public face
 * of the module that owns the rows (a streaming read in keyset batches).
 */
export function registerRowExports(reports: ReportsService, services: Pick<Services, 'invoices' | 'inventory' | 'projects'>) {
  reports.registerType<DateRange>('invoices', {
    description: 'every invoice dated (invoiceDate) from..to, whatever its status; parameters from, to',
    parameters: DateRangeParameters,
    validate: validateRange,
    columns: ['id', 'number', 'status', 'contactId', 'contactName', 'contactEmail', 'invoiceDate', 'dueDate', 'currency', money('subtotal'), money('taxAmount'), money('total'), money('amountPaid'), money('amountDue')],
    rows: (_q, organizationId, p) => services.invoices.exportRows(organizationId, p),
  })
  reports.registerType<DateRange>('stock_moves', {
    description: 'every stock move done (doneAt) from..to; parameters from, to',
    parameters: DateRangeParameters,
    validate: validateRange,
    columns: ['id', 'reference', 'doneAt', 'productId', 'productName', 'productSku', 'quantity', 'sourceLocationId', 'destinationLocationId', 'transferId', 'adjustmentId'],
    rows: (_q, organizationId, p) => services.inventory.exportMoves(organizationId, p),
  })
  reports.registerType<DateRange>('timesheets', {
    description: 'every timesheet entry dated from..to over every project; parameters from, to',
    parameters: DateRangeParameters,
    validate: validateRange,
    columns: ['id', 'date', 'projectId', 'projectName', 'taskId', 'taskTitle', 'employeeId', 'employeeName', 'hours', 'billable', 'description'],
    rows: (_q, organizationId, p) => services.projects.exportTimesheets(organizationId, p),
  })
}
