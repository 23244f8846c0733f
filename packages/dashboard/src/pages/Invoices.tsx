// Invoices (docs/dashboard-finance.md): the list, a new draft, one invoice
// with its payments and credit note; a draft edited, deleted or sent; an
// invoice cancelled or credited as the API allows (docs/invoicing.md "States").
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { BulkBar, selectColumn, useSelection } from '../bulk.tsx'
import { ExportButton } from './ExportButton.tsx'
import { ActionButton, Card, confirmAction, date, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, money, Notice, Page, Table, toast, useLoad } from '../ui.tsx'
import { DocumentFilters, DocumentLines, DocumentTotals, downloadPdf, fromCents, INVOICE_STATUSES, PaymentFields, paymentBody, StatusBadge, statusWord, toCents, useDocumentFilters } from './finance.tsx'
import { DraftHeader, dryRun, DRY_RUN, invoiceLineItems, invoiceLines, LinesEditor, PreviewButton, PreviewResult, useDraft } from './lines.tsx'

type Invoice = Schemas['Invoice']

type InvoiceStatus = Schemas['Invoice']['status']

export function InvoicesPage() {
  return (
    <Routes>
      <Route index element={<InvoiceList />} />
      <Route path="new" element={<NewInvoice />} />
      <Route path=":id" element={<InvoiceDetail />} />
      <Route path=":id/edit" element={<EditInvoice />} />
    </Routes>
  )
}

const SORTS = {
  'createdAt:desc': 'Newest first',
  'createdAt:asc': 'Oldest first',
  'dueDate:asc': 'Due date, soonest',
  'dueDate:desc': 'Due date, latest',
  'amount:desc': 'Amount, highest',
  'amount:asc': 'Amount, lowest',
  'status:asc': 'Status',
} as const
type Sort = keyof typeof SORTS

/** Invoices: filtered, sorted and paged by the API; the filters live in the address so that Back returns to them. */
function InvoiceList() {
  const { api } = useSession()
  const f = useDocumentFilters<InvoiceStatus, Sort>('createdAt:desc')
  const [sortBy, sortOrder] = f.sort.split(':') as ['amount' | 'dueDate' | 'status' | 'createdAt', 'asc' | 'desc']
  const list = useLoad(() => api.get('/api/invoices', { params: { query: { page: f.page, limit: 20, sortBy, sortOrder, ...f.query } } }), [f.page, f.status, f.search, f.contactId, f.from, f.to, sortBy, sortOrder])
  const selection = useSelection(list.data?.data, (i) => i.id)

  return (
    <Page
      title="Invoices"
      actions={
        <>
          <Link className="button" to="/quotations/new">
            New quotation
          </Link>
          <Link className="button primary" to="/invoices/new">
            New invoice
          </Link>
        </>
      }
    >
      <Card>
        <DocumentFilters label="Filter invoices" searchPlaceholder="Number, contact, e-mail" statuses={INVOICE_STATUSES} dateLabel="Invoice date" sorts={SORTS} f={f} />
        {/* The invoices report takes a range of invoice dates only (docs/dashboard-platform.md "Export"): offered once both dates are set. */}
        {f.from && f.to ? <ExportButton type="invoices" parameters={{ from: f.from, to: f.to }} label="Export these dates as CSV" /> : null}
        {Boolean(list.data?.data.length) && (
          <BulkBar
            selection={selection}
            what="invoices"
            name={(i) => i.number}
            onDone={list.reload}
            actions={[
              {
                label: 'Send',
                applies: (i) => i.status === 'draft',
                confirm: (n) => `Send ${n} draft invoice${n === 1 ? '' : 's'} to ${n === 1 ? 'its customer' : 'their customers'}?`,
                run: (i) => api.post('/api/invoices/{id}/send', { params: { path: { id: i.id } }, body: {} }),
                done: (n) => `Sent ${n} invoice${n === 1 ? '' : 's'}.`,
              },
            ]}
          />
        )}
        <ListView
          list={list}
          onPage={(p) => f.set('page', String(p))}
          caption="Invoices"
          rowKey={(i) => i.id}
          empty={
            f.filtered ? (
              'No invoice matches these filters.'
            ) : (
              <>
                No invoices yet: <Link to="/invoices/new">create a draft invoice</Link>, or <Link to="/quotations/new">create a quotation</Link>, confirm it, and make the invoice from its order.
              </>
            )
          }
          columns={[
            selectColumn(selection, (i) => i.number),
            { label: 'Number', cell: (i) => <Link to={`/invoices/${i.id}`}>{i.number}</Link> },
            { label: 'Contact', cell: (i) => i.contact.name },
            { label: 'Date', cell: (i) => date(i.invoiceDate) },
            { label: 'Due', cell: (i) => date(i.dueDate) },
            { label: 'Status', cell: (i) => <StatusBadge status={i.status} /> },
            { label: 'Total', align: 'right', cell: (i) => money(i.total, i.currency) },
            { label: 'Amount due', align: 'right', cell: (i) => money(i.amountDue, i.currency) },
          ]}
        />
      </Card>
    </Page>
  )
}

