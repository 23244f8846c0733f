import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { ContactRef, PostalAddress, PostalAddressInput, Quantity, UnitPrice } from '../../core/documents/index.ts'
import { CurrencyInput } from '../../core/money.ts'
import type { PublicEventType } from '../../core/events.ts'

const Uuid = (description?: string) => Type.String({ format: 'uuid', maxLength: 36, ...(description ? { description } : {}) })

// ---------------------------------------------------------------- vendors

/** A vendor: a contact with vendor = true (docs/contacts.md "Vendor terms"), its vendor terms always present. */
export const Vendor = Named('Vendor', Type.Object({
  id: Uuid(),
  name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  type: StringEnum(['company', 'individual'] as const),
  vendor: Type.Boolean({ description: 'Always true' }),
  paymentTerms: Nullable(Type.String()),
  currency: Nullable(Type.String({ description: 'Default currency of its RFQs and pricelist rows' })),
  leadTimeDays: Nullable(Type.Integer()),
  minOrderQty: Nullable(Type.Number()),
  address: Nullable(PostalAddress),
  taxId: Nullable(Type.String()),
  organizationId: Uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Vendor = Static<typeof Vendor>
export const VendorList = Named('VendorList', listOf(Vendor))

export const CreateVendorBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    phone: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
    type: Type.Optional(StringEnum(['company', 'individual'] as const)),
    paymentTerms: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    currency: Type.Optional(Nullable(Type.String({ pattern: '^[a-z]{3}$', maxLength: 3, description: 'Lower-case ISO 4217 code, e.g. eur' }))),
    leadTimeDays: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }))),
    minOrderQty: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1_000_000_000 }))),
    address: Type.Optional(Nullable(PostalAddressInput)),
    taxId: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
  },
  { additionalProperties: false },
)
export type CreateVendor = Static<typeof CreateVendorBody>

export const VENDOR_SORTABLE = ['name', 'email', 'createdAt', 'updatedAt'] as const
export const VendorListQuery = listQuery(VENDOR_SORTABLE, {})
export type VendorListQuery = Static<typeof VendorListQuery>

export const VendorPricelist = Named('VendorPricelist', Type.Object({
  id: Uuid(),
  vendorId: Uuid(),
  productId: Uuid(),
  productName: Type.String(),
  price: Type.Integer({ description: 'Cents per unit' }),
  currency: Type.String(),
  minQty: Type.Number({ description: 'The price applies to lines of at least this quantity' }),
  leadTimeDays: Nullable(Type.Integer()),
  createdAt: Timestamp,
}))
export type VendorPricelist = Static<typeof VendorPricelist>
export const VendorPricelistList = Named('VendorPricelistList', listOf(VendorPricelist))

export const CreatePricelistBody = Type.Object(
  {
    productId: Uuid(),
    price: UnitPrice,
    currency: Type.Optional({ ...CurrencyInput, description: "Defaults to the vendor's currency, else usd" }),
    minQty: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000_000, description: 'Defaults to 0 (any quantity)' })),
    leadTimeDays: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 36_500, description: "Defaults to the vendor's leadTimeDays" }))),
  },
  { additionalProperties: false },
)
export type CreatePricelist = Static<typeof CreatePricelistBody>

export const PRICELIST_SORTABLE = ['createdAt', 'price', 'minQty'] as const
export const PricelistListQuery = listQuery(PRICELIST_SORTABLE, {
  productId: Type.Optional(Uuid('Only rows of this product')),
})
export type PricelistListQuery = Static<typeof PricelistListQuery>

// ---------------------------------------------------------------- RFQs and purchase orders

export const PURCHASE_STATUSES = ['draft', 'sent', 'confirmed', 'cancelled'] as const
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number]
export const RECEIPT_STATUSES = ['pending', 'partial', 'received'] as const
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number]

export const PurchaseOrderLine = Named('PurchaseOrderLine', Type.Object({
  productId: Uuid(),
  productName: Type.String(),
  quantity: Type.Number(),
  unitPrice: Type.Integer({ description: 'Cents' }),
  total: Type.Integer({ description: 'Cents: round(quantity * unitPrice)' }),
  receivedQty: Type.Number({ description: 'Received so far (0 until confirmed and received)' }),
}))

export const PurchaseReceipt = Named('PurchaseReceipt', Type.Object({
  receiptId: Uuid('The validated inventory transfer'),
  transferReference: Type.String({ description: 'WH/IN/<number>' }),
  receiptDate: Timestamp,
  lines: Type.Array(Type.Object({ productId: Uuid(), receivedQty: Type.Number(), notes: Nullable(Type.String()) })),
  createdAt: Timestamp,
}))

