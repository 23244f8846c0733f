import { randomBytes } from 'node:crypto'
import type { Queryable } from '../../../core/db.ts'
import type { CheckoutLine } from '../processor.types.ts'

/** Stripe-looking ids that say where they come from: `sub_local_5f1c...`. */
export const localId = (prefix: string) => `${prefix}_local_${randomBytes(12).toString('hex')}`

export interface SessionRow {
  id: string
  customer_id: string
  mode: 'payment' | 'subscription'
  line_items: CheckoutLine[]
  amount_total: number
  currency: string
  billing_interval: 'month' | 'year' | null
  success_url: string
  cancel_url: string
  status: 'open' | 'complete' | 'expired'
  subscription_id: string | null
  payment_intent: string | null
  /** SHA-256 (hex) of the token of the checkout url; null for sessions made before tokens (never acted on). */
  token_hash: string | null
  created_at: Date
}

export interface SubscriptionRow {
  id: string
  customer_id: string
  status: 'active' | 'past_due' | 'canceled'
  billing_interval: 'month' | 'year'
  amount: number
  currency: string
  current_period_start: Date
  current_period_end: Date
  cancel_at_period_end: boolean
  cancel_at: Date | null
  canceled_at: Date | null
  created_at: Date
}

export interface InvoiceRow {
  id: string
  number: string
  customer_id: string
  subscription_id: string | null
  status: 'paid' | 'open'
  amount_due: number
  amount_paid: number
  currency: string
  period_start: Date
  period_end: Date
  payment_intent: string
  created_at: Date
  paid_at: Date | null
}

export interface PaymentMethodRow {
  id: string
  customer_id: string
  brand: string
  last4: string
  exp_month: number
  exp_year: number
  declines: boolean
  created_at: Date
}

