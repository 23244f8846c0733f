/**
 * What the service asks of a payment processor. Two adapters implement it:
 * `local` (a persistent stand-in served by this service) and `stripe` (the
 * official package). Both report back through Stripe-shaped, Stripe-signed
 * events at POST /billing/webhooks, which one piece of code verifies and applies.
 */
export interface PaymentProcessor {
  readonly name: 'local' | 'stripe'
  createCustomer(input: { email: string; name: string; userId: string }): Promise<string>
  createCheckoutSession(input: CheckoutSessionInput): Promise<{ id: string; url: string }>
  /** Requests cancellation at the end of the current period; answers the processor's confirmed state. */
  cancelAtPeriodEnd(subscriptionId: string): Promise<ProcessorSubscription>
  listInvoices(customerId: string, page: { offset: number; limit: number }): Promise<{ data: ProcessorInvoice[]; total: number }>
  getInvoice(customerId: string, invoiceId: string): Promise<ProcessorInvoice | undefined>
  listPaymentMethods(customerId: string): Promise<ProcessorPaymentMethod[]>
  /** Attaches a payment method (a processor id such as pm_card_visa); the first one becomes the default. */
  attachPaymentMethod(customerId: string, paymentMethodId: string, makeDefault: boolean): Promise<ProcessorPaymentMethod>
  /** Makes one of the customer's payment methods their default; undefined when the method is not theirs (or does not exist). */
  setDefaultPaymentMethod(customerId: string, paymentMethodId: string): Promise<ProcessorPaymentMethod | undefined>
  detachPaymentMethod(customerId: string, paymentMethodId: string): Promise<void>
  createPortalSession(customerId: string, returnUrl: string, baseUrl: string): Promise<{ url: string }>
}

export interface CheckoutLine {
  productId: string
  name: string
  quantity: number
  /** Cents per unit. */
  unitAmount: number
  currency: string
  interval: 'month' | 'year' | null
}

export interface CheckoutSessionInput {
  checkoutId: string
  customerId: string
  mode: 'payment' | 'subscription'
  lines: CheckoutLine[]
  successUrl: string
  cancelUrl: string
  /** Address of this service as the buyer's browser reaches it (local checkout page). */
  baseUrl: string
}

export interface ProcessorSubscription {
  id: string
  status: string
  cancelAtPeriodEnd: boolean
  cancelAt: Date | null
}

export interface ProcessorInvoice {
  id: string
  number: string | null
  status: string
  amountDue: number
  amountPaid: number
  currency: string
  subscriptionId: string | null
  periodStart: string | null
  periodEnd: string | null
  hostedInvoiceUrl: string | null
  createdAt: string
  paidAt: string | null
}

export interface ProcessorPaymentMethod {
  id: string
  type: string
  brand: string
  last4: string
  expiryMonth: number
  expiryYear: number
  isDefault: boolean
}
