// Products (docs/dashboard.md "Products"): the catalogue of goods and services,
// listed A to Z, created, edited and deleted, prices typed as money (12.50),
// sent to the API in cents.
import { Link } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Badge, CURRENCIES, Field, Form, formFields, ListView, money, useLoad, useUrlFilters } from '../ui.tsx'
import { BulkBar, selectColumn, useSelection } from '../bulk.tsx'
import { fromCents, toCents } from './finance.tsx'
import { ExportButton } from './ExportButton.tsx'
import { ChoiceFilter, currenciesWith, DeleteRow, EditRecord, emptyRecords, NewRecord, numberField, orNull, RecordList, RecordRoutes, useRecordList } from './records.tsx'

type Product = Schemas['Product']
type ProductType = Product['type']
const TYPES: ProductType[] = ['storable', 'consumable', 'service']

export function ProductsPage() {
  const { api } = useSession()
  const common = { what: 'product', listPath: '/products', Form: ProductForm }
  return (
    <RecordRoutes
      list={<ProductList />}
      create={<NewRecord {...common} create={(body: ProductBody) => api.post('/api/products', { body })} />}
      edit={
        <EditRecord
          {...common}
          load={(id) => api.get('/api/products/{id}', { params: { path: { id } } })}
          update={(id, body: ProductBody) => api.patch('/api/products/{id}', { params: { path: { id } }, body })}
          remove={(id) => api.delete('/api/products/{id}', { params: { path: { id } } })}
        />
      }
    />
  )
}

/** Products: searched by name or SKU (once the typing pauses), filtered by type, A to Z, paged; the filters live in the address. */
function ProductList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const type = f.choice('type', TYPES)
  const list = useLoad(() => api.get('/api/products', { params: { query: { page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(search ? { search } : {}), ...(type ? { type } : {}) } } }), [page, search, type])
  const rows = useRecordList(list, page, f.setPage)
  const selection = useSelection(list.data?.data, (p) => p.id)
  return (
    <RecordList
      title="Products"
      what="product"
      listPath="/products"
      notice={rows.notice}
      search={search}
      onSearch={(v) => f.set('search', v)}
      searchPlaceholder="Name or SKU"
      filters={
        <>
          <ChoiceFilter label="Type" value={type} values={TYPES} onChange={(v) => f.set('type', v)} />
          {/* The list as CSV through a report run, with these filters (docs/dashboard-platform.md "Export"). */}
          <ExportButton type="products" parameters={{ ...(search ? { search } : {}), ...(type ? { productType: type } : {}) }} />
        </>
      }
    >
      {Boolean(list.data?.data.length) && (
        <BulkBar
          selection={selection}
          what="products"
          name={(p) => p.name}
          onDone={list.reload}
          actions={[
            {
              label: 'Delete',
              danger: true,
              confirm: (n) => `Delete ${n} product${n === 1 ? '' : 's'}? This cannot be undone.`,
              run: (p) => api.delete('/api/products/{id}', { params: { path: { id: p.id } } }),
              done: (n) => `Deleted ${n} product${n === 1 ? '' : 's'}.`,
            },
          ]}
        />
      )}
      <ListView
        list={list}
        onPage={f.setPage}
        caption="Products"
        rowKey={(p) => p.id}
        empty={emptyRecords('product', '/products', Boolean(search || type))}
        columns={[
          selectColumn(selection, (p) => p.name),
          {
            label: 'Name',
            cell: (p) => (
              <>
                <Link to={`/products/${p.id}`}>{p.name}</Link> {p.licensed && <Badge tone="info">licensed</Badge>}
              </>
            ),
          },
          { label: 'SKU', cell: (p) => p.sku ?? '—' },
          { label: 'Type', cell: (p) => p.type },
          { label: 'Price', align: 'right', cell: (p) => money(p.price, p.currency) },
          { label: 'Cost', align: 'right', cell: (p) => money(p.cost, p.currency) },
          { label: 'Unit', cell: (p) => p.uom },
          { label: 'Reorder at', align: 'right', cell: (p) => p.reorderPoint ?? '—' },
          {
            label: 'Actions',
            cell: (p) => (
              <DeleteRow what="product" name={p.name} remove={() => api.delete('/api/products/{id}', { params: { path: { id: p.id } } })} onDone={() => rows.deleted(p.name)} />
            ),
          },
        ]}
      />
    </RecordList>
  )
}

