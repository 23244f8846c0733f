// Inventory, Adjustments (docs/inventory.md "Dashboard page"): the counts of a location, a new count
// with its products picked by name, and an adjustment with the moves it posted.
import { useEffect, useRef, useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { isApiError, useSession } from '../session.tsx'
import { Card, date, dateTime, ErrorMessage, Field, Form, ListView, Loading, Page, Table, toast, useLoad, useUrlFilters } from '../ui.tsx'
import { MoveReference } from './InventoryMoves.tsx'
import { ProductPicker, qty, signedQty, InventoryTabs, useLocations } from './InventoryShared.tsx'

type Adjustment = Schemas['Adjustment']

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/
const todayUtc = () => new Date().toISOString().slice(0, 10)

/** "Widget +3, Gadget −2": what an adjustment changed, in a few words. */
const changes = (a: Adjustment) => a.lines.map((l) => `${l.productName} ${signedQty(l.difference)}`).join(', ')

/** GET /inventory/adjustments: location and dates in the address, newest first. */
export function AdjustmentsView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const locationId = f.get('location')
  const from = ISO_DAY.test(f.get('from')) ? f.get('from') : ''
  const to = ISO_DAY.test(f.get('to')) ? f.get('to') : ''
  const locations = useLocations()
  const list = useLoad(
    () => api.get('/api/inventory/adjustments', { params: { query: { page, limit: 20, sortBy: 'date', sortOrder: 'desc', ...(locationId ? { locationId } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) } } }),
    [page, locationId, from, to],
  )
  return (
    <Page
      title="Inventory"
      actions={
        <Link className="button primary" to="/inventory/adjustments/new">
          New adjustment
        </Link>
      }
    >
      <InventoryTabs />
      <Card title="Adjustments">
        <div className="filters" role="search" aria-label="Filter adjustments">
          <Field label="Location">
            <select value={locationId} onChange={(e) => f.set('location', e.target.value)}>
              <option value="">all locations</option>
              {locations.list
                .filter((l) => l.type === 'internal')
                .map((l) => (
                  <option key={l.id} value={l.id}>
                    {l.name} ({l.code})
                  </option>
                ))}
            </select>
          </Field>
          <Field label="Dated from">
            <input type="date" value={from} onChange={(e) => f.set('from', e.target.value)} />
          </Field>
          <Field label="Dated to">
            <input type="date" value={to} onChange={(e) => f.set('to', e.target.value)} />
          </Field>
        </div>
        <ErrorMessage error={locations.error} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Inventory adjustments"
          rowKey={(a) => a.id}
          empty={
            locationId || from || to ? (
              'No adjustment matches these filters.'
            ) : (
              <>
                No adjustments yet. <Link to="/inventory/adjustments/new">Count a location</Link> to set what it holds.
              </>
            )
          }
          columns={[
            { label: 'Reference', cell: (a) => <Link to={`/inventory/adjustments/${a.id}`}>{a.reference}</Link> },
            { label: 'Date', cell: (a) => date(a.date) },
            { label: 'Location', cell: (a) => locations.name(a.locationId) },
            { label: 'Changes', cell: (a) => changes(a) },
            { label: 'Reason', cell: (a) => a.reason ?? <span className="muted">—</span> },
          ]}
        />
      </Card>
    </Page>
  )
}

interface Line {
  key: number
  product: { id: string; name: string } | null
  counted: string
}

/** What `text` says as a counted quantity: a number from 0, or undefined. */
function countOf(text: string): number | undefined {
  const t = text.trim().replace(/,/g, '')
  if (!/^\d+(\.\d+)?$/.test(t)) return undefined
  const n = Number(t)
  return n <= 1_000_000_000 ? n : undefined
}

/**
 * The API's refusal of a count made against held figures that have moved since, as a sentence
 * naming each product with both figures; undefined for any other error. The API's words
 * (docs/inventory.md "Adjustments"): lines[<i>].theoreticalQty <sent> is not what <location> holds (<held>).
 */
function staleLines(error: unknown, lines: Line[], locationName: string): string | undefined {
  if (!isApiError(error) || error.code !== 'VALIDATION_FAILED') return undefined
  const said = (Array.isArray(error.detail) ? error.detail : [error.detail])
    .map((m) => /^lines\[(\d+)\]\.theoreticalQty (\S+) is not what \S+ holds \(([^)]+)\)/.exec(m))
    .filter((m) => m !== null)
    .map(([, i, shown, now]) => `${lines[Number(i)]?.product?.name ?? `line ${Number(i) + 1}`}: ${now} now, not ${shown}`)
  if (said.length === 0) return undefined
  return `Nothing was posted: the stock of ${locationName} moved while you counted (${said.join('; ')}). The figures held now are shown again: check the counts, then post.`
}

