import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import { ApiError, type Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, confirmAction, date, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, Page, Pager, saveBlob, SearchInput, toast, useLoad, useUrlFilters, type Tone } from '../ui.tsx'
import { ContactPicker } from './finance.tsx'
import { HelpdeskTabs, SlaEdit, SlaView, StatsView, TeamEdit, TeamsView, useAgents, useTeams } from './HelpdeskSettings.tsx'

type Ticket = Schemas['Ticket']
type Status = Ticket['status']
type Priority = Ticket['priority']

const STATUSES: Status[] = ['new', 'in_progress', 'pending_customer', 'resolved', 'closed']
const PRIORITIES: Priority[] = ['low', 'medium', 'high', 'urgent']
const SORTS = { createdAt: 'newest', updatedAt: 'recently updated', ticketNumber: 'number' } as const
const SORT_KEYS = Object.keys(SORTS) as (keyof typeof SORTS)[]

/**
 * Helpdesk (docs/helpdesk.md "Dashboard pages"): the tickets with their SLA, a new ticket, one ticket's
 * thread; the tabs of the teams, the SLA policies and the statistics.
 */
export function HelpdeskPage() {
  return (
    <Routes>
      <Route index element={<InboxView />} />
      <Route path="new" element={<NewTicketView />} />
      <Route path="teams" element={<TeamsView />} />
      <Route path="teams/new" element={<TeamEdit />} />
      <Route path="teams/:teamId" element={<TeamEdit />} />
      <Route path="sla" element={<SlaView />} />
      <Route path="sla/new" element={<SlaEdit />} />
      <Route path="sla/:policyId" element={<SlaEdit />} />
      <Route path="stats" element={<StatsView />} />
      <Route path=":id" element={<TicketView />} />
    </Routes>
  )
}

const statusTone: Record<Status, Tone> = { new: 'info', in_progress: 'neutral', pending_customer: 'warn', resolved: 'good', closed: 'good' }
const priorityTone: Record<Priority, Tone> = { low: 'neutral', medium: 'neutral', high: 'warn', urgent: 'bad' }
export const statusLabel = (s: Status) => s.replace('_', ' ')
export const StatusBadge = ({ status }: { status: Status }) => <Badge tone={statusTone[status]}>{statusLabel(status)}</Badge>
export const PriorityBadge = ({ priority }: { priority: Priority }) => <Badge tone={priorityTone[priority]}>{priority}</Badge>

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

/** The tickets, filtered, sorted and paged by the API; the filters live in the address so that Back from a ticket returns to them. */
function InboxView() {
  const { api, me, role } = useSession()
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
    <Page
      title="Helpdesk"
      actions={
        // Opening a ticket names its contact, picked from GET /contacts: of the helpdesk's roles, only an admin may list contacts.
        role === 'admin' && (
          <Link className="button primary" to="/helpdesk/new">
            New ticket
          </Link>
        )
      }
    >
      <HelpdeskTabs />
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
          empty={filtered ? 'No ticket matches these filters.' : 'No tickets yet. Customers open them on their Support page or through the public support form (POST /support).'}
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
export function AttachmentLink({ ticketId, attachment: a }: { ticketId: string; attachment: Schemas['TicketAttachment'] }) {
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

/** The request and the replies of a ticket, oldest first, with their attachments; `messages` is useLoad's state of GET .../messages. */
export function Thread({ ticket: t, messages, onPage, empty }: { ticket: Ticket; messages: { data?: Schemas['TicketMessageList']; error: unknown }; onPage: (page: number) => void; empty: string }) {
  return (
    <>
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
      {messages.data && messages.data.data.length === 0 && <p className="muted">{empty}</p>}
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
                        <AttachmentLink ticketId={t.id} attachment={a} />
                      </li>
                    ))}
                  </ul>
                )}
              </article>
            </li>
          ))}
        </ol>
      )}
      {messages.data && <Pager meta={messages.data.meta} onPage={onPage} />}
    </>
  )
}

