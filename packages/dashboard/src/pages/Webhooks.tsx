// Settings, Webhooks (docs/dashboard-platform.md "Webhooks"; API: docs/webhooks.md):
// an admin's endpoints, created with the event types they receive, the signing
// secret shown once, edited, disabled, deleted, the secret rotated, a test
// sent, and each endpoint's deliveries with their status and a retry.
import { useState } from 'react'
import { Link, Route, Routes, useLocation, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import type { webhooks } from '../../../sdk/src/schema.d.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, CopyButton, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, Notice, Page, useLoad, useUrlFilters, type Tone } from '../ui.tsx'
import { usePoll } from './Reports.tsx'

type Endpoint = Schemas['WebhookEndpoint']
type Delivery = Schemas['WebhookDelivery']

/** The event types an endpoint may take: openapi.json `webhooks` but `ping` (only sent by a test). */
export type EventType = Exclude<keyof webhooks, 'ping'>
/** Every subscribable type, grouped by resource in the order of docs/webhooks.md "Event types"; a type the API adds fails the build until listed. */
export const EVENT_TYPES = [
  'contact.created', 'contact.updated', 'contact.deleted',
  'invoice.created', 'invoice.updated', 'invoice.sent', 'invoice.paid', 'invoice.overdue', 'invoice.cancelled', 'invoice.deleted',
  'quotation.created', 'quotation.sent', 'quotation.confirmed', 'quotation.cancelled',
  'order.created', 'order.updated',
  'transfer.done',
  'purchase_order.confirmed', 'purchase_order.received', 'bill.paid',
  'license.created', 'license.activated', 'license.deactivated', 'license.suspended', 'license.reinstated', 'license.revoked',
  'journal_entry.posted',
  'production_order.confirmed', 'production_order.done', 'production_order.cancelled',
  'project.created', 'project.updated', 'project.archived',
  'task.created', 'task.updated',
  'ticket.created', 'ticket.closed', 'ticket.sla_breached',
] as const satisfies readonly EventType[]
// Fails to compile when openapi.json declares a type missing above.
const everyTypeListed: Exclude<EventType, (typeof EVENT_TYPES)[number]> extends never ? true : never = true
void everyTypeListed

/** The resources of the event types, in the list's order ("contact", "invoice", ...). */
const RESOURCES = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))]

const deliveryTone: Record<Delivery['status'], Tone> = { pending: 'info', succeeded: 'good', failed: 'bad' }
const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const

export function WebhooksPage() {
  return (
    <Routes>
      <Route index element={<EndpointList />} />
      <Route path=":id" element={<EndpointPage />} />
    </Routes>
  )
}

/** A secret shown once (after a create or a rotation), with Copy and Done. */
function SecretOnce({ secret, onDone, rotated }: { secret: string; onDone: () => void; rotated?: boolean }) {
  return (
    <div className="secret" role="status">
      <p>
        <strong>Copy this signing secret now: it is shown once.</strong>{' '}
        {rotated ? 'For 24 hours deliveries carry a signature by the previous secret too, so your receiver can switch at leisure.' : 'Your receiver checks the signature of each delivery with it.'}
      </p>
      <div className="secret-value">
        <code data-testid="webhook-secret">{secret}</code>
        <CopyButton text={secret} label="Copy secret" />
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  )
}

/** The event types chosen in a form: every type ("*"), or the ones ticked. */
function EventChoice({ chosen }: { chosen?: readonly string[] }) {
  const [all, setAll] = useState(chosen ? chosen.includes('*') : false)
  return (
    <fieldset className="group">
      <legend>Events to receive</legend>
      <label className="check">
        <input type="checkbox" name="allEvents" checked={all} onChange={(e) => setAll(e.target.checked)} /> Every event type, present and future
      </label>
      {!all && (
        <div className="event-types" style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(min(100%, 220px), 1fr))', gap: 8 }}>
          {RESOURCES.map((resource) => (
            <fieldset key={resource} className="event-group" style={{ border: 0, padding: 0, margin: 0, minWidth: 0, display: 'flex', flexDirection: 'column' }}>
              <legend>{resource.replace('_', ' ')}</legend>
              {EVENT_TYPES.filter((t) => t.startsWith(`${resource}.`)).map((t) => (
                <label key={t} className="check" style={{ alignSelf: 'flex-start', padding: '4px 0' }}>
                  <input type="checkbox" name="event" value={t} defaultChecked={chosen?.includes(t)} /> {t}
                </label>
              ))}
            </fieldset>
          ))}
        </div>
      )}
    </fieldset>
  )
}

