import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { clientCall, createCustomer, createLicensedProduct, type Customer, type LicensedProduct } from '../../../test/helpers/licenses.ts'
import { CANCEL_URL, buyThroughLocalCheckout, mailsTo, pressOnCheckoutPage, startCheckout } from '../../../test/helpers/billing.ts'

// The local processor end to end, as a person uses it: no STRIPE_WEBHOOK_SECRET,
// so the secret is the one generated at first start and kept in the database.

let t: TestApp
let org: TestOrg
let oneTime: LicensedProduct
let monthly: LicensedProduct
let buyer: Customer
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
  oneTime = await createLicensedProduct(org, { price: 24900, activationsLimit: 2 })
  monthly = await createLicensedProduct(org, { price: 1500, billing: 'recurring', interval: 'month' })
  buyer = await createCustomer(t.app, org)
})
after(() => t.close())

const get = (path: string, token = buyer.token) => call(t.app, 'GET', path, { token })

describe('local checkout, completed by a person', () => {
  test('page, pay, event delivered: order, licenses, welcome and receipt e-mails', async () => {
    const checkout = await startCheckout(t.app, buyer.token, [{ productId: oneTime.id, quantity: 2 }])
    assert.match(checkout.sessionId, /^cs_local_/)
    // The url carries the token the page and its forms need (docs/billing.md).
    assert.match(checkout.url, new RegExp(`^http://localhost:80/api/billing/local/checkout/${checkout.sessionId}\\?token=[\\w-]{43}$`))
    const pageUrl = new URL(checkout.url).pathname + new URL(checkout.url).search
    // Licenses come only from the event: none before the person pays.
    assert.deepEqual((await get('/licenses')).body.filter((l: any) => l.productId === oneTime.id), [])

    const page = await t.app.inject({ method: 'GET', url: pageUrl })
    assert.match(page.body, /Pay 498\.00 USD/)
    // The browser may follow the form's redirect to the shop; nothing upgrades plain-http development.
    const csp = String(page.headers['content-security-policy'])
    assert.match(csp, /form-action 'self' https:\/\/shop\.example\.com/)
    assert.doesNotMatch(csp, /upgrade-insecure-requests|script-src/)
    const done = await pressOnCheckoutPage(t.app, checkout.url, 'complete')
    assert.equal(done.statusCode, 303)
    assert.equal(done.headers.location, `https://shop.example.com/thanks?session=${checkout.sessionId}`)

    const licenses = (await get('/licenses')).body.filter((l: any) => l.productId === oneTime.id)
    assert.equal(licenses.length, 2)
    for (const l of licenses) {
      assert.deepEqual([l.status, l.expiresAt, l.activationsLimit, l.subscriptionId, l.userId], ['active', null, 2, null, buyer.id])
      assert.equal((await clientCall(t.app, 'activate', { key: l.key, domain: 'bought.example.com' })).status, 200)
    }
    const subjects = (await mailsTo(t.app, org.token, buyer.email)).map((m) => m.subject)
    assert.ok(subjects.some((s) => s.startsWith('Welcome! Your order SO/')), subjects.join())
    assert.ok(subjects.includes('Receipt for your payment of 498.00 USD'), subjects.join())

    const portal = (await get('/portal/billing')).body
    const order = portal.orders.find((o: any) => o.items[0].productId === oneTime.id)
    assert.deepEqual([order.status, order.total, order.currency], ['paid', 49800, 'usd'])
    const fromOrders = await call(t.app, 'GET', `/orders/${order.orderId}`, { token: org.token })
    expectStatus(fromOrders, 200)
    assert.deepEqual([fromOrders.body.source, fromOrders.body.reference, fromOrders.body.total], ['checkout', order.reference, 49800])

    // The page of a completed session says so; cancelling or paying again changes nothing.
    const page2 = await t.app.inject({ method: 'GET', url: pageUrl })
    assert.match(page2.body, /Payment complete/)
    for (const action of ['cancel', 'complete']) {
      const again = await t.app.inject({ method: 'POST', url: `${new URL(checkout.url).pathname}/${action}${new URL(checkout.url).search}` })
      assert.deepEqual([again.statusCode, again.headers.location], [303, done.headers.location])
    }
    assert.equal((await get('/licenses')).body.filter((l: any) => l.productId === oneTime.id).length, 2)
  })

  test('a subscription: license until the period end, listed with its product; cancel at period end keeps it active', async () => {
    await buyThroughLocalCheckout(t.app, buyer.token, [{ productId: monthly.id, quantity: 1 }])
    const subs = (await get('/billing/subscriptions')).body
    assert.equal(subs.length, 1)
    const entry = subs[0]
    assert.match(entry.stripeSubscriptionId, /^sub_local_/)
    assert.deepEqual(entry.product, { id: monthly.id, name: monthly.name, price: '15.00', currency: 'USD' })
    assert.deepEqual([entry.license.status, entry.cancelAtPeriodEnd, entry.cancelAt], ['active', false, null])
    const expires = Date.parse(entry.license.expiresAt)
    assert.ok(expires > Date.now() + 27 * 86400_000 && expires < Date.now() + 32 * 86400_000)

    const details = await get(`/billing/subscriptions/${entry.stripeSubscriptionId}`)
    expectStatus(details, 200)
    assert.equal(details.body.licenses[0].id, entry.license.id)
    assert.equal(details.body.currentPeriodEnd, entry.license.expiresAt)

    const cancel = await call(t.app, 'POST', `/billing/subscriptions/${entry.stripeSubscriptionId}/cancel`, { token: buyer.token })
    expectStatus(cancel, 200)
    assert.deepEqual(cancel.body, { canceled: false, status: 'active', cancelAtPeriodEnd: true, cancelAt: entry.license.expiresAt })
    const after = (await get('/billing/subscriptions')).body[0]
    assert.deepEqual([after.cancelAtPeriodEnd, after.cancelAt, after.license.status], [true, entry.license.expiresAt, 'active'])
    expectStatus(await call(t.app, 'POST', `/billing/subscriptions/${entry.stripeSubscriptionId}/cancel`, { token: buyer.token }), 200)

    const invoices = await get('/billing/invoices')
    expectStatus(invoices, 200)
    const invoice = invoices.body.data.find((i: any) => i.subscriptionId === entry.stripeSubscriptionId)
    assert.deepEqual([invoice.status, invoice.amountPaid, invoice.currency], ['paid', 1500, 'usd'])
    expectStatus(await get(`/billing/invoices/${invoice.id}`), 200)
  })

  test('a declined card sends the payment failure e-mail and leaves the checkout open', async () => {
    const checkout = await startCheckout(t.app, buyer.token, [{ productId: oneTime.id, quantity: 1 }])
    const declined = await pressOnCheckoutPage(t.app, checkout.url, 'decline')
    assert.equal(declined.statusCode, 303)
    const next = new URL(declined.headers.location as string, `${checkout.url.split('?')[0]}/decline`)
    assert.equal(next.href, new URL(`${checkout.url}&declined=1`).href)
    const page = await t.app.inject({ method: 'GET', url: next.pathname + next.search })
    assert.match(page.body, /Your card was declined/)
    assert.ok((await mailsTo(t.app, org.token, buyer.email)).some((m) => m.subject === 'Your payment of 249.00 USD failed'))
  })

  test('cancel returns to cancelUrl and issues nothing', async () => {
    const before = (await get('/licenses')).body.length
    const checkout = await startCheckout(t.app, buyer.token, [{ productId: oneTime.id, quantity: 1 }])
    const cancelled = await pressOnCheckoutPage(t.app, checkout.url, 'cancel')
    assert.deepEqual([cancelled.statusCode, cancelled.headers.location], [303, CANCEL_URL])
    const page = await t.app.inject({ method: 'GET', url: new URL(checkout.url).pathname + new URL(checkout.url).search })
    assert.match(page.body, /Checkout cancelled/)
    assert.equal((await get('/licenses')).body.length, before)
    // A cancelled session cannot be paid any more.
    const late = await t.app.inject({ method: 'POST', url: `${new URL(checkout.url).pathname}/complete${new URL(checkout.url).search}` })
    assert.equal(late.statusCode, 303)
    assert.equal((await get('/licenses')).body.length, before)
  })

  test('an unknown session page is 404', async () => {
    expectStatus(await call(t.app, 'GET', '/billing/local/checkout/cs_local_000000000000000000000000'), 404)
  })
})

