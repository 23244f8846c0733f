import { randomBytes, timingSafeEqual } from 'node:crypto'
import { hashToken } from '../../../core/secrets.ts'
import type { Db, Queryable } from '../../../core/db.ts'
import { ForbiddenError, NotFoundError, ValidationError } from '../../../core/errors.ts'
import type { CheckoutSessionInput, PaymentProcessor, ProcessorInvoice, ProcessorPaymentMethod } from '../processor.types.ts'
import type { LocalEventOutbox } from './local-events.delivery.ts'
import { localId, localRepository as repo, type InvoiceRow, type PaymentMethodRow, type SessionRow, type SubscriptionRow } from './local.repository.ts'
import { addInterval } from '../../../core/dates.ts'

/** The token of a checkout url: 256 random bits, base64url (43 characters); only its hash is kept. */
const newCheckoutToken = () => randomBytes(32).toString('base64url')

/** Stripe keeps times in whole seconds; so does the local processor. */
const wholeSeconds = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000)
const unix = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null)

/** Stripe's test payment methods, so that the same ids work with both processors. */
const TEST_CARDS: Record<string, { brand: string; last4: string; declines?: boolean }> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_amex: { brand: 'amex', last4: '8431' },
  pm_card_discover: { brand: 'discover', last4: '1117' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', declines: true },
}
export const LOCAL_TEST_CARDS = Object.keys(TEST_CARDS)

/** The subscription as Stripe shapes it in events (data.object). */
export function subscriptionObject(s: SubscriptionRow) {
  return {
    id: s.id, object: 'subscription', customer: s.customer_id, status: s.status,
    cancel_at_period_end: s.cancel_at_period_end, cancel_at: unix(s.cancel_at), canceled_at: unix(s.canceled_at),
    current_period_start: unix(s.current_period_start), current_period_end: unix(s.current_period_end), created: unix(s.created_at),
    items: { data: [{ current_period_start: unix(s.current_period_start), current_period_end: unix(s.current_period_end), price: { recurring: { interval: s.billing_interval }, unit_amount: s.amount, currency: s.currency } }] },
  }
}

function invoiceObject(i: InvoiceRow) {
  return {
    id: i.id, object: 'invoice', number: i.number, customer: i.customer_id, subscription: i.subscription_id, payment_intent: i.payment_intent,
    status: i.status, amount_due: i.amount_due, amount_paid: i.amount_paid, currency: i.currency,
    period_start: unix(i.period_start), period_end: unix(i.period_end), created: unix(i.created_at),
    lines: { data: [{ amount: i.amount_paid, period: { start: unix(i.period_start), end: unix(i.period_end) }, subscription: i.subscription_id }] },
  }
}

/** What a renewal charges: the recurring lines only (one-time lines were paid at checkout). */
const recurringAmount = (s: SessionRow) => s.line_items.filter((l) => l.interval).reduce((sum, l) => sum + l.quantity * l.unitAmount, 0)

const toInvoice = (i: InvoiceRow): ProcessorInvoice => ({
  id: i.id, number: i.number, status: i.status, amountDue: i.amount_due, amountPaid: i.amount_paid, currency: i.currency,
  subscriptionId: i.subscription_id, periodStart: i.period_start.toISOString(), periodEnd: i.period_end.toISOString(),
  hostedInvoiceUrl: null, createdAt: i.created_at.toISOString(), paidAt: i.paid_at?.toISOString() ?? null,
})

const toPaymentMethod = (pm: PaymentMethodRow, defaultId: string | null): ProcessorPaymentMethod => ({
  id: pm.id, type: 'card', brand: pm.brand, last4: pm.last4, expiryMonth: pm.exp_month, expiryYear: pm.exp_year, isDefault: pm.id === defaultId,
})

/**
 * PAYMENT_PROCESSOR=local: a persistent payment processor inside this service.
 * Its checkout page (local.routes.ts) is where a person pays or cancels; every
 * change it makes is reported as a Stripe-shaped, Stripe-signed event through
 * the outbox, exactly like Stripe would report it.
 */
export class LocalProcessor implements PaymentProcessor {
  readonly name = 'local' as const

  constructor(
    private readonly db: Db,
    readonly events: LocalEventOutbox,
  ) {}

  async createCustomer(input: { email: string; name: string }) {
    const id = localId('cus')
    await repo.insertCustomer(this.db, id, input.email, input.name)
    return id
  }

  /**
   * The checkout url carries a token bound to this session: the page and its
   * actions need it (`authorizedSession`), so the session id alone (which the
   * shop sees in successUrl) is not enough to pay, decline or cancel.
   */
  async createCheckoutSession(input: CheckoutSessionInput) {
    const id = localId('cs')
    const token = newCheckoutToken()
    const interval = input.lines.find((l) => l.interval)?.interval ?? null
    await repo.insertSession(this.db, {
      id, customer_id: input.customerId, mode: input.mode, line_items: input.lines,
      amount_total: input.lines.reduce((s, l) => s + l.quantity * l.unitAmount, 0), currency: input.lines[0].currency,
      billing_interval: interval, success_url: input.successUrl, cancel_url: input.cancelUrl, token_hash: hashToken(token),
    })
    return { id, url: `${input.baseUrl}/api/billing/local/checkout/${id}?token=${token}` }
  }

