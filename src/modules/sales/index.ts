import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { QuotationsService } from './quotations.service.ts'
import { SalesReportsService } from './reports.service.ts'
import { salesRoutes } from './sales.routes.ts'

declare module '../services.ts' {
  interface Services {
    quotations: QuotationsService
  }
}

export async function salesModule(app: App, ctx: ModuleContext) {
  const { contacts, products, employees, mail, identity, orders } = ctx.services
  const quotations = new QuotationsService(ctx.db, { contacts, products, employees, mail, identity, orders })
  ctx.services.quotations = quotations
  salesRoutes(app, quotations, new SalesReportsService(ctx.db, { orders, employees }), orders)
}