/** The body of a create or an edit: the URL, the description (null when empty), the types (refused in the page when none). */
function endpointBody(data: FormData) {
  const f = formFields(data)
  const events = data.get('allEvents') === 'on' ? ['*'] : data.getAll('event').map(String)
  if (events.length === 0) throw new Error('Events to receive: choose at least one event type, or every type.')
  return { url: f.url ?? '', description: f.description ?? null, enabledEvents: events }
}

function EndpointFields({ endpoint }: { endpoint?: Endpoint }) {
  return (
    <>
      <div className="row">
        <Field label="URL" hint="https address that receives the POSTs">
          <input name="url" type="url" required maxLength={2000} defaultValue={endpoint?.url} placeholder="https://example.com/hooks" autoComplete="off" />
        </Field>
        <Field label="Description">
          <input name="description" maxLength={500} defaultValue={endpoint?.description ?? ''} autoComplete="off" />
        </Field>
      </div>
      <EventChoice chosen={endpoint?.enabledEvents} />
    </>
  )
}

const eventsText = (events: readonly string[]) => (events.includes('*') ? 'every type' : events.length <= 3 ? events.join(', ') : `${events.slice(0, 2).join(', ')} and ${events.length - 2} more`)

function EndpointList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const { state } = useLocation()
  const flash = (state as { flash?: string } | null)?.flash
  const [created, setCreated] = useState<Schemas['CreatedWebhookEndpoint'] | null>(null)
  const list = useLoad(() => api.get('/api/webhook-endpoints', { params: { query: { page, limit: 20, sortBy: 'createdAt', sortOrder: 'desc' } } }), [page])
  return (
    <Page title="Webhooks">
      {flash && <Notice>{flash}</Notice>}
      <Card title="Add an endpoint">
        <Form
          label="Add a webhook endpoint"
          submitLabel="Add endpoint"
          submit={(data) => api.post('/api/webhook-endpoints', { body: endpointBody(data) })}
          done={(e) => `Endpoint ${e.url} added.`}
          onDone={(e) => {
            setCreated(e)
            list.reload()
          }}
        >
          <EndpointFields />
        </Form>
        {created && (
          <>
            <p>
              <Link to={`/settings/webhooks/${created.id}`}>Open {created.url}</Link> to send it a test and see its deliveries.
            </p>
            <SecretOnce secret={created.secret} onDone={() => setCreated(null)} />
          </>
        )}
      </Card>
      <Card title="Endpoints">
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Webhook endpoints"
          rowKey={(e) => e.id}
          empty="No endpoints yet. Add one above to have events sent to your server."
          columns={[
            { label: 'URL', cell: (e) => <Link to={`/settings/webhooks/${e.id}`}>{e.url}</Link> },
            { label: 'Description', cell: (e) => e.description ?? '—' },
            { label: 'Events', cell: (e) => eventsText(e.enabledEvents) },
            { label: 'Status', cell: (e) => (e.enabled ? <Badge tone="good">enabled</Badge> : <Badge tone="warn">disabled</Badge>) },
            { label: 'Created', cell: (e) => dateTime(e.createdAt) },
          ]}
        />
      </Card>
    </Page>
  )
}

