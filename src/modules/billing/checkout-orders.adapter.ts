import type { Queryable } from '../../core/db.ts'
import type { OrdersService } from '../orders/index.ts'
import type { CheckoutLine } from './processor.types.ts'

export type CheckoutOrderStatus = 'cancelled' | 'refunded'

/** What billing needs of the orders module: an order per completed checkout, and its later status. */
export interface CheckoutOrders {
  create(q: Queryable, organizationId: string, lines: CheckoutLine[], buyer: { name: string; email: string }): Promise<{ id: string; reference: string }>
  setStatus(q: Queryable, organizationId: string, orderId: string, status: CheckoutOrderStatus): Promise<void>
}

/** Checkout orders as orders of the orders module (source `checkout`, numbered SO/<year>/<seq>). */
export function checkoutOrders(orders: OrdersService): CheckoutOrders {
  return {
    async create(q, organizationId, lines, _buyer) {
      const priced = lines.map((l) => ({
        productId: l.productId,
        productName: l.name,
        description: l.name,
        quantity: l.quantity,
        unitPrice: l.unitAmount,
        discount: 0,
        taxRate: null,
        total: l.quantity * l.unitAmount,
      }))
      const total = priced.reduce((sum, l) => sum + l.total, 0)
      const order = await orders.create(q, organizationId, {
        source: 'checkout',
        quotationId: null,
        contact: null,
        salesperson: null,
        currency: lines[0]?.currency ?? 'usd',
        lines: priced,
        subtotal: total,
        taxAmount: 0,
        total,
      })
      return { id: order.id, reference: order.reference }
    },
    async setStatus(q, organizationId, orderId, status) {
      await orders.setStatus(q, organizationId, orderId, status)
    },
  }
}
