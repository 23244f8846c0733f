import { defineModule } from '../../core/module.ts'
import { AccountingService } from './accounting.service.ts'
import { accountingEventTypes } from './entries.schemas.ts'

export type { AccountingService }
export type { Posting, PostingLine, SourceType, HistoryProvider } from './accounting.types.ts'
export { ACCOUNTS } from './accounting.lib.ts'
export { JournalEntry } from './entries.schemas.ts'

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
    // The organizations listed by migrations/0129 get their history before the service answers.
    app.addHook('onReady', async () => {
      await accounting.postHistory()
    })
    return accounting
  },
})
