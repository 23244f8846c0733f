import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, StringEnum } from '../../core/schemas.ts'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { ContactRef, Discount, Quantity, TaxRate, UnitPrice } from '../../core/documents/index.ts'
import { CurrencyInput } from '../../core/money.ts'
import { Nullable } from '../../core/schemas.ts'
import type { PublicEventType } from '../../core/events.ts'

export const INVOICE_STATUSES = ['draft', 'sent', 'partial_paid', 'paid', 'overdue', 'cancelled'] as const
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number]
const InvoiceStatus = StringEnum(INVOICE_STATUSES)

export const InvoiceLine = Named('InvoiceLine', Type.Object({
  productId: Nullable(Type.String({ format: 'uuid', maxLength: 36 })),
  description: Type.String(),
  quantity: Type.Number(),
  unitPrice: Type.Integer({ description: 'Cents' }),
  discount: Type.Number({ description: 'Percent' }),
  taxRate: Nullable(Type.Number({ description: 'Percent' })),
  total: Type.Integer({ description: 'Cents: round(quantity * unitPrice * (100 - discount) / 100)' }),
}))
export type InvoiceLine = Static<typeof InvoiceLine>

export const Invoice = Named('Invoice', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  number: Type.String({ description: 'INV/<year>/<sequence>' }),
  status: InvoiceStatus,
  contact: ContactRef,
  orderId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36, description: 'Source order; absent for standalone invoices' })),
  lineItems: Type.Array(InvoiceLine),
  subtotal: Type.Integer(),
  taxAmount: Type.Integer(),
  total: Type.Integer(),
  amountPaid: Type.Integer(),
  amountDue: Type.Integer({ description: 'total - amountPaid; 0 once cancelled' }),
  currency: Type.String(),
  invoiceDate: Timestamp,
  dueDate: Timestamp,
  notes: Nullable(Type.String()),
  sentAt: Nullable(Timestamp),
  paidAt: Nullable(Timestamp),
  cancelledAt: Nullable(Timestamp),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Invoice = Static<typeof Invoice>

const LineInput = Type.Object(
  {
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Required unless productId is given (then it defaults to the product name)' })),
    productId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
    quantity: Quantity,
    unitPrice: Type.Optional({ ...UnitPrice, description: 'Cents; required unless productId is given (then it defaults to the product price)' }),
    discount: Type.Optional(Discount),
    taxRate: Type.Optional(TaxRate),
  },
  { additionalProperties: false },
)
export type LineInput = Static<typeof LineInput>
const LineItems = Type.Array(LineInput, { minItems: 1, maxItems: 500 })

const writable = {
  contactId: Type.String({ format: 'uuid', maxLength: 36 }),
  lineItems: LineItems,
  currency: CurrencyInput,
  invoiceDate: { ...TimestampInput, description: 'Defaults to now' },
  dueDate: { ...TimestampInput, description: 'Defaults to invoiceDate + 30 days; not before invoiceDate' },
  notes: Nullable(Type.String({ maxLength: 5000 })),
}

export const CreateInvoiceBody = Type.Object(
  {
    contactId: writable.contactId,
    lineItems: writable.lineItems,
    currency: Type.Optional({ ...writable.currency, description: 'Defaults to usd' }),
    invoiceDate: Type.Optional(writable.invoiceDate),
    dueDate: Type.Optional(writable.dueDate),
    notes: Type.Optional(writable.notes),
  },
  { additionalProperties: false },
)
export type CreateInvoice = Static<typeof CreateInvoiceBody>

export const UpdateInvoiceBody = Type.Partial(Type.Object(writable), { additionalProperties: false, minProperties: 1 })
export type UpdateInvoice = Static<typeof UpdateInvoiceBody>

