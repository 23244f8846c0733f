import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { clientCall, createCustomer, createLicensedProduct, type Customer, type LicensedProduct } from '../../../test/helpers/licenses.ts'
import { WEBHOOK_SECRET, deliver, eventId, mailsTo, startCheckout, stripeEvent } from '../../../test/helpers/billing.ts'
import { addInterval } from '../../core/dates.ts'

// Events as Stripe sends them, signed with STRIPE_WEBHOOK_SECRET, in every order.

let t: TestApp
let org: TestOrg
let perpetual: LicensedProduct
let monthly: LicensedProduct
let buyer: Customer
let customerId: string
before(async () => {
  t = await buildTestApp({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET })
  org = await createOrg(t.app)
  perpetual = await createLicensedProduct(org, { price: 49900 })
  monthly = await createLicensedProduct(org, { price: 2000, billing: 'recurring', interval: 'month', activationsLimit: 3 })
  buyer = await createCustomer(t.app, org)
  await startCheckout(t.app, buyer.token, [{ productId: perpetual.id, quantity: 1 }])
  customerId = (await call(t.app, 'GET', '/portal/billing', { token: buyer.token })).body.customerId
})
after(() => t.close())

let n = 0
const unique = (prefix: string) => `${prefix}_test_${Date.now().toString(36)}${(n++).toString(36)}`
const now = () => Math.floor(Date.now() / 1000)
// Further than a month: the receiver holds a period end to one interval past the last paid one, or past now (docs/billing.md).
const PERIOD_END = now() + 40 * 86400
/** Whether an expiry is one month from some moment between `from` and now (the events' own times). */
const aMonthFrom = (expiresAt: string, from: Date) => {
  const t = Date.parse(expiresAt)
  return t >= addInterval(from, 'month').getTime() - 1000 && t <= addInterval(new Date(), 'month').getTime()
}

/** A checkout started through the API; its events are then made by hand. */
async function checkoutOf(product: LicensedProduct, quantity = 1) {
  const { sessionId } = await startCheckout(t.app, buyer.token, [{ productId: product.id, quantity }])
  return sessionId
}

const completed = (sessionId: string, refs: { subscription?: string; payment_intent?: string }) =>
  stripeEvent('checkout.session.completed', { id: sessionId, object: 'checkout.session', customer: customerId, subscription: refs.subscription ?? null, payment_intent: refs.payment_intent ?? null, payment_status: 'paid' })
const invoicePaid = (subscription: string, periodEnd = PERIOD_END, paymentIntent = unique('pi')) =>
  stripeEvent('invoice.paid', { id: unique('in'), object: 'invoice', customer: customerId, subscription, payment_intent: paymentIntent, amount_paid: 2000, currency: 'usd', lines: { data: [{ period: { start: now(), end: periodEnd } }] } })
const subscriptionEvent = (type: 'updated' | 'deleted', id: string, status: string, created = now(), extra: Record<string, unknown> = {}) =>
  stripeEvent(`customer.subscription.${type}`, { id, object: 'subscription', customer: customerId, status, cancel_at_period_end: false, cancel_at: null, ...extra }, { created })
const refunded = (paymentIntent: string, full = true) => stripeEvent('charge.refunded', { id: unique('ch'), object: 'charge', payment_intent: paymentIntent, refunded: full, amount_refunded: full ? 49900 : 100 })

const licensesOfProduct = async (product: LicensedProduct) =>
  ((await call(t.app, 'GET', '/licenses', { token: buyer.token })).body as any[]).filter((l) => l.productId === product.id)

async function orderOfSubscription(subscriptionId: string) {
  return (await call(t.app, 'GET', '/portal/billing', { token: buyer.token })).body.orders.find((o: any) => o.subscriptionId === subscriptionId)
}
async function orderByReference(reference: string) {
  return (await call(t.app, 'GET', '/portal/billing', { token: buyer.token })).body.orders.find((o: any) => o.reference === reference)
}
const licensesOfSubscription = async (subscriptionId: string) =>
  ((await call(t.app, 'GET', '/licenses', { token: buyer.token })).body as any[]).filter((l) => l.subscriptionId === subscriptionId)

