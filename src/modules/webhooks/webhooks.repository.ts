import { randomUUID } from 'node:crypto'
import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, setClause, type PageParams } from '../../core/pagination.ts'
import type { DeliveryListQuery, DeliveryStatus, Event, EventListQuery, WebhookDelivery, WebhookEndpoint } from './webhooks.schemas.ts'

export interface EndpointRow {
  id: string
  organization_id: string
  url: string
  enabled_events: string[]
  description: string | null
  enabled: boolean
  /** Sealed with SECRET_KEY, as previous_secret (context secretContext(id), webhooks.service.ts). */
  secret: string
  previous_secret: string | null
  previous_secret_until: Date | null
  failing_since: Date | null
  created_at: Date
  updated_at: Date
}

/** SQL: endpoint `w` is one of organization `org`'s, enabled, and takes events of type `type` (SQL expressions). */
const takes = (w: string, org: string, type: string) =>
  `${w}.organization_id = ${org} AND ${w}.enabled AND (${w}.enabled_events = ARRAY['*'] OR ${type} = ANY (${w}.enabled_events))`

/**
 * The webhooks subscriber's condition on a new domain event (alias e), checked
 * in the statement that appends it (core/events.ts `interested`): an enabled
 * endpoint of its organization takes its type. An event no endpoint takes gets
 * no delivery row, so an organization without endpoints costs the dispatcher
 * nothing; the fan-out checks the endpoints again when it runs. `organization`:
 * the SQL value of the event's organization (a parameter of the statement).
 */
export const ENDPOINT_TAKES_EVENT = (organization: string) => `EXISTS (SELECT 1 FROM webhook_endpoints w WHERE ${takes('w', organization, 'e.type')})`

export const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  enabledEvents: r.enabled_events,
  description: r.description,
  enabled: r.enabled,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

export interface DeliveryRow {
  id: string
  seq: string
  organization_id: string
  endpoint_id: string
  event_id: string
  event_type: string
  payload: Event
  resource_key: string
  status: DeliveryStatus
  attempts: number
  retries_left: number
  last_response_status: number | null
  last_error: string | null
  last_attempt_at: Date | null
  next_attempt_at: Date | null
  locked_until: Date | null
  created_at: Date
}

export const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  lastResponseStatus: r.last_response_status,
  lastAttemptAt: r.last_attempt_at ? iso(r.last_attempt_at) : null,
  nextAttemptAt: r.next_attempt_at ? iso(r.next_attempt_at) : null,
  createdAt: iso(r.created_at),
})

interface EventRow {
  id: string
  type: string
  data: { object: Record<string, unknown> }
  created_at: Date
}
const toEvent = (r: EventRow): Event => ({ id: r.id, type: r.type, createdAt: iso(r.created_at), data: r.data })

const ENDPOINT_COLUMNS = { url: 'url', enabledEvents: 'enabled_events', description: 'description', enabled: 'enabled' }

/** Events stay in the feed this long (the kernel's housekeeping deletes them after it). */
const FEED_WINDOW = `now() - interval '30 days'`

