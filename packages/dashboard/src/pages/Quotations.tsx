import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Card, date, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, money, Page, useLoad } from '../ui.tsx'
import { DocumentFilters, DocumentLines, DocumentTotals, downloadPdf, QUOTATION_STATUSES, StatusBadge, useDocumentFilters } from './finance.tsx'
import { DraftHeader, dryRun, DRY_RUN, LinesEditor, PreviewButton, PreviewResult, useDraft } from './lines.tsx'

type QuotationStatus = Schemas['Quotation']['status']

export function QuotationsPage() {
  return (
    <Routes>
      <Route index element={<QuotationList />} />
      <Route path="new" element={<NewQuotation />} />
      <Route path=":id" element={<QuotationDetail />} />
    </Routes>
  )
}

const SORTS = {
  'createdAt:desc': 'Newest first',
  'createdAt:asc': 'Oldest first',
  'total:desc': 'Total, highest',
  'total:asc': 'Total, lowest',
  'validUntil:asc': 'Valid until, soonest',
  'status:asc': 'Status',
} as const
type Sort = keyof typeof SORTS

function QuotationList() {
  const { api } = useSession()
  const f = useDocumentFilters<QuotationStatus, Sort>('createdAt:desc')
  const [sortBy, sortOrder] = f.sort.split(':') as ['createdAt' | 'updatedAt' | 'total' | 'status' | 'validUntil', 'asc' | 'desc']
  const list = useLoad(() => api.get('/api/sales/quotations', { params: { query: { page: f.page, limit: 20, sortBy, sortOrder, ...f.query } } }), [f.page, f.status, f.search, f.contactId, f.from, f.to, sortBy, sortOrder])

  return (
    <Page
      title="Quotations"
      actions={
        <>
          <Link className="button" to="/sales/orders">
            Sales orders
          </Link>
          <Link className="button primary" to="/quotations/new">
            New quotation
          </Link>
        </>
      }
    >
      <Card>
        <DocumentFilters label="Filter quotations" searchPlaceholder="Reference, contact, e-mail" statuses={QUOTATION_STATUSES} dateLabel="Created" sorts={SORTS} f={f} />
        <ListView
          list={list}
          onPage={(p) => f.set('page', String(p))}
          caption="Quotations"
          rowKey={(q) => q.id}
          empty={
            f.filtered ? (
              'No quotation matches these filters.'
            ) : (
              <>
                No quotations yet. <Link to="/quotations/new">Create a quotation</Link> for a contact, send it, and confirm it when the customer agrees.
              </>
            )
          }
          columns={[
            { label: 'Reference', cell: (q) => <Link to={`/quotations/${q.id}`}>{q.reference}</Link> },
            { label: 'Contact', cell: (q) => q.contact.name },
            { label: 'Salesperson', cell: (q) => q.salesperson?.name ?? '—' },
            { label: 'Created', cell: (q) => date(q.createdAt) },
            { label: 'Valid until', cell: (q) => date(q.validUntil) },
            { label: 'Status', cell: (q) => <StatusBadge status={q.status} /> },
            { label: 'Total', align: 'right', cell: (q) => money(q.total, q.currency) },
          ]}
        />
      </Card>
    </Page>
  )
}

/** A new quotation: a contact found on the server, product lines; Preview asks the API for its totals (a dry run) before Create. */
function NewQuotation() {
  const { api } = useSession()
  const navigate = useNavigate()
  const draft = useDraft()
  const request = (data: FormData) => {
    const f = formFields(data)
    return { ...draft.request(), ...(f.validUntil ? { validUntil: f.validUntil } : {}), ...(f.terms ? { terms: f.terms } : {}) }
  }

  return (
    <Page title="New quotation" actions={<Link to="/quotations">All quotations</Link>}>
      <Card>
        <Form
          label="New quotation"
          submitLabel="Create quotation"
          submit={(data) => api.post('/api/sales/quotations', { body: request(data) })}
          onDone={(q) => navigate(`/quotations/${q.id}`)}
          actions={<PreviewButton preview={(data) => dryRun(() => api.raw.POST('/api/sales/quotations', { body: request(data), headers: DRY_RUN }))} onResult={draft.setPreview} />}
        >
          <DraftHeader draft={draft}>
            <Field label="Valid until">
              <input type="date" name="validUntil" />
            </Field>
          </DraftHeader>
          <LinesEditor caption="Quotation lines" draft={draft} />
          <Field label="Terms" hint="Printed on the quotation">
            <textarea name="terms" maxLength={5000} onChange={draft.changed} />
          </Field>
        </Form>
        <PreviewResult preview={draft.preview} what="quotation" />
      </Card>
    </Page>
  )
}

