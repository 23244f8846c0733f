// Helpers of the billing tests: a person's walk through the local checkout page, and signed events.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { App } from '../../src/core/module.ts'
import { signEvent } from '../../src/modules/billing/processor-events.signature.ts'
import { call, type Res } from './app.ts'

export const WEBHOOK_SECRET = 'whsec_test_secret_for_billing_tests'
export const SUCCESS_URL = 'https://shop.example.com/thanks?session={CHECKOUT_SESSION_ID}'
export const CANCEL_URL = 'https://shop.example.com/cart'

export async function startCheckout(app: App, token: string, items: Array<{ productId: string; quantity: number }>) {
  const res = await call(app, 'POST', '/billing/checkout', { token, body: { items, successUrl: SUCCESS_URL, cancelUrl: CANCEL_URL } })
  assert.equal(res.status, 201, JSON.stringify(res.body))
  return res.body as { sessionId: string; url: string }
}

/** Opens the checkout page (its url, token and all) as a browser would and submits the form whose button says `action`. */
export async function pressOnCheckoutPage(app: App, url: string, action: 'complete' | 'decline' | 'cancel') {
  const page = await app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search })
  assert.equal(page.statusCode, 200, page.body)
  assert.match(String(page.headers['content-type']), /text\/html/)
  const form = new RegExp(`<form method="post" action="([^"?]+/${action}(?:\\?[^"]*)?)">`).exec(page.body)
  assert.ok(form, `the checkout page has a ${action} form`)
  // The browser resolves the action against the page's address.
  const target = new URL(form[1].replaceAll('&amp;', '&'), url)
  return app.inject({ method: 'POST', url: target.pathname + target.search, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })
}

export async function buyThroughLocalCheckout(app: App, token: string, items: Array<{ productId: string; quantity: number }>) {
  const checkout = await startCheckout(app, token, items)
  const done = await pressOnCheckoutPage(app, checkout.url, 'complete')
  assert.equal(done.statusCode, 303)
  return { ...checkout, location: done.headers.location as string }
}

export const eventId = () => `evt_test_${randomBytes(8).toString('hex')}`

export function stripeEvent(type: string, object: Record<string, unknown>, opts: { id?: string; created?: number } = {}) {
  return { id: opts.id ?? eventId(), object: 'event', type, created: opts.created ?? Math.floor(Date.now() / 1000), livemode: false, data: { object } }
}

export interface DeliveryOptions {
  secret?: string
  timestamp?: number
  /** Signs this text but sends the event (a tampered body). */
  signedPayload?: string
  header?: string | null
}

/** POSTs an event to the receiver with a Stripe-Signature header computed as Stripe does. */
export async function deliver(app: App, event: unknown, opts: DeliveryOptions = {}): Promise<Res> {
  const payload = JSON.stringify(event)
  const header = opts.header === undefined ? signEvent(opts.signedPayload ?? payload, opts.secret ?? WEBHOOK_SECRET, opts.timestamp) : opts.header
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (header !== null) headers['stripe-signature'] = header
  const res = await app.inject({ method: 'POST', url: '/api/billing/webhooks', headers, payload })
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, headers: res.headers, raw: res }
}

/** Outbox e-mails to one address (admin view). */
export async function mailsTo(app: App, adminToken: string, to: string): Promise<Array<{ subject: string; to: string }>> {
  const res = await call(app, 'GET', `/admin/outbox?to=${encodeURIComponent(to)}&limit=100`, { token: adminToken })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.data
}
