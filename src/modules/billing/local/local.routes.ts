import { Type } from 'typebox'
import type { FastifyReply } from 'fastify'
import type { App } from '../../../core/module.ts'
import { NotFoundError } from '../../../core/errors.ts'
import { responses } from '../../../core/schemas.ts'
import { escapeHtml, htmlPage, sendHtml } from '../../../core/html.ts'
import { formatMoney } from '../billing.mails.ts'
import type { LocalProcessor } from './local.adapter.ts'
import type { SessionRow } from './local.repository.ts'

const tags = ['billing']
const PUBLIC = { access: { public: true } }
/** The processor's own actions: it stands for an outside service, which a dry run could not take back (docs/platform.md "Dry runs"). */
const PROCESSOR_ACTION = { ...PUBLIC, dryRun: false as const }
const SessionParams = Type.Object({ id: Type.String({ pattern: '^cs_local_[0-9a-f]{24}$', maxLength: 33 }) })
const PortalParams = Type.Object({ id: Type.String({ pattern: '^bps_local_[0-9a-f]{24}$', maxLength: 34 }) })
const Html = Type.String({ description: 'An HTML page' })
const Redirect = Type.Null({ description: 'See Other: Location is the next page' })
const Token = Type.String({ maxLength: 100, description: "The token of the checkout url that POST /billing/checkout answered; without it, or with another checkout's, 403" })
const Query = Type.Object({ token: Type.Optional(Token), declined: Type.Optional(Type.String({ maxLength: 5 })) }, { additionalProperties: false })
const ActionQuery = Type.Object({ token: Type.Optional(Token) }, { additionalProperties: false })
const TOKEN_RULE = 'Needs `token`, the query parameter of the checkout url that POST /billing/checkout answered: without it, or with the token of another checkout, 403 and nothing changes. Exists only with API_ENV=test and PAYMENT_PROCESSOR=local.'

const CHECKOUT_CSS = `
  table { width: 100%; border-collapse: collapse; margin: 1rem 0; }
  td { padding: .4rem 0; border-bottom: 1px solid #eee; } td.n { text-align: right; } tr.total td { font-weight: 600; border: 0; }
  form { display: inline; } button { margin: .3rem .3rem 0 0; }
  .pay { background: #3451e0; color: #fff; } .decline { background: #fff1e6; color: #8a3b00; } .cancel { background: #eceef2; color: #1d2330; }
  .warn { background: #fff1e6; padding: .6rem .8rem; border-radius: 8px; }`
const escape = escapeHtml
const page = (title: string, body: string) => htmlPage(title, body, CHECKOUT_CSS)

function checkoutPage(s: SessionRow, token: string, declined: boolean) {
  // Relative to the page (…/checkout/<id>), so the pages work under any PUBLIC_URL path; each form carries the token back.
  const action = (name: string) => escape(`${s.id}/${name}?token=${encodeURIComponent(token)}`)
  if (s.status === 'complete') {
    return page('Payment complete', `<h1>Payment complete</h1><p>Thank you. Your license keys are on their way by e-mail.</p><p><a href="${escape(successUrl(s))}">Continue</a></p>`)
  }
  if (s.status === 'expired') {
    return page('Checkout cancelled', `<h1>Checkout cancelled</h1><p>Nothing was charged.</p><p><a href="${escape(s.cancel_url)}">Return</a></p>`)
  }
  const rows = s.line_items.map((l) => `<tr><td>${escape(l.name)} &times; ${l.quantity}${l.interval ? ` <span class="note">per ${l.interval}</span>` : ''}</td><td class="n">${formatMoney(l.unitAmount * l.quantity, l.currency)}</td></tr>`)
  return page('Checkout', `
<h1>Checkout</h1>
${declined ? '<p class="warn">Your card was declined. Nothing was charged; try again.</p>' : ''}
<table>${rows.join('')}<tr class="total"><td>Total${s.billing_interval ? ` (then every ${s.billing_interval})` : ''}</td><td class="n">${formatMoney(s.amount_total, s.currency)}</td></tr></table>
<p class="note">Test card •••• 4242. This is the service's local payment processor: no money moves.</p>
<form method="post" action="${action('complete')}"><button class="pay" type="submit">Pay ${formatMoney(s.amount_total, s.currency)}</button></form>
<form method="post" action="${action('decline')}"><button class="decline" type="submit">Simulate a declined card</button></form>
<form method="post" action="${action('cancel')}"><button class="cancel" type="submit">Cancel</button></form>`)
}

const successUrl = (s: SessionRow) => s.success_url.replaceAll('{CHECKOUT_SESSION_ID}', encodeURIComponent(s.id))

const originOf = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return ''
  }
}

/**
 * The pages' own policy: no scripts, inline styles only. Browsers apply
 * form-action to the redirect after a form post, so the shop's origins of
 * successUrl and cancelUrl are allowed there; no upgrade-insecure-requests,
 * so that the pages work over plain http in development.
 */
function html(reply: FastifyReply, body: string, session?: SessionRow) {
  // Forms may post to the shop's pages (success and cancel urls); no-referrer: the checkout page's address carries its token.
  const targets = session ? [originOf(session.success_url), originOf(session.cancel_url)].filter((o): o is string => Boolean(o)) : []
  return sendHtml(reply, body, targets)
}

/**
 * The local processor's pages, for a person in a browser: the checkout page
 * (pay, decline, cancel) and the billing portal. Forms post back here; each
 * action answers 303 to the next page, as a hosted checkout does. The
 * checkout page and its actions need the token of the checkout url (403
 * without it). Registered only with API_ENV=test (billing/index.ts).
 */
