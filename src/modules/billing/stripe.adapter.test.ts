import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { createCustomer, createLicensedProduct, type Customer, type LicensedProduct } from '../../../test/helpers/licenses.ts'
import { WEBHOOK_SECRET, deliver, stripeEvent } from '../../../test/helpers/billing.ts'

// PAYMENT_PROCESSOR=stripe through the official package, against a small
// Stripe-compatible HTTP server (the shape of stripe-mock) that records what
// the package sent. Events then come back signed, as Stripe sends them.

interface Recorded {
  method: string
  path: string
  form: URLSearchParams
}

let stripe: Server
const requests: Recorded[] = []
const DEFAULT_PM = 'pm_default'

function reply(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_test' })
  res.end(JSON.stringify(body))
}

const card = (id: string, last4: string, customer: string | null = 'cus_stripe_1') => ({ id, object: 'payment_method', type: 'card', customer, card: { brand: 'visa', last4, exp_month: 4, exp_year: 2031 } })
/** What the fake keeps of cus_stripe_1: its attached cards (id → last4) and its invoice_settings.default_payment_method. */
const attached = new Map([[DEFAULT_PM, '4242'], ['pm_other', '5556']])
let defaultPm = DEFAULT_PM

function fakeStripe(req: IncomingMessage, res: ServerResponse, body: string) {
  const url = new URL(req.url!, 'http://stripe')
  const form = new URLSearchParams(req.method === 'GET' ? url.search : body)
  requests.push({ method: req.method!, path: url.pathname, form })
  const route = `${req.method} ${url.pathname}`
  if (route === 'POST /v1/customers') return reply(res, 200, { id: 'cus_stripe_1', object: 'customer' })
  if (route === 'POST /v1/checkout/sessions') return reply(res, 200, { id: 'cs_test_stripe_1', object: 'checkout.session', url: 'https://checkout.stripe.com/c/pay/cs_test_stripe_1' })
  if (route === 'POST /v1/subscriptions/sub_stripe_1') return reply(res, 200, { id: 'sub_stripe_1', object: 'subscription', status: 'active', cancel_at_period_end: true, cancel_at: 1_900_000_000 })
  if (route === 'GET /v1/invoices') {
    return reply(res, 200, { object: 'list', has_more: false, url: '/v1/invoices', data: [{ id: 'in_1', object: 'invoice', customer: 'cus_stripe_1', number: 'A-1', status: 'paid', amount_due: 1500, amount_paid: 1500, currency: 'usd', created: 1_800_000_000, period_start: 1_800_000_000, period_end: 1_800_000_000, lines: { data: [{ period: { start: 1_800_000_000, end: 1_802_592_000 } }] }, status_transitions: { paid_at: 1_800_000_100 }, hosted_invoice_url: 'https://invoice.stripe.com/i/1', parent: { subscription_details: { subscription: 'sub_stripe_1' } } }] })
  }
  if (route === 'GET /v1/customers/cus_stripe_1') return reply(res, 200, { id: 'cus_stripe_1', object: 'customer', invoice_settings: { default_payment_method: defaultPm } })
  if (route === 'POST /v1/customers/cus_stripe_1') {
    defaultPm = form.get('invoice_settings[default_payment_method]') ?? defaultPm
    return reply(res, 200, { id: 'cus_stripe_1', object: 'customer', invoice_settings: { default_payment_method: defaultPm } })
  }
  if (route === 'GET /v1/payment_methods') return reply(res, 200, { object: 'list', has_more: false, url: '/v1/payment_methods', data: [...attached].map(([id, last4]) => card(id, last4)) })
  if (route === 'POST /v1/payment_methods/pm_card_visa/attach') {
    attached.set('pm_attached', '4242')
    return reply(res, 200, card('pm_attached', '4242'))
  }
  const pm = /^\/v1\/payment_methods\/(\w+)(\/detach)?$/.exec(url.pathname)
  // A card attached to another customer of the account.
  if (route === 'GET /v1/payment_methods/pm_foreign') return reply(res, 200, card('pm_foreign', '1881', 'cus_someone_else'))
  if (pm && attached.has(pm[1]) && (route === `GET /v1/payment_methods/${pm[1]}` || route === `POST /v1/payment_methods/${pm[1]}/detach`)) {
    const last4 = attached.get(pm[1])!
    if (pm[2]) attached.delete(pm[1])
    return reply(res, 200, card(pm[1], last4, pm[2] ? null : 'cus_stripe_1'))
  }
  if (route === 'POST /v1/billing_portal/sessions') return reply(res, 200, { id: 'bps_1', object: 'billing_portal.session', url: 'https://billing.stripe.com/p/session/test_1' })
  return reply(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such route: ${route}` } })
}

let t: TestApp
let org: TestOrg
let product: LicensedProduct
let buyer: Customer
before(async () => {
  stripe = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => fakeStripe(req, res, body))
  })
  await new Promise<void>((resolve) => stripe.listen(0, '127.0.0.1', resolve))
  const { port } = stripe.address() as AddressInfo
  t = await buildTestApp({ PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_123', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: `http://127.0.0.1:${port}` })
  org = await createOrg(t.app)
  product = await createLicensedProduct(org, { price: 1500, billing: 'recurring', interval: 'month' })
  buyer = await createCustomer(t.app, org)
})
after(async () => {
  await t.close()
  stripe.close()
})