/** A new draft invoice: a contact found on the server, product lines; Preview asks the API for its totals (a dry run) before Create. */
function NewInvoice() {
  const { api } = useSession()
  const navigate = useNavigate()
  const draft = useDraft()
  const request = (data: FormData) => {
    const f = formFields(data)
    return { ...draft.request(), ...(f.invoiceDate ? { invoiceDate: f.invoiceDate } : {}), ...(f.dueDate ? { dueDate: f.dueDate } : {}), ...(f.notes ? { notes: f.notes } : {}) }
  }

  return (
    <Page title="New invoice" actions={<Link to="/invoices">All invoices</Link>}>
      <Card>
        <Form
          label="New invoice"
          submitLabel="Create draft invoice"
          submit={(data) => api.post('/api/invoices', { body: request(data) })}
          onDone={(inv) => navigate(`/invoices/${inv.id}`)}
          actions={<PreviewButton preview={(data) => dryRun(() => api.raw.POST('/api/invoices', { body: request(data), headers: DRY_RUN }))} onResult={draft.setPreview} />}
        >
          <DraftHeader draft={draft}>
            <Field label="Invoice date" hint="Today when left empty">
              <input type="date" name="invoiceDate" />
            </Field>
            <Field label="Due date" hint="30 days after the invoice date when left empty">
              <input type="date" name="dueDate" />
            </Field>
          </DraftHeader>
          <LinesEditor caption="Invoice lines" draft={draft} />
          <Field label="Notes" hint="Printed on the invoice">
            <textarea name="notes" maxLength={5000} onChange={draft.changed} />
          </Field>
        </Form>
        <PreviewResult preview={draft.preview} what="invoice" />
      </Card>
    </Page>
  )
}

