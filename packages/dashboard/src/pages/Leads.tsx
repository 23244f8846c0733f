// CRM leads (docs/dashboard-manufacturing-crm.md "Leads"): the leads the public
// web form captured, filtered in the address; a lead's page with Convert (into
// the contact of its e-mail, made when there is none) and Delete; the sales
// pipeline (quotations by stage); and, for admins, the capture form's token.
import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, CopyButton, CurrencySelect, date, dateTime, ErrorMessage, Field, ListView, Loading, money, Page, SearchInput, Table, Tabs, toast, useLoad, useUrlFilters, type Tone } from '../ui.tsx'
import { statusWord } from './finance.tsx'
import { DeleteRow, useRecordList } from './records.tsx'

type Lead = Schemas['Lead']
const LIST = '/crm/leads'
const STATUSES: Lead['status'][] = ['new', 'converted']
const statusTone: Record<Lead['status'], Tone> = { new: 'info', converted: 'good' }
const LeadBadge = ({ status }: { status: Lead['status'] }) => <Badge tone={statusTone[status]}>{status}</Badge>
const SORTS = { newest: 'Newest first', name: 'Name, A to Z' } as const
type Sort = keyof typeof SORTS

export function LeadsPage() {
  const { role } = useSession()
  return (
    <Routes>
      <Route index element={<LeadList />} />
      <Route path="pipeline" element={<Pipeline />} />
      <Route path="capture" element={role === 'admin' ? <CaptureSettings /> : <AdminsOnly />} />
      <Route path=":id" element={<LeadPage />} />
    </Routes>
  )
}

/** The tabs of the page; the capture form's settings for admins only (GET /crm/capture-settings admits no other role). */
function LeadsTabs() {
  const { role } = useSession()
  return <Tabs label="Leads" tabs={[{ to: LIST, label: 'Leads', end: true }, { to: `${LIST}/pipeline`, label: 'Pipeline' }, role === 'admin' && { to: `${LIST}/capture`, label: 'Capture form' }]} />
}

