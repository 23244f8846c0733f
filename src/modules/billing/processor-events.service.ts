import type { Db, Queryable } from '../../core/db.ts'
import type { DomainEvents } from '../../core/events.ts'
import type { LicensesService } from '../licenses/index.ts'
import type { LicenseStatus } from '../licenses/index.ts'
import type { MailService } from '../mail/index.ts'
import type { ProductsService } from '../products/index.ts'
import { billingRepository as repo, type CheckoutRow, type CustomerOwner } from './billing.repository.ts'
import { paymentFailedMail, receiptMail, welcomeMail, type IssuedLicense, type Recipient } from './billing.mails.ts'
import type { CheckoutOrders } from './checkout-orders.adapter.ts'
import { verifyEvent, type ProcessorEvent } from './processor-events.signature.ts'
import { addInterval, isStorableInstant } from '../../core/dates.ts'

type Obj = Record<string, any>

/** A processor id, whether the field holds the id or the expanded object. */
const idOf = (v: unknown): string | null => (typeof v === 'string' && v ? v : v && typeof v === 'object' && typeof (v as Obj).id === 'string' ? (v as Obj).id : null)
/** A Unix time as a Date; null when absent or not a date the database holds (a year past 9999 would fail the event's transaction at every retry). */
const dateOf = (unix: unknown): Date | null => {
  const d = typeof unix === 'number' && Number.isFinite(unix) ? new Date(unix * 1000) : null
  return d && isStorableInstant(d) ? d : null
}
const earliest = (a: Date, b: Date) => (a.getTime() <= b.getTime() ? a : b)
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : 0)

/** Subscription statuses under which licenses are in force. */
const IN_FORCE = new Set(['active', 'trialing'])

// Stripe moved invoice.subscription and current_period_end in recent API versions; read both places.
const invoiceSubscription = (o: Obj) => idOf(o.subscription) ?? idOf(o.parent?.subscription_details?.subscription) ?? idOf(o.lines?.data?.[0]?.subscription)
const invoicePaymentIntent = (o: Obj) => idOf(o.payment_intent) ?? idOf(o.payments?.data?.[0]?.payment?.payment_intent)
function invoicePeriodEnd(o: Obj): Date | null {
  const ends: number[] = (o.lines?.data ?? []).map((l: Obj) => l?.period?.end).filter((e: unknown) => typeof e === 'number')
  return dateOf(ends.length ? Math.max(...ends) : o.period_end)
}
const subscriptionPeriodEnd = (o: Obj) => dateOf(o.current_period_end ?? o.items?.data?.[0]?.current_period_end)

/** The payment intent and subscription an event is about: events about the same ones run one at a time. */
function lockKeys(type: string, o: Obj) {
  if (type.startsWith('customer.subscription.')) return [idOf(o.id)]
  return [idOf(o.payment_intent), invoicePaymentIntent(o), idOf(o.subscription), invoiceSubscription(o)]
}

const recipient = (o: CustomerOwner): Recipient => ({ organizationId: o.organization_id, email: o.email, name: o.name })

/**
 * The receiver of payment-processor events (docs/billing.md "Events"). Each event is applied
 * once, in one transaction that first claims its id; events about the same
 * payment or subscription are serialized with advisory locks; and each
 * handler reads what earlier events left (refunds, deletions, paid periods),
 * so the end state is the same in any order of arrival.
 */
export class ProcessorEvents {
  constructor(
    private readonly db: Db,
    private readonly secret: string,
    private readonly licenses: LicensesService,
    private readonly products: ProductsService,
    private readonly mail: MailService,
    private readonly orders: CheckoutOrders,
    private readonly events: DomainEvents,
  ) {}

  receive(raw: Buffer | undefined, signature: string | string[] | undefined) {
    return this.apply(verifyEvent(raw, signature, this.secret))
  }

  async apply(event: ProcessorEvent): Promise<{ received: true; duplicate: boolean; outcome: string }> {
    const o = event.data.object
    const created = int(event.created) || Math.floor(Date.now() / 1000)
    return this.db.tx(async (q) => {
      await repo.lock(q, lockKeys(event.type, o))
      if (!(await repo.claimEvent(q, { id: event.id, type: event.type, created, payload: event }))) {
        return { received: true as const, duplicate: true, outcome: 'already applied' }
      }
      const outcome = await this.handle(q, event.type, o, created)
      await repo.setEventOutcome(q, event.id, outcome)
      return { received: true as const, duplicate: false, outcome }
    })
  }

