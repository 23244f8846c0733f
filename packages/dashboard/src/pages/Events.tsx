// Settings, Events (docs/dashboard-platform.md "Events"; API: docs/webhooks.md "The event feed"):
// the organization's events of the last 30 days, newest first, filtered by
// type, resource and days in the address, each event's payload as formatted JSON.
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Card, dateTime, Field, ListView, Page, SearchInput, useLoad, useUrlFilters } from '../ui.tsx'
import { EVENT_TYPES } from './Webhooks.tsx'

export type Event = Schemas['Event']

const DAY = /^\d{4}-\d{2}-\d{2}$/

/** What an event's object is called: its name, number or reference, else its id. */
export function objectName(object: Record<string, unknown>): string {
  for (const key of ['name', 'number', 'reference', 'title', 'ticketNumber', 'key']) {
    const v = object[key]
    if (typeof v === 'string' && v) return v
  }
  return typeof object.id === 'string' ? object.id : '—'
}

/** An event's payload, formatted, in a box that scrolls (and takes the focus, so the keyboard scrolls it too). */
export function Payload({ event }: { event: Event }) {
  return (
    <details>
      <summary>
        Payload <span className="visually-hidden">{`of ${event.type} ${dateTime(event.createdAt)}`}</span>
      </summary>
      <pre tabIndex={0} aria-label={`Payload of ${event.type}, ${event.id}`} style={{ overflow: 'auto', maxHeight: '24rem', maxWidth: '100%', whiteSpace: 'pre' }}>
        {JSON.stringify(event, null, 2)}
      </pre>
    </details>
  )
}

export function EventsPage() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const type = f.choice('type', EVENT_TYPES)
  const resourceId = f.get('resource')
  const from = DAY.test(f.get('from')) ? f.get('from') : ''
  const to = DAY.test(f.get('to')) ? f.get('to') : ''
  const list = useLoad(
    () => api.get('/api/events', { params: { query: { page, limit: 20, sortOrder: 'desc', ...(type ? { type } : {}), ...(resourceId ? { resourceId } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) } } }),
    [page, type, resourceId, from, to],
  )
  const filtered = Boolean(type || resourceId || from || to)
  return (
    <Page title="Events">
      <p>What happened in the organization over the last 30 days, newest first: the events webhooks deliver.</p>
      <Card>
        <div className="filters" role="search" aria-label="Filter events">
          <Field label="Type">
            <select value={type} onChange={(e) => f.set('type', e.target.value)}>
              <option value="">all</option>
              {EVENT_TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </Field>
          <Field label="Resource id" hint="The id of a contact, an invoice, ...">
            <SearchInput value={resourceId} onSearch={(v) => f.set('resource', v)} maxLength={100} />
          </Field>
          <Field label="From">
            <input type="date" value={from} onChange={(e) => f.set('from', e.target.value)} />
          </Field>
          <Field label="To">
            <input type="date" value={to} onChange={(e) => f.set('to', e.target.value)} />
          </Field>
        </div>
        <ListView
          list={list}
          onPage={f.setPage}
          empty={filtered ? 'No event matches these filters in the last 30 days.' : 'No events in the last 30 days.'}
          render={(events) => (
            <ol className="event-feed" aria-label="Events" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
              {events.map((e) => (
                <li key={e.id} style={{ borderBottom: '1px solid var(--line)', padding: '0.5rem 0', minWidth: 0 }}>
                  <div style={{ display: 'flex', flexWrap: 'wrap', gap: '0.25rem 1rem', alignItems: 'baseline' }}>
                    <strong>{e.type}</strong>
                    <span>{objectName(e.data.object)}</span>
                    <time dateTime={e.createdAt}>{dateTime(e.createdAt)}</time>
                    {typeof e.data.object.id === 'string' && resourceId !== e.data.object.id && (
                      <button type="button" className="link" onClick={() => f.set('resource', String(e.data.object.id))}>
                        Only this resource <span className="visually-hidden">{objectName(e.data.object)}</span>
                      </button>
                    )}
                  </div>
                  <Payload event={e} />
                </li>
              ))}
            </ol>
          )}
        />
      </Card>
    </Page>
  )
}
