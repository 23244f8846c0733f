import { Type, type Static } from 'typebox'
import { Named, Nullable } from '../../core/schemas.ts'
import { listOf, cursorPagingProperties } from '../../core/pagination.ts'
import { LicenseStatus } from '../licenses/index.ts'

const Timestamp = Type.String({ format: 'date-time' })
const HttpUrl = (description: string) => Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048, description })
/** Processor ids (subscriptions, invoices, payment methods) are opaque strings. */
export const ProcessorIdParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_]{1,255}$', maxLength: 255, description: 'Payment-processor id' }) })

export const CheckoutBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        { productId: Type.String({ format: 'uuid', maxLength: 36 }), quantity: Type.Integer({ minimum: 1, maximum: 100 }) },
        { additionalProperties: false },
      ),
      { maxItems: 50, description: 'The cart; empty gives 422' },
    ),
    successUrl: HttpUrl('Where the buyer returns after paying; {CHECKOUT_SESSION_ID} is replaced by the session id'),
    cancelUrl: HttpUrl('Where the buyer returns after cancelling'),
  },
  { additionalProperties: false },
)
export type CheckoutBody = Static<typeof CheckoutBody>
export const CheckoutResult = Named('CheckoutSession', Type.Object({ sessionId: Type.String(), url: Type.String({ description: 'Redirect the buyer here' }) }))

const SubscriptionProduct = Named('SubscriptionProduct', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String(),
  price: Type.String({ description: 'Decimal string, e.g. "499.00"' }),
  currency: Type.String({ description: 'Upper-case code, e.g. USD' }),
}))

export const SubscriptionEntry = Named('Subscription', Type.Object({
  license: Type.Object({ id: Type.String({ format: 'uuid', maxLength: 36 }), status: LicenseStatus, expiresAt: Nullable(Timestamp) }),
  stripeSubscriptionId: Type.String({ description: "The payment processor's subscription id" }),
  status: Type.String({ description: 'Subscription status at the processor (active, past_due, ...)' }),
  cancelAtPeriodEnd: Type.Boolean(),
  cancelAt: Nullable(Timestamp),
  product: SubscriptionProduct,
}))
export type SubscriptionEntry = Static<typeof SubscriptionEntry>

export const SubscriptionDetails = Named('SubscriptionDetails', Type.Object({
  id: Type.String(),
  status: Type.String(),
  cancelAtPeriodEnd: Type.Boolean(),
  cancelAt: Nullable(Timestamp),
  canceledAt: Nullable(Timestamp),
  currentPeriodEnd: Nullable(Timestamp),
  customerId: Nullable(Type.String()),
  createdAt: Timestamp,
  licenses: Type.Array(Type.Object({
    id: Type.String({ format: 'uuid', maxLength: 36 }), key: Type.String(), status: LicenseStatus, expiresAt: Nullable(Timestamp), product: SubscriptionProduct,
  })),
}))
export type SubscriptionDetails = Static<typeof SubscriptionDetails>

export const CancelResult = Named('SubscriptionCancellation', Type.Object({
  canceled: Type.Boolean({ description: 'False while the subscription is still active in its paid period' }),
  status: Type.String(),
  cancelAtPeriodEnd: Type.Boolean(),
  cancelAt: Nullable(Timestamp),
}))

export const ProcessorInvoice = Named('BillingInvoice', Type.Object({
  id: Type.String(),
  number: Nullable(Type.String()),
  status: Type.String(),
  amountDue: Type.Integer(),
  amountPaid: Type.Integer(),
  currency: Type.String(),
  subscriptionId: Nullable(Type.String()),
  periodStart: Nullable(Timestamp),
  periodEnd: Nullable(Timestamp),
  hostedInvoiceUrl: Nullable(Type.String()),
  createdAt: Timestamp,
  paidAt: Nullable(Timestamp),
}))
/** Newest first, as the processor lists them; paging only. */
export const InvoiceListQuery = Type.Object(cursorPagingProperties, { additionalProperties: false })
export const ProcessorInvoiceList = Named('BillingInvoiceList', listOf(ProcessorInvoice))

export const PaymentMethod = Named('PaymentMethod', Type.Object({
  id: Type.String(),
  type: Type.String(),
  brand: Type.String(),
  last4: Type.String(),
  expiryMonth: Type.Integer(),
  expiryYear: Type.Integer(),
  isDefault: Type.Boolean(),
}))
export const AddPaymentMethodBody = Type.Object(
  {
    paymentMethodId: Type.String({ pattern: '^[A-Za-z0-9_]{1,255}$', maxLength: 255, description: 'A payment method of the processor (from Stripe.js; with the local processor a test id such as pm_card_visa, or pm_card_chargeDeclined for a card that declines)' }),
    setDefault: Type.Optional(Type.Boolean({ description: 'Make it the default; the first method always becomes the default' })),
  },
  { additionalProperties: false },
)

export const PortalSessionBody = Type.Object({ returnUrl: HttpUrl('Where the billing portal sends the buyer back') }, { additionalProperties: false })
export const PortalSessionResult = Named('PortalSession', Type.Object({ url: Type.String() }))

export const CheckoutOrder = Named('CheckoutOrder', Type.Object({
  orderId: Nullable(Type.String({ format: 'uuid', maxLength: 36 })),
  reference: Nullable(Type.String()),
  status: Type.String({ description: 'paid, cancelled (subscription ended) or refunded' }),
  total: Type.Integer(),
  currency: Type.String(),
  items: Type.Array(Type.Object({ productId: Type.String(), name: Type.String(), quantity: Type.Integer(), unitAmount: Type.Integer() })),
  subscriptionId: Nullable(Type.String()),
  createdAt: Timestamp,
}))

export const BillingDashboard = Named('BillingDashboard', Type.Object({
  processor: Type.String(),
  customerId: Nullable(Type.String()),
  subscriptions: Type.Array(SubscriptionEntry),
  paymentMethods: Type.Array(PaymentMethod),
  invoices: Type.Array(ProcessorInvoice, { description: 'The latest ten' }),
  orders: Type.Array(CheckoutOrder, { description: 'Orders from checkout, newest first' }),
}))

export const WebhookResult = Named('WebhookReceipt', Type.Object({
  received: Type.Boolean(),
  duplicate: Type.Boolean({ description: 'True when this event id was applied before (nothing happened again)' }),
  outcome: Type.String(),
}))
