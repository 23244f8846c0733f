import { useState } from 'react'
import { Link, Route, Routes, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { AdjustmentsView, AdjustmentView, NewAdjustmentView } from './InventoryAdjustments.tsx'
import { EditLocationView, LocationsView, NewLocationView } from './InventoryLocations.tsx'
import { MovesView } from './InventoryMoves.tsx'
import { InventoryTabs, qty } from './InventoryShared.tsx'
import { ActionButton, Badge, Card, date, dateTime, ErrorMessage, errorText, Field, ListView, Loading, Notice, Page, SearchInput, Table, useLoad, useUrlFilters, type Tone } from '../ui.tsx'

type Transfer = Schemas['Transfer']
type TransferStatus = Transfer['status']
type ProductStock = Schemas['ProductStock']

/** Inventory (docs/inventory.md "Dashboard page"): stock per product, transfers to validate, adjustments, the moves of the ledger, locations. */
export function InventoryPage() {
  return (
    <Routes>
      <Route index element={<StockView />} />
      <Route path="transfers" element={<TransfersView />} />
      <Route path="transfers/:id" element={<TransferView />} />
      <Route path="adjustments" element={<AdjustmentsView />} />
      <Route path="adjustments/new" element={<NewAdjustmentView />} />
      <Route path="adjustments/:id" element={<AdjustmentView />} />
      <Route path="moves" element={<MovesView />} />
      <Route path="locations" element={<LocationsView />} />
      <Route path="locations/new" element={<NewLocationView />} />
      <Route path="locations/:id" element={<EditLocationView />} />
    </Routes>
  )
}

const TRANSFER_STATUSES: TransferStatus[] = ['draft', 'ready', 'done', 'cancelled']
const TRANSFER_TYPES: Transfer['type'][] = ['receipt', 'delivery', 'internal']
const statusTone: Record<TransferStatus, Tone> = { draft: 'neutral', ready: 'info', done: 'good', cancelled: 'bad' }
const TransferStatusBadge = ({ status }: { status: TransferStatus }) => <Badge tone={statusTone[status]}>{status}</Badge>

/** The warehouses, known through their internal locations (warehouses have no route of their own). */
function useWarehouses() {
  const { api } = useSession()
  return useLoad(async () => {
    const locations = await api.get('/api/inventory/locations', { params: { query: { type: 'internal', limit: 100, sortBy: 'code', sortOrder: 'asc' } } })
    const byWarehouse = new Map<string, string[]>()
    for (const l of locations.data) if (l.warehouseId) byWarehouse.set(l.warehouseId, [...(byWarehouse.get(l.warehouseId) ?? []), l.name])
    return [...byWarehouse].map(([id, names]) => ({ id, label: `Warehouse of ${names.slice(0, 2).join(', ')}${names.length > 2 ? '…' : ''}` }))
  }, [])
}

/** A product's stock in one word: to reorder, out of stock or in stock. */
function stockState(p: ProductStock): { tone: Tone; text: string } {
  if (p.reorderPoint > 0 && p.available <= p.reorderPoint) return { tone: 'warn', text: 'Reorder' }
  if (p.available <= 0) return { tone: 'bad', text: 'Out of stock' }
  return { tone: 'good', text: 'In stock' }
}

const STOCK_SORTS = ['name', 'sku', 'onHand', 'available'] as const

/** Stock per product, filtered, sorted and paged by the API; the filters live in the address. */
function StockView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const warehouseId = f.get('warehouseId')
  const belowReorder = f.get('belowReorder') === 'true'
  const sortBy = f.choice('sort', STOCK_SORTS, 'name')
  const [open, setOpen] = useState<ProductStock | null>(null)
  const warehouses = useWarehouses()
  const list = useLoad(
    () =>
      api.get('/api/inventory/products', {
        params: { query: { page, limit: 20, sortBy, sortOrder: sortBy === 'name' || sortBy === 'sku' ? 'asc' : 'desc', ...(search ? { search } : {}), ...(warehouseId ? { warehouseId } : {}), ...(belowReorder ? { belowReorder } : {}) } },
      }),
    [page, search, warehouseId, belowReorder, sortBy],
  )
  const filtered = search || belowReorder || warehouseId
  return (
    <Page title="Inventory">
      <InventoryTabs />
      <Card
        title="Stock"
        actions={
          <div className="filters">
            <Field label="Search">
              <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Name or SKU" />
            </Field>
            <Field label="Warehouse">
              <select value={warehouseId} onChange={(e) => f.set('warehouseId', e.target.value)}>
                <option value="">All warehouses</option>
                {warehouses.data?.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.label}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Sort by">
              <select value={sortBy} onChange={(e) => f.set('sort', e.target.value === 'name' ? '' : e.target.value)}>
                <option value="name">Name</option>
                <option value="sku">SKU</option>
                <option value="onHand">On hand (most first)</option>
                <option value="available">Available (most first)</option>
              </select>
            </Field>
            <label className="check">
              <input type="checkbox" checked={belowReorder} onChange={(e) => f.set('belowReorder', e.target.checked ? 'true' : '')} />
              Below reorder point only
            </label>
          </div>
        }
      >
        <ErrorMessage error={warehouses.error} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Stock per product"
          rowKey={(p) => p.productId}
          empty={filtered ? 'No storable product matches these filters.' : 'No storable products yet. Create products of type "storable" and receive them with a receipt transfer.'}
          columns={[
            { label: 'Product', cell: (p) => p.productName },
            { label: 'SKU', cell: (p) => (p.sku ? <code>{p.sku}</code> : <span className="muted">—</span>) },
            { label: 'On hand', align: 'right', cell: (p) => `${qty(p.onHand)} ${p.uom}` },
            { label: 'Reserved', align: 'right', cell: (p) => qty(p.reserved) },
            { label: 'Available', align: 'right', cell: (p) => qty(p.available) },
            { label: 'Reorder point', align: 'right', cell: (p) => (p.reorderPoint > 0 ? qty(p.reorderPoint) : <span className="muted">—</span>) },
            { label: 'State', cell: (p) => <Badge tone={stockState(p).tone}>{stockState(p).text}</Badge> },
            {
              label: 'Locations',
              cell: (p) => (
                <button type="button" className="link" aria-expanded={open?.productId === p.productId} onClick={() => setOpen(open?.productId === p.productId ? null : p)}>
                  {open?.productId === p.productId ? 'Hide' : 'Show'} <span className="visually-hidden">locations of {p.productName}</span>
                </button>
              ),
            },
          ]}
        />
      </Card>
      {open && <LocationsOf product={open} key={`${open.productId}-${list.data?.meta.total}-${open.onHand}`} />}
    </Page>
  )
}

