// The customer's support page (docs/helpdesk.md "Dashboard pages"): its own
// tickets (the API lists a customer's own contact's only), a new request, a
// ticket's public thread with a reply, and the rating of a solved ticket.
// A customer may not close, reopen nor change a ticket (agents only): the page
// offers what the API admits to it, no more.
import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Card, date, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, Notice, Page, toast, useLoad, useUrlFilters } from '../ui.tsx'
import { PriorityBadge, StatusBadge, statusLabel, Thread } from './Helpdesk.tsx'

type Ticket = Schemas['Ticket']
type Status = Ticket['status']
type Priority = Ticket['priority']

const STATUSES: Status[] = ['new', 'in_progress', 'pending_customer', 'resolved', 'closed']
const PRIORITIES: Priority[] = ['low', 'medium', 'high', 'urgent']

/** What a status means to the customer who opened the ticket. */
const customerWords: Record<Status, string> = {
  new: 'received, not yet taken by an agent',
  in_progress: 'an agent is working on it',
  pending_customer: 'waiting for your answer',
  resolved: 'solved: you may rate the answer',
  closed: 'closed',
}

export function SupportPage() {
  return (
    <Routes>
      <Route index element={<MyTickets />} />
      <Route path="new" element={<NewRequest />} />
      <Route path=":id" element={<MyTicket />} />
    </Routes>
  )
}