/** One invoice: lines, totals, payments, its credit note; download the PDF, edit, send or delete a draft, record a payment, cancel or credit it. */
function InvoiceDetail() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const navigate = useNavigate()
  const invoice = useLoad(() => api.get('/api/invoices/{id}', { params: { path: { id } } }), [id])
  const payments = useLoad(() => api.get('/api/invoices/{id}/payments', { params: { path: { id }, query: { limit: 100, sortBy: 'paymentDate', sortOrder: 'asc' } } }), [id])
  const reload = () => (invoice.reload(), payments.reload())
  const inv = invoice.data
  const m = (cents: number) => money(cents, inv?.currency)
  const payable = inv && inv.status !== 'cancelled' && inv.amountDue > 0
  const path = { params: { path: { id } } }

  return (
    <Page
      title={inv ? `Invoice ${inv.number}` : 'Invoice'}
      actions={
        <>
          <Link to="/invoices">All invoices</Link>
          {inv && (
            <ActionButton action={() => downloadPdf(api, '/api/invoices/{id}/pdf', inv.id, inv.number)}>Download PDF</ActionButton>
          )}
          {inv?.status === 'draft' && (
            <Link className="button" to={`/invoices/${inv.id}/edit`}>
              Edit draft
            </Link>
          )}
          {inv?.status === 'draft' && (
            <ActionButton variant="primary" action={() => api.post('/api/invoices/{id}/send', { params: { path: { id: inv.id } }, body: {} })} done={`Invoice ${inv.number} sent to ${inv.contact.email ?? inv.contact.name}.`} onDone={reload}>
              Send invoice
            </ActionButton>
          )}
          {inv?.status === 'draft' && (
            <ActionButton variant="danger" confirm={`Delete the draft invoice ${inv.number}? This cannot be undone.`} action={() => api.delete('/api/invoices/{id}', path)} done={`Draft invoice ${inv.number} deleted.`} onDone={() => navigate('/invoices')}>
              Delete draft
            </ActionButton>
          )}
          {/* An invoice with payments is cancelled by its credit note (docs/invoicing.md "States"). */}
          {inv && inv.status !== 'cancelled' && inv.amountPaid === 0 && (
            <ActionButton variant="danger" confirm={`Cancel invoice ${inv.number}? It can no longer be sent or paid${inv.status === 'draft' ? '' : `, and the ${m(inv.amountDue)} due is no longer owed`}.`} action={() => api.post('/api/invoices/{id}/cancel', path)} done={`Invoice ${inv.number} cancelled.`} onDone={reload}>
              Cancel invoice
            </ActionButton>
          )}
        </>
      }
    >
      <ErrorMessage error={invoice.error} />
      {!inv && !invoice.error && <Loading />}
      {inv && (
        <>
          <div className="grid">
            <Card title="Invoice">
              <dl className="details">
                <dt>Status</dt>
                <dd data-testid="invoice-status">
                  <StatusBadge status={inv.status} />
                </dd>
                <dt>Contact</dt>
                <dd>
                  {inv.contact.name}
                  {inv.contact.email && <span className="muted"> ({inv.contact.email})</span>}
                </dd>
                <dt>Invoice date</dt>
                <dd>{date(inv.invoiceDate)}</dd>
                <dt>Due date</dt>
                <dd>{date(inv.dueDate)}</dd>
                <dt>Sent</dt>
                <dd>{dateTime(inv.sentAt)}</dd>
                {inv.orderId && (
                  <>
                    <dt>Order</dt>
                    <dd>
                      <Link to={`/sales/orders/${inv.orderId}`}>Open the order</Link>
                    </dd>
                  </>
                )}
                {inv.cancelledAt && (
                  <>
                    <dt>Cancelled</dt>
                    <dd>{dateTime(inv.cancelledAt)}</dd>
                  </>
                )}
                {inv.paidAt && (
                  <>
                    <dt>Paid</dt>
                    <dd>{dateTime(inv.paidAt)}</dd>
                  </>
                )}
                {inv.notes && (
                  <>
                    <dt>Notes</dt>
                    <dd>{inv.notes}</dd>
                  </>
                )}
              </dl>
            </Card>
            <DocumentTotals doc={inv} currency={inv.currency}>
              <dt>Paid</dt>
              <dd>{m(inv.amountPaid)}</dd>
              <dt>Amount due</dt>
              <dd data-testid="amount-due">
                <strong>{m(inv.amountDue)}</strong>
              </dd>
            </DocumentTotals>
          </div>
          <DocumentLines caption={`Lines of invoice ${inv.number}`} lines={inv.lineItems} empty="This invoice has no lines." currency={inv.currency} name={{ label: 'Description', cell: (l) => l.description }} />
          <Card title="Payments">
            <ErrorMessage error={payments.error} />
            {payments.data && (
              <Table
                caption={`Payments of invoice ${inv.number}`}
                rows={payments.data.data}
                rowKey={(p) => p.id}
                empty={payable ? 'No payment yet. Record one below when the customer pays.' : 'No payments.'}
                columns={[
                  { label: 'Date', cell: (p) => date(p.paymentDate) },
                  { label: 'Method', cell: (p) => p.method ?? '—' },
                  { label: 'Reference', cell: (p) => p.reference ?? '—' },
                  { label: 'Amount', align: 'right', cell: (p) => money(p.amount, p.currency) },
                ]}
              />
            )}
            {payable && (
              <Form
                key={inv.amountDue}
                label="Record a payment"
                submitLabel="Record payment"
                currency={inv.currency}
                submit={async (data) => {
                  const f = formFields(data)
                  const amount = toCents(f.amount)
                  if (!amount) throw new Error('Amount: give a positive amount with at most two decimals, e.g. 120.50')
                  return api.post('/api/invoices/{id}/pay', {
                    params: { path: { id: inv.id } },
                    body: paymentBody(f, amount),
                  })
                }}
                done={(result) => `Payment recorded: the invoice is ${statusWord(result.status)}, ${m(result.amountDue)} still due.`}
                onDone={reload}
              >
                <PaymentFields amountDue={inv.amountDue} currency={inv.currency} amountPattern={String.raw`\d+(\.\d{1,2})?`} />
              </Form>
            )}
          </Card>
          <CreditNote inv={inv} onDone={reload} />
        </>
      )}
    </Page>
  )
}

