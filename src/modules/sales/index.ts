import { defineModule } from '../../core/module.ts'
import { QuotationsService } from './quotations.service.ts'
import { SalesReportsService } from './sales-reports.service.ts'
import { salesRoutes } from './sales.routes.ts'
import { quotationEventTypes } from './quotations.schemas.ts'

export type { QuotationsService }

declare module '../../core/module.ts' {
  interface Services {
    sales: QuotationsService
  }
}

/** Quotations, their confirmation into orders, and the sales reports (docs/sales.md "Quotation states", docs/sales.md "Reports"). */
export const salesModule = defineModule({
  name: 'sales',
  needs: ['contacts', 'products', 'employees', 'mail', 'identity', 'orders'],
  async register(app, ctx) {
    const { contacts, products, employees, mail, identity, orders } = ctx.services
    const quotations = new QuotationsService(ctx.db, ctx.events, { contacts, products, employees, mail, identity, orders, cpu: ctx.cpu })
    ctx.events.declare(quotationEventTypes)
    salesRoutes(app, quotations, new SalesReportsService(ctx.db, { orders, employees }), orders)
    return quotations
  },
})