export const PurchaseBuyer = Named('PurchaseBuyer', Type.Object({ id: Uuid('User id'), name: Type.String() }))

export const PurchaseOrder = Named('PurchaseOrder', Type.Object({
  id: Uuid(),
  reference: Type.String({ description: 'PO/<year>/<sequence>, given at creation and kept when confirmed' }),
  status: StringEnum(PURCHASE_STATUSES),
  vendor: ContactRef,
  buyer: Nullable(PurchaseBuyer),
  expectedArrival: Nullable(Timestamp),
  lineItems: Type.Array(PurchaseOrderLine),
  total: Type.Integer({ description: 'Cents: the sum of the line totals' }),
  currency: Type.String(),
  notes: Nullable(Type.String()),
  receiptStatus: Nullable(StringEnum(RECEIPT_STATUSES, { description: 'null until confirmed' })),
  pendingReceiptId: Nullable(Uuid('The receipt transfer still to be received (the backorder after a partial receipt); null when none')),
  receipts: Type.Array(PurchaseReceipt, { description: 'Receipts so far, oldest first' }),
  billId: Nullable(Uuid('The vendor bill of this purchase order')),
  sentAt: Nullable(Timestamp),
  confirmedAt: Nullable(Timestamp),
  cancelledAt: Nullable(Timestamp),
  organizationId: Uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type PurchaseOrder = Static<typeof PurchaseOrder>
export const PurchaseOrderList = Named('PurchaseOrderList', listOf(PurchaseOrder))

const LineInput = Type.Object(
  {
    productId: Uuid('A storable product of the organization'),
    quantity: Quantity,
    unitPrice: Type.Optional({ ...UnitPrice, description: "Cents; defaults to the vendor's pricelist price (the row with the highest minQty not above the quantity)" }),
  },
  { additionalProperties: false },
)

const writable = {
  vendorId: Uuid('A contact with vendor = true'),
  expectedArrival: Nullable(TimestampInput),
  lineItems: Type.Array(LineInput, { minItems: 1, maxItems: 500 }),
  currency: CurrencyInput,
  notes: Nullable(Type.String({ maxLength: 5000 })),
}

export const CreateRfqBody = Type.Object(
  {
    vendorId: writable.vendorId,
    expectedArrival: Type.Optional(writable.expectedArrival),
    lineItems: writable.lineItems,
    currency: Type.Optional({ ...writable.currency, description: "Defaults to the vendor's currency, else usd" }),
    notes: Type.Optional(writable.notes),
  },
  { additionalProperties: false },
)
export type CreateRfq = Static<typeof CreateRfqBody>

export const UpdateRfqBody = Type.Partial(Type.Object(writable), { additionalProperties: false, minProperties: 1 })
export type UpdateRfq = Static<typeof UpdateRfqBody>

export const RFQ_SORTABLE = ['createdAt', 'updatedAt', 'reference', 'total', 'expectedArrival', 'status'] as const
export const RfqListQuery = listQuery(RFQ_SORTABLE, {
  status: Type.Optional(StringEnum(PURCHASE_STATUSES)),
  vendorId: Type.Optional(Uuid()),
  from: Type.Optional({ ...TimestampInput, description: 'Created on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Created on or before (a date includes the whole day)' }),
})
export type RfqListQuery = Static<typeof RfqListQuery>

export const ORDER_SORTABLE = ['confirmedAt', 'createdAt', 'reference', 'total', 'expectedArrival'] as const
export const PurchaseOrderListQuery = listQuery(ORDER_SORTABLE, {
  vendorId: Type.Optional(Uuid()),
  receiptStatus: Type.Optional(StringEnum(RECEIPT_STATUSES)),
  from: Type.Optional({ ...TimestampInput, description: 'Confirmed on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Confirmed on or before (a date includes the whole day)' }),
})
export type PurchaseOrderListQuery = Static<typeof PurchaseOrderListQuery>

export const SendRfqBody = Type.Object(
  {
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    message: Type.Optional(Type.String({ maxLength: 10_000 })),
    to: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: "Defaults to the vendor's e-mail" })),
  },
  { additionalProperties: false },
)
export type SendRfq = Static<typeof SendRfqBody>

// ---------------------------------------------------------------- receipts