describe('signature', () => {
  test('tampered body, wrong secret, stale timestamp, missing or malformed header: 401 and no effect', async () => {
    const sessionId = await checkoutOf(perpetual)
    const pi = unique('pi')
    const event = completed(sessionId, { payment_intent: pi })
    const before = (await licensesOfProduct(perpetual)).length
    const tampered = JSON.parse(JSON.stringify(event))
    tampered.data.object.customer = 'cus_attacker'
    const attempts = [
      await deliver(t.app, tampered, { signedPayload: JSON.stringify(event) }),
      await deliver(t.app, event, { secret: 'whsec_wrong' }),
      await deliver(t.app, event, { timestamp: now() - 301 }),
      await deliver(t.app, event, { header: null }),
      await deliver(t.app, event, { header: 'garbage' }),
      await deliver(t.app, event, { header: `t=${now()},v1=${'0'.repeat(64)}` }),
    ]
    for (const res of attempts) {
      expectStatus(res, 401, 'Invalid signature')
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'message', 'statusCode'])
    }
    const garbled = await t.app.inject({ method: 'POST', url: '/api/billing/webhooks', headers: { 'content-type': 'application/json', 'stripe-signature': 'x' }, payload: '{not json' })
    assert.equal(garbled.statusCode, 401)
    assert.equal((await licensesOfProduct(perpetual)).length, before)
    // The same event, signed right and recently enough (299 s), is then applied: the refusals left no trace.
    const ok = await deliver(t.app, event, { timestamp: now() - 299 })
    expectStatus(ok, 200)
    assert.deepEqual([ok.body.received, ok.body.duplicate], [true, false])
    assert.equal((await licensesOfProduct(perpetual)).length, before + 1)
  })
})

describe('once per event id', () => {
  test('the same event delivered 10 times in parallel has its effects once', async () => {
    const sessionId = await checkoutOf(perpetual, 3)
    const event = completed(sessionId, { payment_intent: unique('pi') })
    const mailsBefore = (await mailsTo(t.app, org.token, buyer.email)).length
    const licensesBefore = (await licensesOfProduct(perpetual)).length
    const results = await Promise.all(Array.from({ length: 10 }, () => deliver(t.app, event)))
    assert.ok(results.every((r) => r.status === 200))
    assert.equal(results.filter((r) => r.body.duplicate === false).length, 1)
    assert.equal((await licensesOfProduct(perpetual)).length, licensesBefore + 3)
    assert.equal((await mailsTo(t.app, org.token, buyer.email)).length, mailsBefore + 1)
    // Another event id for the same session is not a second purchase either.
    const replay = await deliver(t.app, { ...event, id: eventId() })
    assert.match(replay.body.outcome, /already completed/)
    assert.equal((await licensesOfProduct(perpetual)).length, licensesBefore + 3)
  })
})