export function localRoutes(app: App, local: LocalProcessor) {
  // Browser forms post application/x-www-form-urlencoded; the actions take no fields (the token is in the action's query).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))))

  // The page's own address, relative to an action (…/checkout/<id>/<action>), token included.
  const backToPage = (s: SessionRow, token: string, extra = '') => `../${s.id}?token=${encodeURIComponent(token)}${extra}`
  const errors = responses({}, [403, 404], { public: true })
  /** Checks the token, then acts: the session as the action left it, and the token for the next address. */
  const act = async (id: string, token: string | undefined, action: (id: string) => Promise<SessionRow | undefined>) => {
    const before = await local.authorizedSession(id, token)
    return { s: (await action(id)) ?? before, token: token! }
  }

  app.get('/billing/local/checkout/:id', {
    schema: { operationId: 'getLocalCheckoutPage', tags, summary: 'Local processor: the checkout page', description: `An HTML page for a person, served by the local payment processor: the cart, and buttons to pay, simulate a declined card or cancel; each button's form carries the token back. ${TOKEN_RULE}`, security: [], params: SessionParams, querystring: Query, produces: ['text/html'], response: { ...errors, 200: Html } },
    config: PUBLIC,
  }, async (req, reply) => {
    const s = await local.authorizedSession(req.params.id, req.query.token)
    return html(reply, checkoutPage(s, req.query.token!, req.query.declined === '1'), s)
  })

  app.post('/billing/local/checkout/:id/complete', {
    schema: { operationId: 'completeLocalCheckout', tags, summary: 'Local processor: pay', description: `Completes the payment and delivers checkout.session.completed and invoice.paid to /billing/webhooks, then redirects to successUrl. ${TOKEN_RULE}`, security: [], params: SessionParams, querystring: ActionQuery, response: { ...errors, 303: Redirect } },
    config: PROCESSOR_ACTION,
  }, async (req, reply) => {
    const { s, token } = await act(req.params.id, req.query.token, (id) => local.completeSession(id))
    return reply.redirect(s.status === 'complete' ? successUrl(s) : backToPage(s, token), 303)
  })

  app.post('/billing/local/checkout/:id/decline', {
    schema: { operationId: 'declineLocalCheckout', tags, summary: 'Local processor: a declined card', description: `Delivers payment_intent.payment_failed; the checkout stays open and the browser goes back to its page. ${TOKEN_RULE}`, security: [], params: SessionParams, querystring: ActionQuery, response: { ...errors, 303: Redirect } },
    config: PROCESSOR_ACTION,
  }, async (req, reply) => {
    const { s, token } = await act(req.params.id, req.query.token, (id) => local.declineSession(id))
    return reply.redirect(backToPage(s, token, s.status === 'open' ? '&declined=1' : ''), 303)
  })

  app.post('/billing/local/checkout/:id/cancel', {
    schema: { operationId: 'cancelLocalCheckout', tags, summary: 'Local processor: cancel the checkout', description: `Expires the checkout (nothing is charged) and redirects to cancelUrl; a checkout already paid redirects to successUrl. ${TOKEN_RULE}`, security: [], params: SessionParams, querystring: ActionQuery, response: { ...errors, 303: Redirect } },
    config: PROCESSOR_ACTION,
  }, async (req, reply) => {
    const { s } = await act(req.params.id, req.query.token, (id) => local.cancelSession(id))
    return reply.redirect(s.status === 'complete' ? successUrl(s) : s.cancel_url, 303)
  })

  app.get('/billing/local/portal/:id', {
    schema: { operationId: 'getLocalBillingPortalPage', tags, summary: 'Local processor: the billing portal page', description: "An HTML page for a person, served by the local payment processor: the caller's subscriptions, payment methods and invoices, and a link back to returnUrl.", security: [], params: PortalParams, produces: ['text/html'], response: { ...responses({}, [404], { public: true }), 200: Html } },
    config: PUBLIC,
  }, async (req, reply) => {
    const portal = await local.portal(req.params.id)
    if (!portal) throw new NotFoundError('Portal session')
    const subs = portal.subscriptions.map((s) => `<tr><td>${escape(s.id)}<br><span class="note">${s.status}${s.cancel_at_period_end ? ', ends at period end' : ''}</span></td><td class="n">${formatMoney(s.amount, s.currency)} / ${s.billing_interval}<br><span class="note">until ${s.current_period_end.toISOString().slice(0, 10)}</span></td></tr>`)
    const cards = portal.methods.map((m) => `<tr><td>${escape(m.brand)} •••• ${escape(m.last4)}${m.isDefault ? ' <span class="note">default</span>' : ''}</td><td class="n">${m.expiryMonth}/${m.expiryYear}</td></tr>`)
    const invoices = portal.invoices.map((i) => `<tr><td>${escape(i.number ?? i.id)}</td><td class="n">${formatMoney(i.amountPaid, i.currency)} ${i.status}</td></tr>`)
    return html(reply, page('Billing', `<h1>Billing</h1>
<h2>Subscriptions</h2><table>${subs.join('') || '<tr><td>None</td></tr>'}</table>
<h2>Payment methods</h2><table>${cards.join('') || '<tr><td>None</td></tr>'}</table>
<h2>Invoices</h2><table>${invoices.join('') || '<tr><td>None</td></tr>'}</table>
<p><a href="${escape(portal.returnUrl)}">Return</a></p>`))
  })
}