const last = (path: string) => [...requests].reverse().find((r) => r.path === path)!

test('checkout creates a Stripe customer and session; the signed event issues the license', async () => {
  const res = await call(t.app, 'POST', '/billing/checkout', { token: buyer.token, body: { items: [{ productId: product.id, quantity: 2 }], successUrl: 'https://shop.example.com/ok?s={CHECKOUT_SESSION_ID}', cancelUrl: 'https://shop.example.com/no' } })
  expectStatus(res, 201)
  assert.deepEqual(res.body, { sessionId: 'cs_test_stripe_1', url: 'https://checkout.stripe.com/c/pay/cs_test_stripe_1' })
  assert.equal(last('/v1/customers').form.get('email'), buyer.email)
  const session = last('/v1/checkout/sessions').form
  assert.deepEqual(
    [session.get('mode'), session.get('customer'), session.get('success_url'), session.get('line_items[0][quantity]'), session.get('line_items[0][price_data][unit_amount]'), session.get('line_items[0][price_data][recurring][interval]')],
    ['subscription', 'cus_stripe_1', 'https://shop.example.com/ok?s={CHECKOUT_SESSION_ID}', '2', '1500', 'month'],
  )
  // No license until the event: then two, on the Stripe subscription.
  assert.deepEqual((await call(t.app, 'GET', '/licenses', { token: buyer.token })).body, [])
  const event = stripeEvent('checkout.session.completed', { id: 'cs_test_stripe_1', object: 'checkout.session', customer: 'cus_stripe_1', subscription: 'sub_stripe_1', payment_intent: null })
  expectStatus(await deliver(t.app, event), 200)
  const licenses = (await call(t.app, 'GET', '/licenses', { token: buyer.token })).body
  assert.deepEqual(licenses.map((l: any) => [l.status, l.subscriptionId]), [['active', 'sub_stripe_1'], ['active', 'sub_stripe_1']])
})

test('cancel asks Stripe for cancel_at_period_end and keeps the confirmed state', async () => {
  const res = await call(t.app, 'POST', '/billing/subscriptions/sub_stripe_1/cancel', { token: buyer.token })
  expectStatus(res, 200)
  assert.deepEqual(res.body, { canceled: false, status: 'active', cancelAtPeriodEnd: true, cancelAt: new Date(1_900_000_000_000).toISOString() })
  assert.equal(last('/v1/subscriptions/sub_stripe_1').form.get('cancel_at_period_end'), 'true')
  const before = requests.length
  const [entry] = (await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token })).body
  assert.deepEqual([entry.cancelAtPeriodEnd, entry.cancelAt], [true, new Date(1_900_000_000_000).toISOString()])
  assert.equal(requests.length, before, 'the list is served from our records')
})

