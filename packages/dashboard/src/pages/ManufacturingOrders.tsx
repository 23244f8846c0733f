// Production orders (docs/dashboard-manufacturing-crm.md "Production"): the
// list with its status filter in the address, a new order (product picked by
// name, its BOM, the quantity), and one order's page: components with what is
// reserved for them, work orders (start, done), confirm, produce (partial
// quantities), close, each said in a toast, the API's refusals as sentences.
import { useState } from 'react'
import { Link, Route, Routes, useNavigate, useParams, useSearchParams } from 'react-router'
import { ApiError } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Card, date, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, Notice, Page, Table, toast, useLoad, useUrlFilters } from '../ui.tsx'
import { DRY_RUN } from './lines.tsx'
import { MoBadge, ORDER_STATUSES, orderWord, positive, ProductOptions, ProductSearchBox, qty, useProductSearch, type ProductionOrder, type WorkOrder } from './ManufacturingShared.tsx'
import { SearchStatusFilters, useSaid } from './PurchaseShared.tsx'

const LIST = '/manufacturing/orders'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function ManufacturingOrdersPage() {
  return (
    <Routes>
      <Route index element={<OrderList />} />
      <Route path="new" element={<NewOrder />} />
      <Route path=":id" element={<OrderPage />} />
    </Routes>
  )
}

/** Production orders, newest first; searched by reference, filtered by status, both in the address. */
function OrderList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const status = f.choice('status', ORDER_STATUSES)
  const list = useLoad(() => api.get('/api/manufacturing/orders', { params: { query: { page, limit: 20, sortBy: 'createdAt', sortOrder: 'desc', ...(search ? { search } : {}), ...(status ? { status } : {}) } } }), [page, search, status])
  return (
    <Page
      title="Production"
      actions={
        <Link className="button primary" to={`${LIST}/new`}>
          New production order
        </Link>
      }
    >
      <Card>
        <SearchStatusFilters label="Filter production orders" placeholder="Reference, e.g. MO/2026/00001" statuses={ORDER_STATUSES} words={{ in_progress: orderWord('in_progress') }} list={{ f, page, search, status }} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Production orders"
          rowKey={(o) => o.id}
          empty={
            search || status ? (
              'No production order matches these filters.'
            ) : (
              <>
                No production orders yet. <Link to={`${LIST}/new`}>Plan one</Link> from a <Link to="/manufacturing/boms">bill of materials</Link>.
              </>
            )
          }
          columns={[
            { label: 'Reference', cell: (o) => <Link to={`${LIST}/${o.id}`}>{o.reference}</Link> },
            { label: 'Product', cell: (o) => o.product.name },
            { label: 'Quantity', align: 'right', cell: (o) => `${qty(o.quantity)} ${o.uom}` },
            { label: 'Produced', align: 'right', cell: (o) => qty(o.producedQty) },
            { label: 'Scheduled', cell: (o) => date(o.scheduledDate) },
            { label: 'Status', cell: (o) => <MoBadge status={o.status} /> },
          ]}
        />
      </Card>
    </Page>
  )
}

