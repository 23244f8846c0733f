import { randomUUID } from 'node:crypto'
import type { Principal } from '../../core/auth.ts'
import { iso, type Db } from '../../core/db.ts'
import { AppError, ForbiddenError, NotFoundError, ValidationError } from '../../core/errors.ts'
import { offsetPaging } from '../../core/pagination.ts'
import type { IdentityService } from '../identity/index.ts'
import type { License } from '../licenses/index.ts'
import type { LicensesService } from '../licenses/index.ts'
import type { Product } from '../products/index.ts'
import type { ProductsService } from '../products/index.ts'
import { billingRepository as repo, type SubscriptionRow } from './billing.repository.ts'
import type { CheckoutBody, SubscriptionDetails, SubscriptionEntry } from './billing.schemas.ts'
import type { CheckoutLine, PaymentProcessor } from './processor.types.ts'

/** The product of a subscription entry: decimal string price, upper-case currency (docs/billing.md "Subscription entry"). */
const productRef = (p: Pick<Product, 'id' | 'name' | 'price' | 'currency'> | undefined, fallback: License['product']) => ({
  id: p?.id ?? fallback.id,
  name: p?.name ?? fallback.name,
  price: ((p?.price ?? 0) / 100).toFixed(2),
  currency: (p?.currency ?? 'usd').toUpperCase(),
})

/**
 * docs/billing.md "Endpoints" for the authenticated buyer: checkout, subscriptions, processor
 * invoices, payment methods and the portal. Lists of subscriptions come from
 * our own records (rule 3); invoices and payment methods from the processor.
 */
export class BillingService {
  constructor(
    private readonly db: Db,
    readonly processor: PaymentProcessor,
    private readonly products: ProductsService,
    private readonly licenses: LicensesService,
    private readonly identity: IdentityService,
  ) {}

  /** The caller's customer at the processor, created on first need. */
  private async customer(p: Principal, create: true): Promise<string>
  private async customer(p: Principal, create: false): Promise<string | undefined>
  private async customer(p: Principal, create: boolean) {
    if (!p.userId) throw new ForbiddenError('Billing needs the credential of a user')
    const known = await repo.findCustomer(this.db, this.processor.name, p.organizationId, p.userId)
    if (known || !create) return known
    const user = await this.identity.getUser(p, p.userId)
    const customerId = await this.processor.createCustomer({ email: user.email, name: user.name, userId: p.userId })
    return repo.insertCustomer(this.db, { processor: this.processor.name, userId: p.userId, organizationId: p.organizationId, customerId, email: user.email })
  }

  /** Rule 5: an empty cart or an unknown product is 422. Licenses are issued later, by the event only. */
  async checkout(p: Principal, body: CheckoutBody, baseUrl: string) {
    if (body.items.length === 0) throw new ValidationError('items must not be empty: the cart is empty')
    const found = new Map((await this.products.findMany(p.organizationId, body.items.map((i) => i.productId))).map((x) => [x.id, x]))
    const problems: string[] = []
    const lines: CheckoutLine[] = []
    body.items.forEach((item, i) => {
      const product = found.get(item.productId)
      if (!product) return problems.push(`items.${i}.productId does not name a product of this organization`)
      const interval = product.billing === 'recurring' ? (product.interval ?? 'month') : null
      lines.push({ productId: product.id, name: product.name, quantity: item.quantity, unitAmount: product.price, currency: product.currency, interval })
    })
    if (new Set(lines.map((l) => l.currency)).size > 1) problems.push('items must all be priced in one currency')
    if (new Set(lines.flatMap((l) => (l.interval ? [l.interval] : []))).size > 1) problems.push('recurring items must share one billing interval')
    if (problems.length) throw new ValidationError(problems)

    const customerId = await this.customer(p, true)
    const mode = lines.some((l) => l.interval) ? 'subscription' : 'payment'
    const checkoutId = randomUUID()
    const session = await this.processor.createCheckoutSession({ checkoutId, customerId, mode, lines, successUrl: body.successUrl, cancelUrl: body.cancelUrl, baseUrl })
    await repo.insertCheckout(this.db, {
      id: checkoutId, sessionId: session.id, processor: this.processor.name, organizationId: p.organizationId, userId: p.userId!, customerId, mode,
      items: lines, amountTotal: lines.reduce((s, l) => s + l.quantity * l.unitAmount, 0), currency: lines[0].currency, successUrl: body.successUrl, cancelUrl: body.cancelUrl,
    })
    return { sessionId: session.id, url: session.url }
  }

  private async entries(p: Principal, subs: SubscriptionRow[]): Promise<SubscriptionEntry[]> {
    const licenses = await this.licenses.forSubscriptions(p.organizationId, subs.map((s) => s.id))
    const products = new Map((await this.products.findMany(p.organizationId, licenses.map((l) => l.productId))).map((x) => [x.id, x]))
    const byId = new Map(subs.map((s) => [s.id, s]))
    return licenses.map((l) => {
      const sub = byId.get(l.subscriptionId!)!
      return {
        license: { id: l.id, status: l.status, expiresAt: l.expiresAt },
        stripeSubscriptionId: sub.id,
        status: sub.status,
        cancelAtPeriodEnd: sub.cancel_at_period_end,
        cancelAt: iso(sub.cancel_at),
        product: productRef(products.get(l.productId), l.product),
      }
    })
  }