/** Where one product lies: the internal locations holding it (GET /inventory/products/:id/stock). */
function LocationsOf({ product }: { product: ProductStock }) {
  const { api } = useSession()
  const stock = useLoad(() => api.get('/api/inventory/products/{productId}/stock', { params: { path: { productId: product.productId } } }), [product.productId])
  return (
    <Card title={`Locations of ${product.productName}`}>
      <ErrorMessage error={stock.error} />
      {!stock.data && !stock.error && <Loading />}
      {stock.data && (
        <Table
          caption={`Stock of ${product.productName} per location`}
          rows={stock.data}
          rowKey={(l) => l.locationId}
          empty="No internal location holds this product."
          columns={[
            { label: 'Location', cell: (l) => l.locationName },
            { label: 'Code', cell: (l) => <code>{l.locationId}</code> },
            { label: 'Quantity', align: 'right', cell: (l) => `${qty(l.quantity)} ${product.uom}` },
          ]}
        />
      )}
    </Card>
  )
}

/** What validating a transfer did, said in words: done, and the backorder left for the rest. */
function Validated({ transfer }: { transfer: Transfer }) {
  return (
    <Notice>
      {transfer.reference} validated: {transfer.moves.map((m) => `${qty(m.doneQty)} × ${m.productName}`).join(', ')} moved from {transfer.sourceLocation} to {transfer.destinationLocation}.
      {transfer.backorder && (
        <>
          {' '}
          The rest waits in the backorder <Link to={`/inventory/transfers/${transfer.backorder.id}`}>{transfer.backorder.reference}</Link>.
        </>
      )}
    </Notice>
  )
}