describe('checkout rules', () => {
  test('empty cart, unknown product, mixed currencies or intervals: 422', async () => {
    const body = (items: unknown) => ({ items, successUrl: 'https://a.example/ok', cancelUrl: 'https://a.example/no' })
    expectStatus(await call(t.app, 'POST', '/billing/checkout', { token: buyer.token, body: body([]) }), 422, 'cart is empty')
    expectStatus(await call(t.app, 'POST', '/billing/checkout', { token: buyer.token, body: body([{ productId: '00000000-0000-4000-8000-000000000000', quantity: 1 }]) }), 422, 'items.0.productId')
    const euro = await createLicensedProduct(org, { currency: 'eur' })
    expectStatus(await call(t.app, 'POST', '/billing/checkout', { token: buyer.token, body: body([{ productId: euro.id, quantity: 1 }, { productId: oneTime.id, quantity: 1 }]) }), 422, 'one currency')
    const yearly = await createLicensedProduct(org, { billing: 'recurring', interval: 'year' })
    expectStatus(await call(t.app, 'POST', '/billing/checkout', { token: buyer.token, body: body([{ productId: yearly.id, quantity: 1 }, { productId: monthly.id, quantity: 1 }]) }), 422, 'one billing interval')
    const foreign = await createLicensedProduct(await createOrg(t.app))
    expectStatus(await call(t.app, 'POST', '/billing/checkout', { token: buyer.token, body: body([{ productId: foreign.id, quantity: 1 }]) }), 422, 'items.0.productId')
    expectStatus(await call(t.app, 'POST', '/billing/checkout', { token: buyer.token, body: { ...body([{ productId: oneTime.id, quantity: 1 }]), successUrl: 'not a url' } }), 422)
  })

  test('401 without a credential, 403 for roles that do not buy', async () => {
    expectStatus(await call(t.app, 'POST', '/billing/checkout', { body: {} }), 401)
    for (const path of ['/billing/subscriptions', '/billing/payment-methods', '/billing/invoices', '/portal/billing']) {
      expectStatus(await get(path, await org.as('member')), 403)
    }
  })

  test('another buyer sees none of these subscriptions, invoices or orders', async () => {
    const other = await createCustomer(t.app, org)
    const sub = (await get('/billing/subscriptions')).body[0].stripeSubscriptionId
    expectStatus(await get(`/billing/subscriptions/${sub}`, other.token), 404, 'Subscription not found')
    expectStatus(await call(t.app, 'POST', `/billing/subscriptions/${sub}/cancel`, { token: other.token }), 404)
    assert.deepEqual((await get('/billing/subscriptions', other.token)).body, [])
    assert.deepEqual((await get('/billing/invoices', other.token)).body, { data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0, nextCursor: null } })
    const invoice = (await get('/billing/invoices')).body.data[0].id
    expectStatus(await get(`/billing/invoices/${invoice}`, other.token), 404, 'Invoice not found')
    const dashboard = (await get('/portal/billing', other.token)).body
    assert.deepEqual([dashboard.customerId, dashboard.orders, dashboard.subscriptions], [null, [], []])
  })
})