  private handle(q: Queryable, type: string, o: Obj, created: number): Promise<string> {
    switch (type) {
      case 'checkout.session.completed': return this.checkoutCompleted(q, o)
      case 'invoice.paid': return this.invoicePaid(q, o)
      case 'customer.subscription.updated': return this.subscriptionUpdated(q, o, created)
      case 'customer.subscription.deleted': return this.subscriptionDeleted(q, o, created)
      case 'charge.refunded': return this.chargeRefunded(q, o)
      case 'payment_intent.payment_failed': return this.paymentFailed(q, o)
      default: return Promise.resolve(`ignored: ${type} is not handled`)
    }
  }

  /** Creates the order and issues the licenses of our record of the checkout, in the state earlier events left. */
  private async checkoutCompleted(q: Queryable, o: Obj) {
    const found = await repo.findCheckoutBySession(q, String(o.id))
    if (!found) return 'ignored: unknown checkout session'
    const subscriptionId = idOf(o.subscription)
    const paymentIntent = idOf(o.payment_intent)
    // The cart and the buyer come from our record; a customer id the processor
    // made for this checkout is remembered as another id of the same buyer.
    const checkout = await repo.completeCheckout(q, found.organization_id, found.id, { subscriptionId, paymentIntent, customerId: found.customer_id })
    if (!checkout) return 'ignored: checkout already completed'
    const owner = await repo.userOwner(q, checkout.organization_id, checkout.user_id)
    const processorCustomer = idOf(o.customer)
    if (owner && processorCustomer && processorCustomer !== checkout.customer_id) {
      await repo.rememberCustomerId(q, { processor: checkout.processor, userId: owner.user_id, organizationId: owner.organization_id, customerId: processorCustomer, email: owner.email })
    }
    const sub = subscriptionId ? await repo.ensureSubscription(q, subscriptionId, checkout.customer_id, owner) : undefined
    // A period end recorded before this checkout was known (by an invoice.paid that came first, its interval unknown then)
    // is held to one interval of the cart's recurring products from now, for the licenses and the subscription alike.
    const interval = checkout.items.find((i) => i.interval)?.interval
    const limit = interval ? addInterval(new Date(), interval) : null
    let paidUntil = sub?.current_period_end ?? null
    if (sub && limit && paidUntil && paidUntil > limit) {
      paidUntil = limit
      await repo.limitSubscriptionPeriod(q, sub.id, limit)
    }
    const refunded = await repo.fullyRefunded(q, paymentIntent, subscriptionId)
    const orderStatus = refunded ? 'refunded' : sub?.deleted ? 'cancelled' : 'paid'
    const order = await this.orders.create(q, checkout.organization_id, checkout.items, { name: owner?.name ?? '', email: owner?.email ?? '' })
    await repo.setOrder(q, checkout.organization_id, checkout.id, order.id, order.reference, orderStatus)
    if (orderStatus !== 'paid') await this.orders.setStatus(q, checkout.organization_id, order.id, orderStatus)

    const status: LicenseStatus = orderStatus !== 'paid' ? 'revoked' : sub && !IN_FORCE.has(sub.status) ? 'suspended' : 'active'
    const issued = await this.issueLicenses(q, checkout, order.id, status, paidUntil)
    if (owner) await this.mail.enqueue(q, welcomeMail(recipient(owner), { reference: order.reference, total: checkout.amount_total, currency: checkout.currency }, issued))
    return `applied: order ${order.reference} (${orderStatus}), ${issued.length} license(s) ${status}`
  }