export const webhooksRepository = {
  async insertEndpoint(q: Queryable, organizationId: string, e: { id: string; url: string; enabledEvents: string[]; description: string | null; enabled: boolean; secret: string }) {
    const { rows } = await q.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, description, enabled, secret)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [e.id, organizationId, e.url, e.enabledEvents, e.description, e.enabled, e.secret],
    )
    return rows[0]
  },

  async findEndpoint(q: Queryable, organizationId: string, id: string, lock = false) {
    const { rows } = await q.query<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE organization_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [organizationId, id])
    return rows[0]
  },

  listEndpoints(q: Queryable, organizationId: string, query: PageParams) {
    return paginate(q, query, {
      from: 'webhook_endpoints',
      select: '*',
      where: new Where().scope('organization_id', organizationId),
      sortColumns: { createdAt: 'created_at', url: 'url' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toEndpoint,
      counter: 'webhook_endpoints',
    })
  },

  async updateEndpoint(q: Queryable, organizationId: string, id: string, patch: Record<string, unknown>) {
    const set = setClause(patch, ENDPOINT_COLUMNS, 2)
    const enabling = patch.enabled === true ? ', failing_since = NULL' : ''
    const { rows } = await q.query<EndpointRow>(
      `UPDATE webhook_endpoints SET ${set.sql}${enabling}, updated_at = now() WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, ...set.params],
    )
    return rows[0]
  },

  async deleteEndpoint(q: Queryable, organizationId: string, id: string) {
    const { rowCount } = await q.query('DELETE FROM webhook_endpoints WHERE organization_id = $1 AND id = $2', [organizationId, id])
    return rowCount > 0
  },

  /** The new secret signs from now on; the one it replaces keeps signing for `graceSeconds`. */
  async rotateSecret(q: Queryable, organizationId: string, id: string, secret: string, graceSeconds: number) {
    const { rows } = await q.query<EndpointRow>(
      `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = now() + make_interval(secs => $4), secret = $3, updated_at = now()
        WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, secret, graceSeconds],
    )
    return rows[0]
  },

  /** One pending delivery of the event to every enabled endpoint of its organization that takes its type; answers how many it queued. */
  async fanOut(q: Queryable, event: Event, organizationId: string, resourceKey: string, retries: number) {
    const { rowCount } = await q.query(
      `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, payload, resource_key, retries_left, next_attempt_at)
       SELECT gen_random_uuid(), e.organization_id, e.id, $2, $3, $4, $5, $6, now()
         FROM webhook_endpoints e
        WHERE ${takes('e', '$1', '$3')}
       ON CONFLICT (organization_id, endpoint_id, event_id) DO NOTHING`,
      [organizationId, event.id, event.type, JSON.stringify(event), resourceKey, retries],
    )
    return rowCount
  },

  async insertDelivery(q: Queryable, organizationId: string, endpointId: string, event: Event, resourceKey: string, retries: number) {
    const { rows } = await q.query<DeliveryRow>(
      `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, payload, resource_key, retries_left, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now()) RETURNING *`,
      [randomUUID(), organizationId, endpointId, event.id, event.type, JSON.stringify(event), resourceKey, retries],
    )
    return rows[0]
  },

  listDeliveries(q: Queryable, organizationId: string, endpointId: string, query: DeliveryListQuery & PageParams) {
    return paginate(q, query, {
      from: 'webhook_deliveries',
      select: '*',
      where: new Where().scope('organization_id', organizationId).add('endpoint_id = ?', endpointId).maybe(query.status, 'status = ?'),
      sortColumns: { createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toDelivery,
    })
  },

  async findDelivery(q: Queryable, organizationId: string, endpointId: string, id: string, lock = false) {
    const { rows } = await q.query<DeliveryRow>(
      `SELECT * FROM webhook_deliveries WHERE organization_id = $1 AND endpoint_id = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
      [organizationId, endpointId, id],
    )
    return rows[0]
  },

  /** A finished delivery back in the queue for one attempt now (manual retry). */
  async requeue(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), retries_left = 0, locked_until = NULL
        WHERE organization_id = $2 AND id = $1 RETURNING *`,
      [id, organizationId],
    )
    return rows[0]
  },

  listEvents(q: Queryable, organizationId: string, types: string[], query: EventListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .add(`created_at >= ${FEED_WINDOW}`)
      .add('type = ANY (?::text[])', types)
      .maybe(query.type, 'type = ?')
      .maybe(query.resourceId, 'resource_id = ?')
      .maybe(range.from, 'created_at >= ?')
      // The API writes milliseconds, the column holds microseconds: `to` is inclusive of its whole millisecond.
      .maybe(range.to && new Date(range.to.getTime() + 1), 'created_at < ?')
    return paginate(q, query, {
      from: 'domain_events',
      select: 'id, type, data, created_at',
      where,
      sortColumns: { createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toEvent,
    })
  },

  async findEvent(q: Queryable, organizationId: string, types: string[], id: string) {
    const { rows } = await q.query<EventRow>(
      `SELECT id, type, data, created_at FROM domain_events
        WHERE organization_id = $1 AND id = $2 AND type = ANY ($3::text[]) AND created_at >= ${FEED_WINDOW}`,
      [organizationId, id, types],
    )
    return rows[0] ? toEvent(rows[0]) : undefined
  },

  /** Deliveries older than the event feed's window, finished (housekeeping): of one organization, or of every one (organizationId undefined). */
  async deleteOldDeliveries(q: Queryable, organizationId?: string) {
    const { rowCount } = organizationId
      ? await q.query(`DELETE FROM webhook_deliveries WHERE organization_id = $1 AND status <> 'pending' AND created_at < ${FEED_WINDOW}`, [organizationId])
      : await q.query(`DELETE /* across organizations: the scheduled housekeeping of every organization */ FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ${FEED_WINDOW}`)
    return rowCount
  },
}