export const ReceiveBody = Type.Object(
  {
    receiptDate: Type.Optional({ ...TimestampInput, description: 'When the goods arrived (not after today); a date means its start, UTC. Defaults to now.' }),
    lines: Type.Array(
      Type.Object(
        {
          productId: Uuid('A product of the purchase order'),
          receivedQty: Quantity,
          notes: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false },
)
export type Receive = Static<typeof ReceiveBody>

export const ReceiptResult = Named('PurchaseReceiptResult', Type.Object({
  receiptId: Uuid('The validated receipt transfer'),
  transferReference: Type.String({ description: 'WH/IN/<number>' }),
  receivedLines: Type.Array(Type.Object({ productId: Uuid(), receivedQty: Type.Number() })),
  backorderQty: Type.Number({ description: 'Ordered minus received, over every line, after this receipt' }),
}))
export type ReceiptResult = Static<typeof ReceiptResult>

// ---------------------------------------------------------------- vendor bills

export const BILL_STATUSES = ['posted', 'paid'] as const
export type BillStatus = (typeof BILL_STATUSES)[number]

export const VendorBillLine = Named('VendorBillLine', Type.Object({
  productId: Uuid(),
  productName: Type.String(),
  quantity: Type.Number(),
  unitPrice: Type.Integer({ description: 'Cents' }),
  total: Type.Integer({ description: 'Cents' }),
}))

export const VendorBill = Named('VendorBill', Type.Object({
  id: Uuid(),
  number: Type.String({ description: 'BILL/<year>/<sequence>' }),
  purchaseOrderId: Uuid(),
  vendor: ContactRef,
  vendorInvoiceNumber: Type.String(),
  lineItems: Type.Array(VendorBillLine),
  subtotal: Type.Integer(),
  total: Type.Integer(),
  amountPaid: Type.Integer(),
  amountDue: Type.Integer(),
  currency: Type.String(),
  status: StringEnum(BILL_STATUSES),
  invoiceDate: Timestamp,
  dueDate: Timestamp,
  organizationId: Uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type VendorBill = Static<typeof VendorBill>
export const VendorBillList = Named('VendorBillList', listOf(VendorBill))

export const BillBody = Type.Object(
  {
    vendorInvoiceNumber: Type.String({ minLength: 1, maxLength: 100, description: "The vendor's own number of its invoice" }),
    invoiceDate: Type.Optional({ ...TimestampInput, description: 'Defaults to now' }),
    dueDate: Type.Optional({ ...TimestampInput, description: 'Defaults to invoiceDate + 30 days; not before invoiceDate' }),
  },
  { additionalProperties: false },
)
export type Bill = Static<typeof BillBody>

export const PayBillBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Cents, in the bill\'s currency; at most the amount due (422 above it)' }),
    paymentDate: Type.Optional({ ...TimestampInput, description: 'Defaults to now; the ledger entry is dated on its UTC day' }),
    method: Type.Optional(Type.String({ maxLength: 100 })),
    reference: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false, examples: [{ amount: 12500, paymentDate: '2026-11-20', method: 'bank_transfer', reference: 'SEPA-2026-1120-01' }] },
)
export type PayBill = Static<typeof PayBillBody>
export const BillPaymentResult = Named('BillPaymentResult', Type.Object({
  billId: Uuid(),
  status: StringEnum(BILL_STATUSES),
  amountPaid: Type.Integer({ description: 'Cents paid so far' }),
  amountDue: Type.Integer({ description: 'Cents still due' }),
  paidAt: Type.String({ format: 'date-time', description: 'The paymentDate of this payment' }),
}, { examples: [{ billId: '5f0c6a7e-2b1d-4c3e-9a8f-1d2e3f4a5b6c', status: 'posted', amountPaid: 12500, amountDue: 7500, paidAt: '2026-11-20T00:00:00.000Z' }] }))

export const BILL_SORTABLE = ['createdAt', 'number', 'invoiceDate', 'dueDate', 'total'] as const
export const BillListQuery = listQuery(BILL_SORTABLE, {
  status: Type.Optional(StringEnum(BILL_STATUSES)),
  vendorId: Type.Optional(Uuid()),
  purchaseOrderId: Type.Optional(Uuid()),
  from: Type.Optional({ ...TimestampInput, description: 'Invoice date on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Invoice date on or before (a date includes the whole day)' }),
})
export type BillListQuery = Static<typeof BillListQuery>

/** The event types this module appends for integrators (webhooks, GET /events): data.object is the PurchaseOrder, or the VendorBill for bill.paid. */
export const purchaseEventTypes: PublicEventType[] = [
  { type: 'purchase_order.confirmed', version: 1, object: PurchaseOrder, description: 'An RFQ was confirmed into a purchase order.' },
  { type: 'purchase_order.received', version: 1, object: PurchaseOrder, description: 'Goods of a purchase order were received into stock (data.object shows what is received so far).' },
  { type: 'bill.paid', version: 1, object: VendorBill, description: 'A vendor bill was paid in full: sent once, by the payment that left nothing due (data.object is the VendorBill).' },
]
