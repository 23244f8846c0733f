import { defineModule } from '../../core/module.ts'
import { reportsRoutes } from './reports.routes.ts'
import { ReportsService } from './reports.service.ts'
import { registerAccountingReports, registerAnalyticsReports, registerRecordExports, registerRowExports } from './report-types.lib.ts'

export type { ReportsService }
export type { ReportColumn, ReportType } from './reports.service.ts'
export { decimalMoney } from './reports.service.ts'
export { ReportRun } from './reports.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    reports: ReportsService
  }
}

/**
 * Report runs (issue 16; docs/analytics.md "Report runs"): POST /reports
 * queues an export, workers of every process run it in the background and
 * store its CSV in the database for 30 days, GET /reports/:id/file serves it.
 *
 * Registering a report type, from another module (which declares
 * `needs: ['reports']`), in its register():
 *
 *   ctx.services.reports.registerType('receivables_aging', {
 *     description: 'open invoices by contact and age; parameters asOf, contactId, currency',
 *     parameters: Type.Object({ asOf: Type.Optional(...), currency: Type.String({ default: 'usd', ... }) }, { additionalProperties: false }),
 *     validate: (p) => { ... throw new ValidationError(...) },       // optional, 422
 *     columns: ['contactId', 'contactName', { key: 'total', money: true }, ...],   // optional
 *     rows: async (q, organizationId, p) => ({ rows: (await report(organizationId, p)).data }),
 *     // or a stream: rows: (q, organizationId, p) => service.exportSomething(organizationId, p)
 *   })
 *
 * `parameters` is checked at POST (422, defaults applied) and the run gets the
 * result; its property names must be among those of ReportParameters
 * (reports.schemas.ts), the closed shape the route accepts: a type taking a
 * new name adds it there; a record id (contactId, vendorId, warehouseId are
 * there) also gets a references entry in reports.fixtures.ts, and validate
 * refuses another organization's id (422) through the owning module's service. `rows` answers an
 * AsyncIterable (or Iterable) of row objects, or a Promise of {columns?, rows};
 * nested objects flatten to camelCase columns, `money` columns (integer cents)
 * are written in decimal major units, columns default to the first row's keys.
 */
export const reportsModule = defineModule({
  name: 'reports',
  needs: ['identity', 'mail', 'contacts', 'products', 'invoices', 'purchase', 'inventory', 'projects', 'analytics', 'accounting'],
  async register(app, ctx) {
    const { identity, mail, contacts, products, invoices, purchase, inventory, projects, analytics, accounting } = ctx.services
    const reports = new ReportsService(ctx.db, { identity, mail }, app.log)
    registerRowExports(reports, { invoices, inventory, projects })
    registerAnalyticsReports(reports, { analytics, contacts, purchase, inventory })
    registerAccountingReports(reports, { accounting })
    registerRecordExports(reports, { contacts, products })
    ctx.worker.add(reports.queue)
    ctx.jobs.register({
      name: 'report-runs',
      description: 'Runs queued report runs (and those whose process died, after their lease); the queue worker of every process does it continuously, woken by NOTIFY',
      intervalMs: 5_000,
      run: (scope) => reports.runDue(scope.organizationId),
    })
    ctx.jobs.register({
      name: 'report-files-cleanup',
      description: 'Deletes the files of report runs past their 30 days (GET file: 410)',
      intervalMs: 60 * 60_000,
      run: (scope) => reports.deleteExpiredFiles(scope.organizationId),
    })
    reportsRoutes(app, reports)
    return reports
  },
})
