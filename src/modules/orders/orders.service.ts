import { randomUUID } from 'node:crypto'
import { parseRange, type DayRange } from '../../core/dates.ts'
import type { Db, Queryable } from '../../core/db.ts'
import type { DomainEvent, DomainEvents } from '../../core/events.ts'
import { NotFoundError, StateConflictError } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { nextNumber } from '../../core/sequences.ts'
import type { InvoicesService } from '../invoices/index.ts'
import { ordersRepository as repo, toOrder, type NewOrder } from './orders.repository.ts'
import type { InvoiceOrder, Order, OrderListQuery, OrderStatus, SalesOrderListQuery } from './orders.schemas.ts'
import { normalizeCurrency } from '../../core/money.ts'

/** The order of a deleted draft invoice is confirmed again, and can be invoiced again. */
export const RELEASED: OrderStatus = 'confirmed'

export class OrdersService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly invoices: InvoicesService,
  ) {
    // Deleting an order's draft invoice makes the order invoiceable again, in the same transaction.
    events.within(['invoice.deleted'], (q, e) => this.releaseInvoice(q, e))
  }

  private async releaseInvoice(q: Queryable, event: DomainEvent) {
    const invoice = event.data.object as { id: string; orderId?: string; organizationId?: string }
    if (!invoice.orderId) return
    const organizationId = invoice.organizationId ?? event.organizationId
    if (!organizationId) return
    const row = await repo.releaseInvoice(q, organizationId, invoice.id, RELEASED)
    if (row) await this.emit(q, 'order.updated', toOrder(row))
  }

  private async emit(q: Queryable, type: 'order.created' | 'order.updated', order: Order) {
    await this.events.append(q, { organizationId: order.organizationId, type, resource: { type: 'order', id: order.id }, object: order })
    return order
  }

  /** A confirmed order, numbered SO/<year>/<sequence>, inside the caller's transaction (quotation confirm, checkout). */
  async create(q: Queryable, organizationId: string, order: NewOrder) {
    const reference = await nextNumber(q, organizationId, 'SO')
    return this.emit(q, 'order.created', toOrder(await repo.insert(q, organizationId, randomUUID(), reference, { ...order, currency: normalizeCurrency(order.currency) })))
  }

  /** Billing events cancel or refund the order of a checkout, inside their transaction; 404 when missing. */
  async setStatus(q: Queryable, organizationId: string, id: string, status: 'cancelled' | 'refunded') {
    const row = await repo.setStatus(q, organizationId, id, status)
    if (!row) throw new NotFoundError('Order')
    return this.emit(q, 'order.updated', toOrder(row))
  }

  list(organizationId: string, query: OrderListQuery & PageParams) {
    return repo.list(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  /** GET /sales/orders: the orders confirmed from quotations. */
  listSalesOrders(organizationId: string, query: SalesOrderListQuery & PageParams) {
    const { salesperson, ...rest } = query
    return this.list(organizationId, { ...rest, source: 'sales', salespersonId: salesperson })
  }

  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const row = await repo.find(q, organizationId, id)
    if (!row) throw new NotFoundError('Order')
    return toOrder(row)
  }

  /**
   * A draft invoice with the order's lines. The order row is locked first, so
   * of two concurrent calls the second sees the order invoiced (409).
   */
  invoice(organizationId: string, id: string, input: InvoiceOrder) {
    return this.db.tx(async (q) => {
      const order = await repo.find(q, organizationId, id, { forUpdate: true })
      if (!order) throw new NotFoundError('Order')
      if (order.status === 'invoiced') throw new StateConflictError('Order already invoiced')
      if (order.status !== 'confirmed') throw new StateConflictError(`Order is ${order.status}`)
      if (!order.contact_id) throw new StateConflictError('Order has no customer contact to invoice')
      const invoice = await this.invoices.createFromOrder(q, organizationId, {
        id: order.id,
        contact: { id: order.contact_id, name: order.contact_name ?? '', email: order.contact_email },
        currency: order.currency,
        lines: order.line_items,
        subtotal: order.subtotal,
        taxAmount: order.tax_amount,
        total: order.total,
      }, input)
      await this.emit(q, 'order.updated', toOrder((await repo.setStatus(q, organizationId, id, 'invoiced', invoice.id))!))
      return invoice
    })
  }

  /** The currency most orders of the range use, for reports that do not name one. */
  mainCurrency(organizationId: string, range: DayRange) {
    return repo.mainCurrency(this.db, organizationId, range.from, range.to)
  }

  revenue(organizationId: string, range: DayRange & { unit: 'day' | 'week' | 'month'; currency: string }) {
    return repo.revenue(this.db, organizationId, range)
  }

  /**
   * For the analytics module (GET /analytics/sales): the orders `revenue`
   * counts, grouped by product (of each line), customer or salesperson, net of
   * tax; the first `limit` groups by revenue and the totals over all of them.
   */
  salesBreakdown(organizationId: string, range: DayRange & { currency: string; groupBy: 'product' | 'customer' | 'salesperson'; limit: number }) {
    return repo.salesBreakdown(this.db, organizationId, range)
  }

  bySalesperson(organizationId: string, range: DayRange & { currency: string }) {
    return repo.bySalesperson(this.db, organizationId, range)
  }
}
