import { randomBytes, randomUUID } from 'node:crypto'
import type { Role } from '../../core/auth.ts'
import type { Db } from '../../core/db.ts'
import { parseRange } from '../../core/dates.ts'
import type { DomainEvent, DomainEvents } from '../../core/events.ts'
import { AppError, NotFoundError, StateConflictError, ValidationError } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { sealColumns, type SecretBox } from '../../core/secrets.ts'
import { webhooksRepository as repo, toDelivery, toEndpoint } from './webhooks.repository.ts'
import type { CreateWebhookEndpoint, DeliveryListQuery, Event, EventListQuery, UpdateWebhookEndpoint } from './webhooks.schemas.ts'
import { resolvePublic, urlProblem } from './url-safety.lib.ts'
import type { DeliveryWorker } from './webhooks.delivery.ts'

/** Deliveries are signed by the replaced secret too for this long after a rotation (docs/webhooks.md "Secrets and rotation"). */
export const ROTATION_GRACE_SECONDS = 24 * 3600

/** whsec_ and the base64 of 24 random bytes: the form the standardwebhooks package reads. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`

/**
 * The context an endpoint's secrets are sealed with (docs/secrets.md): the
 * endpoint, so that a sealed value copied to another endpoint's row opens
 * nowhere. secret and previous_secret share it: a rotation moves the one into
 * the other.
 */
export const secretContext = (endpointId: string) => `webhook_endpoints.secret:${endpointId}`

/** Seals the secrets of an earlier version (plaintext) or of the previous SECRET_KEY (at start). */
export function sealEndpointSecrets(db: Db, secrets: SecretBox) {
  return sealColumns(db, secrets, {
    table: 'webhook_endpoints',
    id: 'id',
    columns: [{ name: 'secret', context: secretContext }, { name: 'previous_secret', context: secretContext }],
  })
}

export interface WebhooksOptions {
  apiEnv: 'test' | 'live'
  /** WEBHOOK_RETRY_DELAYS, seconds. */
  retryDelays: readonly number[]
  /** Wakes the delivery workers of every process once new deliveries are committed (the queue's `wake`). */
  wake: () => void
}