/** A new order: the storable product picked by name, one of its BOMs (the first when left as is), the quantity, the planned start. */
function NewOrder() {
  const { api } = useSession()
  const navigate = useNavigate()
  const [address] = useSearchParams()
  // The product and BOM of a BOM page's "New production order" link; a hand-edited address that is no id is ignored.
  const given = (key: string) => (UUID.test(address.get(key) ?? '') ? address.get(key)! : '')
  const [productId, setProductId] = useState(given('productId'))
  const [bomId, setBomId] = useState(given('bomId'))
  const products = useProductSearch('storable')
  // The BOMs of the chosen product (one call once it is chosen); they also name it when it came from the address.
  const boms = useLoad(() => (productId ? api.get('/api/manufacturing/boms', { params: { query: { productId, limit: 100, sortBy: 'createdAt', sortOrder: 'asc' } } }) : Promise.resolve(null)), [productId])
  const known = boms.data?.data[0]?.product
  const productOptions = known && !products.options.some((p) => p.id === known.id) ? [{ id: known.id, name: known.name, sku: null, uom: '' }, ...products.options] : products.options
  return (
    <Page title="New production order" actions={<Link to={LIST}>All production orders</Link>}>
      <Card>
        <Form
          label="New production order"
          submitLabel="Create order"
          submit={(data) => {
            const f = formFields(data)
            if (!productId) throw new Error('Product: choose the product to make (search by name).')
            return api.post('/api/manufacturing/orders', { body: { productId, quantity: positive(f.quantity, 'Quantity'), ...(bomId ? { bomId } : {}), ...(f.scheduledDate ? { scheduledDate: f.scheduledDate } : {}) } })
          }}
          onDone={(o) => navigate(`${LIST}/${o.id}`, { state: { flash: `Production order ${o.reference} created: ${qty(o.quantity)} × ${o.product.name}.` } })}
        >
          <div className="row">
            <ProductSearchBox label="Find the product" products={products} kind="storable" />
            <Field label="Product" hint="Storable products: what is made goes into stock">
              <select
                value={productId}
                required
                onChange={(e) => {
                  setProductId(products.pick(e.target.value)?.id ?? '')
                  setBomId('')
                }}
              >
                <ProductOptions products={{ ...products, options: productOptions }} />
              </select>
            </Field>
            <Field label="Bill of materials" hint={productId && boms.data ? (boms.data.data.length ? 'The first one when left as is' : 'This product has no BOM yet') : 'Choose the product first'}>
              <select value={bomId} onChange={(e) => setBomId(e.target.value)} disabled={!productId} aria-busy={boms.loading}>
                <option value="">{boms.data?.data.length ? "the product's first BOM" : 'no BOM'}</option>
                {boms.data?.data.map((b) => (
                  <option key={b.id} value={b.id}>
                    {b.name} (makes {qty(b.quantity)} {b.uom})
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <ErrorMessage error={boms.error} />
          {productId && boms.data && boms.data.data.length === 0 && (
            <p className="empty">
              This product has no bill of materials. <Link to="/manufacturing/boms/new">Create a BOM</Link> first.
            </p>
          )}
          <div className="row">
            <Field label="Quantity" hint="Units of the product to make">
              <input name="quantity" inputMode="decimal" className="narrow" required defaultValue="1" />
            </Field>
            <Field label="Scheduled" hint="Today when left empty">
              <input name="scheduledDate" type="date" />
            </Field>
          </div>
        </Form>
      </Card>
    </Page>
  )
}

/** What is reserved for each component while the order's component transfer is ready (docs/manufacturing.md "Produce and the ledger"). */
type Reserved = Record<string, number>

/** One production order: its state and the actions the API allows in it, components, work orders and what was produced. */
function OrderPage() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const [said, setSaid] = useSaid()
  const path = { params: { path: { id } } }
  const data = useLoad(async () => {
    const [order, work] = await Promise.all([api.get('/api/manufacturing/orders/{id}', path), api.get('/api/manufacturing/orders/{id}/work-orders', { params: { path: { id }, query: { limit: 100 } } })])
    // The reservation of the open component transfer, as inventory holds it.
    const transfer = order.componentTransfer ? await api.get('/api/inventory/transfers/{id}', { params: { path: { id: order.componentTransfer.id } } }) : null
    const reserved: Reserved | null = transfer && transfer.status === 'ready' ? Object.fromEntries(transfer.moves.map((m) => [m.productId, m.reservedQty])) : null
    return { order, work: work.data, reserved }
  }, [id])
  const o = data.data?.order
  const open = o && (o.status === 'draft' || o.status === 'confirmed' || o.status === 'in_progress')
  const after = (text: string) => () => {
    setSaid(undefined)
    toast(text)
    data.reload()
  }
  return (
    <Page
      title={o ? `Production order ${o.reference}` : 'Production order'}
      actions={
        <>
          <Link to={LIST}>All production orders</Link>
          {o?.status === 'draft' && (
            <ActionButton variant="primary" action={() => api.post('/api/manufacturing/orders/{id}/confirm', path)} onDone={after(`Confirmed: the components of ${o.reference} are reserved.`)}>
              Confirm
            </ActionButton>
          )}
          {o && open && (
            <ActionButton
              variant="danger"
              confirm={
                o.producedQty > 0
                  ? `Close ${o.reference}? It becomes done with ${qty(o.producedQty)} of ${qty(o.quantity)} made; the components still reserved are released.`
                  : `Close ${o.reference}? Nothing was made, so it is cancelled${o.status === 'draft' ? '' : ' and its reserved components are released'}.`
              }
              action={() => api.post('/api/manufacturing/orders/{id}/close', path)}
              onDone={after(o.producedQty > 0 ? `${o.reference} closed: done, ${qty(o.producedQty)} of ${qty(o.quantity)} made.` : `${o.reference} closed: cancelled, nothing was made.`)}
            >
              Close order
            </ActionButton>
          )}
        </>
      }
    >
      <ErrorMessage error={data.error} />
      {!o && !data.error && <Loading />}
      {said && <Notice>{said}</Notice>}
      {o && data.data && (
        <>
          <Card title="Order">
            <dl className="details">
              <dt>Status</dt>
              <dd data-testid="mo-status">
                <MoBadge status={o.status} />
              </dd>
              <dt>Product</dt>
              <dd>{o.product.name}</dd>
              <dt>Bill of materials</dt>
              <dd>{o.bomId ? <Link to={`/manufacturing/boms/${o.bomId}`}>Open the BOM</Link> : 'deleted'}</dd>
              <dt>Quantity</dt>
              <dd>
                {qty(o.quantity)} {o.uom}
              </dd>
              <dt>Produced</dt>
              <dd data-testid="mo-produced">
                {qty(o.producedQty)} of {qty(o.quantity)}
              </dd>
              <dt>Scheduled</dt>
              <dd>{date(o.scheduledDate)}</dd>
              {o.confirmedAt && (
                <>
                  <dt>Confirmed</dt>
                  <dd>{dateTime(o.confirmedAt)}</dd>
                </>
              )}
              {o.closedAt && (
                <>
                  <dt>Closed</dt>
                  <dd>{dateTime(o.closedAt)}</dd>
                </>
              )}
            </dl>
          </Card>
          <Components order={o} reserved={data.data.reserved} />
          {(o.status === 'confirmed' || o.status === 'in_progress') && <Produce order={o} onDone={(text) => after(text)()} />}
          <WorkOrders order={o} work={data.data.work} onDone={(text) => after(text)()} />
          {o.productions.length > 0 && (
            <Card title="Produced">
              <Table
                caption={`Production of ${o.reference}`}
                rows={o.productions}
                rowKey={(p) => p.finishedTransferId}
                empty="Nothing produced yet."
                columns={[
                  { label: 'When', cell: (p) => dateTime(p.producedAt) },
                  { label: 'Quantity', align: 'right', cell: (p) => `${qty(p.quantity)} ${o.uom}` },
                  { label: 'Lot', cell: (p) => p.lotNumber ?? '—' },
                  { label: 'Stock moves', cell: (p) => <Link to={`/inventory/transfers/${p.finishedTransferId}`}>Finished goods</Link> },
                ]}
              />
            </Card>
          )}
        </>
      )}
    </Page>
  )
}

/** The components the whole order needs, consumed so far, and reserved while it is confirmed; a draft can ask whether the stock covers them (a dry-run confirm). */
function Components({ order: o, reserved }: { order: ProductionOrder; reserved: Reserved | null }) {
  const { api } = useSession()
  const [check, setCheck] = useState<{ ok: true } | { error: unknown } | null>(null)
  return (
    <Card
      title="Components"
      actions={
        o.status === 'draft' && o.components.length > 0 ? (
          <ActionButton
            action={async () => {
              // Confirm as a dry run (docs/platform.md "Dry runs"): the API reserves and rolls back, so nothing is kept.
              const { error, response } = await api.raw.POST('/api/manufacturing/orders/{id}/confirm', { params: { path: { id: o.id } }, headers: DRY_RUN })
              if (response.ok && response.headers.get('preference-applied') !== 'dry-run') throw new Error('The API did not apply the dry run: the order was confirmed. Reload the page.')
              setCheck(response.ok ? { ok: true } : { error: new ApiError(response, error) })
            }}
          >
            Check stock
          </ActionButton>
        ) : undefined
      }
    >
      {check && o.status === 'draft' && ('ok' in check ? <Notice>The stock covers every component: the order can be confirmed.</Notice> : <ErrorMessage error={check.error} />)}
      {o.componentTransfer && (
        <p className="muted">
          Reserved by the transfer <Link to={`/inventory/transfers/${o.componentTransfer.id}`}>{o.componentTransfer.reference}</Link> from stock to production.
        </p>
      )}
      <Table
        caption={`Components of ${o.reference}`}
        rows={o.components}
        rowKey={(c) => c.productId}
        empty="No components."
        columns={[
          { label: 'Component', cell: (c) => c.name },
          { label: 'Needed', align: 'right', cell: (c) => qty(c.quantity) },
          { label: 'Consumed', align: 'right', cell: (c) => qty(c.consumedQty) },
          { label: 'Reserved', align: 'right', cell: (c) => (reserved ? qty(reserved[c.productId] ?? 0) : '—') },
        ]}
      />
    </Card>
  )
}

/** Produce: a quantity up to what is still open (the open quantity filled in), an optional lot label. */
function Produce({ order: o, onDone }: { order: ProductionOrder; onDone: (text: string) => void }) {
  const { api } = useSession()
  const open = Math.round((o.quantity - o.producedQty) * 1e6) / 1e6
  return (
    <Card title="Produce">
      <Form
        key={o.updatedAt}
        label="Produce"
        submitLabel="Produce"
        submit={(data) => {
          const f = formFields(data)
          return api.post('/api/manufacturing/orders/{id}/produce', { params: { path: { id: o.id } }, body: { qty: positive(f.qty, 'Quantity'), ...(f.lotNumber ? { lotNumber: f.lotNumber } : {}) } })
        }}
        onDone={(after) => {
          const made = Math.round((after.producedQty - o.producedQty) * 1e6) / 1e6
          onDone(after.status === 'done' ? `Produced ${qty(made)} × ${o.product.name}: ${o.reference} is done.` : `Produced ${qty(made)} × ${o.product.name}; ${qty(Math.round((after.quantity - after.producedQty) * 1e6) / 1e6)} still to make.`)
        }}
      >
        <div className="row">
          <Field label="Quantity to produce" hint={`${qty(open)} ${o.uom} still to make; less is a partial production`}>
            <input name="qty" inputMode="decimal" className="narrow" required defaultValue={String(open)} />
          </Field>
          <Field label="Lot number" hint="A label kept with this production (optional)">
            <input name="lotNumber" maxLength={100} autoComplete="off" />
          </Field>
        </div>
      </Form>
    </Card>
  )
}

/** The order's work orders, one per BOM operation: Start, then Done (its time counted from the start). */
function WorkOrders({ order: o, work, onDone }: { order: ProductionOrder; work: WorkOrder[]; onDone: (text: string) => void }) {
  const { api } = useSession()
  const live = o.status === 'confirmed' || o.status === 'in_progress'
  const wo = (woId: string) => ({ params: { path: { id: o.id, woId } } })
  return (
    <Card title="Work orders">
      {o.status === 'draft' && work.length > 0 && <p className="muted">Confirm the order to start its work orders.</p>}
      <Table
        caption={`Work orders of ${o.reference}`}
        rows={work}
        rowKey={(w) => w.id}
        empty="No work orders: the BOM has no operations."
        columns={[
          { label: 'Operation', cell: (w) => w.name },
          { label: 'Work centre', cell: (w) => w.workcenter },
          { label: 'Expected', align: 'right', cell: (w) => `${qty(w.expectedDurationMinutes)} min` },
          { label: 'Status', cell: (w) => <MoBadge status={w.status} /> },
          { label: 'Took', align: 'right', cell: (w) => (w.durationMinutes === null ? '—' : `${qty(w.durationMinutes)} min`) },
          {
            label: 'Actions',
            cell: (w) =>
              live && w.status === 'pending' ? (
                <ActionButton action={() => api.post('/api/manufacturing/orders/{id}/work-orders/{woId}/start', wo(w.id))} onDone={() => onDone(`${w.name} started at ${w.workcenter}.`)}>
                  Start <span className="visually-hidden">{w.name}</span>
                </ActionButton>
              ) : live && w.status === 'in_progress' ? (
                <ActionButton action={() => api.post('/api/manufacturing/orders/{id}/work-orders/{woId}/done', { ...wo(w.id), body: {} })} onDone={() => onDone(`${w.name} done.`)}>
                  Done <span className="visually-hidden">{w.name}</span>
                </ActionButton>
              ) : (
                '—'
              ),
          },
        ]}
      />
    </Card>
  )
}
