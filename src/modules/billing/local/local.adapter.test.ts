import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../../test/helpers/app.ts'
import { expectStatus } from '../../../../test/helpers/assert.ts'
import { createCustomer, createLicensedProduct, type LicensedProduct } from '../../../../test/helpers/licenses.ts'
import { buyThroughLocalCheckout, mailsTo } from '../../../../test/helpers/billing.ts'

// The local processor's clock: at a period's end it renews (invoice.paid),
// ends a subscription cancelled at period end (customer.subscription.deleted),
// or, with a declining card, makes it past_due. The test moves the period end
// into the past instead of waiting a month.

let t: TestApp
let org: TestOrg
let monthly: LicensedProduct
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  monthly = await createLicensedProduct(org, { price: 900, billing: 'recurring', interval: 'month' })
})
after(() => t.close())

async function subscribedBuyer() {
  const buyer = await createCustomer(t.app, org)
  await buyThroughLocalCheckout(t.app, buyer.token, [{ productId: monthly.id, quantity: 1 }])
  const [entry] = (await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token })).body
  return { buyer, subscriptionId: entry.stripeSubscriptionId as string, expiresAt: entry.license.expiresAt as string }
}

async function endPeriodNow(subscriptionId: string) {
  await t.app.ctx.db.query(`UPDATE local_subscriptions SET current_period_end = now() - interval '1 second' WHERE id = $1`, [subscriptionId])
  const run = await org.post('/admin/jobs/local-payment-processor/run')
  expectStatus(run, 200)
  return run.body.result
}

const licenseOf = async (token: string) => (await call(t.app, 'GET', '/licenses', { token })).body[0]

test('renewal at period end: invoice.paid extends the license and sends a receipt', async () => {
  const { buyer, subscriptionId } = await subscribedBuyer()
  const receipts = async () => (await mailsTo(t.app, org.token, buyer.email)).filter((m) => m.subject.startsWith('Receipt')).length
  assert.equal(await receipts(), 1)
  const result = await endPeriodNow(subscriptionId)
  assert.deepEqual([result.renewed, result.failed], [1, 0])
  const license = await licenseOf(buyer.token)
  const days = (Date.parse(license.expiresAt) - Date.now()) / 86400_000
  assert.ok(days > 27 && days < 32, String(days))
  assert.equal(license.status, 'active')
  assert.equal(await receipts(), 2)
  assert.equal((await call(t.app, 'GET', '/billing/invoices', { token: buyer.token })).body.meta.total, 2)
  // Nothing is due any more.
  assert.equal((await org.post('/admin/jobs/local-payment-processor/run')).body.result.renewed, 0)
})

test('cancelled at period end: the subscription ends, its license is revoked and its order cancelled', async () => {
  const { buyer, subscriptionId } = await subscribedBuyer()
  expectStatus(await call(t.app, 'POST', `/billing/subscriptions/${subscriptionId}/cancel`, { token: buyer.token }), 200)
  assert.equal((await licenseOf(buyer.token)).status, 'active')
  const result = await endPeriodNow(subscriptionId)
  assert.equal(result.ended, 1)
  assert.equal((await licenseOf(buyer.token)).status, 'revoked')
  assert.deepEqual((await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token })).body, [])
  const details = await call(t.app, 'GET', `/billing/subscriptions/${subscriptionId}`, { token: buyer.token })
  assert.deepEqual([details.body.status, typeof details.body.canceledAt], ['canceled', 'string'])
  const cancelAgain = await call(t.app, 'POST', `/billing/subscriptions/${subscriptionId}/cancel`, { token: buyer.token })
  assert.deepEqual([cancelAgain.status, cancelAgain.body.canceled, cancelAgain.body.status], [200, true, 'canceled'])
  const dashboard = (await call(t.app, 'GET', '/portal/billing', { token: buyer.token })).body
  assert.equal(dashboard.orders[0].status, 'cancelled')
  // With no active subscription the default card may go.
  const card = dashboard.paymentMethods.find((m: any) => m.isDefault)
  expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${card.id}`, { token: buyer.token }), 204)
})

test('a declining default card: past_due, license suspended, payment failure e-mail', async () => {
  const { buyer, subscriptionId } = await subscribedBuyer()
  expectStatus(await call(t.app, 'POST', '/billing/payment-methods', { token: buyer.token, body: { paymentMethodId: 'pm_card_chargeDeclined', setDefault: true } }), 201)
  const result = await endPeriodNow(subscriptionId)
  assert.equal(result.pastDue, 1)
  assert.equal((await licenseOf(buyer.token)).status, 'suspended')
  assert.ok((await mailsTo(t.app, org.token, buyer.email)).some((m) => m.subject === 'Your payment of 9.00 USD failed'))
  const [entry] = (await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token })).body
  assert.equal(entry.status, 'past_due')
})