describe('payment methods and portal', () => {
  test('add, list, default rules, remove', async () => {
    const payer = await createCustomer(t.app, org)
    const first = await call(t.app, 'POST', '/billing/payment-methods', { token: payer.token, body: { paymentMethodId: 'pm_card_mastercard' } })
    expectStatus(first, 201)
    assert.deepEqual([first.body.brand, first.body.last4, first.body.isDefault, first.body.type], ['mastercard', '4444', true, 'card'])
    const second = await call(t.app, 'POST', '/billing/payment-methods', { token: payer.token, body: { paymentMethodId: 'pm_card_amex' } })
    assert.equal(second.body.isDefault, false)
    expectStatus(await call(t.app, 'POST', '/billing/payment-methods', { token: payer.token, body: { paymentMethodId: 'pm_nope' } }), 422, 'pm_card_visa')
    const list = (await get('/billing/payment-methods', payer.token)).body
    assert.deepEqual(list.map((m: any) => [m.id, m.isDefault]), [[first.body.id, true], [second.body.id, false]])
    assert.ok(list.every((m: any) => Number.isInteger(m.expiryMonth) && Number.isInteger(m.expiryYear)))

    // With an active subscription the default stays; others may go.
    await buyThroughLocalCheckout(t.app, payer.token, [{ productId: monthly.id, quantity: 1 }])
    expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${first.body.id}`, { token: payer.token }), 400, 'default payment method cannot be removed')
    expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${second.body.id}`, { token: payer.token }), 204)
    expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${second.body.id}`, { token: payer.token }), 404, 'Payment method not found')
    expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${first.body.id}`, { token: buyer.token }), 404)
    // setDefault moves the default.
    const third = await call(t.app, 'POST', '/billing/payment-methods', { token: payer.token, body: { paymentMethodId: 'pm_card_visa', setDefault: true } })
    assert.equal(third.body.isDefault, true)
    expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${first.body.id}`, { token: payer.token }), 204)
  })

  test('make an existing method the default: the flag moves, the old default may go, the new one is kept', async () => {
    const payer = await createCustomer(t.app, org)
    const post = (path: string, token = payer.token) => call(t.app, 'POST', path, { token })
    const first = (await call(t.app, 'POST', '/billing/payment-methods', { token: payer.token, body: { paymentMethodId: 'pm_card_visa' } })).body
    const second = (await call(t.app, 'POST', '/billing/payment-methods', { token: payer.token, body: { paymentMethodId: 'pm_card_mastercard' } })).body
    assert.deepEqual([first.isDefault, second.isDefault], [true, false])
    await buyThroughLocalCheckout(t.app, payer.token, [{ productId: monthly.id, quantity: 1 }])
    const defaults = async () => (await get('/billing/payment-methods', payer.token)).body.filter((m: any) => m.isDefault).map((m: any) => m.id)

    const res = await post(`/billing/payment-methods/${second.id}/default`)
    expectStatus(res, 200)
    assert.deepEqual(res.body, { ...second, isDefault: true })
    assert.deepEqual(await defaults(), [second.id])
    assert.deepEqual((await get('/portal/billing', payer.token)).body.paymentMethods.filter((m: any) => m.isDefault).map((m: any) => m.id), [second.id])
    // Again: nothing changes.
    expectStatus(await post(`/billing/payment-methods/${second.id}/default`), 200)
    assert.deepEqual(await defaults(), [second.id])

    // Rule 4 follows the default: with the subscription active the new default stays, the old one may go.
    expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${second.id}`, { token: payer.token }), 400, 'default payment method cannot be removed')
    expectStatus(await call(t.app, 'DELETE', `/billing/payment-methods/${first.id}`, { token: payer.token }), 204)
    assert.deepEqual(await defaults(), [second.id])
    expectStatus(await post(`/billing/payment-methods/${first.id}/default`), 404, 'Payment method not found')

    // Another buyer's method, an unknown one, a buyer with no processor customer yet: 404, nothing moves.
    const other = await createCustomer(t.app, org)
    const theirs = (await call(t.app, 'POST', '/billing/payment-methods', { token: other.token, body: { paymentMethodId: 'pm_card_amex' } })).body
    const extra = (await call(t.app, 'POST', '/billing/payment-methods', { token: other.token, body: { paymentMethodId: 'pm_card_discover' } })).body
    expectStatus(await post(`/billing/payment-methods/${extra.id}/default`), 404, 'Payment method not found')
    expectStatus(await post(`/billing/payment-methods/${second.id}/default`, other.token), 404, 'Payment method not found')
    assert.deepEqual((await get('/billing/payment-methods', other.token)).body.map((m: any) => [m.id, m.isDefault]), [[theirs.id, true], [extra.id, false]])
    assert.deepEqual(await defaults(), [second.id])
    expectStatus(await post('/billing/payment-methods/pm_local_000000000000000000000000/default'), 404, 'Payment method not found')
    const newcomer = await createCustomer(t.app, org)
    expectStatus(await post(`/billing/payment-methods/${second.id}/default`, newcomer.token), 404, 'Payment method not found')
    expectStatus(await post('/billing/payment-methods/not%20an%20id/default'), 400)
    // Roles: customer (above) and admin buy; a member does not.
    expectStatus(await post(`/billing/payment-methods/${second.id}/default`, await org.as('member')), 403)
    const adminFirst = (await org.post('/billing/payment-methods', { paymentMethodId: 'pm_card_amex' })).body
    const adminSecond = (await org.post('/billing/payment-methods', { paymentMethodId: 'pm_card_visa' })).body
    assert.equal(adminFirst.isDefault, true)
    expectStatus(await org.post(`/billing/payment-methods/${adminSecond.id}/default`), 200)
    assert.deepEqual((await get('/billing/payment-methods', org.token)).body.map((m: any) => [m.id, m.isDefault]), [[adminFirst.id, false], [adminSecond.id, true]])
  })

  test('portal session: a page of this service that links back', async () => {
    const res = await call(t.app, 'POST', '/billing/portal-session', { token: buyer.token, body: { returnUrl: 'https://shop.example.com/account' } })
    expectStatus(res, 200)
    const page = await t.app.inject({ method: 'GET', url: new URL(res.body.url).pathname })
    assert.equal(page.statusCode, 200)
    assert.match(page.body, /href="https:\/\/shop\.example\.com\/account"/)
    assert.match(page.body, /visa •••• 4242/)
    expectStatus(await call(t.app, 'POST', '/billing/portal-session', { token: buyer.token, body: { returnUrl: 'ftp://x' } }), 422)
  })

  test('PUBLIC_URL names the checkout page address', async () => {
    const pub = await buildTestApp({ PUBLIC_URL: 'https://billing.example.com/' })
    try {
      const o = await createOrg(pub.app)
      const p = await createLicensedProduct(o)
      const res = await call(pub.app, 'POST', '/billing/checkout', { token: o.token, body: { items: [{ productId: p.id, quantity: 1 }], successUrl: 'https://a.example/ok', cancelUrl: 'https://a.example/no' } })
      assert.equal(res.body.url.split('?')[0], `https://billing.example.com/api/billing/local/checkout/${res.body.sessionId}`)
    } finally {
      await pub.close()
    }
  })
})