/** A new ticket, opened by staff for a customer picked by name (admins: the only helpdesk role that may list contacts). */
function NewTicketView() {
  const { api } = useSession()
  const navigate = useNavigate()
  const teams = useTeams()
  const [contactId, setContactId] = useState('')
  return (
    <Page title="New ticket">
      <HelpdeskTabs />
      <Card>
        <Form
          label="New ticket"
          submitLabel="Open ticket"
          blocked={contactId ? null : 'Choose the customer first.'}
          submit={(data) => {
            const f = formFields(data)
            return api.post('/api/helpdesk/tickets', {
              body: { subject: f.subject ?? '', contactId, priority: (f.priority ?? 'medium') as Priority, ...(f.description ? { description: f.description } : {}), ...(f.teamId ? { teamId: f.teamId } : {}) },
            })
          }}
          onDone={(t) => {
            toast(`Ticket ${t.ticketNumber} opened for ${t.contact.name}.`)
            navigate(`/helpdesk/${t.id}`)
          }}
        >
          <div className="row">
            <ContactPicker label="Customer" value={contactId} onChange={setContactId} required />
          </div>
          <Field label="Subject">
            <input name="subject" required maxLength={200} />
          </Field>
          <Field label="Description" hint="Optional: what the customer asked">
            <textarea name="description" rows={5} maxLength={20000} />
          </Field>
          <div className="row">
            <Field label="Priority">
              <select name="priority" defaultValue="medium">
                {PRIORITIES.map((p) => (
                  <option key={p}>{p}</option>
                ))}
              </select>
            </Field>
            <Field label="Team">
              <select name="teamId" defaultValue="">
                <option value="">no team</option>
                {(teams.data ?? []).map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <ErrorMessage error={teams.error} />
        </Form>
      </Card>
      <p>
        <Link to="/helpdesk">Back to the tickets</Link>
      </p>
    </Page>
  )
}

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
  // Taking a ticket a colleague holds changes their work: asked first.
  const takeOver = t?.assignee && t.assignee.id !== me.user.id ? `${t.ticketNumber} is assigned to ${t.assignee.name}. Assign it to you instead?` : undefined
  return (
    <Page
      title={t ? t.subject : 'Ticket'}
      actions={
        <>
          <Link to="/helpdesk">All tickets</Link>
          {t && !closed && t.assignee?.id !== me.user.id && (
            <ActionButton confirm={takeOver} action={() => api.post('/api/helpdesk/tickets/{id}/assign', { params: { path: { id } }, body: { assigneeId: me.user.id } })} done={`${t.ticketNumber} assigned to you.`} onDone={ticket.reload}>
              Assign to me
            </ActionButton>
          )}
          {t && closed && (
            <ActionButton action={() => api.post('/api/helpdesk/tickets/{id}/reopen', { params: { path: { id } } })} done={`${t.ticketNumber} reopened.`} onDone={reload}>
              Reopen
            </ActionButton>
          )}
        </>
      }
    >
      <HelpdeskTabs />
      <ErrorMessage error={ticket.error} />
      {!t && !ticket.error && <Loading />}
      {t && (
        <div className="ticket-layout">
          <div className="ticket-main">
            <Card title="Conversation">
              <Thread ticket={t} messages={messages} onPage={setPage} empty="No replies yet. Answer the customer below, or add an internal note for the team." />
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
                  onDone={(m) => {
                    toast(m.internal ? 'Internal note added.' : 'Reply sent to the customer.')
                    reload()
                  }}
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
              {!closed && <TicketControls ticket={t} onDone={ticket.reload} />}
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
                  onDone={(c) => {
                    toast(`${c.ticketNumber} closed.`)
                    ticket.reload()
                  }}
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

/**
 * A select that changes one thing of a ticket at once (PATCH or assign): busy while the API answers, its
 * refusal shown under it, a toast when done. `confirm`, when it returns a question, is asked first (nothing
 * changes when refused).
 */
function ChangeSelect({ label, value, options, change, done, confirm }: { label: string; value: string; options: { value: string; label: string }[]; change: (value: string) => Promise<unknown>; done: (value: string) => string; confirm?: (value: string) => string | undefined }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  return (
    <>
      <Field label={label}>
        <select
          value={value}
          disabled={busy}
          aria-busy={busy}
          onChange={async (e) => {
            const next = e.target.value
            const question = confirm?.(next)
            if (question && !confirmAction(question)) return
            setBusy(true)
            setError(undefined)
            try {
              await change(next)
              toast(done(next))
            } catch (err) {
              setError(err)
            } finally {
              setBusy(false)
            }
          }}
        >
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </Field>
      <ErrorMessage error={error} />
    </>
  )
}

/**
 * What an agent changes on an open ticket: the status (the open ones; closed only through Close), the
 * priority (the SLA follows it), the team, and the assignee: an admin picks any agent by name; the other
 * roles may not list users, so they take the ticket themselves (Assign to me). Reassigning a ticket a
 * colleague holds is asked first.
 */
function TicketControls({ ticket: t, onDone }: { ticket: Ticket; onDone: () => void }) {
  const { api, role, me } = useSession()
  const teams = useTeams()
  const agents = useAgents()
  const path = { params: { path: { id: t.id } } }
  const patch = async (body: { status?: Exclude<Status, 'closed'>; priority?: Priority; teamId?: string | null }) => {
    await api.patch('/api/helpdesk/tickets/{id}', { ...path, body })
    onDone()
  }
  const teamOptions = [{ value: '', label: 'no team' }, ...(teams.data ?? []).map((x) => ({ value: x.id, label: x.name }))]
  // A team the list does not hold (more than 100 teams) still shows as chosen.
  if (t.team && !teamOptions.some((o) => o.value === t.team!.id)) teamOptions.push({ value: t.team.id, label: t.team.name })
  const agentOptions = [...(t.assignee ? [] : [{ value: '', label: 'unassigned' }]), ...(agents.data ?? []).map((u) => ({ value: u.id, label: u.id === me.user.id ? `me (${u.name})` : u.name }))]
  if (t.assignee && !agentOptions.some((o) => o.value === t.assignee!.id)) agentOptions.unshift({ value: t.assignee.id, label: t.assignee.name })
  const nameOf = (id: string) => agentOptions.find((o) => o.value === id)?.label ?? 'the agent'
  return (
    <div className="ticket-controls">
      <ChangeSelect label="Change status" value={t.status} options={STATUSES.filter((s) => s !== 'closed').map((s) => ({ value: s, label: statusLabel(s) }))} change={(status) => patch({ status: status as Exclude<Status, 'closed'> })} done={(s) => `${t.ticketNumber} is now ${statusLabel(s as Status)}.`} />
      <ChangeSelect label="Change priority" value={t.priority} options={PRIORITIES.map((p) => ({ value: p, label: p }))} change={(priority) => patch({ priority: priority as Priority })} done={(p) => `${t.ticketNumber} is now of ${p} priority; its SLA follows.`} />
      <ChangeSelect
        label="Change team"
        value={t.team?.id ?? ''}
        options={teamOptions}
        change={(teamId) => patch({ teamId: teamId || null })}
        done={(teamId) => (teamId ? `${t.ticketNumber} moved to the team ${teamOptions.find((o) => o.value === teamId)?.label}.` : `${t.ticketNumber} has no team now.`)}
      />
      <ErrorMessage error={teams.error} />
      {role === 'admin' && (
        <>
          <ChangeSelect
            label="Assign to"
            value={t.assignee?.id ?? ''}
            options={agentOptions}
            confirm={(id) => (t.assignee && t.assignee.id !== id && t.assignee.id !== me.user.id ? `${t.ticketNumber} is assigned to ${t.assignee.name}. Assign it to ${nameOf(id)} instead?` : undefined)}
            change={async (assigneeId) => {
              await api.post('/api/helpdesk/tickets/{id}/assign', { ...path, body: { assigneeId } })
              onDone()
            }}
            done={(id) => `${t.ticketNumber} assigned to ${nameOf(id).replace(/^me \((.*)\)$/, '$1')}.`}
          />
          <ErrorMessage error={agents.error} />
        </>
      )}
    </div>
  )
}
