import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { ordersRoutes } from './orders.routes.ts'
import { OrdersService } from './orders.service.ts'

declare module '../services.ts' {
  interface Services {
    orders: OrdersService
  }
}

export async function ordersModule(app: App, ctx: ModuleContext) {
  const orders = new OrdersService(ctx.db, ctx.services.invoices)
  ctx.services.orders = orders
  ordersRoutes(app, orders)
}
