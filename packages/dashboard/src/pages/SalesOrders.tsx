// Sales orders (docs/dashboard-finance.md "Sales orders"): the orders
// confirmed from quotations (GET /sales/orders), filtered in the address, and
// one order (GET /orders/:id) with its quotation and its invoice, or "Invoice
// this order" (POST /orders/:id/invoice, docs/sales.md "Orders").
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Card, date, dateTime, ErrorMessage, ListView, Loading, money, Page, useLoad } from '../ui.tsx'
import { DocumentFilters, DocumentLines, DocumentTotals, ORDER_STATUSES, StatusBadge, useDocumentFilters } from './finance.tsx'

type Order = Schemas['Order']

export function SalesOrdersPage() {
  return (
    <Routes>
      <Route index element={<OrderList />} />
      <Route path=":id" element={<OrderDetail />} />
    </Routes>
  )
}

const SORTS = {
  'createdAt:desc': 'Newest first',
  'createdAt:asc': 'Oldest first',
  'total:desc': 'Total, highest',
  'total:asc': 'Total, lowest',
  'status:asc': 'Status',
} as const
type Sort = keyof typeof SORTS

/** "Invoice this order": a draft invoice with the order's lines, opened once made (a confirmed order only; the API refuses the others with 409). */
function InvoiceOrder({ order, primary }: { order: Order; primary?: boolean }) {
  const { api } = useSession()
  const navigate = useNavigate()
  return (
    <ActionButton
      variant={primary ? 'primary' : undefined}
      action={async () => {
        const inv = await api.post('/api/orders/{id}/invoice', { params: { path: { id: order.id } }, body: {} })
        navigate(`/invoices/${inv.id}`)
      }}
      done={`Order ${order.reference} invoiced: a draft invoice to check and send.`}
    >
      Invoice this order<span className="visually-hidden"> {order.reference}</span>
    </ActionButton>
  )
}

/** The orders confirmed from quotations, newest first; the ones still to invoice say so in their row. */
function OrderList() {
  const { api } = useSession()
  const f = useDocumentFilters<Order['status'], Sort>('createdAt:desc')
  const [sortBy, sortOrder] = (SORTS[f.sort] ? f.sort : 'createdAt:desc').split(':') as ['total' | 'status' | 'createdAt', 'asc' | 'desc']
  // A status typed into the address by hand that the API does not know is not sent.
  const { status, ...query } = f.query
  const known = status && ORDER_STATUSES.includes(status) ? { status } : {}
  const list = useLoad(() => api.get('/api/sales/orders', { params: { query: { page: f.page, limit: 20, sortBy, sortOrder, ...query, ...known } } }), [f.page, f.status, f.search, f.contactId, f.from, f.to, sortBy, sortOrder])

  return (
    <Page
      title="Sales orders"
      actions={
        <Link className="button" to="/quotations">
          Quotations
        </Link>
      }
    >
      <Card>
        <DocumentFilters label="Filter sales orders" searchPlaceholder="Reference, contact, e-mail" statuses={ORDER_STATUSES} dateLabel="Confirmed" sorts={SORTS} f={f} />
        <ListView
          list={list}
          onPage={(p) => f.set('page', String(p))}
          caption="Sales orders"
          rowKey={(o) => o.id}
          empty={
            f.filtered ? (
              'No sales order matches these filters.'
            ) : (
              <>
                No sales orders yet: an order is made when a <Link to="/quotations">quotation</Link> is confirmed.
              </>
            )
          }
          columns={[
            { label: 'Reference', cell: (o) => <Link to={`/sales/orders/${o.id}`}>{o.reference}</Link> },
            { label: 'Contact', cell: (o) => o.contact?.name ?? '—' },
            { label: 'Salesperson', cell: (o) => o.salesperson?.name ?? '—' },
            { label: 'Confirmed', cell: (o) => date(o.confirmedAt) },
            { label: 'Status', cell: (o) => <StatusBadge status={o.status} /> },
            { label: 'Total', align: 'right', cell: (o) => money(o.total, o.currency) },
            {
              label: 'Invoice',
              cell: (o) =>
                o.invoiceId ? (
                  <Link to={`/invoices/${o.invoiceId}`}>
                    Open the invoice<span className="visually-hidden"> of {o.reference}</span>
                  </Link>
                ) : o.status === 'confirmed' ? (
                  <InvoiceOrder order={o} />
                ) : (
                  '—'
                ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}

/** One order: its customer, quotation, lines and totals, and its invoice (or the button that makes it). */
function OrderDetail() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const order = useLoad(() => api.get('/api/orders/{id}', { params: { path: { id } } }), [id])
  const o = order.data
  return (
    <Page
      title={o ? `Sales order ${o.reference}` : 'Sales order'}
      actions={
        <>
          <Link to="/sales/orders">All sales orders</Link>
          {o && !o.invoiceId && o.status === 'confirmed' && <InvoiceOrder order={o} primary />}
        </>
      }
    >
      <ErrorMessage error={order.error} />
      {!o && !order.error && <Loading />}
      {o && (
        <>
          <div className="grid">
            <Card title="Order">
              <dl className="details">
                <dt>Status</dt>
                <dd data-testid="order-status">
                  <StatusBadge status={o.status} />
                </dd>
                <dt>Customer</dt>
                <dd>
                  {o.contact?.name ?? '—'}
                  {o.contact?.email && <span className="muted"> ({o.contact.email})</span>}
                </dd>
                <dt>Salesperson</dt>
                <dd>{o.salesperson?.name ?? '—'}</dd>
                <dt>Confirmed</dt>
                <dd>{dateTime(o.confirmedAt)}</dd>
                <dt>Source</dt>
                <dd>{o.quotationId ? <Link to={`/quotations/${o.quotationId}`}>Open the quotation</Link> : o.source === 'checkout' ? 'bought in the store' : '—'}</dd>
                <dt>Invoice</dt>
                <dd>{o.invoiceId ? <Link to={`/invoices/${o.invoiceId}`}>Open the invoice</Link> : o.status === 'confirmed' ? 'not invoiced yet' : '—'}</dd>
              </dl>
            </Card>
            <DocumentTotals doc={o} currency={o.currency} />
          </div>
          <DocumentLines caption={`Lines of order ${o.reference}`} lines={o.lineItems} empty="This order has no lines." currency={o.currency} name={{ label: 'Product', cell: (l) => l.productName ?? '—' }} />
        </>
      )}
    </Page>
  )
}