  /** GET /billing/subscriptions: one entry per license of the caller's live subscriptions. */
  async subscriptions(p: Principal) {
    if (!p.userId) return []
    return this.entries(p, await repo.subscriptionsOfUser(this.db, p.organizationId, p.userId, true))
  }

  private async ownSubscription(p: Principal, id: string) {
    const sub = p.userId ? await repo.subscriptionOfUser(this.db, p.organizationId, p.userId, id) : undefined
    if (!sub) throw new NotFoundError('Subscription')
    return sub
  }

  async subscription(p: Principal, id: string): Promise<SubscriptionDetails> {
    const sub = await this.ownSubscription(p, id)
    const licenses = await this.licenses.forSubscriptions(p.organizationId, [id])
    const products = new Map((await this.products.findMany(p.organizationId, licenses.map((l) => l.productId))).map((x) => [x.id, x]))
    return {
      id: sub.id, status: sub.status, cancelAtPeriodEnd: sub.cancel_at_period_end, cancelAt: iso(sub.cancel_at), canceledAt: iso(sub.canceled_at),
      currentPeriodEnd: iso(sub.current_period_end), customerId: sub.customer_id, createdAt: iso(sub.created_at),
      licenses: licenses.map((l) => ({ id: l.id, key: l.key, status: l.status, expiresAt: l.expiresAt, product: productRef(products.get(l.productId), l.product) })),
    }
  }

  /** Rules 1-3: cancel at period end, answer the processor's confirmed state, keep it locally. */
  async cancel(p: Principal, id: string) {
    const sub = await this.ownSubscription(p, id)
    if (sub.deleted) return { canceled: true, status: sub.status, cancelAtPeriodEnd: sub.cancel_at_period_end, cancelAt: iso(sub.cancel_at) }
    const state = await this.processor.cancelAtPeriodEnd(id)
    await repo.recordCancel(this.db, id, state)
    return { canceled: state.status === 'canceled', status: state.status, cancelAtPeriodEnd: state.cancelAtPeriodEnd, cancelAt: iso(state.cancelAt) }
  }

  async invoices(p: Principal, page: { page: number; limit: number; cursor?: string }) {
    const customerId = await this.customer(p, false)
    const paging = offsetPaging(page, `billing-invoices:${p.organizationId}:${p.userId ?? ''}`)
    const { data, total } = customerId ? await this.processor.listInvoices(customerId, { offset: paging.offset, limit: page.limit }) : { data: [], total: 0 }
    return paging.page(data, total)
  }

  async invoice(p: Principal, id: string) {
    const customerId = await this.customer(p, false)
    const invoice = customerId ? await this.processor.getInvoice(customerId, id) : undefined
    if (!invoice) throw new NotFoundError('Invoice')
    return invoice
  }

  async paymentMethods(p: Principal) {
    const customerId = await this.customer(p, false)
    return customerId ? this.processor.listPaymentMethods(customerId) : []
  }

  async addPaymentMethod(p: Principal, body: { paymentMethodId: string; setDefault?: boolean }) {
    return this.processor.attachPaymentMethod(await this.customer(p, true), body.paymentMethodId, body.setDefault ?? false)
  }

  /** Moves the default to another of the caller's methods; the one it leaves may then be removed (rule 4 guards the new one). */
  async setDefaultPaymentMethod(p: Principal, id: string) {
    const customerId = await this.customer(p, false)
    const method = customerId ? await this.processor.setDefaultPaymentMethod(customerId, id) : undefined
    if (!method) throw new NotFoundError('Payment method')
    return method
  }

  /** Rule 4: the default method stays while subscriptions are active (400). */
  async removePaymentMethod(p: Principal, id: string) {
    const customerId = await this.customer(p, false)
    const method = customerId ? (await this.processor.listPaymentMethods(customerId)).find((m) => m.id === id) : undefined
    if (!customerId || !method) throw new NotFoundError('Payment method')
    if (method.isDefault && (await repo.liveSubscriptionCount(this.db, customerId)) > 0) {
      throw new AppError('ACTION_NOT_ALLOWED', 'The default payment method cannot be removed while subscriptions are active')
    }
    await this.processor.detachPaymentMethod(customerId, id)
  }

  async portalSession(p: Principal, returnUrl: string, baseUrl: string) {
    return this.processor.createPortalSession(await this.customer(p, true), returnUrl, baseUrl)
  }

  /** GET /portal/billing: everything of the caller's billing on one page. */
  async dashboard(p: Principal) {
    const customerId = (await this.customer(p, false)) ?? null
    const [subscriptions, paymentMethods, invoices, orders] = await Promise.all([
      this.subscriptions(p),
      this.paymentMethods(p),
      this.invoices(p, { page: 1, limit: 10 }),
      p.userId ? repo.ordersOfUser(this.db, p.organizationId, p.userId) : [],
    ])
    return {
      processor: this.processor.name,
      customerId,
      subscriptions,
      paymentMethods,
      invoices: invoices.data,
      orders: orders.map((o) => ({
        orderId: o.order_id, reference: o.order_reference, status: o.order_status ?? 'paid', total: o.amount_total, currency: o.currency,
        items: o.items.map((i) => ({ productId: i.productId, name: i.name, quantity: i.quantity, unitAmount: i.unitAmount })),
        subscriptionId: o.subscription_id, createdAt: iso(o.completed_at ?? o.created_at),
      })),
    }
  }
}
