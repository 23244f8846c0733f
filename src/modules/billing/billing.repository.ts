import type { Queryable } from '../../core/db.ts'
import type { CheckoutLine } from './processor.types.ts'

export interface CheckoutRow {
  id: string
  session_id: string
  processor: string
  organization_id: string
  user_id: string
  customer_id: string
  mode: 'payment' | 'subscription'
  items: CheckoutLine[]
  amount_total: number
  currency: string
  status: 'open' | 'completed'
  subscription_id: string | null
  payment_intent: string | null
  order_id: string | null
  order_reference: string | null
  order_status: 'paid' | 'cancelled' | 'refunded' | null
  created_at: Date
  completed_at: Date | null
}

export interface SubscriptionRow {
  id: string
  customer_id: string | null
  organization_id: string | null
  user_id: string | null
  status: string
  cancel_at_period_end: boolean
  cancel_at: Date | null
  canceled_at: Date | null
  current_period_end: Date | null
  last_event_at: number
  deleted: boolean
  created_at: Date
}

export interface CustomerOwner {
  user_id: string
  organization_id: string
  email: string
  name: string
}

/** Subscription states that still bill (and keep licenses going). */
export const LIVE_SUBSCRIPTION = `NOT deleted AND status NOT IN ('canceled', 'incomplete_expired')`