/** Transfers, ready ones first by default; the filters live in the address (`status=all` for every status). */
function TransfersView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const shown = f.choice('status', [...TRANSFER_STATUSES, 'all'], 'ready')
  const status = shown === 'all' ? '' : shown
  const type = f.choice('type', TRANSFER_TYPES)
  const search = f.get('search')
  const [validated, setValidated] = useState<Transfer | null>(null)
  const [refused, setRefused] = useState<{ reference: string; error: unknown } | null>(null)
  // The answer is shown above the table (a row is too narrow for a sentence): what moved, or why nothing did.
  const validate = async (t: Transfer) => {
    setValidated(null)
    setRefused(null)
    try {
      setValidated(await api.post('/api/inventory/transfers/{id}/validate', { params: { path: { id: t.id } }, body: {} }))
    } catch (error) {
      setRefused({ reference: t.reference, error })
    }
  }
  const list = useLoad(
    () =>
      api.get('/api/inventory/transfers', {
        params: { query: { page, limit: 20, sortBy: 'scheduledDate', sortOrder: 'asc', ...(status ? { status } : {}), ...(type ? { type } : {}), ...(search ? { search } : {}) } },
      }),
    [page, status, type, search],
  )
  return (
    <Page title="Inventory">
      <InventoryTabs />
      {validated && <Validated transfer={validated} />}
      {refused && (
        <div className="error" role="alert">
          {refused.reference} was not validated: {errorText(refused.error)}
        </div>
      )}
      <Card
        title="Transfers"
        actions={
          <div className="filters">
            <Field label="Status">
              <select value={shown} onChange={(e) => f.set('status', e.target.value === 'ready' ? '' : e.target.value)}>
                <option value="ready">ready (stock reserved)</option>
                <option value="draft">draft (waiting)</option>
                <option value="done">done</option>
                <option value="cancelled">cancelled</option>
                <option value="all">all</option>
              </select>
            </Field>
            <Field label="Type">
              <select value={type} onChange={(e) => f.set('type', e.target.value)}>
                <option value="">all</option>
                {TRANSFER_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </Field>
            <Field label="Search">
              <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Reference or origin" />
            </Field>
          </div>
        }
      >
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Transfers"
          rowKey={(t) => t.id}
          empty={
            status === 'ready' && !type && !search
              ? 'No transfer is ready to validate. Confirm a draft transfer to reserve its stock, or pick another status.'
              : 'No transfer matches these filters.'
          }
          columns={[
            { label: 'Reference', cell: (t) => <Link to={`/inventory/transfers/${t.id}`}>{t.reference}</Link> },
            { label: 'Type', cell: (t) => t.type },
            { label: 'From → to', cell: (t) => `${t.sourceLocation} → ${t.destinationLocation}` },
            { label: 'Products', cell: (t) => t.moves.map((m) => `${qty(m.demandQty)} × ${m.productName}`).join(', ') },
            { label: 'Scheduled', cell: (t) => date(t.scheduledDate) },
            { label: 'Origin', cell: (t) => t.origin ?? <span className="muted">—</span> },
            { label: 'Status', cell: (t) => <TransferStatusBadge status={t.status} /> },
            {
              label: 'Actions',
              cell: (t) =>
                t.status === 'ready' || t.status === 'draft' ? (
                  <ActionButton variant="primary" action={() => validate(t)} onDone={list.reload}>
                    Validate <span className="visually-hidden">{t.reference}</span>
                  </ActionButton>
                ) : (
                  <span className="muted">—</span>
                ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}

function TransferView() {
  const { api } = useSession()
  const { id = '' } = useParams()
  const [validated, setValidated] = useState<Transfer | null>(null)
  const transfer = useLoad(() => api.get('/api/inventory/transfers/{id}', { params: { path: { id } } }), [id])
  const t = transfer.data
  // What each product's source location holds now (internal sources only), to see what validating takes from it.
  const atSource = useLoad(async () => {
    if (!t) return null
    const source = await api.get('/api/inventory/locations/{id}', { params: { path: { id: t.sourceLocationId } } })
    if (source.type !== 'internal') return null
    const held = await Promise.all(t.moves.map((m) => api.get('/api/inventory/products/{productId}/stock', { params: { path: { productId: m.productId } } })))
    return new Map(t.moves.map((m, i) => [m.productId, held[i]!.find((l) => l.locationId === t.sourceLocationId)?.quantity ?? 0]))
  }, [t?.id, t?.updatedAt])
  const open = t && (t.status === 'ready' || t.status === 'draft')
  return (
    <Page
      title={t ? `Transfer ${t.reference}` : 'Transfer'}
      actions={
        <>
          <Link to="/inventory/transfers">All transfers</Link>
          {t && open && (
            <>
              {t.status === 'draft' && (
                <ActionButton action={() => api.post('/api/inventory/transfers/{id}/confirm', { params: { path: { id } } })} onDone={transfer.reload}>
                  Confirm (reserve stock)
                </ActionButton>
              )}
              <ActionButton variant="primary" action={async () => setValidated(await api.post('/api/inventory/transfers/{id}/validate', { params: { path: { id } }, body: {} }))} onDone={transfer.reload}>
                Validate
              </ActionButton>
              <ActionButton variant="danger" confirm={`Cancel ${t.reference}? Its reservations are released.`} action={() => api.post('/api/inventory/transfers/{id}/cancel', { params: { path: { id } } })} onDone={transfer.reload}>
                Cancel transfer
              </ActionButton>
            </>
          )}
        </>
      }
    >
      <InventoryTabs />
      {validated && <Validated transfer={validated} />}
      <ErrorMessage error={transfer.error} />
      {!t && !transfer.error && <Loading />}
      {t && (
        <>
          <Card title="Details">
            <dl className="details">
              <dt>Status</dt>
              <dd>
                <TransferStatusBadge status={t.status} />
              </dd>
              <dt>Type</dt>
              <dd>{t.type}</dd>
              <dt>From</dt>
              <dd>
                {t.sourceLocation} <code>{t.sourceLocationId}</code>
              </dd>
              <dt>To</dt>
              <dd>
                {t.destinationLocation} <code>{t.destinationLocationId}</code>
              </dd>
              <dt>Scheduled</dt>
              <dd>{date(t.scheduledDate)}</dd>
              <dt>Origin</dt>
              <dd>{t.origin ?? '—'}</dd>
              {t.doneAt && (
                <>
                  <dt>Done</dt>
                  <dd>{dateTime(t.doneAt)}</dd>
                </>
              )}
              {t.backorderOf && (
                <>
                  <dt>Backorder of</dt>
                  <dd>
                    <Link to={`/inventory/transfers/${t.backorderOf.id}`}>{t.backorderOf.reference}</Link>
                  </dd>
                </>
              )}
              {t.backorder && (
                <>
                  <dt>Backorder</dt>
                  <dd>
                    <Link to={`/inventory/transfers/${t.backorder.id}`}>{t.backorder.reference}</Link>
                  </dd>
                </>
              )}
            </dl>
          </Card>
          <Card title="Moves">
            <ErrorMessage error={atSource.error} />
            <Table
              caption={`Moves of ${t.reference}`}
              rows={t.moves}
              rowKey={(m) => m.productId}
              empty="This transfer has no moves."
              columns={[
                { label: 'Product', cell: (m) => m.productName },
                { label: 'Demand', align: 'right', cell: (m) => qty(m.demandQty) },
                { label: 'Done', align: 'right', cell: (m) => qty(m.doneQty) },
                { label: 'Reserved', align: 'right', cell: (m) => qty(m.reservedQty) },
                ...(atSource.data ? [{ label: `At ${t.sourceLocation} now`, align: 'right' as const, cell: (m: Transfer['moves'][number]) => qty(atSource.data!.get(m.productId) ?? 0) }] : []),
              ]}
            />
          </Card>
        </>
      )}
    </Page>
  )
}