export const INVOICE_SORTABLE = ['amount', 'dueDate', 'status', 'createdAt'] as const
export const InvoiceListQuery = listQuery(INVOICE_SORTABLE, {
  status: Type.Optional(InvoiceStatus),
  contactId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  orderId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  from: Type.Optional({ ...TimestampInput, description: 'Invoice date on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Invoice date on or before (a date includes the whole day)' }),
})
export type InvoiceListQuery = Static<typeof InvoiceListQuery>
export const InvoiceList = Named('InvoiceList', listOf(Invoice))

export { SendBody, SendResult, type SendInput } from '../../core/documents/index.ts'

export const PayBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Cents; at most the amount due (422 above it)' }),
    currency: Type.Optional({ ...CurrencyInput, description: "Must be the invoice's currency when given" }),
    paymentDate: Type.Optional({ ...TimestampInput, description: 'Defaults to now' }),
    method: Type.Optional(Type.String({ maxLength: 100 })),
    reference: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
)
export type PayInput = Static<typeof PayBody>
export const PaymentResult = Named('PaymentResult', Type.Object({
  invoiceId: Type.String({ format: 'uuid', maxLength: 36 }),
  status: InvoiceStatus,
  amountPaid: Type.Integer(),
  amountDue: Type.Integer(),
  paidAt: Timestamp,
}))

export const Payment = Named('Payment', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  invoiceId: Type.String({ format: 'uuid', maxLength: 36 }),
  amount: Type.Integer(),
  currency: Type.String(),
  paymentDate: Timestamp,
  method: Nullable(Type.String()),
  reference: Nullable(Type.String()),
  createdAt: Timestamp,
}))
export type Payment = Static<typeof Payment>
export const PaymentList = Named('PaymentList', listOf(Payment))
export const PaymentListQuery = listQuery(['paymentDate', 'createdAt'] as const, {})

export const CreditNoteBody = Type.Object(
  {
    amount: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Cents; defaults to the invoice total, at most the total' })),
    reason: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
)
export type CreditNoteInput = Static<typeof CreditNoteBody>

export const CreditNote = Named('CreditNote', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  number: Type.String({ description: 'CN/<year>/<sequence>' }),
  invoiceId: Type.String({ format: 'uuid', maxLength: 36 }),
  invoiceNumber: Type.String(),
  contact: ContactRef,
  amount: Type.Integer(),
  currency: Type.String(),
  reason: Nullable(Type.String()),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Timestamp,
}))
export type CreditNote = Static<typeof CreditNote>

export const CREDIT_NOTE_SORTABLE = ['amount', 'createdAt'] as const
export const CreditNoteListQuery = listQuery(CREDIT_NOTE_SORTABLE, {
  invoiceId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  contactId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  from: Type.Optional({ ...TimestampInput, description: 'Issued on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Issued on or before (a date includes the whole day)' }),
})
export type CreditNoteListQuery = Static<typeof CreditNoteListQuery>
export const CreditNoteList = Named('CreditNoteList', listOf(CreditNote))

/** The event types this module appends for integrators (webhooks, GET /events): data.object is the Invoice. */
export const invoiceEventTypes: PublicEventType[] = [
  { type: 'invoice.created', version: 1, object: Invoice, description: 'An invoice was created (by POST /invoices or from an order).' },
  { type: 'invoice.updated', version: 1, object: Invoice, description: 'An invoice changed: a draft edited, or a partial payment recorded.' },
  { type: 'invoice.sent', version: 1, object: Invoice, description: 'An invoice was sent (status sent).' },
  { type: 'invoice.paid', version: 1, object: Invoice, description: 'An invoice was paid in full (status paid).' },
  { type: 'invoice.overdue', version: 1, object: Invoice, description: 'An invoice passed its due date unpaid (status overdue, set by the daily job).' },
  { type: 'invoice.cancelled', version: 1, object: Invoice, description: 'An invoice was cancelled.' },
  { type: 'invoice.deleted', version: 1, object: Invoice, description: 'A draft invoice was deleted; data.object is the invoice as it was.' },
]
