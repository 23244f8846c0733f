// Bills of materials (docs/dashboard-manufacturing-crm.md "Bills of materials"):
// the list A to Z, a new BOM with its product and storable components picked by
// name, quantities and units, operations at work centres; a BOM's page with its
// cost (GET /manufacturing/boms/:id/cost) as money, its edit form and Delete.
import { useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { useSession } from '../session.tsx'
import { ActionButton, Card, ErrorMessage, Field, Form, formFields, ListView, Loading, money, Notice, Page, Table, useLoad, useUrlFilters } from '../ui.tsx'
import { DeleteRow, emptyRecords, NewRecord, RecordList, RecordRoutes, useRecordList } from './records.tsx'
import { BOM_TYPES, bomTypeWord, positive, ProductOptions, ProductSearchBox, qty, useProductSearch, type Bom } from './ManufacturingShared.tsx'

const LIST = '/manufacturing/boms'

export function ManufacturingBomsPage() {
  const { api } = useSession()
  return (
    <RecordRoutes
      list={<BomList />}
      create={<NewRecord what="BOM" listPath={LIST} Form={BomForm} create={(body: BomBody) => api.post('/api/manufacturing/boms', { body })} />}
      edit={<BomPage />}
    />
  )
}

/** BOMs A to Z by name (the API sorts BOMs by their own name, not their product's), searched by name. */
function BomList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const list = useLoad(() => api.get('/api/manufacturing/boms', { params: { query: { page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(search ? { search } : {}) } } }), [page, search])
  const rows = useRecordList(list, page, f.setPage)
  return (
    <RecordList title="Bills of materials" what="BOM" listPath={LIST} notice={rows.notice} search={search} onSearch={(v) => f.set('search', v)} searchPlaceholder="BOM name" filters={null}>
      <ListView
        list={list}
        onPage={f.setPage}
        caption="Bills of materials"
        rowKey={(b) => b.id}
        empty={search ? 'No BOM matches this search.' : emptyRecords('BOM', LIST, false)}
        columns={[
          { label: 'Name', cell: (b) => <Link to={`${LIST}/${b.id}`}>{b.name}</Link> },
          { label: 'Product', cell: (b) => b.product.name },
          { label: 'Makes', align: 'right', cell: (b) => `${qty(b.quantity)} ${b.uom}` },
          { label: 'Type', cell: (b) => bomTypeWord[b.type] },
          { label: 'Components', align: 'right', cell: (b) => b.components.length },
          { label: 'Operations', align: 'right', cell: (b) => b.operations.length },
          { label: 'Actions', cell: (b) => <DeleteRow what="BOM" name={b.name} remove={() => api.delete('/api/manufacturing/boms/{id}', { params: { path: { id: b.id } } })} onDone={() => rows.deleted(b.name)} /> },
        ]}
      />
    </RecordList>
  )
}

/** A BOM's page: its cost, its form (Save changes), Delete (confirmed, then back to the list). */
function BomPage() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const navigate = useNavigate()
  const [saved, setSaved] = useState(false)
  const bom = useLoad(() => api.get('/api/manufacturing/boms/{id}', { params: { path: { id } } }), [id])
  const b = bom.data
  return (
    <Page
      title={b ? b.name : 'BOM'}
      actions={
        <>
          <Link to={LIST}>All BOMs</Link>
          {b && (
            <Link className="button" to={`/manufacturing/orders/new?productId=${b.product.id}&bomId=${b.id}`}>
              New production order
            </Link>
          )}
          {b && (
            <ActionButton variant="danger" confirm={`Delete the BOM ${b.name}? This cannot be undone.`} action={() => api.delete('/api/manufacturing/boms/{id}', { params: { path: { id } } })} onDone={() => navigate(LIST, { state: { flash: `${b.name} deleted.` } })}>
              Delete BOM
            </ActionButton>
          )}
        </>
      }
    >
      <ErrorMessage error={bom.error} />
      {!b && !bom.error && <Loading />}
      {b && (
        <>
          {saved && <Notice>Changes saved.</Notice>}
          <BomCost bom={b} />
          <Card title="Edit">
            <BomForm
              key={b.updatedAt}
              label="Edit BOM"
              submitLabel="Save changes"
              record={b}
              save={(body) => api.patch('/api/manufacturing/boms/{id}', { params: { path: { id } }, body })}
              onDone={() => {
                setSaved(true)
                bom.reload()
              }}
            />
          </Card>
        </>
      )}
    </Page>
  )
}