/** Leads, newest first or A to Z; searched (name, e-mail, company), by status and capture dates, all in the address. */
function LeadList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const status = f.choice('status', STATUSES)
  const from = f.get('from')
  const to = f.get('to')
  const sort = f.choice('sort', Object.keys(SORTS) as Sort[], 'newest')
  const list = useLoad(
    () =>
      api.get('/api/crm/leads', {
        params: { query: { page, limit: 20, ...(sort === 'name' ? { sortBy: 'name', sortOrder: 'asc' } : { sortBy: 'createdAt', sortOrder: 'desc' }), ...(search ? { search } : {}), ...(status ? { status } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) } },
      }),
    [page, search, status, from, to, sort],
  )
  const rows = useRecordList(list, page, f.setPage)
  const filtered = Boolean(search || status || from || to)
  return (
    <Page title="Leads">
      <LeadsTabs />
      {rows.notice}
      <Card>
        <div className="filters filter-grid" role="search" aria-label="Filter leads">
          <Field label="Search">
            <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Name, e-mail or company" />
          </Field>
          <Field label="Status">
            <select value={status} onChange={(e) => f.set('status', e.target.value)}>
              <option value="">all</option>
              {STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </Field>
          <Field label="Captured from">
            <input type="date" value={from} onChange={(e) => f.set('from', e.target.value)} />
          </Field>
          <Field label="Captured to">
            <input type="date" value={to} onChange={(e) => f.set('to', e.target.value)} />
          </Field>
          <Field label="Sort">
            <select value={sort} onChange={(e) => f.set('sort', e.target.value === 'newest' ? '' : e.target.value)}>
              {Object.entries(SORTS).map(([k, v]) => (
                <option key={k} value={k}>
                  {v}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Leads"
          rowKey={(l) => l.id}
          empty={filtered ? 'No lead matches these filters.' : 'No leads yet. Leads arrive from the web form that posts to the capture address (see Capture form, for admins).'}
          columns={[
            { label: 'Name', cell: (l) => <Link to={`${LIST}/${l.id}`}>{l.name}</Link> },
            { label: 'E-mail', cell: (l) => l.email },
            { label: 'Company', cell: (l) => l.company ?? '—' },
            { label: 'Source', cell: (l) => l.source ?? '—' },
            { label: 'Captured', cell: (l) => date(l.createdAt) },
            { label: 'Status', cell: (l) => <LeadBadge status={l.status} /> },
            { label: 'Contact', cell: (l) => (l.contactId ? <Link to={`/contacts/${l.contactId}`}>Open <span className="visually-hidden">the contact of {l.name}</span></Link> : '—') },
            { label: 'Actions', cell: (l) => <DeleteRow what="lead" name={l.name} remove={() => api.delete('/api/crm/leads/{id}', { params: { path: { id: l.id } } })} onDone={() => rows.deleted(`The lead ${l.name}`)} /> },
          ]}
        />
      </Card>
    </Page>
  )
}

/** One lead: what the form sent, Convert while it is new, the contact it is linked to once converted, Delete. */
function LeadPage() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const navigate = useNavigate()
  const data = useLoad(async () => {
    const lead = await api.get('/api/crm/leads/{id}', { params: { path: { id } } })
    // The contact it was converted into, by name (it may have been deleted since: the lead keeps its id).
    const contact = lead.contactId ? await api.get('/api/contacts/{id}', { params: { path: { id: lead.contactId } } }).catch(() => null) : null
    return { lead, contact }
  }, [id])
  const l = data.data?.lead
  const contact = data.data?.contact
  return (
    <Page
      title={l ? l.name : 'Lead'}
      actions={
        <>
          <Link to={LIST}>All leads</Link>
          {l?.status === 'new' && (
            <ActionButton
              variant="primary"
              action={async () => {
                const converted = await api.post('/api/crm/leads/{id}/convert', { params: { path: { id } } })
                const c = converted.contactId ? await api.get('/api/contacts/{id}', { params: { path: { id: converted.contactId } } }).catch(() => null) : null
                toast(`Lead converted: ${l.name} is linked to the contact ${c?.name ?? 'of its e-mail'}.`)
              }}
              onDone={data.reload}
            >
              Convert to contact
            </ActionButton>
          )}
          {l && (
            <ActionButton variant="danger" confirm={`Delete the lead ${l.name}? This cannot be undone${l.contactId ? '; the contact made from it stays' : ''}.`} action={() => api.delete('/api/crm/leads/{id}', { params: { path: { id } } })} onDone={() => navigate(LIST, { state: { flash: `The lead ${l.name} deleted.` } })}>
              Delete lead
            </ActionButton>
          )}
        </>
      }
    >
      <ErrorMessage error={data.error} />
      {!l && !data.error && <Loading />}
      {l && (
        <div className="grid">
          <Card title="Lead">
            <dl className="details">
              <dt>Status</dt>
              <dd data-testid="lead-status">
                <LeadBadge status={l.status} />
              </dd>
              <dt>E-mail</dt>
              <dd>{l.email}</dd>
              <dt>Phone</dt>
              <dd>{l.phone ?? '—'}</dd>
              <dt>Company</dt>
              <dd>{l.company ?? '—'}</dd>
              <dt>Source</dt>
              <dd>{l.source ?? '—'}</dd>
              <dt>Captured</dt>
              <dd>{dateTime(l.createdAt)}</dd>
              {l.convertedAt && (
                <>
                  <dt>Converted</dt>
                  <dd>{dateTime(l.convertedAt)}</dd>
                  <dt>Contact</dt>
                  <dd data-testid="lead-contact">{l.contactId && (contact ? <Link to={`/contacts/${l.contactId}`}>{contact.name}</Link> : 'deleted since')}</dd>
                </>
              )}
            </dl>
            {l.status === 'new' && <p className="muted small">Convert links the lead to the contact with its e-mail, or makes one (an individual with its name, e-mail and phone) when there is none.</p>}
          </Card>
          <Card title="Message">
            <p className="message-body">{l.message ?? 'No message.'}</p>
          </Card>
        </div>
      )}
    </Page>
  )
}

/** The sales pipeline: the quotations created in the period, by stage, in one currency (GET /sales/pipeline); period and currency in the address. */
function Pipeline() {
  const { api } = useSession()
  const f = useUrlFilters()
  const from = f.get('from')
  const to = f.get('to')
  const currency = f.get('currency')
  const data = useLoad(() => api.get('/api/sales/pipeline', { params: { query: { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(currency ? { currency } : {}) } } }), [from, to, currency])
  const p = data.data
  const m = (cents: number) => money(cents, p?.currency)
  const count = p?.stages.reduce((s, x) => s + x.count, 0) ?? 0
  return (
    <Page title="Leads">
      <LeadsTabs />
      <Card
        title="Sales pipeline"
        actions={
          <div className="filters" role="search" aria-label="Pipeline period">
            <Field label="From" hint="1 January when empty">
              <input type="date" value={from} onChange={(e) => f.set('from', e.target.value)} />
            </Field>
            <Field label="To" hint="Today when empty">
              <input type="date" value={to} onChange={(e) => f.set('to', e.target.value)} />
            </Field>
            <CurrencySelect value={currency} onChange={(c) => f.set('currency', c)} all="the most used" />
          </div>
        }
      >
        <ErrorMessage error={data.error} />
        {!p && !data.error && <Loading />}
        {p && (
          <>
            <p className="report-period">
              Quotations created from {date(p.period.from)} to {date(p.period.to)}, in {p.currency.toUpperCase()}. Open pipeline (draft and sent): <strong data-testid="pipeline-open">{m(p.totalPipeline)}</strong>.
            </p>
            <Table
              caption="Pipeline by stage"
              rows={p.stages}
              rowKey={(s) => s.stage}
              empty="No stages."
              columns={[
                { label: 'Stage', cell: (s) => <Link to={`/quotations?status=${s.stage}`}>{statusWord(s.stage)}</Link> },
                { label: 'Quotations', align: 'right', cell: (s) => s.count },
                { label: 'Value', align: 'right', cell: (s) => m(s.value) },
              ]}
              foot={
                <tr>
                  <th scope="row">All stages</th>
                  <td className="num">{count}</td>
                  <td className="num">{m(p.stages.reduce((s, x) => s + x.value, 0))}</td>
                </tr>
              }
            />
            {count === 0 && (
              <p className="muted">
                No quotations in this period. A converted lead is a contact: <Link to="/quotations/new">make it a quotation</Link>.
              </p>
            )}
          </>
        )}
      </Card>
    </Page>
  )
}

function AdminsOnly() {
  return (
    <Page title="Leads">
      <LeadsTabs />
      <p>The capture form's settings are for admins of the organization.</p>
    </Page>
  )
}

/**
 * The capture form's address and token (admins). The token names the organization in a public web page, so the API
 * answers it on every read (docs/crm.md "Capture token"); rotating it stops the old one at once.
 */
function CaptureSettings() {
  const { api } = useSession()
  const [rotated, setRotated] = useState<Schemas['LeadCaptureSettings'] | null>(null)
  const settings = useLoad(() => api.get('/api/crm/capture-settings'), [])
  const s = rotated ?? settings.data
  return (
    <Page title="Leads">
      <LeadsTabs />
      <Card
        title="Capture form"
        actions={
          s && (
            <ActionButton
              variant="danger"
              confirm="Rotate the capture token? The current token stops working at once: every web form that posts leads with it must be given the new one."
              action={async () => setRotated(await api.post('/api/crm/capture-settings/rotate'))}
              done="Capture token rotated: the old one no longer works."
            >
              Rotate token
            </ActionButton>
          )
        }
      >
        <ErrorMessage error={settings.error} />
        {!s && !settings.error && <Loading />}
        {rotated && (
          <div className="secret" role="status">
            <p>
              <strong>The new token is below: put it in your web forms now.</strong> The old token stopped working.
            </p>
            <div className="secret-value">
              <code data-testid="new-capture-token">{rotated.captureToken}</code>
              <CopyButton text={rotated.captureToken} label="Copy new token" />
            </div>
          </div>
        )}
        {s && (
          <>
            <p className="muted">A web form of your site posts each enquiry to this address with the token; it arrives here as a new lead. The token is public (it sits in the page), so it is shown here whenever you need it; rotate it to stop a form that misuses it.</p>
            <dl className="details">
              <dt>Address</dt>
              <dd className="secret-value">
                <code>{s.endpoint}</code>
                <CopyButton text={s.endpoint} label="Copy address" />
              </dd>
              <dt>Token</dt>
              <dd className="secret-value">
                <code data-testid="capture-token">{s.captureToken}</code>
                {!rotated && <CopyButton text={s.captureToken} label="Copy token" />}
              </dd>
              <dt>Since</dt>
              <dd>{dateTime(s.rotatedAt)}</dd>
            </dl>
            <details>
              <summary>What the form sends</summary>
              <pre style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{`POST ${s.endpoint}
Content-Type: application/json

{"captureToken": "${s.captureToken}", "name": "…", "email": "…", "phone": "…", "company": "…", "message": "…", "source": "contact page"}`}</pre>
              <p className="small muted">Name and e-mail are required; at most 10 posts a minute from one address. See docs/crm.md.</p>
            </details>
          </>
        )}
      </Card>
    </Page>
  )
}