describe('the six events', () => {
  test('a subscription from start to end: issue, renew, suspend, reactivate, cancel, revoke', async () => {
    const sub = unique('sub')
    const sessionId = await checkoutOf(monthly)
    expectStatus(await deliver(t.app, completed(sessionId, { subscription: sub })), 200)
    let [license] = await licensesOfSubscription(sub)
    assert.equal(license.status, 'active')
    const order = await orderOfSubscription(sub)
    assert.deepEqual([order.status, order.total], ['paid', 2000])
    assert.equal((await clientCall(t.app, 'activate', { key: license.key, domain: 'sub.example.com' })).status, 200)

    const paidAt = new Date()
    const renewed = await deliver(t.app, invoicePaid(sub))
    assert.match(renewed.body.outcome, /subscription renewed until/)
    ;[license] = await licensesOfSubscription(sub)
    // The 40 days asked for are held to one month from now: no payment came before (finding 13).
    assert.ok(aMonthFrom(license.expiresAt, paidAt), license.expiresAt)
    assert.ok((await mailsTo(t.app, org.token, buyer.email)).some((m) => m.subject === 'Receipt for your payment of 20.00 USD'))

    await deliver(t.app, subscriptionEvent('updated', sub, 'past_due', now() - 10))
    ;[license] = await licensesOfSubscription(sub)
    assert.equal(license.status, 'suspended')
    const refused = await clientCall(t.app, 'validate', { key: license.key, domain: 'sub.example.com' })
    assert.deepEqual([refused.body.code, refused.body.message], ['LICENSE_INACTIVE', 'License suspended'])
    assert.equal((await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token })).body.find((e: any) => e.stripeSubscriptionId === sub).status, 'past_due')

    await deliver(t.app, subscriptionEvent('updated', sub, 'active', now() - 5, { cancel_at_period_end: true, cancel_at: PERIOD_END }))
    ;[license] = await licensesOfSubscription(sub)
    assert.equal(license.status, 'active')
    const entry = (await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token })).body.find((e: any) => e.stripeSubscriptionId === sub)
    assert.deepEqual([entry.cancelAtPeriodEnd, entry.cancelAt], [true, new Date(PERIOD_END * 1000).toISOString()])
    // An update older than the last one applied is stale.
    const stale = await deliver(t.app, subscriptionEvent('updated', sub, 'unpaid', now() - 60))
    assert.match(stale.body.outcome, /later update/)
    assert.equal((await licensesOfSubscription(sub))[0].status, 'active')

    await deliver(t.app, subscriptionEvent('deleted', sub, 'canceled'))
    ;[license] = await licensesOfSubscription(sub)
    assert.equal(license.status, 'revoked')
    assert.equal((await orderOfSubscription(sub)).status, 'cancelled')
    assert.equal((await org.get(`/orders/${order.orderId}`)).body.status, 'cancelled')
    assert.equal((await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token })).body.some((e: any) => e.stripeSubscriptionId === sub), false)
    // Nothing brings a deleted subscription back.
    await deliver(t.app, subscriptionEvent('updated', sub, 'active', now() + 10))
    assert.equal((await licensesOfSubscription(sub))[0].status, 'revoked')
  })

  test('charge.refunded revokes the licenses and refunds the order; a partial refund does not', async () => {
    const pi = unique('pi')
    const sessionId = await checkoutOf(perpetual, 2)
    const applied = await deliver(t.app, completed(sessionId, { payment_intent: pi }))
    const reference = /order (\S+)/.exec(applied.body.outcome)![1]
    const partial = await deliver(t.app, refunded(pi, false))
    assert.match(partial.body.outcome, /partial/)
    assert.equal((await orderByReference(reference)).status, 'paid')
    const full = await deliver(t.app, refunded(pi))
    assert.match(full.body.outcome, /2 license\(s\) revoked/)
    const order = await orderByReference(reference)
    assert.equal(order.status, 'refunded')
    const inOrders = (await org.get(`/orders/${order.orderId}`)).body
    assert.deepEqual([inOrders.status, inOrders.source, inOrders.reference], ['refunded', 'checkout', reference])
  })

  test('a refund of a renewal invoice revokes the subscription licenses', async () => {
    const sub = unique('sub')
    const pi = unique('pi')
    await deliver(t.app, completed(await checkoutOf(monthly), { subscription: sub }))
    await deliver(t.app, invoicePaid(sub, PERIOD_END, pi))
    await deliver(t.app, refunded(pi))
    assert.equal((await licensesOfSubscription(sub))[0].status, 'revoked')
    assert.equal((await orderOfSubscription(sub)).status, 'refunded')
  })

  test('a customer id the processor made for the checkout: the buyer still comes from our record, and later events of that id reach them', async () => {
    const sub = unique('sub')
    const other = unique('cus_new')
    const mails = async () => (await mailsTo(t.app, org.token, buyer.email)).map((m) => m.subject)
    const before = await mails()
    const event = completed(await checkoutOf(monthly), { subscription: sub })
    event.data.object.customer = other
    expectStatus(await deliver(t.app, event), 200)
    const [license] = await licensesOfSubscription(sub)
    assert.equal(license.status, 'active')
    const listed = (await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token })).body as any[]
    assert.ok(listed.some((s) => s.stripeSubscriptionId === sub), 'listed for the buyer')
    const paid = invoicePaid(sub)
    paid.data.object.customer = other
    expectStatus(await deliver(t.app, paid), 200)
    const failed = stripeEvent('payment_intent.payment_failed', { id: unique('pi'), object: 'payment_intent', customer: other, amount: 2000, currency: 'usd' })
    expectStatus(await deliver(t.app, failed), 200)
    const count = (all: string[], prefix: string) => all.filter((x) => x.startsWith(prefix)).length
    const after = await mails()
    assert.equal(after.length, before.length + 3, after.join(' | '))
    assert.equal(count(after, 'Welcome!'), count(before, 'Welcome!') + 1)
    assert.equal(count(after, 'Receipt for your payment of 20.00 USD'), count(before, 'Receipt for your payment of 20.00 USD') + 1)
    assert.equal(count(after, 'Your payment of 20.00 USD failed'), count(before, 'Your payment of 20.00 USD failed') + 1)
    // Our own customer id stays the one new checkouts use.
    assert.equal((await call(t.app, 'GET', '/portal/billing', { token: buyer.token })).body.customerId, customerId)
  })

  test('payment_intent.payment_failed sends the failure e-mail; unknown customers and events are acknowledged', async () => {
    const failed = stripeEvent('payment_intent.payment_failed', { id: unique('pi'), object: 'payment_intent', customer: customerId, amount: 2000, currency: 'usd', last_payment_error: { message: 'Your card has insufficient funds.' } })
    expectStatus(await deliver(t.app, failed), 200)
    assert.ok((await mailsTo(t.app, org.token, buyer.email)).some((m) => m.subject === 'Your payment of 20.00 USD failed'))
    const stranger = await deliver(t.app, stripeEvent('payment_intent.payment_failed', { id: unique('pi'), customer: 'cus_unknown' }))
    assert.match(stranger.body.outcome, /unknown customer/)
    const other = await deliver(t.app, stripeEvent('customer.created', { id: 'cus_x' }))
    assert.match(other.body.outcome, /not handled/)
    const unknownSession = await deliver(t.app, completed('cs_test_unknown', {}))
    assert.match(unknownSession.body.outcome, /unknown checkout session/)
  })
})