  /** The session, when `token` is the one of its checkout url: unknown session 404, a missing or other token 403. */
  async authorizedSession(id: string, token: string | undefined): Promise<SessionRow> {
    const session = await repo.session(this.db, id)
    if (!session) throw new NotFoundError('Checkout session')
    const expected = session.token_hash ? Buffer.from(session.token_hash, 'hex') : undefined
    const given = token ? Buffer.from(hashToken(token), 'hex') : undefined
    if (!expected || !given || !timingSafeEqual(expected, given)) throw new ForbiddenError('This checkout needs the token of its checkout url')
    return session
  }

  /** The person paid: subscription and paid invoice as Stripe would make them, then their events. */
  async completeSession(id: string): Promise<SessionRow | undefined> {
    const session = await this.db.tx(async (q) => {
      const found = await repo.session(q, id)
      if (!found || found.status !== 'open') return found
      const paymentIntent = localId('pi')
      const subscriptionId = found.billing_interval ? localId('sub') : null
      // The conditional close is the guard: of two clicks at once, one completes and the other sees it done.
      const open = await repo.closeSession(q, id, 'complete', { subscriptionId, paymentIntent: subscriptionId ? null : paymentIntent })
      if (!open) return repo.session(q, id)
      const now = wholeSeconds(new Date())
      const end = open.billing_interval ? addInterval(now, open.billing_interval) : now
      if (subscriptionId && open.billing_interval) {
        await repo.insertSubscription(q, { id: subscriptionId, customer_id: open.customer_id, billing_interval: open.billing_interval, amount: recurringAmount(open), currency: open.currency, current_period_start: now, current_period_end: end })
      }
      await this.ensureCardOnFile(q, open.customer_id)
      const invoice = await repo.insertInvoice(q, {
        id: localId('in'), customer_id: open.customer_id, subscription_id: subscriptionId, status: 'paid', amount_due: open.amount_total,
        amount_paid: open.amount_total, currency: open.currency, period_start: now, period_end: end, payment_intent: paymentIntent, paid_at: now,
      })
      // Stripe usually reports the paid invoice before the completed session; the receiver takes either order.
      await this.events.add(q, 'invoice.paid', invoiceObject(invoice))
      await this.events.add(q, 'checkout.session.completed', {
        id, object: 'checkout.session', mode: open.mode, status: 'complete', payment_status: 'paid', customer: open.customer_id,
        subscription: subscriptionId, payment_intent: open.payment_intent, amount_total: open.amount_total, currency: open.currency,
        success_url: open.success_url, cancel_url: open.cancel_url, created: unix(open.created_at),
      })
      return open
    })
    await this.events.deliverDue()
    return session
  }

  /** The person pressed "declined card": the payment fails and the session stays open. */
  async declineSession(id: string) {
    const session = await this.db.tx(async (q) => {
      const open = await repo.session(q, id)
      if (open?.status === 'open') await this.failedPayment(q, open.customer_id, open.amount_total, open.currency)
      return open
    })
    await this.events.deliverDue()
    return session
  }

  async cancelSession(id: string) {
    return (await repo.closeSession(this.db, id, 'expired')) ?? repo.session(this.db, id)
  }

  private async failedPayment(q: Queryable, customerId: string, amount: number, currency: string) {
    await this.events.add(q, 'payment_intent.payment_failed', {
      id: localId('pi'), object: 'payment_intent', customer: customerId, amount, currency, status: 'requires_payment_method',
      last_payment_error: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
    })
  }

  /** The card used on the checkout page is kept as the default when the customer has none. */
  private async ensureCardOnFile(q: Queryable, customerId: string) {
    const customer = await repo.customer(q, customerId)
    if (customer?.default_payment_method) return
    const pm = await repo.insertPaymentMethod(q, { id: localId('pm'), customer_id: customerId, ...TEST_CARDS.pm_card_visa, declines: false, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3 })
    await repo.setDefaultPaymentMethod(q, customerId, pm.id)
  }

  async cancelAtPeriodEnd(subscriptionId: string) {
    const sub = await this.db.tx(async (q) => {
      const updated = await repo.requestCancel(q, subscriptionId)
      if (updated) await this.events.add(q, 'customer.subscription.updated', subscriptionObject(updated))
      return updated ?? (await repo.subscription(q, subscriptionId))
    })
    if (!sub) throw new NotFoundError('Subscription')
    await this.events.deliverDue()
    return { id: sub.id, status: sub.status, cancelAtPeriodEnd: sub.cancel_at_period_end, cancelAt: sub.cancel_at }
  }

