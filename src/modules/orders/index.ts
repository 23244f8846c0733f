import { defineModule } from '../../core/module.ts'
import { ordersRoutes } from './orders.routes.ts'
import { OrdersService } from './orders.service.ts'
import { orderEventTypes } from './orders.schemas.ts'

export type { OrdersService }
export type { NewOrder } from './orders.repository.ts'
export { Order, OrderList, SalesOrderListQuery } from './orders.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    orders: OrdersService
  }
}

/** Sales orders from confirmed quotations and checkouts, and their invoicing. The workflow example of docs/architecture.md. */
export const ordersModule = defineModule({
  name: 'orders',
  needs: ['invoices'],
  async register(app, ctx) {
    const orders = new OrdersService(ctx.db, ctx.events, ctx.services.invoices)
    ctx.events.declare(orderEventTypes)
    ordersRoutes(app, orders)
    return orders
  },
})
