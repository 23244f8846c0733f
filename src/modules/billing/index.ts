import { defineModule, type App } from '../../core/module.ts'
import { ProcessorEvents } from './processor-events.service.ts'
import { billingRoutes, webhookRoute } from './billing.routes.ts'
import { billingRepository } from './billing.repository.ts'
import { BillingService } from './billing.service.ts'
import { checkoutOrders } from './checkout-orders.adapter.ts'
import { LocalEventOutbox } from './local/local-events.delivery.ts'
import { localRoutes } from './local/local.routes.ts'
import { LocalProcessor } from './local/local.adapter.ts'
import type { PaymentProcessor } from './processor.types.ts'
import { StripeProcessor } from './stripe.adapter.ts'
import { webhookSecret } from './processor-events.signature.ts'

export type { BillingService }

declare module '../../core/module.ts' {
  interface Services {
    billing: BillingService
  }
}

/**
 * Billing through a payment processor (docs/billing.md "Processors",
 * docs/billing.md "Endpoints", docs/billing.md "Events"). PAYMENT_PROCESSOR=local (default, API_ENV=test only) serves its
 * own checkout page and delivers events to our receiver; stripe uses the
 * official package.
 */
export const billingModule = defineModule({
  name: 'billing',
  needs: ['licenses', 'products', 'mail', 'orders', 'identity'],
  async register(app, ctx) {
    const { config, db, services, jobs } = ctx
    const secret = await webhookSecret(db, config, ctx.secrets)
    const events = new ProcessorEvents(db, secret, services.licenses, services.products, services.mail, checkoutOrders(services.orders), ctx.events)

    let processor: PaymentProcessor
    let local: LocalProcessor | undefined
    if (config.paymentProcessor === 'stripe') {
      const base = config.stripeApiBase ? new URL(config.stripeApiBase) : undefined
      processor = new StripeProcessor({
        secretKey: config.stripeSecretKey!,
        ...(base ? { host: base.hostname, port: Number(base.port) || undefined, protocol: base.protocol === 'http:' ? 'http' : 'https' } : {}),
      })
    } else {
      // The local processor delivers its events through HTTP to our own receiver, signature and all.
      const outbox = new LocalEventOutbox(db, secret, async (payload, signature) => {
        const res = await app.inject({ method: 'POST', url: '/api/billing/webhooks', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, payload })
        return res.statusCode
      }, app.log, (organizationId) => billingRepository.customerIdsOf(db, 'local', organizationId))
      ctx.worker.add(outbox.queue)
      processor = local = new LocalProcessor(db, outbox)
      jobs.register({
        name: 'local-payment-processor',
        description: 'Local payment processor: renews subscriptions at period end (or ends those cancelled) and delivers one pass of pending events (the queue worker delivers them continuously)',
        intervalMs: 60_000,
        // An admin's run: only the subscriptions and events of the organization's buyers (the
        // processor stands for an outside service that knows customers, not organizations).
        run: async ({ organizationId }) => {
          const customers = organizationId === undefined ? undefined : await billingRepository.customerIdsOf(db, 'local', organizationId)
          return { ...(await local!.runClock(customers)), ...(await outbox.deliverDue(organizationId)) }
        },
      })
    }

    const billing = new BillingService(db, processor, services.products, services.licenses, services.identity)
    billingRoutes(app, billing, config.publicUrl)
    // The receiver verifies the signature over the exact bytes sent: its body is kept raw, whatever its type.
    await app.register(async (scope) => {
      scope.decorateRequest('rawBody', undefined)
      scope.removeAllContentTypeParsers()
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
        req.rawBody = body as Buffer
        done(null, undefined)
      })
      webhookRoute(scope as App, events)
    })
    // The local processor's pages exist only in test (config.ts refuses the local processor in live).
    if (local && config.apiEnv === 'test') {
      const pages = local
      await app.register(async (scope) => localRoutes(scope as App, pages))
    }
    return billing
  },
})
