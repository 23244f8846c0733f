import { useState } from 'react'
import { Link, Route, Routes, useParams } from 'react-router'
import { ApiError, type Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, date, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, Page, Pager, saveBlob, SearchInput, useLoad, useUrlFilters, type Tone } from '../ui.tsx'

type Ticket = Schemas['Ticket']
type Status = Ticket['status']
type Priority = Ticket['priority']

const STATUSES: Status[] = ['new', 'in_progress', 'pending_customer', 'resolved', 'closed']
const PRIORITIES: Priority[] = ['low', 'medium', 'high', 'urgent']
const SORTS = { createdAt: 'newest', updatedAt: 'recently updated', ticketNumber: 'number' } as const
const SORT_KEYS = Object.keys(SORTS) as (keyof typeof SORTS)[]
const AGENT_ROLES = new Set(['admin', 'support', 'agent'])

/** Helpdesk inbox (docs/helpdesk.md "Dashboard pages"): the tickets with their SLA, and one ticket's thread. */
export function HelpdeskPage() {
  return (
    <Routes>
      <Route index element={<InboxView />} />
      <Route path=":id" element={<TicketView />} />
    </Routes>
  )
}

const statusTone: Record<Status, Tone> = { new: 'info', in_progress: 'neutral', pending_customer: 'warn', resolved: 'good', closed: 'good' }
const priorityTone: Record<Priority, Tone> = { low: 'neutral', medium: 'neutral', high: 'warn', urgent: 'bad' }
const statusLabel = (s: Status) => s.replace('_', ' ')
const StatusBadge = ({ status }: { status: Status }) => <Badge tone={statusTone[status]}>{statusLabel(status)}</Badge>
const PriorityBadge = ({ priority }: { priority: Priority }) => <Badge tone={priorityTone[priority]}>{priority}</Badge>

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'long' })
/** "in 3 hr", "25 min ago": how far a deadline is from now. */
function fromNow(iso: string, now = Date.now()): string {
  const minutes = (new Date(iso).getTime() - now) / 60_000
  const abs = Math.abs(minutes)
  if (abs < 60) return relative.format(Math.round(minutes), 'minute')
  if (abs < 48 * 60) return relative.format(Math.round(minutes / 60), 'hour')
  return relative.format(Math.round(minutes / 1440), 'day')
}

/**
 * The SLA of a ticket in words, from the fields the API gives (deadlines,
 * firstResponseMet, resolutionBreached): what is due, what was met, what is breached.
 */
export function slaBadges(ticket: Pick<Ticket, 'sla' | 'status'>, now = Date.now()): { tone: Tone; text: string }[] {
  const sla = ticket.sla
  if (!sla) return [{ tone: 'neutral', text: 'No SLA' }]
  const open = ticket.status !== 'resolved' && ticket.status !== 'closed'
  const out: { tone: Tone; text: string }[] = []
  if (sla.resolutionBreached) out.push({ tone: 'bad', text: 'SLA breached' })
  if (sla.firstResponseMet === false) out.push({ tone: 'warn', text: 'First response late' })
  else if (sla.firstResponseMet === null && open) {
    const late = new Date(sla.firstResponseDeadline).getTime() <= now
    out.push(late ? { tone: 'bad', text: 'First response overdue' } : { tone: 'warn', text: `First response due ${fromNow(sla.firstResponseDeadline, now)}` })
  }
  if (!sla.resolutionBreached) out.push(open ? { tone: 'info', text: `Resolution due ${fromNow(sla.resolutionDeadline, now)}` } : { tone: 'good', text: 'Resolved in time' })
  return out
}

function SlaBadges({ ticket }: { ticket: Ticket }) {
  return (
    <span className="badges">
      {slaBadges(ticket).map((b) => (
        <Badge key={b.text} tone={b.tone}>
          {b.text}
        </Badge>
      ))}
    </span>
  )
}

/** Agents an assignee filter can name: every agent for an admin (who may list users), else oneself. */
function useAgents() {
  const { api, role, me } = useSession()
  return useLoad(async () => {
    if (role !== 'admin') return [me.user]
    const users = await api.get('/api/users', { params: { query: { limit: 100, sortBy: 'name', sortOrder: 'asc' } } })
    return users.data.filter((u) => AGENT_ROLES.has(u.role))
  }, [role])
}

