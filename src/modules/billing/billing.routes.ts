import { Type } from 'typebox'
import type { FastifyRequest } from 'fastify'
import type { App } from '../../core/module.ts'
import { BUYERS, principalOf } from '../../core/auth.ts'
import { NoContent, responses } from '../../core/schemas.ts'
import type { ProcessorEvents } from './processor-events.service.ts'
import type { BillingService } from './billing.service.ts'
import * as S from './billing.schemas.ts'

const tags = ['billing']
const config = { access: { roles: BUYERS } }
/** Routes that call the payment processor: a dry run cannot take back what the processor did (docs/platform.md "Dry runs"). */
const callsProcessor = { ...config, dryRun: false as const }

/** The address of this service as the caller reaches it: PUBLIC_URL, else the request's own host. */
export function baseUrlOf(request: FastifyRequest, publicUrl: string | undefined) {
  return (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '')
}

export function billingRoutes(app: App, billing: BillingService, publicUrl: string | undefined) {
  app.post('/billing/checkout', {
    schema: {
      operationId: 'createCheckoutSession', tags, summary: 'Start a checkout', body: S.CheckoutBody, response: responses({ 201: S.CheckoutResult }, [422]),
      description: "Redirect the buyer to url. Empty cart or unknown product: 422. Recurring products make a subscription. Licenses are issued only when the processor reports checkout.session.completed. With the local processor (API_ENV=test only), url carries the checkout's token (?token=, 256 bits): the page and its actions refuse requests without it (403), so give url to the buyer alone.",
    },
    config: callsProcessor,
  }, async (req, reply) => reply.status(201).send(await billing.checkout(principalOf(req), req.body, baseUrlOf(req, publicUrl))))

  app.get('/billing/subscriptions', {
    schema: { operationId: 'listSubscriptions', tags, summary: "The caller's active subscriptions", description: 'A bare array, one entry per license, read from our records (no processor call).', response: responses({ 200: Type.Array(S.SubscriptionEntry) }) },
    config,
  }, async (req) => billing.subscriptions(principalOf(req)))

  app.get('/billing/subscriptions/:id', {
    schema: { operationId: 'getSubscription', tags, summary: 'A subscription of the caller', description: "Read from the payment processor, with the licenses it renews. A subscription that is not the caller's gives 404.", params: S.ProcessorIdParams, response: responses({ 200: S.SubscriptionDetails }, [404]) },
    config,
  }, async (req) => billing.subscription(principalOf(req), req.params.id))

  app.post('/billing/subscriptions/:id/cancel', {
    schema: {
      operationId: 'cancelSubscription', tags, summary: 'Cancel a subscription at the end of its period', params: S.ProcessorIdParams, response: responses({ 200: S.CancelResult }, [404]),
      description: "Always at period end; answers the processor's confirmed state (canceled stays false during the paid period). Licenses stay active until the subscription ends.",
    },
    config: callsProcessor,
  }, async (req) => billing.cancel(principalOf(req), req.params.id))

  app.get('/billing/invoices', {
    schema: { operationId: 'listBillingInvoices', tags, summary: "The caller's processor invoices", description: 'The invoices the payment processor issued to the caller, newest first; paging only.', querystring: S.InvoiceListQuery, response: responses({ 200: S.ProcessorInvoiceList }) },
    config,
  }, async (req) => billing.invoices(principalOf(req), req.query))

  app.get('/billing/invoices/:id', {
    schema: { operationId: 'getBillingInvoice', tags, summary: 'A processor invoice of the caller', description: "Read from the payment processor. An invoice that is not the caller's gives 404.", params: S.ProcessorIdParams, response: responses({ 200: S.ProcessorInvoice }, [404]) },
    config,
  }, async (req) => billing.invoice(principalOf(req), req.params.id))

  app.get('/billing/payment-methods', {
    schema: { operationId: 'listPaymentMethods', tags, summary: "The caller's payment methods", description: 'A bare array.', response: responses({ 200: Type.Array(S.PaymentMethod) }) },
    config,
  }, async (req) => billing.paymentMethods(principalOf(req)))

  app.post('/billing/payment-methods', {
    schema: { operationId: 'addPaymentMethod', tags, summary: 'Add a payment method', description: "Attaches a payment method of the processor to the caller's customer. The first method always becomes the default; setDefault makes a later one the default.", body: S.AddPaymentMethodBody, response: responses({ 201: S.PaymentMethod }, [422]) },
    config: callsProcessor,
  }, async (req, reply) => reply.status(201).send(await billing.addPaymentMethod(principalOf(req), req.body)))

  app.delete('/billing/payment-methods/:id', {
    schema: { operationId: 'removePaymentMethod', tags, summary: 'Remove a payment method', description: 'The default one cannot be removed while subscriptions are active (400).', params: S.ProcessorIdParams, response: responses({ 204: NoContent }, [404]) },
    config: callsProcessor,
  }, async (req, reply) => {
    await billing.removePaymentMethod(principalOf(req), req.params.id)
    return reply.status(204).send()
  })

  app.post('/billing/payment-methods/:id/default', {
    schema: {
      operationId: 'setDefaultPaymentMethod', tags, summary: 'Make a payment method the default', params: S.ProcessorIdParams, response: responses({ 200: S.PaymentMethod }, [404]),
      description: "No body. Makes one of the caller's payment methods the customer's default at the processor and answers it; the previous default is no longer protected from removal. A method that is not the caller's: 404. Already the default: 200, nothing changes.",
    },
    config: callsProcessor,
  }, async (req) => billing.setDefaultPaymentMethod(principalOf(req), req.params.id))

  app.post('/billing/portal-session', {
    schema: { operationId: 'createPortalSession', tags, summary: "Open the processor's billing portal", description: "A short-lived address of the processor's billing portal, where the caller manages cards and subscriptions; the portal sends them back to returnUrl.", body: S.PortalSessionBody, response: responses({ 200: S.PortalSessionResult }, [422]) },
    config: callsProcessor,
  }, async (req) => billing.portalSession(principalOf(req), req.body.returnUrl, baseUrlOf(req, publicUrl)))

  app.get('/portal/billing', {
    schema: { operationId: 'getBillingDashboard', tags, summary: 'Billing dashboard of the caller', description: 'Subscriptions, payment methods, the latest invoices and the orders from checkout.', response: responses({ 200: S.BillingDashboard }) },
    config,
  }, async (req) => billing.dashboard(principalOf(req)))
}

export function webhookRoute(app: App, events: ProcessorEvents) {
  app.post('/billing/webhooks', {
    schema: {
      operationId: 'receiveBillingWebhook', tags, summary: 'Payment-processor events', security: [],
      headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String({ maxLength: 1000, description: 't=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">' })) }),
      description: "Authenticated by the Stripe-Signature header (401 when missing, wrong, older than 300 s or dated more than 300 s ahead). Each event id is applied once; a repeat answers duplicate: true. A subscription's period end (invoice.paid, customer.subscription.updated) moves at most one billing interval (the products' month or year) past the end of its last paid period, or past now; the licenses follow it.",
      response: responses({ 200: S.WebhookResult }, [401], { public: true }),
    },
    config: { access: { public: true }, limit: 'public' },
  }, async (req) => events.receive(req.rawBody, req.headers['stripe-signature']))
}