export const localRepository = {
  async insertCustomer(q: Queryable, id: string, email: string, name: string) {
    await q.query('INSERT INTO local_customers (id, email, name) VALUES ($1, $2, $3)', [id, email, name])
  },

  async customer(q: Queryable, id: string) {
    const { rows } = await q.query<{ id: string; email: string; name: string | null; default_payment_method: string | null }>('SELECT * FROM local_customers WHERE id = $1', [id])
    return rows[0]
  },

  async setDefaultPaymentMethod(q: Queryable, customerId: string, paymentMethodId: string | null) {
    await q.query('UPDATE local_customers SET default_payment_method = $2 WHERE id = $1', [customerId, paymentMethodId])
  },

  async insertSession(q: Queryable, s: Omit<SessionRow, 'status' | 'subscription_id' | 'payment_intent' | 'created_at'>) {
    await q.query(
      `INSERT INTO local_checkout_sessions (id, customer_id, mode, line_items, amount_total, currency, billing_interval, success_url, cancel_url, token_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [s.id, s.customer_id, s.mode, JSON.stringify(s.line_items), s.amount_total, s.currency, s.billing_interval, s.success_url, s.cancel_url, s.token_hash],
    )
  },

  async session(q: Queryable, id: string) {
    const { rows } = await q.query<SessionRow>('SELECT * FROM local_checkout_sessions WHERE id = $1', [id])
    return rows[0]
  },

  /** Moves an open session on; undefined when it was not open any more. */
  async closeSession(q: Queryable, id: string, status: 'complete' | 'expired', refs: { subscriptionId?: string | null; paymentIntent?: string | null } = {}) {
    const { rows } = await q.query<SessionRow>(
      `UPDATE local_checkout_sessions SET status = $2, completed_at = now(), subscription_id = $3, payment_intent = $4
       WHERE id = $1 AND status = 'open' RETURNING *`,
      [id, status, refs.subscriptionId ?? null, refs.paymentIntent ?? null],
    )
    return rows[0]
  },

  async insertSubscription(q: Queryable, s: Pick<SubscriptionRow, 'id' | 'customer_id' | 'billing_interval' | 'amount' | 'currency' | 'current_period_start' | 'current_period_end'>) {
    const { rows } = await q.query<SubscriptionRow>(
      `INSERT INTO local_subscriptions (id, customer_id, status, billing_interval, amount, currency, current_period_start, current_period_end)
       VALUES ($1, $2, 'active', $3, $4, $5, $6, $7) RETURNING *`,
      [s.id, s.customer_id, s.billing_interval, s.amount, s.currency, s.current_period_start, s.current_period_end],
    )
    return rows[0]
  },

  async subscription(q: Queryable, id: string) {
    const { rows } = await q.query<SubscriptionRow>('SELECT * FROM local_subscriptions WHERE id = $1', [id])
    return rows[0]
  },

  async subscriptionsOf(q: Queryable, customerId: string) {
    const { rows } = await q.query<SubscriptionRow>('SELECT * FROM local_subscriptions WHERE customer_id = $1 ORDER BY created_at DESC', [customerId])
    return rows
  },

  async requestCancel(q: Queryable, id: string) {
    const { rows } = await q.query<SubscriptionRow>(
      `UPDATE local_subscriptions SET cancel_at_period_end = true, cancel_at = current_period_end WHERE id = $1 AND status <> 'canceled' RETURNING *`,
      [id],
    )
    return rows[0]
  },

  /** Subscriptions whose period has ended and that still need the clock to act (renew or end), locked for this run. */
  /** Subscriptions at their period end: of these customers, or (customers undefined) of every one. */
  async claimDue(q: Queryable, limit: number, customers?: readonly string[]) {
    const { rows } = await q.query<SubscriptionRow>(
      `SELECT * FROM local_subscriptions WHERE current_period_end <= now()
         AND (status = 'active' OR (status = 'past_due' AND cancel_at_period_end))
         AND ($2::text[] IS NULL OR customer_id = ANY($2::text[]))
       ORDER BY current_period_end LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit, customers ?? null],
    )
    return rows
  },

  async endSubscription(q: Queryable, id: string) {
    const { rows } = await q.query<SubscriptionRow>(`UPDATE local_subscriptions SET status = 'canceled', canceled_at = now() WHERE id = $1 RETURNING *`, [id])
    return rows[0]
  },

  async setSubscriptionStatus(q: Queryable, id: string, status: SubscriptionRow['status']) {
    const { rows } = await q.query<SubscriptionRow>('UPDATE local_subscriptions SET status = $2 WHERE id = $1 RETURNING *', [id, status])
    return rows[0]
  },

  async renewPeriod(q: Queryable, id: string, start: Date, end: Date) {
    const { rows } = await q.query<SubscriptionRow>(
      `UPDATE local_subscriptions SET status = 'active', current_period_start = $2, current_period_end = $3 WHERE id = $1 RETURNING *`,
      [id, start, end],
    )
    return rows[0]
  },

  async insertInvoice(q: Queryable, i: Omit<InvoiceRow, 'number' | 'created_at'>) {
    const { rows } = await q.query<InvoiceRow>(
      `INSERT INTO local_invoices (id, number, customer_id, subscription_id, status, amount_due, amount_paid, currency, period_start, period_end, payment_intent, paid_at)
       VALUES ($1, 'LOCAL-' || upper(substr(md5($1), 1, 8)), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [i.id, i.customer_id, i.subscription_id, i.status, i.amount_due, i.amount_paid, i.currency, i.period_start, i.period_end, i.payment_intent, i.paid_at],
    )
    return rows[0]
  },

  async invoices(q: Queryable, customerId: string, limit: number, offset: number) {
    const [count, rows] = await Promise.all([
      q.query<{ n: number }>('SELECT count(*)::int AS n FROM local_invoices WHERE customer_id = $1', [customerId]),
      q.query<InvoiceRow>('SELECT * FROM local_invoices WHERE customer_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3', [customerId, limit, offset]),
    ])
    return { rows: rows.rows, total: count.rows[0].n }
  },

  async invoice(q: Queryable, customerId: string, id: string) {
    const { rows } = await q.query<InvoiceRow>('SELECT * FROM local_invoices WHERE customer_id = $1 AND id = $2', [customerId, id])
    return rows[0]
  },

  async insertPaymentMethod(q: Queryable, pm: Omit<PaymentMethodRow, 'created_at'>) {
    const { rows } = await q.query<PaymentMethodRow>(
      `INSERT INTO local_payment_methods (id, customer_id, brand, last4, exp_month, exp_year, declines) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [pm.id, pm.customer_id, pm.brand, pm.last4, pm.exp_month, pm.exp_year, pm.declines],
    )
    return rows[0]
  },

  async paymentMethods(q: Queryable, customerId: string) {
    const { rows } = await q.query<PaymentMethodRow>('SELECT * FROM local_payment_methods WHERE customer_id = $1 ORDER BY created_at, id', [customerId])
    return rows
  },

  /** One payment method of the customer, share-locked so that a concurrent removal waits for (or wins over) the caller's transaction. */
  async lockPaymentMethod(q: Queryable, customerId: string, id: string) {
    const { rows } = await q.query<PaymentMethodRow>('SELECT * FROM local_payment_methods WHERE customer_id = $1 AND id = $2 FOR SHARE', [customerId, id])
    return rows[0]
  },

  async deletePaymentMethod(q: Queryable, customerId: string, id: string) {
    return (await q.query('DELETE FROM local_payment_methods WHERE customer_id = $1 AND id = $2', [customerId, id])).rowCount > 0
  },

  async insertPortalSession(q: Queryable, id: string, customerId: string, returnUrl: string) {
    await q.query(`INSERT INTO local_portal_sessions (id, customer_id, return_url, expires_at) VALUES ($1, $2, $3, now() + interval '1 hour')`, [id, customerId, returnUrl])
  },

  async portalSession(q: Queryable, id: string) {
    const { rows } = await q.query<{ id: string; customer_id: string; return_url: string }>('SELECT * FROM local_portal_sessions WHERE id = $1 AND expires_at > now()', [id])
    return rows[0]
  },
}
