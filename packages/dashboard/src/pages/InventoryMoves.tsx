// Inventory, Moves (docs/inventory.md "Dashboard page"): the stock ledger, filtered in the address.
import { Link } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Card, dateTime, ErrorMessage, Field, ListView, Page, SearchInput, useLoad, useUrlFilters } from '../ui.tsx'
import { ProductPicker, qty, InventoryTabs, useLocations } from './InventoryShared.tsx'

type StockMove = Schemas['StockMove']

/** Where a move came from: its transfer or adjustment, linked by its reference. */
export function MoveReference({ move }: { move: StockMove }) {
  if (move.transferId) return <Link to={`/inventory/transfers/${move.transferId}`}>{move.reference}</Link>
  if (move.adjustmentId) return <Link to={`/inventory/adjustments/${move.adjustmentId}`}>{move.reference}</Link>
  return <>{move.reference}</>
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/

/** GET /inventory/moves: product, location, reference (exact) and dates in the address, newest first. */
export function MovesView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const productId = f.get('product')
  const locationId = f.get('location')
  const reference = f.get('reference')
  // A date typed into the address by hand that is not a day is ignored, not sent.
  const from = ISO_DAY.test(f.get('from')) ? f.get('from') : ''
  const to = ISO_DAY.test(f.get('to')) ? f.get('to') : ''
  const locations = useLocations()
  const list = useLoad(
    () =>
      api.get('/api/inventory/moves', {
        params: {
          query: {
            page,
            limit: 20,
            sortBy: 'doneAt',
            sortOrder: 'desc',
            ...(productId ? { productId } : {}),
            ...(locationId ? { locationId } : {}),
            ...(reference ? { reference: reference.toUpperCase() } : {}),
            ...(from ? { from } : {}),
            ...(to ? { to } : {}),
          },
        },
      }),
    [page, productId, locationId, reference, from, to],
  )
  const known = list.data?.data.find((m) => m.product.id === productId)?.product
  const filtered = productId || locationId || reference || from || to
  return (
    <Page title="Inventory">
      <InventoryTabs />
      <Card title="Moves">
        <div className="filters filter-grid" role="search" aria-label="Filter moves">
          <ProductPicker label="Product" allowAll value={productId} known={known} onChange={(p) => f.set('product', p?.id ?? '')} />
          <Field label="Location">
            <select value={locationId} onChange={(e) => f.set('location', e.target.value)}>
              <option value="">all locations</option>
              {locations.list.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name} ({l.code})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Reference" hint="Exact, e.g. WH/ADJ/00001">
            <SearchInput value={reference} onSearch={(v) => f.set('reference', v)} maxLength={40} placeholder="WH/IN/00001" />
          </Field>
          <Field label="Done from">
            <input type="date" value={from} onChange={(e) => f.set('from', e.target.value)} />
          </Field>
          <Field label="Done to">
            <input type="date" value={to} onChange={(e) => f.set('to', e.target.value)} />
          </Field>
        </div>
        <ErrorMessage error={locations.error} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Stock moves"
          rowKey={(m) => m.id}
          empty={filtered ? 'No move matches these filters.' : 'No stock has moved yet. A validated transfer or an adjustment makes moves.'}
          columns={[
            { label: 'Done', cell: (m) => dateTime(m.doneAt) },
            { label: 'Reference', cell: (m) => <MoveReference move={m} /> },
            { label: 'Product', cell: (m) => m.product.name },
            { label: 'Quantity', align: 'right', cell: (m) => qty(m.quantity) },
            { label: 'From', cell: (m) => locations.name(m.sourceLocationId) },
            { label: 'To', cell: (m) => locations.name(m.destinationLocationId) },
          ]}
        />
      </Card>
    </Page>
  )
}