function EndpointPage() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const navigate = useNavigate()
  const endpoint = useLoad(() => api.get('/api/webhook-endpoints/{id}', { params: { path: { id } } }), [id])
  const [secret, setSecret] = useState<string | null>(null)
  const [tested, setTested] = useState(0)
  const e = endpoint.data
  const path = { params: { path: { id } } }
  return (
    <Page
      title={e ? `Webhook ${e.url}` : 'Webhook endpoint'}
      actions={
        e && (
          <>
            <ActionButton action={() => api.post('/api/webhook-endpoints/{id}/test', path)} done="Test event sent: its delivery is listed below." onDone={() => setTested((n) => n + 1)}>
              Send a test
            </ActionButton>
            <ActionButton
              confirm="Rotate the signing secret? The new one is shown once; for 24 hours deliveries are signed by both."
              action={async () => setSecret((await api.post('/api/webhook-endpoints/{id}/rotate-secret', path)).secret)}
              done="Signing secret rotated."
            >
              Rotate secret
            </ActionButton>
            <ActionButton
              variant="danger"
              confirm={`Delete the endpoint ${e.url}? It receives no more events, and its deliveries are deleted with it.`}
              action={() => api.delete('/api/webhook-endpoints/{id}', path)}
              onDone={() => navigate('/settings/webhooks', { state: { flash: `Endpoint ${e.url} deleted.` } })}
            >
              Delete endpoint
            </ActionButton>
          </>
        )
      }
    >
      <ErrorMessage error={endpoint.error} />
      {!e && !endpoint.error && <Loading />}
      {secret && <SecretOnce secret={secret} rotated onDone={() => setSecret(null)} />}
      {e && (
        <>
          <Card
            title="Endpoint"
            actions={
              <span className="inline">
                {e.enabled ? <Badge tone="good">enabled</Badge> : <Badge tone="warn">disabled</Badge>}{' '}
                {e.enabled ? (
                  <ActionButton confirm={`Disable ${e.url}? No event is delivered to it until it is enabled again.`} action={() => api.patch('/api/webhook-endpoints/{id}', { ...path, body: { enabled: false } })} done="Endpoint disabled." onDone={endpoint.reload}>
                    Disable
                  </ActionButton>
                ) : (
                  <ActionButton action={() => api.patch('/api/webhook-endpoints/{id}', { ...path, body: { enabled: true } })} done="Endpoint enabled: waiting deliveries go out again." onDone={endpoint.reload}>
                    Enable
                  </ActionButton>
                )}
              </span>
            }
          >
            {!e.enabled && <p>Disabled: no event is delivered (an admin disabled it, or it failed for five days).</p>}
            <Form key={e.updatedAt} label="Edit the endpoint" submitLabel="Save changes" submit={(data) => api.patch('/api/webhook-endpoints/{id}', { ...path, body: endpointBody(data) })} onDone={endpoint.reload} done={() => 'Changes saved.'}>
              <EndpointFields endpoint={e} />
            </Form>
          </Card>
          <Deliveries id={id} tested={tested} />
        </>
      )}
      <p>
        <Link to="/settings/webhooks">Back to the endpoints</Link>
      </p>
    </Page>
  )
}

/** An endpoint's deliveries, newest first, filtered by status in the address; looked at again a few times while one is pending. */
function Deliveries({ id, tested }: { id: string; tested: number }) {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const status = f.choice('status', DELIVERY_STATUSES)
  const [retried, setRetried] = useState(0)
  const list = useLoad(
    () => api.get('/api/webhook-endpoints/{id}/deliveries', { params: { path: { id }, query: { page, limit: 20, sortOrder: 'desc', ...(status ? { status } : {}) } } }),
    [id, page, status, tested, retried],
  )
  const poll = usePoll(list, (l) => l.data.some((d) => d.status === 'pending'))
  return (
    <Card
      title="Deliveries"
      actions={
        <Field label="Status">
          <select value={status} onChange={(e) => f.set('status', e.target.value)}>
            <option value="">all</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
      }
    >
      {poll}
      <ListView
        list={list}
        onPage={f.setPage}
        caption="Deliveries"
        rowKey={(d) => d.id}
        empty={status ? `No ${status} deliveries.` : 'No deliveries yet: events of the chosen types are sent here as they happen. Send a test to try the endpoint.'}
        columns={[
          { label: 'Event', cell: (d) => (d.eventType === 'ping' ? 'ping (a test)' : <Link to={`/settings/events?type=${d.eventType}`}>{d.eventType}</Link>) },
          { label: 'Status', cell: (d) => <Badge tone={deliveryTone[d.status]}>{d.status}</Badge> },
          { label: 'Attempts', align: 'right', cell: (d) => d.attempts },
          { label: 'Last answer', cell: (d) => (d.lastResponseStatus === null ? (d.attempts > 0 ? 'no answer' : '—') : `HTTP ${d.lastResponseStatus}`) },
          { label: 'Last attempt', cell: (d) => dateTime(d.lastAttemptAt) },
          { label: 'Next attempt', cell: (d) => dateTime(d.nextAttemptAt) },
          { label: 'Created', cell: (d) => dateTime(d.createdAt) },
          {
            label: 'Actions',
            cell: (d) =>
              d.status === 'pending' ? (
                '—'
              ) : (
                <ActionButton action={() => api.post('/api/webhook-endpoints/{id}/deliveries/{deliveryId}/retry', { params: { path: { id, deliveryId: d.id } } })} done={`Delivery of ${d.eventType} sent again.`} onDone={() => setRetried((n) => n + 1)}>
                  Retry <span className="visually-hidden">{`${d.eventType} of ${dateTime(d.createdAt)}`}</span>
                </ActionButton>
              ),
          },
        ]}
      />
    </Card>
  )
}
