import { defineModule } from '../../core/module.ts'
import { AccountingService } from './accounting.service.ts'
import { accountingEventTypes } from './entries.schemas.ts'
import { accountsRoutes } from './accounts.routes.ts'
import { AccountsService } from './accounts.service.ts'
import { entriesRoutes } from './entries.routes.ts'
import { EntriesService } from './entries.service.ts'
import { ledgerReportsRoutes } from './ledger-reports.routes.ts'

export type { AccountingService }
export type { Posting, PostingLine, SourceType, HistoryProvider } from './accounting.types.ts'
export { ACCOUNTS } from './accounting.lib.ts'
export { JournalEntry } from './entries.schemas.ts'
export { ledgerCsvRecords } from './ledger-reports.csv.ts'
export { asOfParameters } from './ledger-reports.service.ts'

declare module '../../core/module.ts' {
  interface Services {
    accounting: AccountingService
  }
}

/**
 * Accounting: the general ledger under every money and stock movement
 * (docs/accounting.md). The invoices, purchase and inventory services post
 * their entries through `accounting.post` inside their own transactions.
 */
export const accountingModule = defineModule({
  name: 'accounting',
  needs: [],
  async register(app, ctx) {
    const accounting = new AccountingService(ctx.db, ctx.events)
    ctx.events.declare(accountingEventTypes)
    ctx.onOrganizationCreated.push(accounting.createChart)
    accountsRoutes(app, new AccountsService(ctx.db))
    entriesRoutes(app, new EntriesService(ctx.db, accounting))
    ledgerReportsRoutes(app, accounting.reports)
    // The organizations listed by migrations/0129 get their history before the service answers.
    app.addHook('onReady', async () => {
      await accounting.postHistory()
    })
    return accounting
  },
})
