import Stripe from 'stripe'
import { NotFoundError, ValidationError } from '../../core/errors.ts'
import type { CheckoutSessionInput, PaymentProcessor, ProcessorInvoice, ProcessorPaymentMethod } from './processor.types.ts'

const iso = (unix: number | null | undefined) => (typeof unix === 'number' ? new Date(unix * 1000).toISOString() : null)
const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : v?.id ?? null)

/** Stripe's "No such ..." errors for ids that do not exist or are not ours. */
const isMissing = (err: unknown) => err instanceof Stripe.errors.StripeInvalidRequestError && (err.code === 'resource_missing' || err.statusCode === 404)

function toInvoice(i: Stripe.Invoice): ProcessorInvoice {
  const line = i.lines?.data?.[0]
  const sub = (i as unknown as { subscription?: string | { id: string } }).subscription ?? i.parent?.subscription_details?.subscription
  return {
    id: i.id!,
    number: i.number ?? null,
    status: i.status ?? 'draft',
    amountDue: i.amount_due,
    amountPaid: i.amount_paid,
    currency: i.currency,
    subscriptionId: idOf(sub as string | { id: string } | null | undefined),
    periodStart: iso(line?.period?.start ?? i.period_start),
    periodEnd: iso(line?.period?.end ?? i.period_end),
    hostedInvoiceUrl: i.hosted_invoice_url ?? null,
    createdAt: iso(i.created)!,
    paidAt: iso(i.status_transitions?.paid_at),
  }
}

function toPaymentMethod(pm: Stripe.PaymentMethod, defaultId: string | null): ProcessorPaymentMethod {
  return {
    id: pm.id,
    type: pm.type,
    brand: pm.card?.brand ?? pm.type,
    last4: pm.card?.last4 ?? '',
    expiryMonth: pm.card?.exp_month ?? 0,
    expiryYear: pm.card?.exp_year ?? 0,
    isDefault: pm.id === defaultId,
  }
}

export interface StripeOptions {
  secretKey: string
  /** For tests against a Stripe-compatible server (stripe-mock): host, port, protocol. */
  host?: string
  port?: number
  protocol?: 'http' | 'https'
}

/** PAYMENT_PROCESSOR=stripe, through the official package. Events come back to /billing/webhooks. */
export class StripeProcessor implements PaymentProcessor {
  readonly name = 'stripe' as const
  private readonly stripe: Stripe

  constructor(opts: StripeOptions) {
    this.stripe = new Stripe(opts.secretKey, { host: opts.host, port: opts.port, protocol: opts.protocol, maxNetworkRetries: 2, appInfo: { name: 'business-platform-api' } })
  }

  async createCustomer(input: { email: string; name: string; userId: string }) {
    return (await this.stripe.customers.create({ email: input.email, name: input.name, metadata: { userId: input.userId } })).id
  }

  async createCheckoutSession(input: CheckoutSessionInput) {
    const session = await this.stripe.checkout.sessions.create({
      mode: input.mode,
      customer: input.customerId,
      client_reference_id: input.checkoutId,
      metadata: { checkoutId: input.checkoutId },
      // Stripe itself replaces {CHECKOUT_SESSION_ID} in the success URL.
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      line_items: input.lines.map((l) => ({
        quantity: l.quantity,
        price_data: {
          currency: l.currency,
          unit_amount: l.unitAmount,
          product_data: { name: l.name, metadata: { productId: l.productId } },
          ...(l.interval ? { recurring: { interval: l.interval } } : {}),
        },
      })),
      ...(input.mode === 'payment' ? { invoice_creation: { enabled: true } } : {}),
    })
    return { id: session.id, url: session.url! }
  }

  async cancelAtPeriodEnd(subscriptionId: string) {
    try {
      const s = await this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
      return { id: s.id, status: s.status, cancelAtPeriodEnd: s.cancel_at_period_end, cancelAt: s.cancel_at ? new Date(s.cancel_at * 1000) : null }
    } catch (err) {
      if (isMissing(err)) throw new NotFoundError('Subscription')
      throw err
    }
  }

  async listInvoices(customerId: string, page: { offset: number; limit: number }) {
    // Stripe pages by cursor; the API pages by number, over the customer's latest 1000 invoices.
    const all = await this.stripe.invoices.list({ customer: customerId, limit: 100 }).autoPagingToArray({ limit: 1000 })
    return { data: all.slice(page.offset, page.offset + page.limit).map(toInvoice), total: all.length }
  }

  async getInvoice(customerId: string, invoiceId: string) {
    try {
      const invoice = await this.stripe.invoices.retrieve(invoiceId)
      return idOf(invoice.customer as string | { id: string } | null) === customerId ? toInvoice(invoice) : undefined
    } catch (err) {
      if (isMissing(err)) return undefined
      throw err
    }
  }

  private async defaultPaymentMethod(customerId: string) {
    const customer = await this.stripe.customers.retrieve(customerId)
    if (customer.deleted) return null
    return idOf(customer.invoice_settings?.default_payment_method as string | { id: string } | null)
  }

  async listPaymentMethods(customerId: string) {
    const [methods, defaultId] = await Promise.all([this.stripe.paymentMethods.list({ customer: customerId, limit: 100 }), this.defaultPaymentMethod(customerId)])
    return methods.data.map((pm) => toPaymentMethod(pm, defaultId))
  }

  async attachPaymentMethod(customerId: string, paymentMethodId: string, makeDefault: boolean) {
    let pm: Stripe.PaymentMethod
    try {
      pm = await this.stripe.paymentMethods.attach(paymentMethodId, { customer: customerId })
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError || err instanceof Stripe.errors.StripeCardError) throw new ValidationError(`paymentMethodId: ${err.message}`)
      throw err
    }
    const isDefault = makeDefault || !(await this.defaultPaymentMethod(customerId))
    if (isDefault) await this.stripe.customers.update(customerId, { invoice_settings: { default_payment_method: pm.id } })
    return toPaymentMethod(pm, isDefault ? pm.id : null)
  }

  /** The customer's invoice_settings.default_payment_method, which Stripe charges when a subscription or invoice names no method of its own. */
  async setDefaultPaymentMethod(customerId: string, paymentMethodId: string) {
    let pm: Stripe.PaymentMethod
    try {
      pm = await this.stripe.paymentMethods.retrieve(paymentMethodId)
    } catch (err) {
      if (isMissing(err)) return undefined
      throw err
    }
    if (idOf(pm.customer as string | { id: string } | null) !== customerId) return undefined
    await this.stripe.customers.update(customerId, { invoice_settings: { default_payment_method: pm.id } })
    return toPaymentMethod(pm, pm.id)
  }

  async detachPaymentMethod(customerId: string, paymentMethodId: string) {
    const methods = await this.listPaymentMethods(customerId)
    if (!methods.some((m) => m.id === paymentMethodId)) throw new NotFoundError('Payment method')
    await this.stripe.paymentMethods.detach(paymentMethodId)
  }

  async createPortalSession(customerId: string, returnUrl: string) {
    const session = await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl })
    return { url: session.url }
  }
}