  private async issueLicenses(q: Queryable, checkout: CheckoutRow, orderId: string, status: LicenseStatus, paidUntil: Date | null) {
    const products = new Map((await this.products.findMany(checkout.organization_id, checkout.items.map((i) => i.productId), q)).map((p) => [p.id, p]))
    const ids: string[] = []
    for (const line of checkout.items) {
      const product = products.get(line.productId)
      if (!product?.moduleName) continue
      const recurring = line.interval !== null
      // A recurring license lasts until the paid period's end (known once invoice.paid arrived), else one interval.
      const expiresAt = recurring ? (paidUntil && paidUntil.getTime() > Date.now() ? paidUntil : addInterval(new Date(), line.interval!)) : null
      for (let n = 0; n < line.quantity; n++) {
        ids.push(await this.licenses.grant(q, {
          organizationId: checkout.organization_id, product, userId: checkout.user_id, status, expiresAt,
          subscriptionId: recurring ? checkout.subscription_id : null, orderId,
        }))
      }
    }
    const issued = await this.licenses.findByIds(q, checkout.organization_id, ids)
    return issued.map((l): IssuedLicense => ({
      key: l.key, productName: l.product.name, moduleName: l.moduleName, erpVersion: l.erpVersion,
      expiresAt: l.expiresAt ? new Date(l.expiresAt) : null, status: l.status,
    }))
  }

  /**
   * The furthest a signed event may move a subscription's period end: one
   * billing interval (the month or year of the products bought with it) past
   * the end of the last paid period, or past now when there is none or it is
   * over. Before the checkout is known its interval is not: then one year,
   * the longest, and checkout.session.completed holds it to the cart's interval.
   */
  private async limitPeriodEnd(q: Queryable, subscriptionId: string, requested: Date): Promise<Date> {
    const now = new Date()
    const paid = await repo.lastPaidPeriodEnd(q, subscriptionId)
    const from = paid && paid > now ? paid : now
    return earliest(requested, addInterval(from, (await repo.subscriptionInterval(q, subscriptionId)) ?? 'year'))
  }

  /** Records the payment, extends the subscription's licenses to the paid period's end (bounded: limitPeriodEnd), sends a receipt. */
  private async invoicePaid(q: Queryable, o: Obj) {
    const subscriptionId = invoiceSubscription(o)
    const paymentIntent = invoicePaymentIntent(o)
    const customerId = idOf(o.customer)
    const requestedEnd = invoicePeriodEnd(o)
    const periodEnd = requestedEnd && subscriptionId ? await this.limitPeriodEnd(q, subscriptionId, requestedEnd) : requestedEnd
    const amountPaid = int(o.amount_paid)
    const currency = typeof o.currency === 'string' ? o.currency : 'usd'
    if (!(await repo.insertPayment(q, { invoiceId: String(o.id), subscriptionId, customerId, paymentIntent, amountPaid, currency, periodEnd }))) {
      return 'ignored: invoice already recorded'
    }
    const owner = await repo.customerOwner(q, customerId)
    let renewed = ''
    if (subscriptionId) {
      const sub = await repo.ensureSubscription(q, subscriptionId, customerId, owner)
      if (periodEnd) {
        await repo.extendSubscriptionPeriod(q, subscriptionId, periodEnd)
        // The licenses module extends the subscription's licenses in this transaction (a subscriber).
        await this.events.append(q, {
          organizationId: sub.organization_id, type: 'subscription.renewed',
          resource: { type: 'subscription', id: subscriptionId }, object: { id: subscriptionId, currentPeriodEnd: periodEnd.toISOString() },
        })
        renewed = `, subscription renewed until ${periodEnd.toISOString()}`
      }
    }
    // A refund of this very payment that arrived first still wins.
    if (paymentIntent && (await repo.fullyRefunded(q, paymentIntent, null))) await this.refund(q, paymentIntent, subscriptionId)
    if (owner) await this.mail.enqueue(q, receiptMail(recipient(owner), { invoiceId: String(o.id), amountPaid, currency, periodEnd }))
    return `applied: payment recorded${renewed}`
  }

