import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, StringEnum } from '../../core/schemas.ts'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { ContactRef, Discount, EmployeeRef, Quantity, SalesLine, TaxRate, UnitPrice } from '../../core/documents/index.ts'
import { CurrencyInput } from '../../core/money.ts'
import { Nullable } from '../../core/schemas.ts'
import type { PublicEventType } from '../../core/events.ts'

export const QUOTATION_STATUSES = ['draft', 'sent', 'confirmed', 'cancelled'] as const
export type QuotationStatus = (typeof QUOTATION_STATUSES)[number]
const QuotationStatus = StringEnum(QUOTATION_STATUSES)

export const Quotation = Named('Quotation', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  reference: Type.String({ description: 'QO/<year>/<sequence>' }),
  status: QuotationStatus,
  contact: ContactRef,
  salesperson: Nullable(EmployeeRef),
  validUntil: Nullable(Timestamp),
  lineItems: Type.Array(SalesLine),
  subtotal: Type.Integer(),
  taxAmount: Type.Integer(),
  total: Type.Integer(),
  currency: Type.String(),
  terms: Nullable(Type.String()),
  orderId: Nullable(Type.String({ format: 'uuid', maxLength: 36, description: 'The order created by confirm' })),
  sentAt: Nullable(Timestamp),
  confirmedAt: Nullable(Timestamp),
  cancelledAt: Nullable(Timestamp),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Quotation = Static<typeof Quotation>

const LineInput = Type.Object(
  {
    productId: Type.String({ format: 'uuid', maxLength: 36 }),
    quantity: Quantity,
    unitPrice: Type.Optional({ ...UnitPrice, description: "Cents; defaults to the product's price (when in the quotation's currency)" }),
    discount: Type.Optional(Discount),
    taxRate: Type.Optional(TaxRate),
  },
  { additionalProperties: false },
)

const writable = {
  contactId: Type.String({ format: 'uuid', maxLength: 36 }),
  salespersonId: Nullable(Type.String({ format: 'uuid', maxLength: 36, description: 'Employee id' })),
  validUntil: Nullable(TimestampInput),
  lineItems: Type.Array(LineInput, { minItems: 1, maxItems: 500 }),
  currency: CurrencyInput,
  terms: Nullable(Type.String({ maxLength: 5000 })),
}

export const CreateQuotationBody = Type.Object(
  {
    contactId: writable.contactId,
    salespersonId: Type.Optional(writable.salespersonId),
    validUntil: Type.Optional(writable.validUntil),
    lineItems: writable.lineItems,
    currency: Type.Optional({ ...writable.currency, description: 'Defaults to usd' }),
    terms: Type.Optional(writable.terms),
  },
  { additionalProperties: false },
)
export type CreateQuotation = Static<typeof CreateQuotationBody>

export const UpdateQuotationBody = Type.Partial(Type.Object(writable), { additionalProperties: false, minProperties: 1 })
export type UpdateQuotation = Static<typeof UpdateQuotationBody>

export const QUOTATION_SORTABLE = ['createdAt', 'updatedAt', 'total', 'status', 'validUntil'] as const
export const QuotationListQuery = listQuery(QUOTATION_SORTABLE, {
  status: Type.Optional(QuotationStatus),
  contactId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  salesperson: Type.Optional(Type.String({ format: 'uuid', maxLength: 36, description: 'Employee id of the salesperson' })),
  from: Type.Optional({ ...TimestampInput, description: 'Created on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Created on or before (a date includes the whole day)' }),
})
export type QuotationListQuery = Static<typeof QuotationListQuery>
export const QuotationList = Named('QuotationList', listOf(Quotation))

/** The event types this module appends for integrators (webhooks, GET /events): data.object is the Quotation. */
export const quotationEventTypes: PublicEventType[] = [
  { type: 'quotation.created', version: 1, object: Quotation, description: 'A quotation was created.' },
  { type: 'quotation.sent', version: 1, object: Quotation, description: 'A quotation was sent to its customer.' },
  { type: 'quotation.confirmed', version: 1, object: Quotation, description: 'A quotation was confirmed into a sales order.' },
  { type: 'quotation.cancelled', version: 1, object: Quotation, description: 'A quotation was cancelled.' },
]