export const billingRepository = {
  /**
   * Serializes every event about the same payment intent or subscription
   * (keys sorted, so two events never wait on each other crosswise).
   */
  async lock(q: Queryable, keys: Array<string | null | undefined>) {
    for (const key of [...new Set(keys.filter((k): k is string => !!k))].sort()) {
      await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`billing:${key}`])
    }
  },

  // Customers

  /** The processor's customer ids of an organization's buyers (an admin's run of the local processor's job). */
  async customerIdsOf(q: Queryable, processor: string, organizationId: string) {
    const { rows } = await q.query<{ customer_id: string }>('SELECT customer_id FROM billing_customers WHERE processor = $1 AND organization_id = $2', [processor, organizationId])
    return rows.map((r) => r.customer_id)
  },

  async findCustomer(q: Queryable, processor: string, organizationId: string, userId: string) {
    const { rows } = await q.query<{ customer_id: string }>(
      'SELECT customer_id FROM billing_customers WHERE organization_id = $3 AND processor = $1 AND user_id = $2 AND is_default',
      [processor, userId, organizationId],
    )
    return rows[0]?.customer_id
  },

  /** Another processor customer id of a known buyer (named by an event of their checkout). */
  async rememberCustomerId(q: Queryable, c: { processor: string; userId: string; organizationId: string; customerId: string; email: string }) {
    await q.query(
      `INSERT INTO billing_customers (processor, user_id, organization_id, customer_id, email, is_default) VALUES ($1, $2, $3, $4, $5, false)
       ON CONFLICT (organization_id, customer_id) DO NOTHING`,
      [c.processor, c.userId, c.organizationId, c.customerId, c.email],
    )
  },

  /** The buyer of a checkout, from our record. */
  async userOwner(q: Queryable, organizationId: string, userId: string) {
    const { rows } = await q.query<CustomerOwner>('SELECT id AS user_id, organization_id, email, name FROM users WHERE organization_id = $2 AND id = $1', [userId, organizationId])
    return rows[0]
  },

  /** Keeps the first customer when two requests create one at once; returns the one kept. */
  async insertCustomer(q: Queryable, c: { processor: string; userId: string; organizationId: string; customerId: string; email: string }) {
    await q.query(
      `INSERT INTO billing_customers (processor, user_id, organization_id, customer_id, email) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, processor, user_id) WHERE is_default DO NOTHING`,
      [c.processor, c.userId, c.organizationId, c.customerId, c.email],
    )
    return (await this.findCustomer(q, c.processor, c.organizationId, c.userId))!
  },

  async customerOwner(q: Queryable, customerId: string | null | undefined) {
    if (!customerId) return undefined
    const { rows } = await q.query<CustomerOwner>(
      `SELECT /* across organizations: the payment processor's event names its own customer id */ c.user_id, c.organization_id, u.email, u.name
       FROM billing_customers c JOIN users u ON u.organization_id = c.organization_id AND u.id = c.user_id WHERE c.customer_id = $1`,
      [customerId],
    )
    return rows[0]
  },

  // Checkouts and the orders they become

  async insertCheckout(q: Queryable, c: { id: string; sessionId: string; processor: string; organizationId: string; userId: string; customerId: string; mode: string; items: CheckoutLine[]; amountTotal: number; currency: string; successUrl: string; cancelUrl: string }) {
    await q.query(
      `INSERT INTO billing_checkouts (id, session_id, processor, organization_id, user_id, customer_id, mode, items, amount_total, currency, success_url, cancel_url)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [c.id, c.sessionId, c.processor, c.organizationId, c.userId, c.customerId, c.mode, JSON.stringify(c.items), c.amountTotal, c.currency, c.successUrl, c.cancelUrl],
    )
  },

  async findCheckoutBySession(q: Queryable, sessionId: string) {
    const { rows } = await q.query<CheckoutRow>(
      "SELECT /* across organizations: the payment processor's event names its own checkout session id */ * FROM billing_checkouts WHERE session_id = $1",
      [sessionId],
    )
    return rows[0]
  },

  /** Marks an open checkout completed; undefined when it was completed already. */
  async completeCheckout(q: Queryable, organizationId: string, id: string, c: { subscriptionId: string | null; paymentIntent: string | null; customerId: string }) {
    const { rows } = await q.query<CheckoutRow>(
      `UPDATE billing_checkouts SET status = 'completed', order_status = 'paid', completed_at = now(),
         subscription_id = $2, payment_intent = $3, customer_id = $4
       WHERE organization_id = $5 AND id = $1 AND status = 'open' RETURNING *`,
      [id, c.subscriptionId, c.paymentIntent, c.customerId, organizationId],
    )
    return rows[0]
  },

  async setOrder(q: Queryable, organizationId: string, id: string, orderId: string, reference: string, status: 'paid' | 'cancelled' | 'refunded') {
    await q.query('UPDATE billing_checkouts SET order_id = $2, order_reference = $3, order_status = $4 WHERE organization_id = $5 AND id = $1', [
      id, orderId, reference, status, organizationId,
    ])
  },

  /** Completed checkouts paid by a payment intent or renewed by a subscription. */
  async completedCheckoutsFor(q: Queryable, by: { paymentIntent?: string | null; subscriptionId?: string | null }) {
    const { rows } = await q.query<CheckoutRow>(
      `SELECT /* across organizations: the payment processor's event names its own payment intent or subscription */ * FROM billing_checkouts WHERE status = 'completed'
       AND ((payment_intent IS NOT NULL AND payment_intent = $1) OR (subscription_id IS NOT NULL AND subscription_id = $2))`,
      [by.paymentIntent ?? null, by.subscriptionId ?? null],
    )
    return rows
  },

  /** A refunded order stays refunded; a cancelled one may still become refunded. */
  async setOrderStatus(q: Queryable, organizationId: string, id: string, status: 'cancelled' | 'refunded') {
    const { rows } = await q.query<CheckoutRow>(
      `UPDATE billing_checkouts SET order_status = $2 WHERE organization_id = $3 AND id = $1 AND order_status <> 'refunded' AND order_status <> $2 RETURNING *`,
      [id, status, organizationId],
    )
    return rows[0]
  },

  async ordersOfUser(q: Queryable, organizationId: string, userId: string) {
    const { rows } = await q.query<CheckoutRow>(
      `SELECT * FROM billing_checkouts WHERE organization_id = $1 AND user_id = $2 AND status = 'completed' ORDER BY completed_at DESC, id DESC LIMIT 50`,
      [organizationId, userId],
    )
    return rows
  },

  // Subscriptions

  /** Creates or finds the subscription and locks its row for the rest of the transaction. */
  async ensureSubscription(q: Queryable, id: string, customerId: string | null, owner: CustomerOwner | undefined, initialStatus = 'active') {
    const { rows } = await q.query<SubscriptionRow>(
      `INSERT INTO billing_subscriptions (id, customer_id, organization_id, user_id, status) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET customer_id = COALESCE(billing_subscriptions.customer_id, EXCLUDED.customer_id),
         organization_id = COALESCE(billing_subscriptions.organization_id, EXCLUDED.organization_id),
         user_id = COALESCE(billing_subscriptions.user_id, EXCLUDED.user_id)
       RETURNING *`,
      [id, customerId, owner?.organization_id ?? null, owner?.user_id ?? null, initialStatus],
    )
    return rows[0]
  },

  /** Applies a subscription's state unless a later event (or its deletion) was applied already. */
  async applySubscriptionState(q: Queryable, id: string, s: { status: string; cancelAtPeriodEnd: boolean; cancelAt: Date | null; periodEnd: Date | null; created: number }) {
    const { rows } = await q.query<SubscriptionRow>(
      `UPDATE billing_subscriptions SET status = $2, cancel_at_period_end = $3, cancel_at = $4,
         current_period_end = GREATEST(current_period_end, $5::timestamptz), last_event_at = $6, updated_at = now()
       WHERE id = $1 AND NOT deleted AND last_event_at <= $6 RETURNING *`,
      [id, s.status, s.cancelAtPeriodEnd, s.cancelAt, s.periodEnd, s.created],
    )
    return rows[0]
  },

  async markSubscriptionDeleted(q: Queryable, id: string, canceledAt: Date, created: number) {
    await q.query(
      `UPDATE billing_subscriptions SET deleted = true, status = 'canceled', canceled_at = COALESCE(canceled_at, $2),
         last_event_at = GREATEST(last_event_at, $3), updated_at = now() WHERE id = $1`,
      [id, canceledAt, created],
    )
  },

  /** The end of the latest period paid (invoice.paid) for the subscription; null before its first payment. */
  async lastPaidPeriodEnd(q: Queryable, subscriptionId: string) {
    const { rows } = await q.query<{ end: Date | null }>('SELECT max(period_end) AS end FROM billing_payments WHERE subscription_id = $1', [subscriptionId])
    return rows[0]?.end ?? null
  },

  /** The billing interval of the products bought with the subscription (from our record of its checkout); null before the checkout is known. */
  async subscriptionInterval(q: Queryable, id: string) {
    const { rows } = await q.query<{ items: CheckoutLine[] }>(
      "SELECT /* across organizations: the payment processor's event names its own subscription id */ items FROM billing_checkouts WHERE subscription_id = $1 ORDER BY created_at LIMIT 1",
      [id],
    )
    return rows[0]?.items.find((i) => i.interval)?.interval ?? null
  },

  /**
   * The organizations of a subscription's licenses: the one its record names and the one of its
   * checkout (the same, once both are known; none before the checkout is known, when it has no license yet).
   */
  async subscriptionOrganizations(q: Queryable, id: string) {
    const { rows } = await q.query<{ organization_id: string }>(
      'SELECT organization_id FROM billing_subscriptions WHERE id = $1 AND organization_id IS NOT NULL',
      [id],
    )
    const { rows: checkouts } = await q.query<{ organization_id: string }>(
      "SELECT /* across organizations: the payment processor's event names its own subscription id */ DISTINCT organization_id FROM billing_checkouts WHERE subscription_id = $1",
      [id],
    )
    return [...new Set([...rows, ...checkouts].map((r) => r.organization_id))]
  },

  /** Brings the recorded period end and paid period ends of a subscription back to `limit` (never later). */
  async limitSubscriptionPeriod(q: Queryable, id: string, limit: Date) {
    await q.query('UPDATE billing_subscriptions SET current_period_end = LEAST(current_period_end, $2::timestamptz), updated_at = now() WHERE id = $1', [id, limit])
    await q.query('UPDATE billing_payments SET period_end = LEAST(period_end, $2::timestamptz) WHERE subscription_id = $1', [id, limit])
  },

  async extendSubscriptionPeriod(q: Queryable, id: string, periodEnd: Date) {
    await q.query('UPDATE billing_subscriptions SET current_period_end = GREATEST(current_period_end, $2::timestamptz), updated_at = now() WHERE id = $1', [id, periodEnd])
  },

  /** Rule 3 of docs/billing.md "Billing rules": the confirmed cancellation is kept without waiting for the event. */
  async recordCancel(q: Queryable, id: string, s: { status: string; cancelAtPeriodEnd: boolean; cancelAt: Date | null }) {
    await q.query(
      `UPDATE billing_subscriptions SET status = CASE WHEN deleted THEN status ELSE $2 END, cancel_at_period_end = $3, cancel_at = $4, updated_at = now() WHERE id = $1`,
      [id, s.status, s.cancelAtPeriodEnd, s.cancelAt],
    )
  },

  async subscriptionsOfUser(q: Queryable, organizationId: string, userId: string, liveOnly: boolean) {
    const { rows } = await q.query<SubscriptionRow>(
      `SELECT * FROM billing_subscriptions WHERE organization_id = $1 AND user_id = $2${liveOnly ? ` AND ${LIVE_SUBSCRIPTION}` : ''} ORDER BY created_at DESC, id`,
      [organizationId, userId],
    )
    return rows
  },

  async subscriptionOfUser(q: Queryable, organizationId: string, userId: string, id: string) {
    const { rows } = await q.query<SubscriptionRow>('SELECT * FROM billing_subscriptions WHERE organization_id = $1 AND user_id = $2 AND id = $3', [organizationId, userId, id])
    return rows[0]
  },

  async liveSubscriptionCount(q: Queryable, customerId: string) {
    const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM billing_subscriptions WHERE customer_id = $1 AND ${LIVE_SUBSCRIPTION}`, [customerId])
    return rows[0].n
  },

  // Payments and refunds

  /** Records a paid invoice; false when it was recorded already. */
  async insertPayment(q: Queryable, p: { invoiceId: string; subscriptionId: string | null; customerId: string | null; paymentIntent: string | null; amountPaid: number; currency: string; periodEnd: Date | null }) {
    const r = await q.query(
      `INSERT INTO billing_payments (invoice_id, subscription_id, customer_id, payment_intent, amount_paid, currency, period_end)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [p.invoiceId, p.subscriptionId, p.customerId, p.paymentIntent, p.amountPaid, p.currency, p.periodEnd],
    )
    return r.rowCount === 1
  },

  async paymentByIntent(q: Queryable, paymentIntent: string) {
    const { rows } = await q.query<{ invoice_id: string; subscription_id: string | null }>('SELECT invoice_id, subscription_id FROM billing_payments WHERE payment_intent = $1', [paymentIntent])
    return rows[0]
  },

  async recordRefund(q: Queryable, r: { paymentIntent: string; chargeId: string | null; amountRefunded: number; full: boolean }) {
    await q.query(
      `INSERT INTO billing_refunds (payment_intent, charge_id, amount_refunded, full_refund) VALUES ($1, $2, $3, $4)
       ON CONFLICT (payment_intent) DO UPDATE SET amount_refunded = GREATEST(billing_refunds.amount_refunded, EXCLUDED.amount_refunded),
         full_refund = billing_refunds.full_refund OR EXCLUDED.full_refund`,
      [r.paymentIntent, r.chargeId, r.amountRefunded, r.full],
    )
  },

  /** True when a full refund is known for a payment of this checkout (its intent, or an invoice of its subscription). */
  async fullyRefunded(q: Queryable, paymentIntent: string | null, subscriptionId: string | null) {
    const { rows } = await q.query(
      `SELECT 1 FROM billing_refunds r WHERE r.full_refund AND (r.payment_intent = $1
         OR r.payment_intent IN (SELECT payment_intent FROM billing_payments WHERE subscription_id = $2 AND payment_intent IS NOT NULL))`,
      [paymentIntent, subscriptionId],
    )
    return rows.length > 0
  },

  // Events

  /** Claims an event id; false when it was applied already (the once-only guard). */
  async claimEvent(q: Queryable, e: { id: string; type: string; created: number; payload: unknown }) {
    const r = await q.query(
      `INSERT INTO billing_events (id, type, created, outcome, payload) VALUES ($1, $2, $3, 'applying', $4) ON CONFLICT (id) DO NOTHING`,
      [e.id, e.type, e.created, JSON.stringify(e.payload)],
    )
    return r.rowCount === 1
  },

  async setEventOutcome(q: Queryable, id: string, outcome: string) {
    await q.query('UPDATE billing_events SET outcome = $2 WHERE id = $1', [id, outcome])
  },
}
