import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { addInterval } from '../../src/core/dates.ts'
import { buildTestApp, call, createOrg, type TestApp, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'
import { WEBHOOK_SECRET, deliver, mailsTo, pressOnCheckoutPage, startCheckout, stripeEvent } from '../helpers/billing.ts'
import { createCustomer, createLicensedProduct, type Customer, type LicensedProduct } from '../helpers/licenses.ts'

// Issue 24, findings 1 and 13: the local payment processor never runs in live,
// its checkout needs the token of the buyer's checkout url, and correctly
// signed processor events cannot extend a licence without bound or come from
// the future.

const LIVE_STRIPE = { API_ENV: 'live', PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_unused', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, SECRET_KEY: 'a-secret-key-of-at-least-32-characters' }
const REFUSAL = /API_ENV=live[\s\S]*PAYMENT_PROCESSOR=local|PAYMENT_PROCESSOR=local[\s\S]*API_ENV=live/

describe('finding 1a: API_ENV=live with the local processor does not start', () => {
  test('loadConfig refuses API_ENV=live with PAYMENT_PROCESSOR=local, given or by default, naming both settings', () => {
    assert.throws(() => loadConfig({ API_ENV: 'live' }), REFUSAL)
    assert.throws(() => loadConfig({ API_ENV: 'live', PAYMENT_PROCESSOR: 'local' }), REFUSAL)
    // Live with Stripe, and test with the local processor (the defaults), are fine.
    assert.equal(loadConfig(LIVE_STRIPE).paymentProcessor, 'stripe')
    const defaults = loadConfig({})
    assert.deepEqual([defaults.apiEnv, defaults.paymentProcessor], ['test', 'local'])
  })

  test('buildApp refuses a configuration made by hand with API_ENV=live and the local processor', async () => {
    const config = { ...loadConfig({ DATA_DIR: 'memory://', LOG_LEVEL: 'silent', JOBS: 'off', JWT_SECRET: 'test-secret-that-is-long-enough-0123456789' }), apiEnv: 'live' as const }
    await assert.rejects(async () => {
      const app = await buildApp(config, { logger: false })
      await app.close()
    }, REFUSAL)
  })

  test('npm start with API_ENV=live and no PAYMENT_PROCESSOR exits 1 with a message naming both settings', async (t) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, DATABASE_URL: '', PAYMENT_PROCESSOR: '', API_ENV: 'live', PORT: '0', HOST: '127.0.0.1', DATA_DIR: 'memory://', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    t.after(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    let stderr = ''
    child.stderr.on('data', (c) => (stderr += c))
    // A server that starts would run forever: give it a minute (a cold start compiles the TypeScript).
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
    clearTimeout(timer)
    assert.equal(code, 1, `exit code ${code}; stderr: ${stderr}`)
    assert.match(stderr, REFUSAL)
  })
})

describe('finding 1b: the local processor exists only in API_ENV=test', () => {
  test('in live (with Stripe) no local page or route exists: 404, and none in the OpenAPI document', async () => {
    const live = await buildTestApp(LIVE_STRIPE)
    try {
      const id = 'cs_local_000000000000000000000000'
      const attempts = [
        await call(live.app, 'GET', `/billing/local/checkout/${id}`),
        await call(live.app, 'POST', `/billing/local/checkout/${id}/complete`),
        await call(live.app, 'POST', `/billing/local/checkout/${id}/decline`),
        await call(live.app, 'POST', `/billing/local/checkout/${id}/cancel`),
        await call(live.app, 'GET', '/billing/local/portal/bps_local_000000000000000000000000'),
      ]
      for (const res of attempts) assert.equal(expectStatus(res, 404).code, 'ROUTE_NOT_FOUND')
      assert.deepEqual(Object.keys(live.app.swagger().paths ?? {}).filter((p) => p.includes('/billing/local/')), [])
    } finally {
      await live.close()
    }
  })
})

let t: TestApp
let org: TestOrg
let perpetual: LicensedProduct
let monthly: LicensedProduct
let yearly: LicensedProduct
let buyer: Customer
let customerId: string
before(async () => {
  // The local processor, signing (and verifying) with a secret the tests know, so that they can sign events too.
  t = await buildTestApp({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET })
  org = await createOrg(t.app)
  perpetual = await createLicensedProduct(org, { price: 30000 })
  monthly = await createLicensedProduct(org, { price: 2000, billing: 'recurring', interval: 'month' })
  yearly = await createLicensedProduct(org, { price: 20000, billing: 'recurring', interval: 'year' })
  buyer = await createCustomer(t.app, org)
  await startCheckout(t.app, buyer.token, [{ productId: perpetual.id, quantity: 1 }])
  customerId = (await call(t.app, 'GET', '/portal/billing', { token: buyer.token })).body.customerId
})
after(() => t?.close())

const FORBIDDEN = { statusCode: 403, error: 'Forbidden', code: 'FORBIDDEN', message: 'This checkout needs the token of its checkout url' }
const licensesOf = async (product: LicensedProduct) => ((await call(t.app, 'GET', '/licenses', { token: buyer.token })).body as any[]).filter((l) => l.productId === product.id)
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!
const pathOf = (url: string) => new URL(url).pathname
const inject = (method: 'GET' | 'POST', url: string) => t.app.inject({ method, url, ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' } : {}) })

describe('finding 1c: the local checkout needs the token of its url', () => {
  test('the checkout url carries a 256-bit token, kept only as its SHA-256 hash', async () => {
    const a = await startCheckout(t.app, buyer.token, [{ productId: perpetual.id, quantity: 1 }])
    const b = await startCheckout(t.app, buyer.token, [{ productId: perpetual.id, quantity: 1 }])
    const match = /^http:\/\/localhost:80\/api\/billing\/local\/checkout\/(cs_local_[0-9a-f]{24})\?token=([A-Za-z0-9_-]{43})$/.exec(a.url)
    assert.ok(match, a.url)
    assert.equal(match[1], a.sessionId)
    assert.notEqual(tokenOf(a.url), tokenOf(b.url))
    const { rows } = await t.app.ctx.db.query<Record<string, unknown>>('SELECT * FROM local_checkout_sessions WHERE id = $1', [a.sessionId])
    assert.equal(rows[0].token_hash, createHash('sha256').update(tokenOf(a.url)).digest('hex'))
    assert.ok(!JSON.stringify(rows[0]).includes(tokenOf(a.url)), 'the token itself is not stored')
  })

  test('without the token, or with a wrong one, the page and pay, decline and cancel answer 403 and change nothing', async () => {
    const checkout = await startCheckout(t.app, buyer.token, [{ productId: perpetual.id, quantity: 3 }])
    const path = pathOf(checkout.url)
    const licensesBefore = (await licensesOf(perpetual)).length
    const mailsBefore = (await mailsTo(t.app, org.token, buyer.email)).length
    const wrong = `?token=${'A'.repeat(43)}`
    for (const query of ['', '?token=', wrong, `?token=${tokenOf(checkout.url).slice(0, 42)}`]) {
      for (const [method, url] of [['GET', path], ['POST', `${path}/complete`], ['POST', `${path}/decline`], ['POST', `${path}/cancel`]] as const) {
        const res = await inject(method, url + query)
        assert.equal(res.statusCode, 403, `${method} ${url}${query}: ${res.body}`)
        assert.deepEqual(res.json(), FORBIDDEN, `${method} ${url}${query}`)
      }
    }
    // Nothing happened: no licence, no e-mail (not even a payment failure), and the checkout is still open.
    assert.equal((await licensesOf(perpetual)).length, licensesBefore)
    assert.equal((await mailsTo(t.app, org.token, buyer.email)).length, mailsBefore)
    const page = await inject('GET', path + new URL(checkout.url).search)
    assert.equal(page.statusCode, 200)
    assert.match(page.body, /<h1>Checkout<\/h1>/)
    // The buyer, with the url they were given, still pays.
    const paid = await pressOnCheckoutPage(t.app, checkout.url, 'complete')
    assert.equal(paid.statusCode, 303)
    assert.equal((await licensesOf(perpetual)).length, licensesBefore + 3)
  })

  test('the token of checkout A neither shows, pays, declines nor cancels checkout B', async () => {
    const other = await createCustomer(t.app, org)
    const a = await startCheckout(t.app, other.token, [{ productId: perpetual.id, quantity: 1 }])
    const b = await startCheckout(t.app, buyer.token, [{ productId: perpetual.id, quantity: 2 }])
    const licensesBefore = (await licensesOf(perpetual)).length
    const withA = `?token=${tokenOf(a.url)}`
    for (const [method, suffix] of [['GET', ''], ['POST', '/complete'], ['POST', '/decline'], ['POST', '/cancel']] as const) {
      const res = await inject(method, `${pathOf(b.url)}${suffix}${withA}`)
      assert.equal(res.statusCode, 403, `${method} B${suffix} with A's token: ${res.body}`)
      assert.deepEqual(res.json(), FORBIDDEN)
    }
    assert.equal((await licensesOf(perpetual)).length, licensesBefore)
    // Each token opens its own checkout.
    assert.equal((await pressOnCheckoutPage(t.app, b.url, 'complete')).statusCode, 303)
    assert.equal((await licensesOf(perpetual)).length, licensesBefore + 2)
    assert.equal((await pressOnCheckoutPage(t.app, a.url, 'cancel')).statusCode, 303)
  })

  test('the page carries the token in its forms, keeps it after a declined card, sends no referrer and runs no script', async () => {
    const checkout = await startCheckout(t.app, buyer.token, [{ productId: perpetual.id, quantity: 1 }])
    const page = await inject('GET', pathOf(checkout.url) + new URL(checkout.url).search)
    assert.equal(page.statusCode, 200)
    for (const action of ['complete', 'decline', 'cancel']) {
      assert.ok(page.body.includes(`<form method="post" action="${checkout.sessionId}/${action}?token=${tokenOf(checkout.url)}">`), action)
    }
    assert.equal(page.headers['referrer-policy'], 'no-referrer')
    assert.doesNotMatch(String(page.headers['content-security-policy']), /script-src/)
    assert.doesNotMatch(page.body, /<script/)
    const declined = await pressOnCheckoutPage(t.app, checkout.url, 'decline')
    assert.equal(declined.statusCode, 303)
    const next = new URL(declined.headers.location as string, `${checkout.url.split('?')[0]}/decline`)
    assert.equal(next.searchParams.get('token'), tokenOf(checkout.url))
    const again = await inject('GET', next.pathname + next.search)
    assert.equal(again.statusCode, 200)
    assert.match(again.body, /Your card was declined/)
  })
})

// Finding 13: correctly signed events, made by hand as in src/modules/billing/processor-events.test.ts.

let n = 0
const unique = (prefix: string) => `${prefix}_sec_${Date.now().toString(36)}${(n++).toString(36)}`
const now = () => Math.floor(Date.now() / 1000)
const YEAR_5138 = Date.UTC(5138, 0, 1) / 1000
const at = (unix: number) => new Date(unix * 1000).toISOString()

const completed = (sessionId: string, refs: { subscription?: string; payment_intent?: string }) =>
  stripeEvent('checkout.session.completed', { id: sessionId, object: 'checkout.session', customer: customerId, subscription: refs.subscription ?? null, payment_intent: refs.payment_intent ?? null, payment_status: 'paid' })
const invoicePaid = (subscription: string, periodEnd: number) =>
  stripeEvent('invoice.paid', { id: unique('in'), object: 'invoice', customer: customerId, subscription, payment_intent: unique('pi'), amount_paid: 2000, currency: 'usd', lines: { data: [{ period: { start: now(), end: periodEnd } }] } })
const subscriptionUpdated = (id: string, periodEnd: number) =>
  stripeEvent('customer.subscription.updated', { id, object: 'subscription', customer: customerId, status: 'active', cancel_at_period_end: false, cancel_at: null, current_period_end: periodEnd })

const licenceExpiry = async (subscription: string) => {
  const [licence] = ((await call(t.app, 'GET', '/licenses', { token: buyer.token })).body as any[]).filter((l) => l.subscriptionId === subscription)
  return licence.expiresAt as string
}
const periodEndOf = async (subscription: string) => expectStatus(await call(t.app, 'GET', `/billing/subscriptions/${subscription}`, { token: buyer.token }), 200).currentPeriodEnd as string

/** A subscription bought through checkout and paid until `paidUntil` (whole seconds, within its first interval). */
async function subscribed(product: LicensedProduct, paidUntil: number) {
  const sub = unique('sub')
  const { sessionId } = await startCheckout(t.app, buyer.token, [{ productId: product.id, quantity: 1 }])
  // Stripe's usual order: the paid invoice, then the completed checkout, whose licence lasts until the paid period's end.
  expectStatus(await deliver(t.app, invoicePaid(sub, paidUntil)), 200)
  expectStatus(await deliver(t.app, completed(sessionId, { subscription: sub })), 200)
  assert.equal(await licenceExpiry(sub), at(paidUntil))
  return sub
}

describe('finding 13: signed events cannot extend a licence without bound, nor come from the future', () => {
  for (const [product, interval] of [[() => monthly, 'month'], [() => yearly, 'year']] as const) {
    test(`invoice.paid extends a ${interval}ly licence at most one ${interval} past the previous period end`, async () => {
      const paidUntil = now() + 20 * 86400
      const sub = await subscribed(product(), paidUntil)
      const cap = addInterval(new Date(paidUntil * 1000), interval)
      const far = await deliver(t.app, invoicePaid(sub, YEAR_5138))
      expectStatus(far, 200)
      assert.equal(far.body.outcome, `applied: payment recorded, subscription renewed until ${cap.toISOString()}`)
      assert.equal(await licenceExpiry(sub), cap.toISOString())
      assert.equal(await periodEndOf(sub), cap.toISOString())
      // A regular renewal, exactly one interval on, is applied in full.
      const next = addInterval(cap, interval)
      expectStatus(await deliver(t.app, invoicePaid(sub, next.getTime() / 1000)), 200)
      assert.equal(await licenceExpiry(sub), next.toISOString())
    })
  }

  test('invoice.paid arriving before checkout.session.completed issues the licence for one interval at most', async () => {
    const sub = unique('sub')
    const { sessionId } = await startCheckout(t.app, buyer.token, [{ productId: monthly.id, quantity: 1 }])
    expectStatus(await deliver(t.app, invoicePaid(sub, YEAR_5138)), 200)
    const start = Date.now()
    expectStatus(await deliver(t.app, completed(sessionId, { subscription: sub })), 200)
    const expiry = Date.parse(await licenceExpiry(sub))
    assert.ok(expiry <= addInterval(new Date(), 'month').getTime(), `expires ${new Date(expiry).toISOString()}`)
    assert.ok(expiry >= addInterval(new Date(start - 60_000), 'month').getTime(), `expires ${new Date(expiry).toISOString()}`)
    assert.equal(Date.parse(await periodEndOf(sub)), expiry)
    // The next invoice counts from that period end, not from the one the early invoice asked for.
    expectStatus(await deliver(t.app, invoicePaid(sub, YEAR_5138)), 200)
    assert.equal(await licenceExpiry(sub), addInterval(new Date(expiry), 'month').toISOString())
  })

  test('customer.subscription.updated cannot move the period end (the base of the next extension) past one interval either', async () => {
    const paidUntil = now() + 10 * 86400
    const sub = await subscribed(monthly, paidUntil)
    const cap = addInterval(new Date(paidUntil * 1000), 'month')
    expectStatus(await deliver(t.app, subscriptionUpdated(sub, YEAR_5138)), 200)
    assert.equal(await periodEndOf(sub), cap.toISOString())
    expectStatus(await deliver(t.app, invoicePaid(sub, YEAR_5138)), 200)
    assert.equal(await licenceExpiry(sub), cap.toISOString())
  })

  test('a signature dated more than 5 minutes ahead is refused (401) and applies nothing; 4 minutes ahead is accepted', async () => {
    const { sessionId } = await startCheckout(t.app, buyer.token, [{ productId: perpetual.id, quantity: 1 }])
    const event = completed(sessionId, { payment_intent: unique('pi') })
    const before = (await licensesOf(perpetual)).length
    for (const ahead of [30 * 86400, 330]) {
      const res = await deliver(t.app, event, { timestamp: now() + ahead })
      assert.equal(res.status, 401, `${ahead} s ahead: ${JSON.stringify(res.body)}`)
      assert.deepEqual(res.body, { statusCode: 401, error: 'Unauthorized', code: 'INVALID_SIGNATURE', message: 'Invalid signature' })
    }
    assert.equal((await licensesOf(perpetual)).length, before)
    const ok = await deliver(t.app, event, { timestamp: now() + 240 })
    expectStatus(ok, 200)
    assert.equal(ok.body.duplicate, false)
    assert.equal((await licensesOf(perpetual)).length, before + 1)
  })
})
