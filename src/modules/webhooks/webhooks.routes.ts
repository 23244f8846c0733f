import type { App } from '../../core/module.ts'
import { ADMIN, STAFF, principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { WebhooksService } from './webhooks.service.ts'
import * as S from './webhooks.schemas.ts'

const tags = ['webhooks']
const admin = { access: { roles: ADMIN } }

export function webhooksRoutes(app: App, webhooks: WebhooksService) {
  app.post('/webhook-endpoints', {
    schema: {
      operationId: 'createWebhookEndpoint', tags, summary: 'Create a webhook endpoint',
      description: 'The answer carries `secret` (the Standard Webhooks signing secret) this once. enabledEvents: declared event types (openapi.json `webhooks`) or exactly ["*"]; ping, an unknown type or "*" with types: 422. url: https, and outside the test environment a host that resolves to public unicast addresses only (422 otherwise: loopback, private, link-local, CGNAT, multicast, reserved and documentation ranges, and IPv6 forms that embed an IPv4 address such as NAT64, 6to4, Teredo, ::a.b.c.d and ::ffff:0:a.b.c.d); each delivery checks the address again.',
      body: S.CreateWebhookEndpointBody, response: responses({ 201: S.CreatedWebhookEndpoint }, [422]),
    },
    config: admin,
  }, async (req, reply) => reply.status(201).send(await webhooks.create(principalOf(req).organizationId, req.body)))

  app.get('/webhook-endpoints', {
    schema: { operationId: 'listWebhookEndpoints', tags, summary: 'List webhook endpoints', description: 'Without secrets.', querystring: S.WebhookEndpointListQuery, response: responses({ 200: S.WebhookEndpointList }) },
    config: admin,
  }, async (req) => webhooks.list(principalOf(req).organizationId, req.query))

  app.get('/webhook-endpoints/:id', {
    schema: { operationId: 'getWebhookEndpoint', tags, summary: 'Get a webhook endpoint', description: 'Without its secret.', params: IdParams, response: responses({ 200: S.WebhookEndpoint }, [404]) },
    config: admin,
  }, async (req) => webhooks.get(principalOf(req).organizationId, req.params.id))

  app.patch('/webhook-endpoints/:id', {
    schema: {
      operationId: 'updateWebhookEndpoint', tags, summary: 'Update a webhook endpoint',
      description: 'Changes the fields sent (url, enabledEvents, description, enabled), with the rules of creation (a url that is not https or, outside the test environment, whose host is not public unicast: 422). enabled: true after an automatic disabling starts the five days anew.',
      params: IdParams, body: S.UpdateWebhookEndpointBody, response: responses({ 200: S.WebhookEndpoint }, [404, 422]),
    },
    config: admin,
  }, async (req) => webhooks.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/webhook-endpoints/:id', {
    schema: { operationId: 'deleteWebhookEndpoint', tags, summary: 'Delete a webhook endpoint', description: 'Its pending deliveries are dropped.', params: IdParams, response: responses({ 204: NoContent }, [404]) },
    config: admin,
  }, async (req, reply) => {
    await webhooks.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })

  app.post('/webhook-endpoints/:id/rotate-secret', {
    schema: {
      operationId: 'rotateWebhookSecret', tags, summary: 'Rotate the signing secret',
      description: 'Answers the new secret, shown this once. For 24 hours deliveries carry a signature by the previous secret too (after a second rotation, by the newest two).',
      params: IdParams, response: responses({ 200: S.RotatedSecret }, [404]),
    },
    config: admin,
  }, async (req) => webhooks.rotateSecret(principalOf(req).organizationId, req.params.id))

  app.get('/webhook-endpoints/:id/deliveries', {
    schema: {
      operationId: 'listWebhookDeliveries', tags, summary: 'Deliveries to a webhook endpoint',
      description: 'Newest first by default; filter status (pending, succeeded, failed).',
      params: IdParams, querystring: S.DeliveryListQuery, response: responses({ 200: S.WebhookDeliveryList }, [404]),
    },
    config: admin,
  }, async (req) => webhooks.deliveries(principalOf(req).organizationId, req.params.id, req.query))

  app.post('/webhook-endpoints/:id/deliveries/:deliveryId/retry', {
    schema: {
      operationId: 'retryWebhookDelivery', tags, summary: 'Attempt a delivery again',
      description: 'A succeeded or failed delivery is attempted again at once, with the same webhook-id: 202 with the delivery, now pending. A pending delivery: 409.',
      params: S.DeliveryParams, response: responses({ 202: S.WebhookDelivery }, [404, 409]),
    },
    config: admin,
  }, async (req, reply) => reply.status(202).send(await webhooks.retry(principalOf(req).organizationId, req.params.id, req.params.deliveryId)))

  app.post('/webhook-endpoints/:id/test', {
    schema: {
      operationId: 'testWebhookEndpoint', tags, summary: 'Send a ping event',
      description: 'Delivers a new ping event (data.object: the endpoint) to this endpoint alone, whatever its enabledEvents and enabled: 202 with the delivery.',
      params: IdParams, response: responses({ 202: S.WebhookDelivery }, [404]),
    },
    config: admin,
  }, async (req, reply) => reply.status(202).send(await webhooks.ping(principalOf(req).organizationId, req.params.id)))

  app.get('/events', {
    schema: {
      operationId: 'listEvents', tags, summary: "The organization's events of the last 30 days",
      description: 'The events webhooks deliver, to catch up without them. Filters: type, resourceId (the id of data.object), from and to (createdAt, inclusive; a date covers its whole UTC day). Newest first by default; the events of one resource sort in the order of its changes. Fields a type declares admin-only (a license\'s key) are null for readers other than admins; webhooks carry them.',
      querystring: S.EventListQuery, response: responses({ 200: S.EventList }, [422]),
    },
    config: { access: { roles: STAFF } },
  }, async (req) => webhooks.listEvents(principalOf(req).organizationId, principalOf(req).role, req.query))

  app.get('/events/:id', {
    schema: { operationId: 'getEvent', tags, summary: 'Get an event', description: 'An event of the last 30 days. Fields its type declares admin-only (a license\'s key) are null for readers other than admins.', params: S.EventIdParams, response: responses({ 200: S.Event }, [404]) },
    config: { access: { roles: STAFF } },
  }, async (req) => webhooks.getEvent(principalOf(req).organizationId, principalOf(req).role, req.params.id))
}