type ProductBody = { name: string; sku: string | null; description: string | null; price: number; currency: string; type: ProductType; uom?: string; reorderPoint: number; cost: number | null }

/** An amount typed as money ("1,250.50") in cents; an Error naming the field when it is not one. */
function cents(text: string | undefined, label: string): number | undefined {
  if (!text) return undefined
  const value = toCents(text)
  if (value === undefined || value > Number.MAX_SAFE_INTEGER) throw new Error(`${label}: an amount like 12.50 (two decimals at most, not negative).`)
  return value
}

/** The body of a create or an edit from the form: money in cents, cleared fields as null (SKU, description, cost). */
function productBody(data: FormData): ProductBody {
  const f = formFields(data)
  return {
    name: f.name ?? '',
    sku: orNull(f.sku),
    description: orNull(f.description),
    price: cents(f.price, 'Price') ?? 0,
    currency: f.currency ?? 'usd',
    type: (f.type ?? 'storable') as ProductType,
    ...(f.uom ? { uom: f.uom } : {}),
    reorderPoint: numberField(f.reorderPoint, 'Reorder point') ?? 0,
    cost: cents(f.cost, 'Cost') ?? null,
  }
}

/** The catalogue fields of POST /products (the licensing fields of a connector module stay with the API and imports): a new product's, or `product`'s to edit. */
function ProductForm({ label, submitLabel, record: product, save, onDone }: { label: string; submitLabel: string; record?: Product; save: (body: ProductBody) => Promise<Product>; onDone: (p: Product) => void }) {
  const currencies = currenciesWith(CURRENCIES, product?.currency)
  return (
    <Form label={label} submitLabel={submitLabel} submit={(data) => save(productBody(data))} onDone={onDone}>
      <div className="row">
        <Field label="Name">
          <input name="name" required maxLength={200} defaultValue={product?.name} autoComplete="off" />
        </Field>
        <Field label="SKU" hint="Unique in the organization">
          <input name="sku" maxLength={64} defaultValue={product?.sku ?? ''} autoComplete="off" />
        </Field>
        <Field label="Type" hint="Only storable products are kept in stock">
          <select name="type" defaultValue={product?.type ?? 'storable'}>
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </Field>
      </div>
      <div className="row">
        <Field label="Price" hint="Per unit, e.g. 649.00">
          <input name="price" inputMode="decimal" className="narrow" required defaultValue={product ? fromCents(product.price) : ''} />
        </Field>
        <Field label="Currency">
          <select name="currency" defaultValue={product?.currency ?? 'usd'}>
            {currencies.map((c) => (
              <option key={c} value={c}>
                {c.toUpperCase()}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Cost" hint="What one unit costs us (optional)">
          <input name="cost" inputMode="decimal" className="narrow" defaultValue={product?.cost != null ? fromCents(product.cost) : ''} />
        </Field>
        <Field label="Unit of measure" hint="e.g. unit, kg, hour">
          <input name="uom" maxLength={20} defaultValue={product?.uom ?? 'unit'} />
        </Field>
        <Field label="Reorder point" hint="Stock level at which to reorder">
          <input name="reorderPoint" inputMode="decimal" className="narrow" defaultValue={product?.reorderPoint ?? '0'} />
        </Field>
      </div>
      <Field label="Description">
        <textarea name="description" maxLength={5000} rows={3} defaultValue={product?.description ?? ''} />
      </Field>
    </Form>
  )
}