test('invoices, payment methods and portal come from Stripe', async () => {
  const invoices = await call(t.app, 'GET', '/billing/invoices', { token: buyer.token })
  expectStatus(invoices, 200)
  assert.deepEqual(invoices.body.meta, { total: 1, page: 1, limit: 20, totalPages: 1, nextCursor: null })
  assert.deepEqual([invoices.body.data[0].subscriptionId, invoices.body.data[0].periodEnd, invoices.body.data[0].hostedInvoiceUrl], ['sub_stripe_1', new Date(1_802_592_000_000).toISOString(), 'https://invoice.stripe.com/i/1'])
  expectStatus(await call(t.app, 'GET', '/billing/invoices/in_missing', { token: buyer.token }), 404)

  const methods = (await call(t.app, 'GET', '/billing/payment-methods', { token: buyer.token })).body
  assert.deepEqual(methods.map((m: any) => [m.id, m.last4, m.isDefault, m.expiryYear]), [[DEFAULT_PM, '4242', true, 2031], ['pm_other', '5556', false, 2031]])
  const added = await call(t.app, 'POST', '/billing/payment-methods', { token: buyer.token, body: { paymentMethodId: 'pm_card_visa' } })
  expectStatus(added, 201)
  assert.deepEqual([added.body.id, added.body.isDefault], ['pm_attached', false])
  expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${DEFAULT_PM}`, { token: buyer.token }), 400, 'default payment method')
  expectStatus(await call(t.app, 'DELETE', '/billing/payment-methods/pm_other', { token: buyer.token }), 204)
  expectStatus(await call(t.app, 'DELETE', '/billing/payment-methods/pm_unknown', { token: buyer.token }), 404)

  const portal = await call(t.app, 'POST', '/billing/portal-session', { token: buyer.token, body: { returnUrl: 'https://shop.example.com/account' } })
  assert.deepEqual(portal.body, { url: 'https://billing.stripe.com/p/session/test_1' })
  assert.equal(last('/v1/billing_portal/sessions').form.get('return_url'), 'https://shop.example.com/account')
  // The local processor's pages do not exist with Stripe.
  expectStatus(await call(t.app, 'GET', '/billing/local/checkout/cs_local_000000000000000000000000'), 404)
})

test('make an existing method the default: Stripe keeps it as invoice_settings.default_payment_method', async () => {
  // After the test above: pm_default (default) and pm_attached; the subscription is still live.
  const before = requests.length
  const res = await call(t.app, 'POST', '/billing/payment-methods/pm_attached/default', { token: buyer.token })
  expectStatus(res, 200)
  assert.deepEqual(res.body, { id: 'pm_attached', type: 'card', brand: 'visa', last4: '4242', expiryMonth: 4, expiryYear: 2031, isDefault: true })
  assert.deepEqual(requests.slice(before).map((r) => `${r.method} ${r.path}`), ['GET /v1/payment_methods/pm_attached', 'POST /v1/customers/cus_stripe_1'])
  assert.equal(last('/v1/customers/cus_stripe_1').form.get('invoice_settings[default_payment_method]'), 'pm_attached')
  const methods = (await call(t.app, 'GET', '/billing/payment-methods', { token: buyer.token })).body
  assert.deepEqual(methods.map((m: any) => [m.id, m.isDefault]), [[DEFAULT_PM, false], ['pm_attached', true]])

  // Rule 4 follows the default.
  expectStatus(await call(t.app, 'DELETE', '/billing/payment-methods/pm_attached', { token: buyer.token }), 400, 'default payment method')
  expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${DEFAULT_PM}`, { token: buyer.token }), 204)

  // Unknown at Stripe, another customer's, or a buyer without a Stripe customer: 404 and the default stays.
  const updates = () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/customers/cus_stripe_1').length
  const sent = updates()
  expectStatus(await call(t.app, 'POST', '/billing/payment-methods/pm_unknown/default', { token: buyer.token }), 404, 'Payment method not found')
  expectStatus(await call(t.app, 'POST', '/billing/payment-methods/pm_foreign/default', { token: buyer.token }), 404, 'Payment method not found')
  const newcomer = await createCustomer(t.app, org)
  expectStatus(await call(t.app, 'POST', '/billing/payment-methods/pm_attached/default', { token: newcomer.token }), 404, 'Payment method not found')
  assert.equal(updates(), sent)
  assert.equal(defaultPm, 'pm_attached')
})
