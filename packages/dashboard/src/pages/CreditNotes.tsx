// Credit notes (docs/dashboard-finance.md "Credit notes"): the list, searched
// and filtered in the address, and one credit note linked to its invoice.
// They are issued from the invoice's page (POST /invoices/:id/credit-note).
import { Link, Route, Routes, useParams, useSearchParams } from 'react-router'
import { useSession } from '../session.tsx'
import { Card, date, dateTime, ErrorMessage, ListView, Loading, money, Notice, Page, useLoad } from '../ui.tsx'
import { DocumentFilters, useDocumentFilters } from './finance.tsx'

export function CreditNotesPage() {
  return (
    <Routes>
      <Route index element={<CreditNoteList />} />
      <Route path=":id" element={<CreditNoteDetail />} />
    </Routes>
  )
}

const SORTS = {
  'createdAt:desc': 'Newest first',
  'createdAt:asc': 'Oldest first',
  'amount:desc': 'Amount, highest',
  'amount:asc': 'Amount, lowest',
} as const
type Sort = keyof typeof SORTS
const NO_STATUS: never[] = []

/** Every credit note, newest first: search (numbers, contact), contact, issue dates and sort in the address; `invoiceId` (from an invoice) narrows it to that invoice's. */
function CreditNoteList() {
  const { api } = useSession()
  const f = useDocumentFilters<never, Sort>('createdAt:desc')
  const [sortBy, sortOrder] = (SORTS[f.sort] ? f.sort : 'createdAt:desc').split(':') as ['amount' | 'createdAt', 'asc' | 'desc']
  const { status: _, ...query } = f.query
  // An invoice's credit notes (a link from elsewhere); a hand-edited value that is no id is ignored.
  const asked = useSearchParams()[0].get('invoiceId') ?? ''
  const invoiceId = /^[0-9a-f-]{36}$/i.test(asked) ? asked : ''
  const list = useLoad(() => api.get('/api/credit-notes', { params: { query: { page: f.page, limit: 20, sortBy, sortOrder, ...query, ...(invoiceId ? { invoiceId } : {}) } } }), [f.page, f.search, f.contactId, f.from, f.to, sortBy, sortOrder, invoiceId])

  return (
    <Page title="Credit notes" actions={<Link to="/invoices">Invoices</Link>}>
      <Card>
        <p className="muted">A credit note is issued from an invoice's page (Issue credit note); it cancels the invoice.</p>
        {invoiceId && (
          <Notice>
            Only the credit notes of one invoice. <Link to="/credit-notes">Show every credit note</Link>
          </Notice>
        )}
        <DocumentFilters label="Filter credit notes" searchPlaceholder="Number, invoice, contact, e-mail" statuses={NO_STATUS} dateLabel="Issued" sorts={SORTS} f={f} />
        <ListView
          list={list}
          onPage={(p) => f.set('page', String(p))}
          caption="Credit notes"
          rowKey={(c) => c.id}
          empty={
            f.filtered || invoiceId ? (
              'No credit note matches these filters.'
            ) : (
              <>
                No credit notes yet. Open an <Link to="/invoices">invoice</Link> and issue one there to credit the customer for all or part of it.
              </>
            )
          }
          columns={[
            { label: 'Number', cell: (c) => <Link to={`/credit-notes/${c.id}`}>{c.number}</Link> },
            { label: 'Invoice', cell: (c) => <Link to={`/invoices/${c.invoiceId}`}>{c.invoiceNumber}</Link> },
            { label: 'Contact', cell: (c) => c.contact.name },
            { label: 'Issued', cell: (c) => date(c.createdAt) },
            { label: 'Reason', cell: (c) => c.reason ?? '—' },
            { label: 'Amount', align: 'right', cell: (c) => money(c.amount, c.currency) },
          ]}
        />
      </Card>
    </Page>
  )
}

/** One credit note: its amount, reason and customer, and a link to the invoice it cancelled. */
function CreditNoteDetail() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const note = useLoad(() => api.get('/api/credit-notes/{id}', { params: { path: { id } } }), [id])
  const c = note.data
  return (
    <Page title={c ? `Credit note ${c.number}` : 'Credit note'} actions={<Link to="/credit-notes">All credit notes</Link>}>
      <ErrorMessage error={note.error} />
      {!c && !note.error && <Loading />}
      {c && (
        <Card title="Credit note">
          <dl className="details">
            <dt>Number</dt>
            <dd>{c.number}</dd>
            <dt>Invoice</dt>
            <dd>
              <Link to={`/invoices/${c.invoiceId}`}>{c.invoiceNumber}</Link> <span className="muted">(cancelled by this credit note)</span>
            </dd>
            <dt>Customer</dt>
            <dd>
              {c.contact.name}
              {c.contact.email && <span className="muted"> ({c.contact.email})</span>}
            </dd>
            <dt>Issued</dt>
            <dd>{dateTime(c.createdAt)}</dd>
            <dt>Amount</dt>
            <dd data-testid="credit-amount">
              <strong>{money(c.amount, c.currency)}</strong>
            </dd>
            <dt>Reason</dt>
            <dd>{c.reason ?? '—'}</dd>
          </dl>
        </Card>
      )}
    </Page>
  )
}