/** The cost roll-up of one run of the BOM, in the currency of its product (the API adds the component costs as they are, without converting). */
function BomCost({ bom }: { bom: Bom }) {
  const { api } = useSession()
  const data = useLoad(async () => {
    const [cost, product] = await Promise.all([api.get('/api/manufacturing/boms/{id}/cost', { params: { path: { id: bom.id } } }), api.get('/api/products/{id}', { params: { path: { id: bom.product.id } } })])
    return { cost, currency: product.currency }
  }, [bom.id, bom.updatedAt])
  const d = data.data
  const m = (cents: number | null) => money(cents, d?.currency)
  const missing = d ? d.cost.components.filter((c) => d.cost.missingCosts.includes(c.productId)).map((c) => c.name) : []
  return (
    <Card title="Cost">
      <ErrorMessage error={data.error} />
      {!d && !data.error && <Loading />}
      {d && (
        <>
          <dl className="details totals">
            <dt>
              One run ({qty(d.cost.quantity)} {bom.uom})
            </dt>
            <dd data-testid="bom-total">
              <strong>{m(d.cost.total)}</strong>
            </dd>
            <dt>Per {bom.uom} of {bom.product.name}</dt>
            <dd data-testid="bom-unit-cost">{m(d.cost.unitCost)}</dd>
          </dl>
          {missing.length > 0 && (
            <p className="muted" role="note">
              No cost on {missing.join(', ')}: counted as {m(0)}. Set the cost on the product to include it.
            </p>
          )}
          <Table
            caption={`Cost of ${bom.name}`}
            rows={d.cost.components}
            rowKey={(c) => c.productId}
            empty="No components: the BOM costs nothing."
            columns={[
              { label: 'Component', cell: (c) => c.name },
              { label: 'Quantity', align: 'right', cell: (c) => qty(c.quantity) },
              { label: 'Unit cost', align: 'right', cell: (c) => (c.unitCost === null ? 'no cost' : m(c.unitCost)) },
              { label: 'Total', align: 'right', cell: (c) => m(c.total) },
            ]}
          />
          <p className="muted small">Operations carry no cost (the API has no work-centre rates). Amounts in {d.currency.toUpperCase()}, the currency of {bom.product.name}.</p>
        </>
      )}
    </Card>
  )
}

type BomBody = {
  name: string
  productId: string
  quantity: number
  uom?: string
  type: Bom['type']
  components: { productId: string; quantity: number; uom?: string }[]
  operations: { name: string; workcenter: string; durationMinutes: number }[]
}

interface ComponentLine {
  key: number
  productId: string
  quantity: string
  uom: string
}
interface OperationLine {
  key: number
  name: string
  workcenter: string
  durationMinutes: string
}
let lineKey = 0