/** The tickets, filtered, sorted and paged by the API; the filters live in the address so that Back from a ticket returns to them. */
function InboxView() {
  const { api, me } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const status = f.choice('status', STATUSES)
  const priority = f.choice('priority', PRIORITIES)
  const assigneeId = f.get('assigneeId')
  const overdue = f.choice('overdue', ['true', 'false'])
  const search = f.get('search')
  const sortBy = f.choice('sort', SORT_KEYS, 'createdAt')
  const agents = useAgents()
  const list = useLoad(
    () =>
      api.get('/api/helpdesk/tickets', {
        params: {
          query: {
            page,
            limit: 20,
            sortBy,
            sortOrder: 'desc',
            ...(status ? { status } : {}),
            ...(priority ? { priority } : {}),
            ...(assigneeId ? { assigneeId } : {}),
            ...(overdue ? { overdueSla: overdue === 'true' } : {}),
            ...(search ? { search } : {}),
          },
        },
      }),
    [page, status, priority, assigneeId, overdue, search, sortBy],
  )
  const filtered = status || priority || assigneeId || overdue || search
  // An assignee named by the address but not in the list (another agent's link) is still shown as chosen.
  const assignees = agents.data ?? [me.user]
  return (
    <Page title="Helpdesk">
      <Card
        title="Tickets"
        actions={
          <div className="filters filters-compact">
            <Field label="Search">
              <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Subject, number, e-mail" />
            </Field>
            <Field label="Status">
              <select value={status} onChange={(e) => f.set('status', e.target.value)}>
                <option value="">all</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {statusLabel(s)}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Priority">
              <select value={priority} onChange={(e) => f.set('priority', e.target.value)}>
                <option value="">all</option>
                {PRIORITIES.map((p) => (
                  <option key={p}>{p}</option>
                ))}
              </select>
            </Field>
            <Field label="Assignee">
              <select value={assigneeId} onChange={(e) => f.set('assigneeId', e.target.value)}>
                <option value="">anyone</option>
                {assigneeId && !assignees.some((u) => u.id === assigneeId) && <option value={assigneeId}>{agents.loading ? 'loading…' : 'another agent'}</option>}
                {assignees.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.id === me.user.id ? `me (${u.name})` : u.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="SLA">
              <select value={overdue} onChange={(e) => f.set('overdue', e.target.value)}>
                <option value="">all</option>
                <option value="true">overdue (breached)</option>
                <option value="false">not overdue</option>
              </select>
            </Field>
            <Field label="Sort by">
              <select value={sortBy} onChange={(e) => f.set('sort', e.target.value === 'createdAt' ? '' : e.target.value)}>
                {SORT_KEYS.map((k) => (
                  <option key={k} value={k}>
                    {SORTS[k]}
                  </option>
                ))}
              </select>
            </Field>
          </div>
        }
      >
        <ErrorMessage error={agents.error} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Tickets"
          rowKey={(t) => t.id}
          empty={filtered ? 'No ticket matches these filters.' : 'No tickets yet. Customers open them through the portal or POST /support; staff can create them through the API.'}
          columns={[
            {
              label: 'Ticket',
              cell: (t) => (
                <>
                  <Link to={`/helpdesk/${t.id}`}>{t.subject}</Link>
                  <div className="muted small">
                    <code>{t.ticketNumber}</code> · {date(t.createdAt)}
                  </div>
                </>
              ),
            },
            { label: 'Contact', cell: (t) => t.contact.name },
            { label: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
            { label: 'Priority', cell: (t) => <PriorityBadge priority={t.priority} /> },
            { label: 'Assignee', cell: (t) => t.assignee?.name ?? <span className="muted">unassigned</span> },
            { label: 'SLA', cell: (t) => <SlaBadges ticket={t} /> },
          ]}
        />
      </Card>
    </Page>
  )
}

/** An attachment's name: a click downloads its bytes (the messages list carries only what it is). */
function AttachmentLink({ ticketId, attachment: a }: { ticketId: string; attachment: Schemas['TicketAttachment'] }) {
  const { api } = useSession()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const download = async () => {
    setBusy(true)
    setError(undefined)
    try {
      const { data, error, response } = await api.raw.GET('/api/helpdesk/tickets/{id}/attachments/{attachmentId}', { params: { path: { id: ticketId, attachmentId: a.id } }, parseAs: 'blob' })
      if (!response.ok || !data) throw new ApiError(response, error)
      saveBlob(new Blob([data], { type: a.contentType }), a.filename)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" className="link" disabled={busy} aria-busy={busy} onClick={download}>
        {a.filename}
      </button>{' '}
      <span className="muted">({size(a.size)})</span>
      {error ? <ErrorMessage error={error} /> : null}
    </>
  )
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`)

function TicketView() {
  const { api, me } = useSession()
  const { id = '' } = useParams()
  const [page, setPage] = useState(1)
  const [replies, setReplies] = useState(0)
  const ticket = useLoad(() => api.get('/api/helpdesk/tickets/{id}', { params: { path: { id } } }), [id])
  const messages = useLoad(() => api.get('/api/helpdesk/tickets/{id}/messages', { params: { path: { id }, query: { page, limit: 50 } } }), [id, page, replies])
  const t = ticket.data
  const closed = t?.status === 'closed'
  const reload = () => (ticket.reload(), setReplies((n) => n + 1))
  return (
    <Page
      title={t ? t.subject : 'Ticket'}
      actions={
        <>
          <Link to="/helpdesk">All tickets</Link>
          {t && !closed && t.assignee?.id !== me.user.id && (
            <ActionButton action={() => api.post('/api/helpdesk/tickets/{id}/assign', { params: { path: { id } }, body: { assigneeId: me.user.id } })} onDone={ticket.reload}>
              Assign to me
            </ActionButton>
          )}
          {t && closed && (
            <ActionButton action={() => api.post('/api/helpdesk/tickets/{id}/reopen', { params: { path: { id } } })} onDone={reload}>
              Reopen
            </ActionButton>
          )}
        </>
      }
    >
      <ErrorMessage error={ticket.error} />
      {!t && !ticket.error && <Loading />}
      {t && (
        <div className="ticket-layout">
          <div className="ticket-main">
            <Card title="Conversation">
              {t.description && (
                <article className="message message-description" aria-label="Description">
                  <header className="message-header">
                    <strong>{t.contact.name}</strong>
                    <Badge tone="neutral">Request</Badge>
                    <span className="muted">{dateTime(t.createdAt)}</span>
                  </header>
                  <p className="message-body">{t.description}</p>
                </article>
              )}
              <ErrorMessage error={messages.error} />
              {!messages.data && !messages.error && <Loading label="Loading messages" />}
              {messages.data && messages.data.data.length === 0 && <p className="muted">No replies yet. Answer the customer below, or add an internal note for the team.</p>}
              {messages.data && messages.data.data.length > 0 && (
                <ol className="thread" aria-label="Messages">
                  {messages.data.data.map((m) => (
                    <li key={m.id}>
                      <article className={`message ${m.internal ? 'message-internal' : 'message-public'}`} aria-label={`${m.internal ? 'Internal note' : 'Public reply'} by ${m.author?.name ?? 'the API'}`}>
                        <header className="message-header">
                          <strong>{m.author?.name ?? 'API'}</strong>
                          {m.internal ? <Badge tone="warn">Internal note</Badge> : <Badge tone="info">Public reply</Badge>}
                          <span className="muted">{dateTime(m.createdAt)}</span>
                        </header>
                        <p className="message-body">{m.body}</p>
                        {m.attachments.length > 0 && (
                          <ul className="attachments">
                            {m.attachments.map((a) => (
                              <li key={a.id}>
                                <AttachmentLink ticketId={id} attachment={a} />
                              </li>
                            ))}
                          </ul>
                        )}
                      </article>
                    </li>
                  ))}
                </ol>
              )}
              {messages.data && <Pager meta={messages.data.meta} onPage={setPage} />}
            </Card>
            {!closed && (
              <Card title="Reply">
                <Form
                  key={replies}
                  label="Reply"
                  submitLabel="Send"
                  submit={(data) => {
                    const f = formFields(data)
                    return api.post('/api/helpdesk/tickets/{id}/reply', { params: { path: { id } }, body: { body: f.body ?? '', internal: data.get('internal') === 'on' } })
                  }}
                  onDone={reload}
                >
                  <Field label="Message" hint="The customer sees a public reply; an internal note is seen by agents only.">
                    <textarea name="body" required rows={5} maxLength={50000} />
                  </Field>
                  <label className="check">
                    <input type="checkbox" name="internal" />
                    Internal note (agents only)
                  </label>
                </Form>
              </Card>
            )}
          </div>
          <div className="ticket-side">
            <Card title="Details">
              <dl className="details">
                <dt>Number</dt>
                <dd>
                  <code>{t.ticketNumber}</code>
                </dd>
                <dt>Status</dt>
                <dd>
                  <StatusBadge status={t.status} />
                </dd>
                <dt>Priority</dt>
                <dd>
                  <PriorityBadge priority={t.priority} />
                </dd>
                <dt>Contact</dt>
                <dd>
                  {t.contact.name}
                  {t.contact.email && <div className="muted">{t.contact.email}</div>}
                </dd>
                <dt>Assignee</dt>
                <dd>{t.assignee?.name ?? <span className="muted">unassigned</span>}</dd>
                <dt>Team</dt>
                <dd>{t.team?.name ?? <span className="muted">none</span>}</dd>
                {t.tags.length > 0 && (
                  <>
                    <dt>Tags</dt>
                    <dd>{t.tags.join(', ')}</dd>
                  </>
                )}
                <dt>Created</dt>
                <dd>{dateTime(t.createdAt)}</dd>
                {t.closedAt && (
                  <>
                    <dt>Closed</dt>
                    <dd>{dateTime(t.closedAt)}</dd>
                  </>
                )}
                {t.resolution && (
                  <>
                    <dt>Resolution</dt>
                    <dd>{t.resolution}</dd>
                  </>
                )}
              </dl>
              {!closed && <StatusSelect ticket={t} onDone={ticket.reload} />}
            </Card>
            <Card title="SLA">
              <SlaBadges ticket={t} />
              {t.sla && (
                <dl className="details">
                  <dt>Policy</dt>
                  <dd>{t.sla.policyName}</dd>
                  <dt>First response</dt>
                  <dd>
                    by {dateTime(t.sla.firstResponseDeadline)}
                    <div className="muted">{t.sla.firstResponseMet === null ? 'not answered yet' : t.sla.firstResponseMet ? 'answered in time' : 'answered late'}</div>
                  </dd>
                  <dt>Resolution</dt>
                  <dd>
                    by {dateTime(t.sla.resolutionDeadline)}
                    <div className="muted">{t.sla.resolutionBreached ? 'breached' : 'not breached'}</div>
                  </dd>
                </dl>
              )}
            </Card>
            {!closed && (
              <Card title="Close">
                <Form
                  label="Close the ticket"
                  submitLabel="Close ticket"
                  submit={(data) => {
                    const f = formFields(data)
                    return api.post('/api/helpdesk/tickets/{id}/close', { params: { path: { id } }, body: f.resolution ? { resolution: f.resolution } : {} })
                  }}
                  onDone={ticket.reload}
                >
                  <Field label="Resolution" hint="Optional: how it was solved">
                    <textarea name="resolution" rows={3} maxLength={20000} />
                  </Field>
                </Form>
              </Card>
            )}
          </div>
        </div>
      )}
    </Page>
  )
}

/** The open statuses an agent may set (closed only through Close). */
function StatusSelect({ ticket, onDone }: { ticket: Ticket; onDone: () => void }) {
  const { api } = useSession()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  return (
    <>
      <Field label="Change status">
        <select
          value={ticket.status}
          disabled={busy}
          aria-busy={busy}
          onChange={async (e) => {
            setBusy(true)
            setError(undefined)
            try {
              await api.patch('/api/helpdesk/tickets/{id}', { params: { path: { id: ticket.id } }, body: { status: e.target.value as Exclude<Status, 'closed'> } })
              onDone()
            } catch (err) {
              setError(err)
            } finally {
              setBusy(false)
            }
          }}
        >
          {STATUSES.filter((s) => s !== 'closed').map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </select>
      </Field>
      <ErrorMessage error={error} />
    </>
  )
}