/**
 * The invoice's credit note: the form that issues it while the invoice is not
 * cancelled (issuing it cancels the invoice:
 * docs/invoicing.md "Credit notes"), or, once cancelled, the credit note it
 * has (one at most).
 */
function CreditNote({ inv, onDone }: { inv: Invoice; onDone: () => void }) {
  const { api } = useSession()
  const m = (cents: number) => money(cents, inv.currency)
  // Only a cancelled invoice can have one: no request for the others.
  const notes = useLoad(async () => (inv.status === 'cancelled' ? api.get('/api/credit-notes', { params: { query: { invoiceId: inv.id, limit: 20 } } }) : null), [inv.id, inv.status])
  if (inv.status === 'cancelled')
    return (
      <Card title="Credit note">
        <ErrorMessage error={notes.error} />
        {notes.data && (
          <Table
            caption={`Credit notes of invoice ${inv.number}`}
            rows={notes.data.data}
            rowKey={(c) => c.id}
            empty="No credit note: this invoice was cancelled without one."
            columns={[
              { label: 'Number', cell: (c) => <Link to={`/credit-notes/${c.id}`}>{c.number}</Link> },
              { label: 'Issued', cell: (c) => date(c.createdAt) },
              { label: 'Reason', cell: (c) => c.reason ?? '—' },
              { label: 'Amount', align: 'right', cell: (c) => money(c.amount, c.currency) },
            ]}
          />
        )}
      </Card>
    )
  return (
    <Card title="Credit note">
      <p className="muted">
        A credit note gives the customer credit for all or part of the invoice, and cancels the invoice: {inv.amountDue > 0 ? `the ${m(inv.amountDue)} still due is no longer owed` : 'nothing is due on it'}
        {inv.amountPaid > 0 ? `. With ${m(inv.amountPaid)} paid, it is the only way to cancel this invoice.` : '.'}
      </p>
      <Form
        key={inv.updatedAt}
        label="Issue a credit note"
        submitLabel="Issue credit note"
        currency={inv.currency}
        submit={async (data) => {
          const f = formFields(data)
          const amount = toCents(f.amount)
          if (!amount) throw new Error('Amount: give a positive amount with at most two decimals, e.g. 120.50')
          if (amount > inv.total) throw new Error(`Amount: at most ${m(inv.total)}, the invoice's total.`)
          if (!confirmAction(`Issue a credit note of ${m(amount)} for invoice ${inv.number}? The invoice will be cancelled.`)) return null
          return api.post('/api/invoices/{id}/credit-note', { params: { path: { id: inv.id } }, body: { amount, ...(f.reason ? { reason: f.reason } : {}) } })
        }}
        onDone={(note) => {
          if (!note) return
          toast(`Credit note ${note.number} issued for ${money(note.amount, note.currency)}: invoice ${inv.number} is cancelled.`)
          onDone()
        }}
      >
        <div className="row">
          <Field label="Credit amount" hint={`Up to ${m(inv.total)}, the invoice's total`}>
            <input name="amount" inputMode="decimal" required defaultValue={fromCents(inv.total)} />
          </Field>
          <Field label="Reason" hint="Printed on the credit note; at most 2,000 characters">
            <textarea name="reason" maxLength={2000} rows={2} />
          </Field>
        </div>
      </Form>
    </Card>
  )
}

