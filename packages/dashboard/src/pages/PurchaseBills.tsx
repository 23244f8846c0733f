// Vendor bills (docs/dashboard.md "Purchase"): the list with a status filter,
// and one bill's page, where a payment is recorded as money
// (POST /purchase/bills/:id/pay) until nothing is due.
import { Link, Route, Routes, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Badge, Card, date, ErrorMessage, Form, formFields, ListView, Loading, money, Notice, Page, Table, useLoad } from '../ui.tsx'
import { PaymentFields, paymentBody, toCents } from './finance.tsx'
import { SearchStatusFilters, useSaid, useSearchStatus } from './PurchaseShared.tsx'

type BillStatus = Schemas['VendorBill']['status']
const STATUSES: BillStatus[] = ['posted', 'paid']
const BillBadge = ({ status }: { status: BillStatus }) => <Badge tone={status === 'paid' ? 'good' : 'warn'}>{status === 'paid' ? 'paid' : 'to pay'}</Badge>

export function PurchaseBillsPage() {
  return (
    <Routes>
      <Route index element={<BillList />} />
      <Route path=":id" element={<BillDetail />} />
    </Routes>
  )
}

function BillList() {
  const { api } = useSession()
  const filters = useSearchStatus(STATUSES)
  const { f, page, search, status } = filters
  const list = useLoad(() => api.get('/api/purchase/bills', { params: { query: { page, limit: 20, sortBy: 'createdAt', sortOrder: 'desc', ...(search ? { search } : {}), ...(status ? { status } : {}) } } }), [page, search, status])
  return (
    <Page title="Vendor bills">
      <Card>
        <SearchStatusFilters label="Filter vendor bills" placeholder="Number, vendor, vendor invoice" statuses={STATUSES} words={{ posted: 'to pay' }} list={filters} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Vendor bills"
          rowKey={(b) => b.id}
          empty={
            search || status ? (
              'No vendor bill matches these filters.'
            ) : (
              <>
                No vendor bills yet. A bill is recorded from a confirmed <Link to="/purchase/orders?status=confirmed">purchase order</Link>.
              </>
            )
          }
          columns={[
            { label: 'Number', cell: (b) => <Link to={`/purchase/bills/${b.id}`}>{b.number}</Link> },
            { label: 'Vendor', cell: (b) => b.vendor.name },
            { label: 'Vendor invoice', cell: (b) => b.vendorInvoiceNumber },
            { label: 'Invoice date', cell: (b) => date(b.invoiceDate) },
            { label: 'Due', cell: (b) => date(b.dueDate) },
            { label: 'Status', cell: (b) => <BillBadge status={b.status} /> },
            { label: 'Total', align: 'right', cell: (b) => money(b.total, b.currency) },
            { label: 'Due amount', align: 'right', cell: (b) => money(b.amountDue, b.currency) },
          ]}
        />
      </Card>
    </Page>
  )
}

/** One vendor bill: its lines and totals, its purchase order, and a payment form while something is due. */
function BillDetail() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const [said, setSaid] = useSaid()
  const bill = useLoad(() => api.get('/api/purchase/bills/{id}', { params: { path: { id } } }), [id])
  const b = bill.data
  const m = (cents: number) => money(cents, b?.currency)
  return (
    <Page title={b ? `Vendor bill ${b.number}` : 'Vendor bill'} actions={<Link to="/purchase/bills">All vendor bills</Link>}>
      <ErrorMessage error={bill.error} />
      {!b && !bill.error && <Loading />}
      {said && <Notice>{said}</Notice>}
      {b && (
        <>
          <div className="grid">
            <Card title="Bill">
              <dl className="details">
                <dt>Status</dt>
                <dd data-testid="bill-status">
                  <BillBadge status={b.status} />
                </dd>
                <dt>Vendor</dt>
                <dd>{b.vendor.name}</dd>
                <dt>Vendor invoice</dt>
                <dd>{b.vendorInvoiceNumber}</dd>
                <dt>Invoice date</dt>
                <dd>{date(b.invoiceDate)}</dd>
                <dt>Due date</dt>
                <dd>{date(b.dueDate)}</dd>
                <dt>Purchase order</dt>
                <dd>
                  <Link to={`/purchase/orders/${b.purchaseOrderId}`}>Open the purchase order</Link>
                </dd>
              </dl>
            </Card>
            <Card title="Totals">
              <dl className="details totals">
                <dt>Total</dt>
                <dd>
                  <strong>{m(b.total)}</strong>
                </dd>
                <dt>Paid</dt>
                <dd>{m(b.amountPaid)}</dd>
                <dt>Amount due</dt>
                <dd data-testid="bill-due">
                  <strong>{m(b.amountDue)}</strong>
                </dd>
              </dl>
            </Card>
          </div>
          <Card title="Lines">
            <Table
              caption={`Lines of bill ${b.number}`}
              rows={b.lineItems}
              rowKey={(l) => l.productId}
              empty="No lines."
              columns={[
                { label: 'Product', cell: (l) => l.productName },
                { label: 'Quantity', align: 'right', cell: (l) => l.quantity },
                { label: 'Unit price', align: 'right', cell: (l) => m(l.unitPrice) },
                { label: 'Total', align: 'right', cell: (l) => m(l.total) },
              ]}
            />
          </Card>
          {b.amountDue > 0 && (
            <Card title="Pay">
              <Form
                key={b.amountDue}
                label="Pay the bill"
                submitLabel="Record payment"
                submit={(data) => {
                  const f = formFields(data)
                  const amount = toCents(f.amount)
                  if (!amount) throw new Error('Amount: give a positive amount with at most two decimals, e.g. 120.50.')
                  if (amount > b.amountDue) throw new Error(`Amount: at most ${m(b.amountDue)} is due on this bill.`)
                  return api.post('/api/purchase/bills/{id}/pay', { params: { path: { id: b.id } }, body: paymentBody(f, amount) })
                }}
                onDone={(p) => {
                  setSaid(p.status === 'paid' ? 'Payment recorded: the bill is paid.' : `Payment recorded: ${m(p.amountDue)} still due.`)
                  bill.reload()
                }}
              >
                <PaymentFields amountDue={b.amountDue} currency={b.currency} />
              </Form>
            </Card>
          )}
        </>
      )}
    </Page>
  )
}
