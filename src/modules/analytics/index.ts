import { defineModule } from '../../core/module.ts'
import { analyticsRoutes } from './analytics.routes.ts'
import { AnalyticsService } from './analytics.service.ts'

/**
 * The public face of analytics, for report runs (module `reports`) and others:
 *
 * - `Services['analytics']` is an AnalyticsService whose methods answer
 *   exactly what the GETs answer, with the GET's query parameters as given
 *   (strings; every one checked, ValidationError (422) when bad):
 *     receivablesAging(orgId, { asOf?, contactId?, currency? })  -> ReceivablesAging
 *     payablesAging(orgId, { asOf?, vendorId?, currency? })      -> PayablesAging
 *     stockValuation(orgId, { asOf?, warehouseId?, currency? })  -> StockValuation
 *     sales(orgId, { from?, to?, groupBy, limit?, currency? })   -> SalesBreakdown
 *     overview(orgId, { from?, to?, currency? })                 -> Overview
 * - `reportParameters[type](params)` (pure) checks the parameters of one of
 *   the first four as its GET does (ValidationError, 422) and answers them
 *   with their defaults; report runs check theirs with it at POST.
 * - `toCsvRecords({ type, answer })` (pure) turns one of the first four answers
 *   into `{ columns, rows }`, type being the report-run type
 *   (receivables_aging, payables_aging, stock_valuation, sales); columns are
 *   the kernel's CsvColumn (`number: true` on money, counts and quantities),
 *   money cells are decimal strings ("1234.50"), the last column is currency.
 *   `toCsv` writes them with the kernel's CSV writer (src/core/csv.ts).
 */
export type { AnalyticsService }
export { reportParameters } from './analytics.service.ts'
export type { AgingParams, PayablesAgingParams, ValuationParams, SalesParams, OverviewParams } from './analytics.service.ts'
export type { ReceivablesAging, PayablesAging, StockValuation, SalesBreakdown, Overview } from './analytics.schemas.ts'
export { toCsvRecords, toCsv, majorUnits, type CsvReport, type CsvRecords, type CsvCell } from './analytics.csv.ts'

declare module '../../core/module.ts' {
  interface Services {
    analytics: AnalyticsService
  }
}

/** Analytics (docs/analytics.md "Common rules"): aging, stock valuation, sales breakdown, overview. */
export const analyticsModule = defineModule({
  name: 'analytics',
  needs: ['invoices', 'purchase', 'inventory', 'orders', 'sales', 'manufacturing', 'projects', 'helpdesk'],
  async register(app, ctx) {
    const { invoices, purchase, inventory, orders, sales, manufacturing, projects, helpdesk } = ctx.services
    const analytics = new AnalyticsService({ invoices, purchase, inventory, orders, sales, manufacturing, projects, helpdesk })
    analyticsRoutes(app, analytics)
    return analytics
  },
})