export class WebhooksService {
  /** The delivery worker of this process (started with the jobs; the benchmark starts it itself). */
  worker?: DeliveryWorker

  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly opts: WebhooksOptions,
    private readonly secrets: SecretBox,
  ) {}

  private get testEnv() {
    return this.opts.apiEnv === 'test'
  }

  /** 422 for a URL the service may not call (docs/webhooks.md "Endpoint addresses": https; outside API_ENV=test, a host of public unicast addresses only). */
  private async checkUrl(url: string) {
    const problem = urlProblem(url, this.testEnv)
    if (problem) throw new ValidationError(problem)
    if (this.testEnv) return
    const resolved = await resolvePublic(new URL(url).hostname)
    if ('problem' in resolved) throw new ValidationError(resolved.problem)
  }

  /** A non-empty list of declared types, or exactly ['*']; duplicates are kept once. */
  private checkEvents(types: string[]): string[] {
    if (types.includes('*')) {
      if (types.length !== 1) throw new ValidationError('enabledEvents is either ["*"] or a list of event types, not both')
      return types
    }
    const unknown = types.filter((t) => !this.events.isPublic(t))
    if (unknown.length) throw new ValidationError(unknown.map((t) => `enabledEvents: ${t} is not a subscribable event type`))
    return [...new Set(types)]
  }

  async create(organizationId: string, input: CreateWebhookEndpoint) {
    const enabledEvents = this.checkEvents(input.enabledEvents)
    await this.checkUrl(input.url)
    const id = randomUUID()
    const secret = newSecret()
    const row = await repo.insertEndpoint(this.db, organizationId, {
      id, url: input.url, enabledEvents, description: input.description ?? null, enabled: input.enabled ?? true, secret: this.secrets.seal(secret, secretContext(id)),
    })
    return { ...toEndpoint(row), secret }
  }

  list(organizationId: string, query: PageParams) {
    return repo.listEndpoints(this.db, organizationId, query)
  }

  private async endpoint(organizationId: string, id: string) {
    const row = await repo.findEndpoint(this.db, organizationId, id)
    if (!row) throw new NotFoundError('Webhook endpoint')
    return row
  }

  async get(organizationId: string, id: string) {
    return toEndpoint(await this.endpoint(organizationId, id))
  }

  async update(organizationId: string, id: string, patch: UpdateWebhookEndpoint) {
    await this.endpoint(organizationId, id)
    const stored: Record<string, unknown> = { ...patch }
    if (patch.enabledEvents) stored.enabledEvents = this.checkEvents(patch.enabledEvents)
    if (patch.url !== undefined) await this.checkUrl(patch.url)
    const row = await repo.updateEndpoint(this.db, organizationId, id, stored)
    if (!row) throw new NotFoundError('Webhook endpoint')
    return toEndpoint(row)
  }

  async delete(organizationId: string, id: string) {
    if (!(await repo.deleteEndpoint(this.db, organizationId, id))) throw new NotFoundError('Webhook endpoint')
  }

  async rotateSecret(organizationId: string, id: string) {
    const secret = newSecret()
    const row = await repo.rotateSecret(this.db, organizationId, id, this.secrets.seal(secret, secretContext(id)), ROTATION_GRACE_SECONDS)
    if (!row) throw new NotFoundError('Webhook endpoint')
    return { secret }
  }

  async deliveries(organizationId: string, endpointId: string, query: DeliveryListQuery & PageParams) {
    await this.endpoint(organizationId, endpointId)
    return repo.listDeliveries(this.db, organizationId, endpointId, query)
  }

  /** A finished delivery attempted again at once, with the same webhook-id; a pending one is 409. */
  async retry(organizationId: string, endpointId: string, deliveryId: string) {
    await this.endpoint(organizationId, endpointId)
    const row = await this.db.tx(async (q) => {
      const d = await repo.findDelivery(q, organizationId, endpointId, deliveryId, true)
      if (!d) throw new NotFoundError('Webhook delivery')
      if (d.status === 'pending') throw new StateConflictError('The delivery is pending: it will be attempted at nextAttemptAt')
      return repo.requeue(q, organizationId, d.id)
    })
    this.opts.wake()
    return toDelivery(row)
  }

  /** A new ping event delivered to this endpoint alone, whatever its enabledEvents and enabled. */
  async ping(organizationId: string, endpointId: string) {
    const endpoint = await this.endpoint(organizationId, endpointId)
    const event: Event = {
      id: `evt_${randomUUID().replace(/-/g, '')}`,
      type: 'ping',
      createdAt: new Date().toISOString(),
      data: { object: toEndpoint(endpoint) },
    }
    const row = await repo.insertDelivery(this.db, organizationId, endpointId, event, `ping:${event.id}`, this.opts.retryDelays.length)
    this.opts.wake()
    return toDelivery(row)
  }

  /** The durable subscriber of every public event type: one delivery per endpoint that takes it. */
  async fanOut(e: DomainEvent) {
    if (!e.organizationId) return
    const event: Event = { id: e.id, type: e.type, createdAt: e.createdAt, data: e.data as Event['data'] }
    if (await repo.fanOut(this.db, event, e.organizationId, `${e.resourceType}:${e.resourceId}`, this.opts.retryDelays.length)) this.opts.wake()
  }

  private publicTypes() {
    return this.events.publicTypes().map((t) => t.type)
  }

  /**
   * The event as `reader` may read it: for readers other than admins, the
   * admin-only fields its type declares (a license's key) are null.
   * Webhooks, which only admins configure, carry them.
   */
  private presentEvent(event: Event, reader: Role): Event {
    if (reader === 'admin') return event
    const hidden = this.events.publicTypes().find((t) => t.type === event.type)?.adminOnly ?? []
    const object: Record<string, unknown> = { ...event.data.object }
    for (const field of hidden) if (field in object) object[field] = null
    return hidden.length ? { ...event, data: { ...event.data, object } } : event
  }

  async listEvents(organizationId: string, reader: Role, query: EventListQuery & PageParams) {
    // The types are declared by the modules at start, so the schema cannot list them: one that is not declared is 400
    // here. ping is declared (never subscribable, never listed): filtering on it answers no event.
    const known = this.events.publicTypes(true).map((t) => t.type)
    if (query.type !== undefined && !known.includes(query.type)) throw new AppError('INVALID_PARAMETER', `type must be one of: ${known.join(', ')}`)
    const page = await repo.listEvents(this.db, organizationId, this.publicTypes(), query, parseRange(query.from, query.to))
    return { ...page, data: page.data.map((e) => this.presentEvent(e, reader)) }
  }

  async getEvent(organizationId: string, reader: Role, id: string) {
    const event = await repo.findEvent(this.db, organizationId, this.publicTypes(), id)
    if (!event) throw new NotFoundError('Event')
    return this.presentEvent(event, reader)
  }

  /** The webhook-housekeeping job: one organization's old deliveries (an admin's run), or every one's (organizationId undefined). */
  housekeeping(organizationId?: string) {
    return repo.deleteOldDeliveries(this.db, organizationId)
  }
}