function MyTickets() {
  const { api } = useSession()
  const f = useUrlFilters()
  const status = f.choice('status', STATUSES)
  const list = useLoad(() => api.get('/api/helpdesk/tickets', { params: { query: { page: f.page, limit: 20, sortBy: 'updatedAt', sortOrder: 'desc', ...(status ? { status } : {}) } } }), [f.page, status])
  return (
    <Page
      title="Support"
      actions={
        <Link className="button primary" to="/support/new">
          New request
        </Link>
      }
    >
      <Card title="Your requests">
        <div className="filters" role="search" aria-label="Filter your requests">
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
        </div>
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Your requests"
          rowKey={(t) => t.id}
          empty={status ? 'No request has this status.' : <>You have no support request yet. <Link to="/support/new">Open one</Link> and our team answers here.</>}
          columns={[
            {
              label: 'Request',
              cell: (t) => (
                <>
                  <Link to={`/support/${t.id}`}>{t.subject}</Link>
                  <div className="muted small">
                    <code>{t.ticketNumber}</code> · {date(t.createdAt)}
                  </div>
                </>
              ),
            },
            { label: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
            { label: 'Priority', cell: (t) => <PriorityBadge priority={t.priority} /> },
            { label: 'Updated', cell: (t) => dateTime(t.updatedAt) },
          ]}
        />
      </Card>
    </Page>
  )
}

/** A new request: the API files it under the customer's own contact (contactId left out). */
function NewRequest() {
  const { api } = useSession()
  const navigate = useNavigate()
  return (
    <Page title="New support request">
      <Card>
        <Form
          label="New support request"
          submitLabel="Send request"
          submit={(data) => {
            const f = formFields(data)
            return api.post('/api/helpdesk/tickets', { body: { subject: f.subject ?? '', priority: (f.priority ?? 'medium') as Priority, ...(f.description ? { description: f.description } : {}) } })
          }}
          onDone={(t) => {
            toast(`Request ${t.ticketNumber} sent: our team answers here.`)
            navigate(`/support/${t.id}`)
          }}
        >
          <Field label="Subject" hint="In a few words">
            <input name="subject" required maxLength={200} />
          </Field>
          <Field label="Description" hint="What happened, what you expected, and any reference (order, invoice, license)">
            <textarea name="description" rows={6} maxLength={20000} />
          </Field>
          <Field label="Priority">
            <select name="priority" defaultValue="medium">
              {PRIORITIES.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </Field>
        </Form>
      </Card>
      <p>
        <Link to="/support">Back to your requests</Link>
      </p>
    </Page>
  )
}

function MyTicket() {
  const { api } = useSession()
  const { id = '' } = useParams()
  const [page, setPage] = useState(1)
  const [replies, setReplies] = useState(0)
  // The API does not say whether a ticket is rated: the rating given here is remembered while the page stays.
  const [rated, setRated] = useState<Schemas['TicketRating'] | null>(null)
  const ticket = useLoad(() => api.get('/api/helpdesk/tickets/{id}', { params: { path: { id } } }), [id])
  const messages = useLoad(() => api.get('/api/helpdesk/tickets/{id}/messages', { params: { path: { id }, query: { page, limit: 50 } } }), [id, page, replies])
  const t = ticket.data
  const done = t?.status === 'resolved' || t?.status === 'closed'
  return (
    <Page title={t ? t.subject : 'Support request'} actions={<Link to="/support">All your requests</Link>}>
      <ErrorMessage error={ticket.error} />
      {!t && !ticket.error && <Loading />}
      {t && (
        <div className="ticket-layout">
          <div className="ticket-main">
            <Card title="Conversation">
              <Thread ticket={t} messages={messages} onPage={setPage} empty="No answer yet: our team replies here." />
            </Card>
            {t.status === 'closed' ? (
              <Notice>This request is closed: it takes no more replies. Open a new request if you need more help.</Notice>
            ) : (
              <Card title="Reply">
                <Form
                  key={replies}
                  label="Reply"
                  submitLabel="Send"
                  submit={(data) => api.post('/api/helpdesk/tickets/{id}/reply', { params: { path: { id } }, body: { body: formFields(data).body ?? '' } })}
                  onDone={() => {
                    toast('Reply sent.')
                    ticket.reload()
                    setReplies((n) => n + 1)
                  }}
                >
                  <Field label="Message">
                    <textarea name="body" required rows={5} maxLength={50000} />
                  </Field>
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
                  <div className="muted">{customerWords[t.status]}</div>
                </dd>
                <dt>Priority</dt>
                <dd>
                  <PriorityBadge priority={t.priority} />
                </dd>
                <dt>Opened</dt>
                <dd>{dateTime(t.createdAt)}</dd>
                {t.assignee && (
                  <>
                    <dt>Agent</dt>
                    <dd>{t.assignee.name}</dd>
                  </>
                )}
                {t.resolution && (
                  <>
                    <dt>Resolution</dt>
                    <dd>{t.resolution}</dd>
                  </>
                )}
              </dl>
            </Card>
            {done && (
              <Card title="Rate the answer">
                {rated ? (
                  <p role="status">
                    Thank you: you rated it {rated.rating} out of 5{rated.comment ? ` ("${rated.comment}")` : ''}.
                  </p>
                ) : (
                  <Form
                    label="Rate the answer"
                    submitLabel="Send rating"
                    submit={(data) => {
                      const f = formFields(data)
                      return api.post('/api/helpdesk/tickets/{id}/rating', { params: { path: { id } }, body: { rating: Number(f.rating), ...(f.comment ? { comment: f.comment } : {}) } })
                    }}
                    onDone={(r) => {
                      toast(`Thank you for your rating (${r.rating} out of 5).`)
                      setRated(r)
                    }}
                  >
                    <fieldset className="group">
                      <legend>Rating (once per request)</legend>
                      <div className="row">
                        {[1, 2, 3, 4, 5].map((n) => (
                          <label key={n} className="check">
                            <input type="radio" name="rating" value={n} required />
                            {n} {n === 1 ? '(poor)' : n === 5 ? '(excellent)' : ''}
                          </label>
                        ))}
                      </div>
                    </fieldset>
                    <Field label="Comment" hint="Optional">
                      <textarea name="comment" rows={3} maxLength={5000} />
                    </Field>
                  </Form>
                )}
              </Card>
            )}
          </div>
        </div>
      )}
    </Page>
  )
}