/** One quotation: lines and totals; send it, confirm it into an order, cancel it; the order's invoice. */
function QuotationDetail() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const navigate = useNavigate()
  const quotation = useLoad(() => api.get('/api/sales/quotations/{id}', { params: { path: { id } } }), [id])
  const q = quotation.data
  const order = useLoad(async () => (q?.orderId ? api.get('/api/orders/{id}', { params: { path: { id: q.orderId } } }) : null), [q?.orderId])
  const open = q?.status === 'draft' || q?.status === 'sent'

  return (
    <Page
      title={q ? `Quotation ${q.reference}` : 'Quotation'}
      actions={
        <>
          <Link to="/quotations">All quotations</Link>
          {q && <ActionButton action={() => downloadPdf(api, '/api/sales/quotations/{id}/pdf', q.id, q.reference)}>Download PDF</ActionButton>}
          {q && open && (
            <ActionButton action={() => api.post('/api/sales/quotations/{id}/send', { params: { path: { id: q.id } }, body: {} })} done={`Quotation ${q.reference} sent to ${q.contact.email ?? q.contact.name}.`} onDone={quotation.reload}>
              {q.status === 'sent' ? 'Send again' : 'Send quotation'}
            </ActionButton>
          )}
          {q && open && (
            <ActionButton variant="primary" action={() => api.post('/api/sales/quotations/{id}/confirm', { params: { path: { id: q.id } } })} done={`Quotation ${q.reference} confirmed: its order is below.`} onDone={quotation.reload}>
              Confirm
            </ActionButton>
          )}
          {q && open && (
            <ActionButton variant="danger" confirm={`Cancel quotation ${q.reference}? It can no longer be sent or confirmed.`} action={() => api.post('/api/sales/quotations/{id}/cancel', { params: { path: { id: q.id } } })} done={`Quotation ${q.reference} cancelled.`} onDone={quotation.reload}>
              Cancel quotation
            </ActionButton>
          )}
        </>
      }
    >
      <ErrorMessage error={quotation.error} />
      {!q && !quotation.error && <Loading />}
      {q && (
        <>
          <div className="grid">
            <Card title="Quotation">
              <dl className="details">
                <dt>Status</dt>
                <dd data-testid="quotation-status">
                  <StatusBadge status={q.status} />
                </dd>
                <dt>Customer</dt>
                <dd>
                  {q.contact.name}
                  {q.contact.email && <span className="muted"> ({q.contact.email})</span>}
                </dd>
                <dt>Salesperson</dt>
                <dd>{q.salesperson?.name ?? '—'}</dd>
                <dt>Created</dt>
                <dd>{dateTime(q.createdAt)}</dd>
                <dt>Valid until</dt>
                <dd>{date(q.validUntil)}</dd>
                <dt>Sent</dt>
                <dd>{dateTime(q.sentAt)}</dd>
                {q.confirmedAt && (
                  <>
                    <dt>Confirmed</dt>
                    <dd>{dateTime(q.confirmedAt)}</dd>
                  </>
                )}
                {q.terms && (
                  <>
                    <dt>Terms</dt>
                    <dd>{q.terms}</dd>
                  </>
                )}
              </dl>
            </Card>
            <DocumentTotals doc={q} currency={q.currency} />
          </div>
          {q.orderId && (
            <Card title="Order">
              <ErrorMessage error={order.error} />
              {order.data && (
                <div className="row order-row">
                  <span>
                    Order <Link to={`/sales/orders/${order.data.id}`}>{order.data.reference}</Link> <StatusBadge status={order.data.status} />
                  </span>
                  {order.data.invoiceId ? (
                    <Link to={`/invoices/${order.data.invoiceId}`}>Open the invoice</Link>
                  ) : order.data.status === 'confirmed' ? (
                    <ActionButton
                      variant="primary"
                      action={async () => {
                        const inv = await api.post('/api/orders/{id}/invoice', { params: { path: { id: order.data!.id } }, body: {} })
                        navigate(`/invoices/${inv.id}`)
                      }}
                    >
                      Create invoice
                    </ActionButton>
                  ) : null}
                </div>
              )}
            </Card>
          )}
          <DocumentLines caption={`Lines of quotation ${q.reference}`} lines={q.lineItems} empty="This quotation has no lines." currency={q.currency} name={{ label: 'Product', cell: (l) => l.productName ?? '—' }} />
        </>
      )}
    </Page>
  )
}