  /** Suspends or reactivates the subscription's licenses; keeps the cancellation state (rule 3). */
  private async subscriptionUpdated(q: Queryable, o: Obj, created: number) {
    const id = String(o.id)
    const customerId = idOf(o.customer)
    const sub = await repo.ensureSubscription(q, id, customerId, await repo.customerOwner(q, customerId), String(o.status))
    if (sub.deleted) return 'ignored: subscription already deleted'
    const requestedEnd = subscriptionPeriodEnd(o)
    const periodEnd = requestedEnd ? await this.limitPeriodEnd(q, id, requestedEnd) : null
    const state = { status: String(o.status), cancelAtPeriodEnd: o.cancel_at_period_end === true, cancelAt: dateOf(o.cancel_at), periodEnd, created }
    if (!(await repo.applySubscriptionState(q, id, state))) return 'ignored: a later update was applied already'
    let changed = 0
    for (const organizationId of await repo.subscriptionOrganizations(q, id)) {
      changed += IN_FORCE.has(state.status)
        ? await this.licenses.reactivateForSubscription(q, organizationId, id)
        : await this.licenses.suspendForSubscription(q, organizationId, id)
    }
    return IN_FORCE.has(state.status) ? `applied: ${changed} license(s) reactivated` : `applied: ${changed} license(s) suspended`
  }

  /** Revokes the subscription's licenses and cancels its orders. */
  private async subscriptionDeleted(q: Queryable, o: Obj, created: number) {
    const id = String(o.id)
    const customerId = idOf(o.customer)
    await repo.ensureSubscription(q, id, customerId, await repo.customerOwner(q, customerId), 'canceled')
    await repo.markSubscriptionDeleted(q, id, dateOf(o.canceled_at) ?? dateOf(o.ended_at) ?? new Date(), created)
    const revoked = await this.revokeForSubscription(q, id)
    for (const checkout of await repo.completedCheckoutsFor(q, { subscriptionId: id })) {
      if (await repo.setOrderStatus(q, checkout.organization_id, checkout.id, 'cancelled')) await this.orders.setStatus(q, checkout.organization_id, checkout.order_id!, 'cancelled')
    }
    return `applied: ${revoked} license(s) revoked`
  }

  /** A full refund revokes the licenses bought with the payment and marks the order refunded. */
  private async chargeRefunded(q: Queryable, o: Obj) {
    const paymentIntent = idOf(o.payment_intent)
    if (!paymentIntent) return 'ignored: no payment_intent'
    // Stripe sends refunded: false for a partial refund; a refund without the field counts as full.
    const full = o.refunded !== false
    await repo.recordRefund(q, { paymentIntent, chargeId: idOf(o.id), amountRefunded: int(o.amount_refunded), full })
    if (!full) return 'applied: partial refund recorded'
    const payment = await repo.paymentByIntent(q, paymentIntent)
    if (payment?.subscription_id) await repo.lock(q, [payment.subscription_id])
    return `applied: ${await this.refund(q, paymentIntent, payment?.subscription_id ?? null)} license(s) revoked`
  }

  private async refund(q: Queryable, paymentIntent: string, subscriptionId: string | null) {
    let revoked = subscriptionId ? await this.revokeForSubscription(q, subscriptionId) : 0
    for (const checkout of await repo.completedCheckoutsFor(q, { paymentIntent, subscriptionId })) {
      revoked += await this.licenses.revokeForOrder(q, checkout.organization_id, checkout.order_id!)
      if (await repo.setOrderStatus(q, checkout.organization_id, checkout.id, 'refunded')) await this.orders.setStatus(q, checkout.organization_id, checkout.order_id!, 'refunded')
    }
    return revoked
  }

  /** Revokes the subscription's licenses, in the organization they belong to. */
  private async revokeForSubscription(q: Queryable, subscriptionId: string) {
    let revoked = 0
    for (const organizationId of await repo.subscriptionOrganizations(q, subscriptionId)) revoked += await this.licenses.revokeForSubscription(q, organizationId, subscriptionId)
    return revoked
  }

  private async paymentFailed(q: Queryable, o: Obj) {
    const owner = await repo.customerOwner(q, idOf(o.customer))
    if (!owner) return 'ignored: unknown customer'
    const reason = typeof o.last_payment_error?.message === 'string' ? o.last_payment_error.message : null
    await this.mail.enqueue(q, paymentFailedMail(recipient(owner), { amount: typeof o.amount === 'number' ? o.amount : null, currency: typeof o.currency === 'string' ? o.currency : null, reason }))
    return 'applied: payment failure e-mail queued'
  }
}
