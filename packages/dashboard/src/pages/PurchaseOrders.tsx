// RFQs and purchase orders (docs/dashboard.md "Purchase"): the list with a
// status filter, a new RFQ (vendor and products picked by name), and one
// RFQ's page: send, confirm into a purchase order, cancel or delete as the API
// allows (docs/purchase.md "States"), receive its goods, and bill it.
import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams, useSearchParams } from 'react-router'
import { ApiError, type Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, CURRENCIES, date, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, money, Notice, Page, saveBlob, Table, useDebounced, useLoad, type Tone } from '../ui.tsx'
import { toCents } from './finance.tsx'
import { SearchStatusFilters, useSaid, useSearchStatus } from './PurchaseShared.tsx'
import { VendorPicker } from './PurchaseVendors.tsx'

type Rfq = Schemas['PurchaseOrder']
const STATUSES: Rfq['status'][] = ['draft', 'sent', 'confirmed', 'cancelled']
const tones: Record<string, Tone> = { draft: 'neutral', sent: 'info', confirmed: 'good', cancelled: 'neutral', pending: 'warn', partial: 'warn', received: 'good' }
const words: Record<string, string> = { confirmed: 'purchase order', pending: 'to receive', partial: 'partly received' }
const PurchaseBadge = ({ status }: { status: string }) => <Badge tone={tones[status] ?? 'neutral'}>{words[status] ?? status}</Badge>

export function PurchaseOrdersPage() {
  return (
    <Routes>
      <Route index element={<RfqList />} />
      <Route path="new" element={<NewRfq />} />
      <Route path=":id" element={<RfqDetail />} />
    </Routes>
  )
}

