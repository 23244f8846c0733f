// A record's activity (docs/dashboard-platform.md "Timeline"): its events of the
// last 30 days from GET /events?resourceId=, newest first, a few at a time with
// "Show more" (the next page by cursor). What changed in an update is read by
// comparing its snapshot with the one before it.
import { useEffect, useState } from 'react'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Card, dateTime, Empty, ErrorMessage, Loading } from '../ui.tsx'

type Event = Schemas['Event']

/** How many entries a page of the timeline shows. */
export const TIMELINE_PAGE = 5

/** Fields that change with every write and say nothing by themselves. */
const QUIET = new Set(['updatedAt', 'createdAt', 'organizationId'])

/** The fields whose values differ between two snapshots of a record ("email, phone"). */
function changed(after: Record<string, unknown>, before: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(after), ...Object.keys(before)])
  return [...keys].filter((k) => !QUIET.has(k) && JSON.stringify(after[k] ?? null) !== JSON.stringify(before[k] ?? null))
}

/** The field names in words: "taxId" reads "tax id". */
const words = (key: string) => key.replace(/([A-Z])/g, ' $1').toLowerCase()

/** What an event did, in words; `older` is the record's event before it (to name what an update changed). */
function what(event: Event, older: Event | undefined): string {
  const [resource = '', action = ''] = event.type.split('.')
  const thing = resource.replace('_', ' ')
  if (action === 'created') return `Created the ${thing}`
  if (action === 'deleted') return `Deleted the ${thing}`
  if (action === 'updated') {
    if (!older) return `Changed the ${thing}`
    const fields = changed(event.data.object, older.data.object)
    return fields.length ? `Changed ${fields.map(words).join(', ')}` : `Saved the ${thing} unchanged`
  }
  return `${thing[0]?.toUpperCase() ?? ''}${thing.slice(1)} ${action.replace('_', ' ')}`
}

/** The activity of the record `resourceId`; `version` (its updatedAt) reloads it after a save. */
export function Timeline({ resourceId, version }: { resourceId: string; version?: string }) {
  const { api } = useSession()
  const [events, setEvents] = useState<Event[]>([])
  const [next, setNext] = useState<string | null>(null)
  const [total, setTotal] = useState<number>()
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<unknown>()

  const load = async (cursor: string | null) => {
    setLoading(true)
    setError(undefined)
    try {
      const page = await api.get('/api/events', { params: { query: { resourceId, limit: TIMELINE_PAGE, sortOrder: 'desc', ...(cursor ? { cursor } : {}) } } })
      setEvents((old) => (cursor ? [...old, ...page.data.filter((e) => !old.some((o) => o.id === e.id))] : page.data))
      setNext(page.meta.nextCursor ?? null)
      if (!cursor) setTotal(page.meta.total)
    } catch (err) {
      setError(err)
    } finally {
      setLoading(false)
    }
  }
  useEffect(() => {
    void load(null)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [resourceId, version])

  return (
    <Card title="Activity">
      <ErrorMessage error={error} />
      {events.length === 0 && loading && <Loading />}
      {events.length === 0 && !loading && !error && <Empty>No activity recorded in the last 30 days.</Empty>}
      {events.length > 0 && (
        <ol className="timeline" aria-label="Activity, newest first" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {events.map((e, i) => (
            <li key={e.id} style={{ padding: '0.35rem 0', borderBottom: '1px solid var(--line)' }}>
              <span>{what(e, events[i + 1])}</span> · <time dateTime={e.createdAt}>{dateTime(e.createdAt)}</time>
            </li>
          ))}
        </ol>
      )}
      {events.length > 0 && (
        <p className="pager-total">
          {events.length} of {total ?? events.length}{' '}
          {next && (
            <button type="button" disabled={loading} aria-busy={loading} onClick={() => void load(next)}>
              Show more
            </button>
          )}
        </p>
      )}
    </Card>
  )
}