/** What the location holds of the line's product now (GET /inventory/products/:id/stock), told to the form. */
function HeldNow({ productId, locationId, onHeld }: { productId: string; locationId: string; onHeld: (held: number | undefined) => void }) {
  const { api } = useSession()
  const stock = useLoad(async () => ((await api.get('/api/inventory/products/{productId}/stock', { params: { path: { productId } } })).find((l) => l.locationId === locationId)?.quantity ?? 0), [productId, locationId])
  const report = useRef(onHeld)
  report.current = onHeld
  useEffect(() => report.current(stock.loading ? undefined : stock.data), [stock.data, stock.loading])
  if (stock.error) return <ErrorMessage error={stock.error} />
  return <>{stock.data === undefined || stock.loading ? '…' : qty(stock.data)}</>
}

/**
 * POST /inventory/adjustments: an internal location, the date (today by default) and reason, and
 * lines of a product picked by name with the quantity counted. Each line shows what the location
 * holds now and the difference the count posts; the held figure is sent as theoreticalQty, so
 * that a count made against figures that have moved since is refused by the API, not posted.
 */
export function NewAdjustmentView() {
  const { api } = useSession()
  const navigate = useNavigate()
  const locations = useLocations()
  const internal = locations.list.filter((l) => l.type === 'internal')
  const [locationId, setLocationId] = useState('')
  const [day, setDay] = useState(todayUtc())
  const [reason, setReason] = useState('')
  const next = useRef(1)
  const [lines, setLines] = useState<Line[]>([{ key: 0, product: null, counted: '' }])
  const [held, setHeld] = useState<Record<number, number | undefined>>({})
  const [refresh, setRefresh] = useState(0)
  const location = locationId || internal[0]?.id || ''
  const update = (key: number, patch: Partial<Line>) => setLines((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l)))
  const ids = lines.map((l) => l.product?.id).filter(Boolean)
  const blocked = !location
    ? 'Choose a location.'
    : lines.some((l) => !l.product)
      ? 'Choose a product on every line.'
      : new Set(ids).size !== ids.length
        ? 'A product is on two lines: count it once.'
        : lines.some((l) => countOf(l.counted) === undefined)
          ? 'Type the quantity counted on every line (a number from 0, like 12 or 2.5).'
          : !ISO_DAY.test(day) || day > todayUtc()
            ? 'The date must be today or before.'
            : null
  return (
    <Page title="New adjustment">
      <InventoryTabs />
      <ErrorMessage error={locations.error} />
      {!locations.data && !locations.error && <Loading />}
      {locations.data && (
        <Card>
          <Form
            label="New adjustment"
            submitLabel="Post adjustment"
            blocked={blocked}
            submit={async () => {
              try {
                return await api.post('/api/inventory/adjustments', {
                  body: {
                    locationId: location,
                    // Today is left to the API (now); another day is that day's start (UTC).
                    ...(day !== todayUtc() ? { date: day } : {}),
                    ...(reason.trim() ? { reason: reason.trim() } : {}),
                    lines: lines.map((l) => ({ productId: l.product!.id, realQty: countOf(l.counted)!, ...(held[l.key] !== undefined ? { theoreticalQty: held[l.key] } : {}) })),
                  },
                })
              } catch (error) {
                const stale = staleLines(error, lines, internal.find((l) => l.id === location)?.name ?? location)
                if (!stale) throw error
                // The held figures are read again, so that the next post counts against them.
                setRefresh((n) => n + 1)
                throw new Error(stale)
              }
            }}
            onDone={(a) => {
              toast(`${a.reference} posted: ${changes(a)}.`)
              navigate(`/inventory/adjustments/${a.id}`)
            }}
          >
            <div className="row">
              <Field label="Location" hint="An internal location: what it holds is counted">
                <select value={location} onChange={(e) => setLocationId(e.target.value)} required>
                  {internal.length === 0 && <option value="">no internal location</option>}
                  {internal.map((l) => (
                    <option key={l.id} value={l.id}>
                      {l.name} ({l.code})
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Date">
                <input type="date" value={day} max={todayUtc()} onChange={(e) => setDay(e.target.value)} required />
              </Field>
              <Field label="Reason">
                <input value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} placeholder="Yearly count" />
              </Field>
            </div>
            <fieldset className="lines">
              <legend>Products counted</legend>
              {lines.map((l, i) => {
                const count = countOf(l.counted)
                const h = held[l.key]
                return (
                  <div key={l.key} className="row adjustment-line" role="group" aria-label={`Line ${i + 1}`}>
                    <ProductPicker label={`Product, line ${i + 1}`} value={l.product?.id ?? ''} known={l.product} onChange={(p) => update(l.key, { product: p ? { id: p.id, name: p.name } : null })} />
                    <Field label={`Counted, line ${i + 1}`}>
                      <input inputMode="decimal" value={l.counted} onChange={(e) => update(l.key, { counted: e.target.value })} required />
                    </Field>
                    <dl className="details">
                      <dt>Held now</dt>
                      <dd>{l.product && location ? <HeldNow key={refresh} productId={l.product.id} locationId={location} onHeld={(v) => setHeld((m) => (m[l.key] === v ? m : { ...m, [l.key]: v }))} /> : '—'}</dd>
                      <dt>Difference</dt>
                      <dd>{l.product && count !== undefined && h !== undefined ? signedQty(count - h) : '—'}</dd>
                    </dl>
                    <button
                      type="button"
                      disabled={lines.length === 1}
                      onClick={() => {
                        setLines((ls) => ls.filter((x) => x.key !== l.key))
                        setHeld((m) => ({ ...m, [l.key]: undefined }))
                      }}
                    >
                      Remove <span className="visually-hidden">line {i + 1}</span>
                    </button>
                  </div>
                )
              })}
              <button type="button" onClick={() => setLines((ls) => [...ls, { key: next.current++, product: null, counted: '' }])}>
                Add a product
              </button>
            </fieldset>
          </Form>
        </Card>
      )}
      <p>
        <Link to="/inventory/adjustments">Back to the adjustments</Link>
      </p>
    </Page>
  )
}

/** GET /inventory/adjustments/:id and the moves it posted (GET /inventory/moves?reference=). */
export function AdjustmentView() {
  const { api } = useSession()
  const { id = '' } = useParams()
  const locations = useLocations()
  const adjustment = useLoad(() => api.get('/api/inventory/adjustments/{id}', { params: { path: { id } } }), [id])
  const a = adjustment.data
  const moves = useLoad(async () => (a ? api.get('/api/inventory/moves', { params: { query: { reference: a.reference, limit: 100, sortBy: 'doneAt', sortOrder: 'asc' } } }) : undefined), [a?.reference])
  return (
    <Page
      title={a ? `Adjustment ${a.reference}` : 'Adjustment'}
      actions={
        <>
          <Link to="/inventory/adjustments">All adjustments</Link>
          <Link className="button primary" to="/inventory/adjustments/new">
            New adjustment
          </Link>
        </>
      }
    >
      <InventoryTabs />
      <ErrorMessage error={adjustment.error ?? locations.error} />
      {!a && !adjustment.error && <Loading />}
      {a && (
        <>
          <Card title="Details">
            <dl className="details">
              <dt>Location</dt>
              <dd>
                {locations.name(a.locationId)} <code>{a.locationId}</code>
              </dd>
              <dt>Date</dt>
              <dd>{dateTime(a.date)}</dd>
              <dt>Reason</dt>
              <dd>{a.reason ?? '—'}</dd>
            </dl>
          </Card>
          <Card title="Lines">
            <Table
              caption={`Lines of ${a.reference}`}
              rows={a.lines}
              rowKey={(l) => l.productId}
              empty="This adjustment has no lines."
              columns={[
                { label: 'Product', cell: (l) => l.productName },
                { label: 'Held before', align: 'right', cell: (l) => qty(l.theoreticalQty) },
                { label: 'Counted', align: 'right', cell: (l) => qty(l.realQty) },
                { label: 'Difference', align: 'right', cell: (l) => signedQty(l.difference) },
              ]}
            />
          </Card>
          <Card title="Moves">
            <ErrorMessage error={moves.error} />
            {!moves.data && !moves.error && <Loading />}
            {moves.data && (
              <Table
                caption={`Moves of ${a.reference}`}
                rows={moves.data.data}
                rowKey={(m) => m.id}
                empty="No stock moved: every count equalled what the location held."
                columns={[
                  { label: 'Reference', cell: (m) => <MoveReference move={m} /> },
                  { label: 'Product', cell: (m) => m.product.name },
                  { label: 'Quantity', align: 'right', cell: (m) => qty(m.quantity) },
                  { label: 'From', cell: (m) => locations.name(m.sourceLocationId) },
                  { label: 'To', cell: (m) => locations.name(m.destinationLocationId) },
                  { label: 'Done', cell: (m) => dateTime(m.doneAt) },
                ]}
              />
            )}
            <p>
              <Link to={`/inventory/moves?reference=${encodeURIComponent(a.reference)}`}>These moves in the ledger</Link>
            </p>
          </Card>
        </>
      )}
    </Page>
  )
}
