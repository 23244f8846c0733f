import { SalesLine } from '../../core/documents/index.ts'
import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, StringEnum } from '../../core/schemas.ts'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { ContactRef, EmployeeRef } from '../../core/documents/index.ts'
import { Nullable } from '../../core/schemas.ts'
import type { PublicEventType } from '../../core/events.ts'

export const ORDER_STATUSES = ['confirmed', 'invoiced', 'cancelled', 'refunded'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]
export const ORDER_SOURCES = ['sales', 'checkout'] as const
export type OrderSource = (typeof ORDER_SOURCES)[number]

export const Order = Named('Order', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  reference: Type.String({ description: 'SO/<year>/<sequence>' }),
  status: StringEnum(ORDER_STATUSES),
  source: StringEnum(ORDER_SOURCES, { description: 'sales: confirmed from a quotation; checkout: bought through billing' }),
  quotationId: Nullable(Type.String({ format: 'uuid', maxLength: 36 })),
  contact: Nullable(ContactRef),
  salesperson: Nullable(EmployeeRef),
  lineItems: Type.Array(SalesLine),
  subtotal: Type.Integer(),
  taxAmount: Type.Integer(),
  total: Type.Integer(),
  currency: Type.String(),
  invoiceId: Nullable(Type.String({ format: 'uuid', maxLength: 36 })),
  confirmedAt: Timestamp,
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Order = Static<typeof Order>

export const ORDER_SORTABLE = ['total', 'status', 'createdAt', 'updatedAt'] as const
const orderFilters = {
  status: Type.Optional(StringEnum(ORDER_STATUSES)),
  contactId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  from: Type.Optional({ ...TimestampInput, description: 'Confirmed on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Confirmed on or before (a date includes the whole day)' }),
}
export const OrderListQuery = listQuery(ORDER_SORTABLE, { ...orderFilters, source: Type.Optional(StringEnum(ORDER_SOURCES)) })
export type OrderListQuery = Static<typeof OrderListQuery> & { salespersonId?: string }
/** GET /sales/orders: orders confirmed from quotations. */
export const SalesOrderListQuery = listQuery(ORDER_SORTABLE, { ...orderFilters, salesperson: Type.Optional(Type.String({ format: 'uuid', maxLength: 36, description: 'Employee id' })) })
export type SalesOrderListQuery = Static<typeof SalesOrderListQuery>
export const OrderList = Named('OrderList', listOf(Order))

export const InvoiceOrderBody = Type.Object(
  {
    invoiceDate: Type.Optional({ ...TimestampInput, description: 'Defaults to now' }),
    dueDate: Type.Optional({ ...TimestampInput, description: 'Defaults to invoiceDate + 30 days' }),
    notes: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  },
  { additionalProperties: false },
)
export type InvoiceOrder = Static<typeof InvoiceOrderBody>

/** The event types this module appends for integrators (webhooks, GET /events): data.object is the Order. */
export const orderEventTypes: PublicEventType[] = [
  { type: 'order.created', version: 1, object: Order, description: 'An order was created (from a confirmed quotation, a checkout or the API).' },
  { type: 'order.updated', version: 1, object: Order, description: 'An order changed (status, invoicing).' },
]