const day = (value: string | null | undefined) => (value ? value.slice(0, 10) : '')

/** A draft invoice edited: its customer, currency, dates, notes and lines (PATCH, draft only); Preview asks the API for the new totals first. */
function EditInvoice() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const invoice = useLoad(() => api.get('/api/invoices/{id}', { params: { path: { id } } }), [id])
  const inv = invoice.data
  return (
    <Page title={inv ? `Edit invoice ${inv.number}` : 'Edit invoice'} actions={<Link to={`/invoices/${id}`}>Back to the invoice</Link>}>
      <ErrorMessage error={invoice.error} />
      {!inv && !invoice.error && <Loading />}
      {inv && inv.status !== 'draft' && (
        <Notice>
          Invoice {inv.number} is {statusWord(inv.status)}: only a draft can be edited. <Link to={`/invoices/${inv.id}`}>Open the invoice</Link>
        </Notice>
      )}
      {inv?.status === 'draft' && <EditInvoiceForm key={inv.updatedAt} inv={inv} />}
    </Page>
  )
}

function EditInvoiceForm({ inv }: { inv: Invoice }) {
  const { api } = useSession()
  const navigate = useNavigate()
  const draft = useDraft({ contact: inv.contact, currency: inv.currency, lines: invoiceLines(inv.lineItems) })
  const path = { params: { path: { id: inv.id } } }
  /** What changed is sent; the lines always (the API prices them again). Dates left as they were keep their time of day. */
  const request = (data: FormData) => {
    const f = formFields(data)
    if (!draft.contactId) throw new Error('Customer: choose the customer (search by name or e-mail).')
    const notes = f.notes ?? null
    return {
      ...(draft.contactId !== inv.contact.id ? { contactId: draft.contactId } : {}),
      ...(draft.currency !== inv.currency ? { currency: draft.currency } : {}),
      lineItems: invoiceLineItems(draft.lines),
      ...(f.invoiceDate && f.invoiceDate !== day(inv.invoiceDate) ? { invoiceDate: f.invoiceDate } : {}),
      ...(f.dueDate && f.dueDate !== day(inv.dueDate) ? { dueDate: f.dueDate } : {}),
      ...(notes !== inv.notes ? { notes } : {}),
    }
  }
  return (
    <Card>
      <Form
        label={`Edit invoice ${inv.number}`}
        submitLabel="Save changes"
        currency={inv.currency}
        submit={(data) => api.patch('/api/invoices/{id}', { ...path, body: request(data) })}
        done={(saved) => `Invoice ${saved.number} saved: total ${money(saved.total, saved.currency)}.`}
        onDone={(saved) => navigate(`/invoices/${saved.id}`)}
        actions={<PreviewButton preview={(data) => dryRun(() => api.raw.PATCH('/api/invoices/{id}', { ...path, body: request(data), headers: DRY_RUN }))} onResult={draft.setPreview} />}
      >
        <DraftHeader draft={draft}>
          <Field label="Invoice date">
            <input type="date" name="invoiceDate" defaultValue={day(inv.invoiceDate)} required />
          </Field>
          <Field label="Due date" hint="Not before the invoice date">
            <input type="date" name="dueDate" defaultValue={day(inv.dueDate)} required />
          </Field>
        </DraftHeader>
        <LinesEditor caption="Invoice lines" draft={draft} />
        <Field label="Notes" hint="Printed on the invoice">
          <textarea name="notes" maxLength={5000} defaultValue={inv.notes ?? ''} onChange={draft.changed} />
        </Field>
      </Form>
      <PreviewResult preview={draft.preview} what="invoice" />
    </Card>
  )
}
