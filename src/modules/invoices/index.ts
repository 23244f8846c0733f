import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { invoicesRoutes } from './invoices.routes.ts'
import { InvoicesService } from './invoices.service.ts'

declare module '../services.ts' {
  interface Services {
    invoices: InvoicesService
  }
}

export async function invoicesModule(app: App, ctx: ModuleContext) {
  const { contacts, products, mail, identity } = ctx.services
  const invoices = new InvoicesService(ctx.db, { contacts, products, mail, identity })
  ctx.services.invoices = invoices
  ctx.jobs.register({
    name: 'invoices-overdue',
    description: 'Moves sent and partly paid invoices whose due date has passed to overdue',
    intervalMs: 15 * 60_000,
    run: () => invoices.markOverdue(),
  })
  invoicesRoutes(app, invoices)
}
