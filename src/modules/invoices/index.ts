import { defineModule } from '../../core/module.ts'
import { invoicesRoutes } from './invoices.routes.ts'
import { InvoicesService } from './invoices.service.ts'
import { invoiceEventTypes } from './invoices.schemas.ts'

export type { InvoicesService, OrderToInvoice } from './invoices.service.ts'
export type { InvoiceExportRow } from './invoices.repository.ts'
export { Invoice } from './invoices.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    invoices: InvoicesService
  }
}

/** Invoices, payments and credit notes (docs/invoicing.md "Fields", docs/invoicing.md "States"). */
export const invoicesModule = defineModule({
  name: 'invoices',
  needs: ['contacts', 'products', 'mail', 'identity', 'accounting'],
  async register(app, ctx) {
    const { contacts, products, mail, identity, accounting } = ctx.services
    const invoices = new InvoicesService(ctx.db, ctx.events, { contacts, products, mail, identity, accounting, cpu: ctx.cpu })
    // Sent invoices, payments and cancellations made before the ledger (docs/accounting.md "History").
    accounting.registerHistory('invoices', (q, organizationId) => invoices.history(q, organizationId))
    ctx.events.declare(invoiceEventTypes)
    ctx.jobs.register({
      name: 'invoices-overdue',
      description: 'Moves sent and partly paid invoices whose due date has passed to overdue',
      intervalMs: 15 * 60_000,
      run: (scope) => invoices.markOverdue(scope.organizationId),
    })
    invoicesRoutes(app, invoices)
    return invoices
  },
})
