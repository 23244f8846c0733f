import { Type, type Static } from 'typebox'
import { TimestampInput } from '../../core/dates.ts'
import { listOf, listQuery } from '../../core/pagination.ts'
import { EventId, Named, Nullable, StringEnum } from '../../core/schemas.ts'

const Uuid = Type.String({ format: 'uuid', maxLength: 36 })
const EventType = Type.String({ pattern: '^[a-z_]+(\\.[a-z_]+)*$', maxLength: 100, description: '<resource>.<what happened>, e.g. invoice.paid' })

/** The event object of GET /events and of every webhook body (docs/webhooks.md "The event object"). */
export const Event = Named('Event', Type.Object({
  id: EventId('evt_ and 26 or more letters and digits (32 hex digits today); also the webhook-id header of its deliveries'),
  type: Type.String({ description: 'One of the types of openapi.json `webhooks` (ping only on test deliveries)' }),
  createdAt: Type.String({ format: 'date-time' }),
  data: Type.Object({
    object: Type.Object({}, { additionalProperties: true, description: 'The resource as its GET answered an admin at the moment of the event' }),
  }),
}))
export type Event = Static<typeof Event>
export const EventList = Named('EventList', listOf(Event))

export const EVENT_SORTABLE = ['createdAt'] as const
export const EventListQuery = listQuery(EVENT_SORTABLE, {
  type: Type.Optional({ ...EventType, description: 'One of the event types of openapi.json `webhooks` (ping lists nothing); another: 400' }),
  resourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The id of data.object' })),
  from: Type.Optional({ ...TimestampInput, description: 'Created at or after (a date: from its start, UTC)' }),
  to: Type.Optional({ ...TimestampInput, description: 'Created at or before (a date: to its end, UTC)' }),
})
export type EventListQuery = Static<typeof EventListQuery>
export const EventIdParams = Type.Object({ id: EventId() })

const Url = Type.String({ minLength: 1, maxLength: 2000, description: 'https URL that receives the POSTs (http only to a loopback host when API_ENV=test)' })
const EnabledEvents = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1, maxItems: 100,
  description: 'Event types to receive (openapi.json `webhooks`), or exactly ["*"] for every type',
})
const Description = Nullable(Type.String({ maxLength: 500 }))

export const WebhookEndpoint = Named('WebhookEndpoint', Type.Object({
  id: Uuid,
  url: Type.String(),
  enabledEvents: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  enabled: Type.Boolean({ description: 'false: no event is delivered (after five days of failures, or by an admin)' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}))
export type WebhookEndpoint = Static<typeof WebhookEndpoint>
export const WebhookEndpointList = Named('WebhookEndpointList', listOf(WebhookEndpoint))
const Secret = Type.String({ description: 'whsec_ and the base64 of 24 random bytes: the Standard Webhooks signing secret, shown only here' })
export const CreatedWebhookEndpoint = Named('CreatedWebhookEndpoint', Type.Object({
  id: Uuid,
  url: Type.String(),
  enabledEvents: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  enabled: Type.Boolean(),
  secret: Secret,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}))
export const RotatedSecret = Named('RotatedWebhookSecret', Type.Object({ secret: Secret }))

export const WebhookEndpointListQuery = listQuery(['createdAt', 'url'] as const, {})
export type WebhookEndpointListQuery = Static<typeof WebhookEndpointListQuery>

export const CreateWebhookEndpointBody = Type.Object({
  url: Url,
  enabledEvents: EnabledEvents,
  description: Type.Optional(Description),
  enabled: Type.Optional(Type.Boolean({ default: true })),
}, { additionalProperties: false })
export type CreateWebhookEndpoint = Static<typeof CreateWebhookEndpointBody>

export const UpdateWebhookEndpointBody = Type.Object({
  url: Type.Optional(Url),
  enabledEvents: Type.Optional(EnabledEvents),
  description: Type.Optional(Description),
  enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, minProperties: 1 })
export type UpdateWebhookEndpoint = Static<typeof UpdateWebhookEndpointBody>

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]
export const WebhookDelivery = Named('WebhookDelivery', Type.Object({
  id: Uuid,
  eventId: Type.String(),
  eventType: Type.String(),
  status: StringEnum(DELIVERY_STATUSES),
  attempts: Type.Integer({ description: 'Attempts made so far' }),
  lastResponseStatus: Nullable(Type.Integer({ description: 'HTTP status of the last attempt; null before one, or when none came (timeout, refused connection)' })),
  lastAttemptAt: Nullable(Type.String({ format: 'date-time' })),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'null unless pending' })),
  createdAt: Type.String({ format: 'date-time' }),
}))
export type WebhookDelivery = Static<typeof WebhookDelivery>
export const WebhookDeliveryList = Named('WebhookDeliveryList', listOf(WebhookDelivery))
export const DeliveryListQuery = listQuery(['createdAt'] as const, { status: Type.Optional(StringEnum(DELIVERY_STATUSES)) })
export type DeliveryListQuery = Static<typeof DeliveryListQuery>
export const DeliveryParams = Type.Object({ id: Uuid, deliveryId: Uuid })