/** Every RFQ whatever its status (a confirmed one is a purchase order), newest first; searched and filtered by status in the address. */
function RfqList() {
  const { api } = useSession()
  const filters = useSearchStatus(STATUSES)
  const { f, page, search, status } = filters
  const list = useLoad(() => api.get('/api/purchase/rfqs', { params: { query: { page, limit: 20, sortBy: 'createdAt', sortOrder: 'desc', ...(search ? { search } : {}), ...(status ? { status } : {}) } } }), [page, search, status])
  return (
    <Page
      title="Purchase orders"
      actions={
        <Link className="button primary" to="/purchase/orders/new">
          New RFQ
        </Link>
      }
    >
      <Card>
        <SearchStatusFilters label="Filter RFQs and purchase orders" placeholder="Reference or vendor" statuses={STATUSES} words={words} list={filters} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="RFQs and purchase orders"
          rowKey={(r) => r.id}
          empty={
            search || status ? (
              'No RFQ matches these filters.'
            ) : (
              <>
                No RFQs yet. <Link to="/purchase/orders/new">Request a quotation</Link> from a vendor, then confirm it into a purchase order.
              </>
            )
          }
          columns={[
            { label: 'Reference', cell: (r) => <Link to={`/purchase/orders/${r.id}`}>{r.reference}</Link> },
            { label: 'Vendor', cell: (r) => r.vendor.name },
            { label: 'Created', cell: (r) => date(r.createdAt) },
            { label: 'Expected', cell: (r) => date(r.expectedArrival) },
            { label: 'Status', cell: (r) => <PurchaseBadge status={r.status} /> },
            { label: 'Receipt', cell: (r) => (r.receiptStatus ? <PurchaseBadge status={r.receiptStatus} /> : '—') },
            { label: 'Total', align: 'right', cell: (r) => money(r.total, r.currency) },
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
}
let lineKey = 0
const newLine = (): Line => ({ key: ++lineKey, productId: '', quantity: '1', unitPrice: '' })

/** The lines as the API takes them; an Error naming the line when one is not filled in. An empty unit price takes the vendor's pricelist price. */
function lineItems(lines: Line[]) {
  return lines.map((l, i) => {
    const quantity = Number(l.quantity)
    const unitPrice = toCents(l.unitPrice)
    if (!l.productId) throw new Error(`Line ${i + 1}: choose a product.`)
    if (!(quantity > 0)) throw new Error(`Line ${i + 1}: the quantity must be above 0.`)
    if (l.unitPrice.trim() && unitPrice === undefined) throw new Error(`Line ${i + 1}: the unit price must be an amount like 120.50.`)
    return { productId: l.productId, quantity, ...(unitPrice !== undefined ? { unitPrice } : {}) }
  })
}

/** A new RFQ: the vendor and the storable products picked by name, quantities and prices typed as money. */
function NewRfq() {
  const { api } = useSession()
  const navigate = useNavigate()
  const [address] = useSearchParams()
  // The vendor of a "New RFQ" link of the Vendors page; a hand-edited address that is no id is ignored.
  const [vendorId, setVendorId] = useState(/^[0-9a-f-]{36}$/i.test(address.get('vendorId') ?? '') ? address.get('vendorId')! : '')
  const [currency, setCurrency] = useState('')
  const [lines, setLines] = useState<Line[]>([newLine()])
  const [search, setSearch] = useState('')
  const wanted = useDebounced(search.trim())
  // Only storable products can be bought (docs/purchase.md "RFQs and purchase orders").
  const products = useLoad(() => api.get('/api/products', { params: { query: { limit: 100, type: 'storable', sortBy: 'name', sortOrder: 'asc', ...(wanted ? { search: wanted } : {}) } } }), [wanted])
  const [picked, setPicked] = useState<Record<string, string>>({})
  const found = products.data?.data ?? []
  const options = [...Object.entries(picked).filter(([id]) => !found.some((p) => p.id === id)).map(([id, name]) => ({ id, name, sku: null as string | null })), ...found]
  const update = (key: number, patch: Partial<Line>) => setLines((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l)))
  const shown = currency || 'usd'
  const total = lines.reduce((s, l) => s + Math.round(Number(l.quantity) * (toCents(l.unitPrice) ?? 0) || 0), 0)

  return (
    <Page title="New RFQ" actions={<Link to="/purchase/orders">All purchase orders</Link>}>
      <Card>
        <Form
          label="New RFQ"
          submitLabel="Create RFQ"
          submit={(data) => {
            const f = formFields(data)
            if (!vendorId) throw new Error('Vendor: choose the vendor (search by name or e-mail).')
            return api.post('/api/purchase/rfqs', { body: { vendorId, lineItems: lineItems(lines), ...(currency ? { currency } : {}), ...(f.expectedArrival ? { expectedArrival: f.expectedArrival } : {}), ...(f.notes ? { notes: f.notes } : {}) } })
          }}
          onDone={(r) => navigate(`/purchase/orders/${r.id}`, { state: { flash: `RFQ ${r.reference} created.` } })}
        >
          <div className="row">
            <VendorPicker
              value={vendorId}
              onChange={(id, c) => {
                setVendorId(id)
                setCurrency(c ?? '')
              }}
            />
            <Field label="Currency" hint="The vendor's when left as is">
              <select value={currency} onChange={(e) => setCurrency(e.target.value)}>
                <option value="">vendor's currency</option>
                {[...new Set([...CURRENCIES, ...(currency ? [currency] : [])])].map((c) => (
                  <option key={c} value={c}>
                    {c.toUpperCase()}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Expected arrival">
              <input type="date" name="expectedArrival" />
            </Field>
          </div>
          <fieldset className="lines">
            <legend>Lines</legend>
            <Field label="Find products" hint={products.data ? `${products.data.meta.total} storable product${products.data.meta.total === 1 ? '' : 's'} match` : undefined}>
              <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} autoComplete="off" placeholder="Name or SKU" />
            </Field>
            <ErrorMessage error={products.error} />
            {products.data && !wanted && found.length === 0 && (
              <p className="empty">
                No storable product yet. <Link to="/products/new">Create a product</Link> of type storable, then come back.
              </p>
            )}
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">RFQ lines</caption>
                <thead>
                  <tr>
                    <th scope="col">Product</th>
                    <th scope="col" className="num">
                      Quantity
                    </th>
                    <th scope="col" className="num">
                      Unit price
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
                            const p = options.find((x) => x.id === e.target.value)
                            if (p) setPicked((m) => ({ ...m, [p.id]: p.name }))
                            update(l.key, { productId: e.target.value })
                          }}
                        >
                          <option value="">choose a product</option>
                          {options.map((p) => (
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
                        <input aria-label={`Unit price, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.unitPrice} placeholder="pricelist" onChange={(e) => update(l.key, { unitPrice: e.target.value })} />
                      </td>
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
                    <th scope="row" colSpan={2} className="num">
                      Total (typed prices)
                    </th>
                    <td className="num">
                      <strong>{money(total, shown)}</strong>
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
          <Field label="Notes" hint="Printed on the RFQ">
            <textarea name="notes" maxLength={5000} />
          </Field>
        </Form>
      </Card>
    </Page>
  )
}

/** One RFQ or purchase order: its state and the actions the API allows in it, its lines, receipts and bill. */
function RfqDetail() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const navigate = useNavigate()
  const [said, setSaid] = useSaid()
  const rfq = useLoad(() => api.get('/api/purchase/rfqs/{id}', { params: { path: { id } } }), [id])
  const r = rfq.data
  const m = (cents: number) => money(cents, r?.currency)
  const open = r?.status === 'draft' || r?.status === 'sent'
  const done = (text: string) => () => {
    setSaid(text)
    rfq.reload()
  }
  const path = { params: { path: { id } } }

  return (
    <Page
      title={r ? `${r.status === 'confirmed' ? 'Purchase order' : 'RFQ'} ${r.reference}` : 'RFQ'}
      actions={
        <>
          <Link to="/purchase/orders">All purchase orders</Link>
          {r && <ActionButton action={() => downloadRfqPdf(api, r)}>Download PDF</ActionButton>}
          {r && open && (
            <ActionButton action={() => api.post('/api/purchase/rfqs/{id}/send', { ...path, body: {} })} onDone={done(`RFQ ${r.reference} sent to ${r.vendor.email ?? 'the vendor'}.`)}>
              {r.status === 'sent' ? 'Send again' : 'Send to vendor'}
            </ActionButton>
          )}
          {r && open && (
            <ActionButton variant="primary" action={() => api.post('/api/purchase/rfqs/{id}/confirm', path)} onDone={done(`Confirmed: ${r.reference} is a purchase order; its goods can be received.`)}>
              Confirm order
            </ActionButton>
          )}
          {r && open && (
            <ActionButton variant="danger" confirm={`Cancel RFQ ${r.reference}? It can no longer be sent or confirmed.`} action={() => api.post('/api/purchase/rfqs/{id}/cancel', path)} onDone={done(`RFQ ${r.reference} cancelled.`)}>
              Cancel RFQ
            </ActionButton>
          )}
          {r?.status === 'draft' && (
            <ActionButton variant="danger" confirm={`Delete the draft RFQ ${r.reference}? This cannot be undone.`} action={() => api.delete('/api/purchase/rfqs/{id}', path)} onDone={() => navigate('/purchase/orders')}>
              Delete draft
            </ActionButton>
          )}
        </>
      }
    >
      <ErrorMessage error={rfq.error} />
      {!r && !rfq.error && <Loading />}
      {said && <Notice>{said}</Notice>}
      {r && (
        <>
          <div className="grid">
            <Card title={r.status === 'confirmed' ? 'Purchase order' : 'Request for quotation'}>
              <dl className="details">
                <dt>Status</dt>
                <dd data-testid="po-status">
                  <PurchaseBadge status={r.status} />
                </dd>
                <dt>Vendor</dt>
                <dd>
                  {r.vendor.name}
                  {r.vendor.email && <span className="muted"> ({r.vendor.email})</span>}
                </dd>
                <dt>Buyer</dt>
                <dd>{r.buyer?.name ?? '—'}</dd>
                <dt>Created</dt>
                <dd>{dateTime(r.createdAt)}</dd>
                <dt>Expected arrival</dt>
                <dd>{date(r.expectedArrival)}</dd>
                <dt>Sent</dt>
                <dd>{dateTime(r.sentAt)}</dd>
                {r.confirmedAt && (
                  <>
                    <dt>Confirmed</dt>
                    <dd>{dateTime(r.confirmedAt)}</dd>
                  </>
                )}
                {r.receiptStatus && (
                  <>
                    <dt>Receipt</dt>
                    <dd data-testid="receipt-status">
                      <PurchaseBadge status={r.receiptStatus} />
                    </dd>
                  </>
                )}
                {r.notes && (
                  <>
                    <dt>Notes</dt>
                    <dd>{r.notes}</dd>
                  </>
                )}
              </dl>
            </Card>
            <Card title="Total">
              <dl className="details totals">
                <dt>Total</dt>
                <dd>
                  <strong>{m(r.total)}</strong>
                </dd>
                <dt>Currency</dt>
                <dd>{r.currency.toUpperCase()}</dd>
              </dl>
            </Card>
          </div>
          <Card title="Lines">
            <Table
              caption={`Lines of ${r.reference}`}
              rows={r.lineItems}
              rowKey={(l) => l.productId}
              empty="No lines."
              columns={[
                { label: 'Product', cell: (l) => l.productName },
                { label: 'Quantity', align: 'right', cell: (l) => l.quantity },
                { label: 'Received', align: 'right', cell: (l) => l.receivedQty },
                { label: 'Unit price', align: 'right', cell: (l) => m(l.unitPrice) },
                { label: 'Total', align: 'right', cell: (l) => m(l.total) },
              ]}
            />
          </Card>
          {r.status === 'confirmed' && <Receipts po={r} onDone={(text) => done(text)()} />}
          {r.status === 'confirmed' && <Bill po={r} />}
        </>
      )}
    </Page>
  )
}

async function downloadRfqPdf(api: ReturnType<typeof useSession>['api'], r: Rfq) {
  const { data, error, response } = await api.raw.GET('/api/purchase/rfqs/{id}/pdf', { params: { path: { id: r.id } }, parseAs: 'blob' })
  if (!response.ok || !data) throw new ApiError(response, error)
  saveBlob(data, `${r.reference.replace(/[^\w.-]+/g, '-')}.pdf`)
}

/** The receipts of a purchase order so far, and a form to receive what is still open (each line's open quantity filled in). */
function Receipts({ po, onDone }: { po: Rfq; onDone: (text: string) => void }) {
  const { api } = useSession()
  const openLines = po.lineItems.filter((l) => l.receivedQty < l.quantity)
  const name = (productId: string) => po.lineItems.find((l) => l.productId === productId)?.productName ?? productId
  return (
    <Card title="Receipts">
      <Table
        caption={`Receipts of ${po.reference}`}
        rows={po.receipts}
        rowKey={(x) => x.receiptId}
        empty="Nothing received yet."
        columns={[
          { label: 'Transfer', cell: (x) => x.transferReference },
          { label: 'Date', cell: (x) => date(x.receiptDate) },
          { label: 'Goods', cell: (x) => x.lines.map((l) => `${l.receivedQty} × ${name(l.productId)}`).join(', ') },
        ]}
      />
      {openLines.length > 0 && (
        <Form
          key={po.updatedAt}
          label="Receive goods"
          submitLabel="Receive"
          submit={(data) => {
            const f = formFields(data)
            const lines = openLines.flatMap((l, i) => {
              const text = f[`qty-${i}`]
              if (!text) return []
              const receivedQty = Number(text)
              if (!(receivedQty >= 0)) throw new Error(`${l.productName}: the quantity received is a number, 0 or more.`)
              return receivedQty > 0 ? [{ productId: l.productId, receivedQty }] : []
            })
            if (lines.length === 0) throw new Error('Give the quantity received of at least one product.')
            return api.post('/api/purchase/orders/{id}/receive', { params: { path: { id: po.id } }, body: { lines, ...(f.receiptDate ? { receiptDate: f.receiptDate } : {}) } })
          }}
          onDone={(x) => onDone(`Received in ${x.transferReference}${x.backorderQty > 0 ? `; ${x.backorderQty} still to come` : '; the order is fully received'}.`)}
        >
          <div className="row">
            {openLines.map((l, i) => (
              <Field key={l.productId} label={`Received: ${l.productName}`} hint={`${l.quantity - l.receivedQty} open of ${l.quantity}`}>
                <input name={`qty-${i}`} inputMode="decimal" className="narrow" defaultValue={String(l.quantity - l.receivedQty)} />
              </Field>
            ))}
            <Field label="Receipt date" hint="Today when left empty">
              <input name="receiptDate" type="date" />
            </Field>
          </div>
        </Form>
      )}
    </Card>
  )
}

/** The vendor bill of a purchase order: a link to it, or the form that records it (the vendor's invoice number, its dates). */
function Bill({ po }: { po: Rfq }) {
  const { api } = useSession()
  const navigate = useNavigate()
  return (
    <Card title="Vendor bill">
      {po.billId ? (
        <p>
          <Link to={`/purchase/bills/${po.billId}`}>Open the vendor bill</Link>
        </p>
      ) : (
        <Form
          label="Record the vendor bill"
          submitLabel="Create bill"
          submit={(data) => {
            const f = formFields(data)
            return api.post('/api/purchase/orders/{id}/bill', { params: { path: { id: po.id } }, body: { vendorInvoiceNumber: f.vendorInvoiceNumber ?? '', ...(f.invoiceDate ? { invoiceDate: f.invoiceDate } : {}), ...(f.dueDate ? { dueDate: f.dueDate } : {}) } })
          }}
          onDone={(b) => navigate(`/purchase/bills/${b.id}`, { state: { flash: `Bill ${b.number} recorded for ${money(b.total, b.currency)}.` } })}
        >
          <p className="muted">The bill is for the ordered lines ({money(po.total, po.currency)}), whatever has been received so far.</p>
          <div className="row">
            <Field label="Vendor invoice number">
              <input name="vendorInvoiceNumber" required maxLength={100} autoComplete="off" />
            </Field>
            <Field label="Invoice date" hint="Today when left empty">
              <input name="invoiceDate" type="date" />
            </Field>
            <Field label="Due date" hint="30 days after the invoice date when left empty">
              <input name="dueDate" type="date" />
            </Field>
          </div>
        </Form>
      )}
    </Card>
  )
}