describe('any order of arrival', () => {
  test('every order of completed, paid, suspended and reactivated ends in the same state', async () => {
    const orders = permutations([0, 1, 2, 3])
    for (const order of orders) {
      const sub = unique('sub')
      const started = new Date()
      const sessionId = await checkoutOf(monthly)
      const events = [
        completed(sessionId, { subscription: sub }),
        invoicePaid(sub),
        subscriptionEvent('updated', sub, 'past_due', now() - 20),
        subscriptionEvent('updated', sub, 'active', now() - 10),
      ]
      for (const i of order) expectStatus(await deliver(t.app, events[i]), 200)
      const licenses = await licensesOfSubscription(sub)
      assert.equal(licenses.length, 1, `order ${order}`)
      // Paid for 40 days, held to one month from the first event of the subscription whatever the order (finding 13).
      assert.equal(licenses[0].status, 'active', `order ${order}`)
      assert.ok(aMonthFrom(licenses[0].expiresAt, started), `order ${order}: ${licenses[0].expiresAt}`)
    }
  })

  test('a deletion, refund or suspension that arrives before the completed checkout still wins', async () => {
    const deletedSub = unique('sub')
    await deliver(t.app, subscriptionEvent('deleted', deletedSub, 'canceled'))
    await deliver(t.app, completed(await checkoutOf(monthly), { subscription: deletedSub }))
    assert.equal((await licensesOfSubscription(deletedSub))[0].status, 'revoked')
    assert.equal((await orderOfSubscription(deletedSub)).status, 'cancelled')

    const pi = unique('pi')
    await deliver(t.app, refunded(pi))
    const applied = await deliver(t.app, completed(await checkoutOf(perpetual), { payment_intent: pi }))
    assert.match(applied.body.outcome, /\(refunded\), 1 license\(s\) revoked/)

    const pastDue = unique('sub')
    await deliver(t.app, subscriptionEvent('updated', pastDue, 'past_due'))
    await deliver(t.app, completed(await checkoutOf(monthly), { subscription: pastDue }))
    assert.equal((await licensesOfSubscription(pastDue))[0].status, 'suspended')

    const refundedRenewal = unique('sub')
    const renewalPi = unique('pi')
    await deliver(t.app, refunded(renewalPi))
    await deliver(t.app, completed(await checkoutOf(monthly), { subscription: refundedRenewal }))
    await deliver(t.app, invoicePaid(refundedRenewal, PERIOD_END, renewalPi))
    assert.equal((await licensesOfSubscription(refundedRenewal))[0].status, 'revoked')
  })
})

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items]
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]))
}