  /**
   * The clock: ends subscriptions cancelled at period end, renews the others
   * by charging the default card (a declining card makes them past_due). Only
   * the subscriptions of `customers` when given (an admin's run of the job:
   * the customers of the admin's organization), otherwise every one. The
   * events it writes are delivered by the caller (the job: deliverDue with the
   * same customers).
   */
  async runClock(customers?: readonly string[]): Promise<{ renewed: number; ended: number; pastDue: number }> {
    return this.db.tx(async (q) => {
      const counts = { renewed: 0, ended: 0, pastDue: 0 }
      for (const sub of await repo.claimDue(q, 50, customers)) {
        if (sub.cancel_at_period_end) {
          await this.events.add(q, 'customer.subscription.deleted', subscriptionObject((await repo.endSubscription(q, sub.id))!))
          counts.ended++
          continue
        }
        const customer = await repo.customer(q, sub.customer_id)
        const card = (await repo.paymentMethods(q, sub.customer_id)).find((pm) => pm.id === customer?.default_payment_method)
        if (!card || card.declines) {
          await this.failedPayment(q, sub.customer_id, sub.amount, sub.currency)
          await this.events.add(q, 'customer.subscription.updated', subscriptionObject((await repo.setSubscriptionStatus(q, sub.id, 'past_due'))!))
          counts.pastDue++
          continue
        }
        const end = addInterval(sub.current_period_end, sub.billing_interval)
        await repo.renewPeriod(q, sub.id, sub.current_period_end, end)
        const invoice = await repo.insertInvoice(q, {
          id: localId('in'), customer_id: sub.customer_id, subscription_id: sub.id, status: 'paid', amount_due: sub.amount, amount_paid: sub.amount,
          currency: sub.currency, period_start: sub.current_period_end, period_end: end, payment_intent: localId('pi'), paid_at: wholeSeconds(new Date()),
        })
        await this.events.add(q, 'invoice.paid', invoiceObject(invoice))
        counts.renewed++
      }
      return counts
    })
  }

  async listInvoices(customerId: string, page: { offset: number; limit: number }) {
    const { rows, total } = await repo.invoices(this.db, customerId, page.limit, page.offset)
    return { data: rows.map(toInvoice), total }
  }

  async getInvoice(customerId: string, invoiceId: string) {
    const row = await repo.invoice(this.db, customerId, invoiceId)
    return row ? toInvoice(row) : undefined
  }

  async listPaymentMethods(customerId: string) {
    const customer = await repo.customer(this.db, customerId)
    return (await repo.paymentMethods(this.db, customerId)).map((pm) => toPaymentMethod(pm, customer?.default_payment_method ?? null))
  }

  async attachPaymentMethod(customerId: string, paymentMethodId: string, makeDefault: boolean) {
    const card = TEST_CARDS[paymentMethodId]
    if (!card) throw new ValidationError(`paymentMethodId must be one of the test payment methods of the local processor: ${LOCAL_TEST_CARDS.join(', ')}`)
    return this.db.tx(async (q) => {
      const pm = await repo.insertPaymentMethod(q, { id: localId('pm'), customer_id: customerId, brand: card.brand, last4: card.last4, declines: card.declines ?? false, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3 })
      const customer = await repo.customer(q, customerId)
      const isDefault = makeDefault || !customer?.default_payment_method
      if (isDefault) await repo.setDefaultPaymentMethod(q, customerId, pm.id)
      return toPaymentMethod(pm, isDefault ? pm.id : null)
    })
  }

  async setDefaultPaymentMethod(customerId: string, paymentMethodId: string) {
    return this.db.tx(async (q) => {
      const pm = await repo.lockPaymentMethod(q, customerId, paymentMethodId)
      if (!pm) return undefined
      await repo.setDefaultPaymentMethod(q, customerId, pm.id)
      return toPaymentMethod(pm, pm.id)
    })
  }

  async detachPaymentMethod(customerId: string, paymentMethodId: string) {
    await this.db.tx(async (q) => {
      if (!(await repo.deletePaymentMethod(q, customerId, paymentMethodId))) throw new NotFoundError('Payment method')
      const customer = await repo.customer(q, customerId)
      if (customer?.default_payment_method === paymentMethodId) await repo.setDefaultPaymentMethod(q, customerId, null)
    })
  }

  async createPortalSession(customerId: string, returnUrl: string, baseUrl: string) {
    const id = localId('bps')
    await repo.insertPortalSession(this.db, id, customerId, returnUrl)
    return { url: `${baseUrl}/api/billing/local/portal/${id}` }
  }

  /** What the local portal page shows. */
  async portal(id: string) {
    const session = await repo.portalSession(this.db, id)
    if (!session) return undefined
    const [subscriptions, methods, invoices] = await Promise.all([
      repo.subscriptionsOf(this.db, session.customer_id),
      this.listPaymentMethods(session.customer_id),
      this.listInvoices(session.customer_id, { offset: 0, limit: 20 }),
    ])
    return { returnUrl: session.return_url, subscriptions, methods, invoices: invoices.data }
  }
}