/** The fields of POST /manufacturing/boms (and of its PATCH, which replaces the components and operations): a new BOM's, or `bom`'s to edit. */
function BomForm({ label, submitLabel, record: bom, save, onDone }: { label: string; submitLabel: string; record?: Bom; save: (body: BomBody) => Promise<Bom>; onDone: (b: Bom) => void }) {
  const [productId, setProductId] = useState(bom?.product.id ?? '')
  // The BOM's product may be of any type (a kit's product never moves); its components must be storable (docs/manufacturing.md "BOMs").
  const makes = useProductSearch(undefined, bom ? [bom.product] : [])
  const parts = useProductSearch('storable', bom ? bom.components.map((c) => ({ id: c.productId, name: c.name })) : [])
  const [components, setComponents] = useState<ComponentLine[]>(() => (bom?.components ?? []).map((c) => ({ key: ++lineKey, productId: c.productId, quantity: String(c.quantity), uom: c.uom })))
  const [operations, setOperations] = useState<OperationLine[]>(() => (bom?.operations ?? []).map((o) => ({ key: ++lineKey, name: o.name, workcenter: o.workcenter, durationMinutes: String(o.durationMinutes) })))
  const setComponent = (key: number, patch: Partial<ComponentLine>) => setComponents((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l)))
  const setOperation = (key: number, patch: Partial<OperationLine>) => setOperations((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l)))

  const body = (data: FormData): BomBody => {
    const f = formFields(data)
    if (!productId) throw new Error('Product: choose the product the BOM makes (search by name).')
    return {
      name: f.name ?? '',
      productId,
      quantity: positive(f.quantity ?? '1', 'Quantity'),
      ...(f.uom ? { uom: f.uom } : {}),
      type: (f.type ?? 'manufacture') as Bom['type'],
      components: components.map((c, i) => {
        if (!c.productId) throw new Error(`Component ${i + 1}: choose a product, or remove the line.`)
        // What the API would refuse (docs/manufacturing.md "BOMs"), said in the form's words before anything is sent.
        const name = parts.options.find((p) => p.id === c.productId)?.name ?? 'this product'
        if (c.productId === productId) throw new Error(`Component ${i + 1}: ${name} is the product the BOM makes; a product cannot be made from itself.`)
        if (components.findIndex((x) => x.productId === c.productId) < i) throw new Error(`Component ${i + 1}: ${name} is already a component; give one line with the total quantity.`)
        return { productId: c.productId, quantity: positive(c.quantity, `Component ${i + 1}, quantity`), ...(c.uom.trim() ? { uom: c.uom.trim() } : {}) }
      }),
      operations: operations.map((o, i) => {
        const minutes = Number(o.durationMinutes)
        if (!o.name.trim() || !o.workcenter.trim()) throw new Error(`Operation ${i + 1}: give its name and work centre, or remove it.`)
        if (!o.durationMinutes.trim() || !Number.isFinite(minutes) || minutes < 0 || minutes > 1_000_000) throw new Error(`Operation ${i + 1}: the duration is a number of minutes, 0 or more.`)
        return { name: o.name.trim(), workcenter: o.workcenter.trim(), durationMinutes: minutes }
      }),
    }
  }

  return (
    <Form label={label} submitLabel={submitLabel} submit={(data) => save(body(data))} onDone={onDone}>
      <div className="row">
        <Field label="Name" hint="e.g. Oak desk, standard">
          <input name="name" required maxLength={200} defaultValue={bom?.name} autoComplete="off" />
        </Field>
        <Field label="Type" hint="A kit is replaced by its components wherever it is used">
          <select name="type" defaultValue={bom?.type ?? 'manufacture'}>
            {BOM_TYPES.map((t) => (
              <option key={t} value={t}>
                {bomTypeWord[t]}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div className="row">
        <ProductSearchBox label="Find the product" products={makes} />
        <Field label="Product" hint="What one run of the BOM makes">
          <select value={productId} required onChange={(e) => setProductId(makes.pick(e.target.value)?.id ?? '')}>
            <ProductOptions products={makes} />
          </select>
        </Field>
        <Field label="Quantity" hint="Units one run makes">
          <input name="quantity" inputMode="decimal" className="narrow" required defaultValue={bom ? String(bom.quantity) : '1'} />
        </Field>
        <Field label="Unit" hint="The product's when left empty">
          <input name="uom" maxLength={20} defaultValue={bom?.uom ?? ''} />
        </Field>
      </div>
      <fieldset className="group">
        <legend>Components</legend>
        <div className="form">
          <p className="muted small">Storable products only: they are taken from stock when the product is made. Quantities are for one run of the BOM.</p>
          <div className="row">
            <ProductSearchBox label="Find components" products={parts} kind="storable" />
          </div>
          {parts.found.data && !parts.wanted && parts.found.data.meta.total === 0 && (
            <p className="empty">
              No storable product yet. <Link to="/products/new">Create a product</Link> of type storable, then come back.
            </p>
          )}
          {components.map((c, i) => (
            <div className="row" key={c.key}>
              <Field label={`Component ${i + 1}`}>
                <select value={c.productId} required onChange={(e) => setComponent(c.key, { productId: parts.pick(e.target.value)?.id ?? '' })}>
                  <ProductOptions products={parts} />
                </select>
              </Field>
              <Field label={`Quantity, component ${i + 1}`}>
                <input inputMode="decimal" className="narrow" required value={c.quantity} onChange={(e) => setComponent(c.key, { quantity: e.target.value })} />
              </Field>
              <Field label={`Unit, component ${i + 1}`} hint="The product's when empty">
                <input maxLength={20} value={c.uom} onChange={(e) => setComponent(c.key, { uom: e.target.value })} />
              </Field>
              <button type="button" style={{ alignSelf: 'flex-end' }} onClick={() => setComponents((ls) => ls.filter((x) => x.key !== c.key))}>
                Remove <span className="visually-hidden">component {i + 1}</span>
              </button>
            </div>
          ))}
          <div>
            <button type="button" onClick={() => setComponents((ls) => [...ls, { key: ++lineKey, productId: '', quantity: '1', uom: '' }])}>
              Add a component
            </button>
          </div>
        </div>
      </fieldset>
      <fieldset className="group">
        <legend>Operations</legend>
        <div className="form">
          <p className="muted small">Each operation becomes a work order of every production order made from this BOM.</p>
          {operations.map((o, i) => (
            <div className="row" key={o.key}>
              <Field label={`Operation ${i + 1}`}>
                <input maxLength={200} required value={o.name} onChange={(e) => setOperation(o.key, { name: e.target.value })} placeholder="e.g. Assemble" />
              </Field>
              <Field label={`Work centre, operation ${i + 1}`}>
                <input maxLength={200} required value={o.workcenter} onChange={(e) => setOperation(o.key, { workcenter: e.target.value })} placeholder="e.g. Bench 1" />
              </Field>
              <Field label={`Minutes, operation ${i + 1}`}>
                <input inputMode="decimal" className="narrow" required value={o.durationMinutes} onChange={(e) => setOperation(o.key, { durationMinutes: e.target.value })} />
              </Field>
              <button type="button" style={{ alignSelf: 'flex-end' }} onClick={() => setOperations((ls) => ls.filter((x) => x.key !== o.key))}>
                Remove <span className="visually-hidden">operation {i + 1}</span>
              </button>
            </div>
          ))}
          <div>
            <button type="button" onClick={() => setOperations((ls) => [...ls, { key: ++lineKey, name: '', workcenter: '', durationMinutes: '30' }])}>
              Add an operation
            </button>
          </div>
        </div>
      </fieldset>
    </Form>
  )
}
