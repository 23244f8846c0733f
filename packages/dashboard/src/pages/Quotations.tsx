import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Card, date, dateTime, ErrorMessage, Field, Form, ListView, Loading, money, Page, Table, useLoad } from '../ui.tsx'
import { ContactPicker, DocumentFilters, downloadPdf, fromCents, QUOTATION_STATUSES, StatusBadge, toCents, useDocumentFilters } from './finance.tsx'

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
        <Link className="button primary" to="/quotations/new">
          New quotation
        </Link>
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

interface Line {
  key: number
  productId: string
  quantity: string
  unitPrice: string
  discount: string
}
let lineKey = 0
const newLine = (): Line => ({ key: ++lineKey, productId: '', quantity: '1', unitPrice: '', discount: '' })

/** A new quotation: a contact found on the server, product lines with quantity, unit price and discount. */
function NewQuotation() {
  const { api } = useSession()
  const navigate = useNavigate()
  const [contactId, setContactId] = useState('')
  const [currency, setCurrency] = useState('usd')
  const [lines, setLines] = useState<Line[]>([newLine()])
  const products = useLoad(() => api.get('/api/products', { params: { query: { limit: 100, sortBy: 'name' } } }), [])
  const productList = (products.data?.data ?? []).filter((p) => p.currency === currency)
  const update = (key: number, patch: Partial<Line>) => setLines((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l)))
  const lineTotal = (l: Line) => {
    const price = toCents(l.unitPrice)
    const qty = Number(l.quantity)
    if (price === undefined || !(qty > 0)) return undefined
    return Math.round((qty * price * (100 - (Number(l.discount) || 0))) / 100)
  }
  const subtotal = lines.reduce((s, l) => s + (lineTotal(l) ?? 0), 0)

  return (
    <Page title="New quotation" actions={<Link to="/quotations">All quotations</Link>}>
      <Card>
        <Form
          label="New quotation"
          submitLabel="Create quotation"
          submit={async (data) => {
            if (!contactId) throw new Error('Contact: choose the customer (search by name or e-mail).')
            const lineItems = lines.map((l, i) => {
              const quantity = Number(l.quantity)
              const unitPrice = l.unitPrice ? toCents(l.unitPrice) : undefined
              if (!l.productId) throw new Error(`Line ${i + 1}: choose a product.`)
              if (!(quantity > 0)) throw new Error(`Line ${i + 1}: the quantity must be above 0.`)
              if (l.unitPrice && unitPrice === undefined) throw new Error(`Line ${i + 1}: the unit price must be an amount like 120.50.`)
              const discount = l.discount ? Number(l.discount) : undefined
              if (discount !== undefined && !(discount >= 0 && discount <= 100)) throw new Error(`Line ${i + 1}: the discount is a percentage from 0 to 100.`)
              return { productId: l.productId, quantity, ...(unitPrice !== undefined ? { unitPrice } : {}), ...(discount ? { discount } : {}) }
            })
            const validUntil = String(data.get('validUntil') ?? '')
            const terms = String(data.get('terms') ?? '').trim()
            return api.post('/api/sales/quotations', { body: { contactId, currency, lineItems, ...(validUntil ? { validUntil } : {}), ...(terms ? { terms } : {}) } })
          }}
          onDone={(q) => navigate(`/quotations/${q.id}`)}
        >
          <div className="row">
            <ContactPicker label="Customer" value={contactId} onChange={setContactId} required />
            <Field label="Currency">
              <select value={currency} onChange={(e) => setCurrency(e.target.value)}>
                {['usd', 'eur', 'gbp', 'chf', 'cad', 'aud', 'jpy', 'inr'].map((c) => (
                  <option key={c} value={c}>
                    {c.toUpperCase()}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Valid until">
              <input type="date" name="validUntil" />
            </Field>
          </div>
          <fieldset className="lines">
            <legend>Lines</legend>
            <ErrorMessage error={products.error} />
            {products.data && productList.length === 0 && (
              <p className="empty">
                No product is priced in {currency.toUpperCase()} yet. Create products first (API <code>POST /api/products</code>).
              </p>
            )}
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Quotation lines</caption>
                <thead>
                  <tr>
                    <th scope="col">Product</th>
                    <th scope="col" className="num">
                      Quantity
                    </th>
                    <th scope="col" className="num">
                      Unit price
                    </th>
                    <th scope="col" className="num">
                      Discount %
                    </th>
                    <th scope="col" className="num">
                      Total
                    </th>
                    <th scope="col">
                      <span className="visually-hidden">Remove</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {lines.map((l, i) => (
                    <tr key={l.key}>
                      <td>
                        <select
                          aria-label={`Product, line ${i + 1}`}
                          value={l.productId}
                          required
                          onChange={(e) => {
                            const p = productList.find((x) => x.id === e.target.value)
                            update(l.key, { productId: e.target.value, ...(p ? { unitPrice: fromCents(p.price) } : {}) })
                          }}
                        >
                          <option value="">choose a product</option>
                          {productList.map((p) => (
                            <option key={p.id} value={p.id}>
                              {p.name}
                              {p.sku ? ` (${p.sku})` : ''}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td className="num">
                        <input aria-label={`Quantity, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.quantity} required onChange={(e) => update(l.key, { quantity: e.target.value })} />
                      </td>
                      <td className="num">
                        <input aria-label={`Unit price, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.unitPrice} placeholder="product price" onChange={(e) => update(l.key, { unitPrice: e.target.value })} />
                      </td>
                      <td className="num">
                        <input aria-label={`Discount percent, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.discount} placeholder="0" onChange={(e) => update(l.key, { discount: e.target.value })} />
                      </td>
                      <td className="num">{money(lineTotal(l), currency)}</td>
                      <td>
                        <button type="button" disabled={lines.length === 1} onClick={() => setLines((ls) => ls.filter((x) => x.key !== l.key))}>
                          Remove <span className="visually-hidden">line {i + 1}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  <tr>
                    <th scope="row" colSpan={4} className="num">
                      Subtotal (before tax)
                    </th>
                    <td className="num">
                      <strong>{money(subtotal, currency)}</strong>
                    </td>
                    <td />
                  </tr>
                </tfoot>
              </table>
            </div>
            <div>
              <button type="button" onClick={() => setLines((ls) => [...ls, newLine()])}>
                Add a line
              </button>
            </div>
          </fieldset>
          <Field label="Terms" hint="Printed on the quotation">
            <textarea name="terms" maxLength={5000} />
          </Field>
        </Form>
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
  const m = (cents: number) => money(cents, q?.currency)
  const open = q?.status === 'draft' || q?.status === 'sent'

  return (
    <Page
      title={q ? `Quotation ${q.reference}` : 'Quotation'}
      actions={
        <>
          <Link to="/quotations">All quotations</Link>
          {q && <ActionButton action={() => downloadPdf(api, '/api/sales/quotations/{id}/pdf', q.id, q.reference)}>Download PDF</ActionButton>}
          {q && open && (
            <ActionButton action={() => api.post('/api/sales/quotations/{id}/send', { params: { path: { id: q.id } }, body: {} })} onDone={quotation.reload}>
              {q.status === 'sent' ? 'Send again' : 'Send quotation'}
            </ActionButton>
          )}
          {q && open && (
            <ActionButton variant="primary" action={() => api.post('/api/sales/quotations/{id}/confirm', { params: { path: { id: q.id } } })} onDone={quotation.reload}>
              Confirm
            </ActionButton>
          )}
          {q && open && (
            <ActionButton variant="danger" confirm={`Cancel quotation ${q.reference}? It can no longer be sent or confirmed.`} action={() => api.post('/api/sales/quotations/{id}/cancel', { params: { path: { id: q.id } } })} onDone={quotation.reload}>
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
            <Card title="Totals">
              <dl className="details totals">
                <dt>Subtotal</dt>
                <dd>{m(q.subtotal)}</dd>
                <dt>Tax</dt>
                <dd>{m(q.taxAmount)}</dd>
                <dt>Total</dt>
                <dd>
                  <strong>{m(q.total)}</strong>
                </dd>
              </dl>
            </Card>
          </div>
          {q.orderId && (
            <Card title="Order">
              <ErrorMessage error={order.error} />
              {order.data && (
                <div className="row order-row">
                  <span>
                    Order <strong>{order.data.reference}</strong> <StatusBadge status={order.data.status} />
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
          <Card title="Lines">
            <Table
              caption={`Lines of quotation ${q.reference}`}
              rows={q.lineItems.map((l, i) => ({ ...l, key: String(i) }))}
              rowKey={(l) => l.key}
              empty="This quotation has no lines."
              columns={[
                { label: 'Product', cell: (l) => l.productName ?? '—' },
                { label: 'Quantity', align: 'right', cell: (l) => l.quantity },
                { label: 'Unit price', align: 'right', cell: (l) => m(l.unitPrice) },
                { label: 'Discount', align: 'right', cell: (l) => (l.discount ? `${l.discount} %` : '—') },
                { label: 'Tax', align: 'right', cell: (l) => (l.taxRate ? `${l.taxRate} %` : '—') },
                { label: 'Total', align: 'right', cell: (l) => m(l.total) },
              ]}
            />
          </Card>
        </>
      )}
    </Page>
  )
}
