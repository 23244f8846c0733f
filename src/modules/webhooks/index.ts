import { defineModule } from '../../core/module.ts'
import { DeliveryWorker } from './webhooks.delivery.ts'
import { webhooksRoutes } from './webhooks.routes.ts'
import { ENDPOINT_TAKES_EVENT } from './webhooks.repository.ts'
import { WebhookEndpoint } from './webhooks.schemas.ts'
import { WebhooksService, sealEndpointSecrets, secretContext } from './webhooks.service.ts'

export type { WebhooksService }
export { Event } from './webhooks.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    webhooks: WebhooksService
  }
}

/**
 * Outgoing webhooks and the event feed (issue 15, docs/webhooks.md "Delivery"):
 * endpoints, a durable subscriber of every declared event type that queues
 * one delivery per endpoint, the delivery worker every process runs, and
 * GET /events. Modules declare their event types with ctx.events.declare.
 */
export const webhooksModule = defineModule({
  name: 'webhooks',
  needs: ['mail', 'identity'],
  async register(app, ctx) {
    const { db, config } = ctx
    await sealEndpointSecrets(db, ctx.secrets)
    const webhooks = new WebhooksService(db, ctx.events, { apiEnv: config.apiEnv, retryDelays: config.webhookRetryDelays, wake: () => worker.queue.wake() }, ctx.secrets)
    const worker = new DeliveryWorker(db, app.log, {
      apiEnv: config.apiEnv,
      secrets: ctx.secrets,
      secretContext,
      retryDelays: config.webhookRetryDelays,
      onDisabled: async (q, endpoint) => {
        for (const to of await ctx.services.identity.adminEmails(endpoint.organization_id, q)) {
          await ctx.services.mail.enqueue(q, {
            organizationId: endpoint.organization_id,
            to,
            subject: 'Webhook endpoint disabled after five days of failed deliveries',
            text:
              `The webhook endpoint ${endpoint.url} (${endpoint.id}) has answered no delivery with success for five days and is now disabled.\n\n` +
              'Its pending deliveries wait; enable it again with PATCH /api/webhook-endpoints/' + endpoint.id + ' {"enabled": true} once it answers, ' +
              'and see GET /api/webhook-endpoints/' + endpoint.id + '/deliveries for the failures.',
          })
        }
      },
    })
    webhooks.worker = worker
    ctx.worker.add(worker.queue)
    ctx.events.declare([{
      type: 'ping',
      description: 'Sent by POST /webhook-endpoints/:id/test to that endpoint alone; data.object is the endpoint. Not subscribable, not in GET /events.',
      object: WebhookEndpoint,
      version: 1,
      subscribable: false,
    }])
    ctx.events.subscribe('webhooks', 'public', (event) => webhooks.fanOut(event), { interested: ENDPOINT_TAKES_EVENT })
    ctx.jobs.register({
      name: 'webhook-housekeeping',
      description: 'Deletes finished webhook deliveries older than 30 days (the event feed keeps events as long)',
      intervalMs: 3600_000,
      run: async (scope) => ({ deleted: await webhooks.housekeeping(scope.organizationId) }),
    })
    // The kernel's worker starts the queue with the jobs; this also closes the HTTP agents.
    app.addHook('onClose', async () => worker.stop())
    webhooksRoutes(app, webhooks)
    return webhooks
  },
})
