// What the manufacturing pages share (docs/dashboard-manufacturing-crm.md):
// products found by name on the server (storable ones for what moves through
// stock), quantities as the API takes them, and the statuses in words.
import { useState } from 'react'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Badge, ErrorMessage, Field, useDebounced, useLoad, type Tone } from '../ui.tsx'

export type Bom = Schemas['Bom']
export type ProductionOrder = Schemas['ProductionOrder']
export type WorkOrder = Schemas['WorkOrder']
type ProductType = Schemas['Product']['type']

export const BOM_TYPES: Bom['type'][] = ['manufacture', 'phantom', 'subcontract']
export const bomTypeWord: Record<Bom['type'], string> = { manufacture: 'manufacture', phantom: 'kit (phantom)', subcontract: 'subcontract' }

export const ORDER_STATUSES: ProductionOrder['status'][] = ['draft', 'confirmed', 'in_progress', 'done', 'cancelled']
const orderWords: Record<string, string> = { in_progress: 'in progress', pending: 'to do' }
const orderTones: Record<string, Tone> = { draft: 'neutral', confirmed: 'info', in_progress: 'warn', done: 'good', cancelled: 'neutral', pending: 'neutral' }
export const orderWord = (status: string) => orderWords[status] ?? status

/** The badge of a production order's or a work order's status. */
export function MoBadge({ status }: { status: string }) {
  return <Badge tone={orderTones[status] ?? 'neutral'}>{orderWord(status)}</Badge>
}

/** A quantity as people read it: at most 6 decimals (the API's precision), no trailing zeros. */
export const qty = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 6 })

/** A quantity typed in a field: above 0 (up to the API's 1,000,000,000), else an Error naming `label`. */
export function positive(text: string | undefined, label: string): number {
  const value = Number((text ?? '').replace(/[\s,]/g, ''))
  if (!text?.trim() || !Number.isFinite(value) || value <= 0 || value > 1_000_000_000) throw new Error(`${label}: a number above 0, like 2 or 0.5.`)
  return value
}

interface Option {
  id: string
  name: string
  sku: string | null
  uom: string
}

/**
 * Products found by name or SKU on the server as one types (once the typing pauses), first 100 A to Z, of one
 * `type` when given; the products already chosen (`known`, and each one picked since) stay among the options.
 */
export function useProductSearch(type: ProductType | undefined, known: { id: string; name: string }[] = []) {
  const { api } = useSession()
  const [search, setSearch] = useState('')
  const wanted = useDebounced(search.trim())
  const found = useLoad(() => api.get('/api/products', { params: { query: { limit: 100, sortBy: 'name', sortOrder: 'asc', ...(type ? { type } : {}), ...(wanted ? { search: wanted } : {}) } } }), [wanted, type])
  const [picked, setPicked] = useState<Record<string, Option>>(() => Object.fromEntries(known.map((k) => [k.id, { id: k.id, name: k.name, sku: null, uom: '' }])))
  const rows: Option[] = found.data?.data ?? []
  const options = [...Object.values(picked).filter((p) => !rows.some((r) => r.id === p.id)), ...rows]
  return {
    search,
    setSearch,
    wanted,
    found,
    options,
    /** Keeps `id` among the options once chosen (a later search may not find it). */
    pick: (id: string) => {
      const p = options.find((o) => o.id === id)
      if (p) setPicked((m) => ({ ...m, [p.id]: p }))
      return p
    },
  }
}

export type ProductSearch = ReturnType<typeof useProductSearch>

/** The search box of a product search, with how many products match. */
export function ProductSearchBox({ label, products, kind }: { label: string; products: ProductSearch; /** "storable": said in the count. */ kind?: string }) {
  const total = products.found.data?.meta.total
  const what = kind ? `${kind} product` : 'product'
  return (
    <>
      <Field label={label} hint={total !== undefined ? `${total} ${what}${total === 1 ? '' : 's'} match${total === 1 ? 'es' : ''}${total > 100 ? ', first 100 shown' : ''}` : undefined}>
        <input type="search" value={products.search} onChange={(e) => products.setSearch(e.target.value)} autoComplete="off" placeholder="Name or SKU" />
      </Field>
      <ErrorMessage error={products.found.error} />
    </>
  )
}

/** The options of a product select: "choose a product", then each product by name (and SKU). */
export function ProductOptions({ products, none = 'choose a product' }: { products: ProductSearch; none?: string }) {
  return (
    <>
      <option value="">{products.options.length ? none : 'no product matches'}</option>
      {products.options.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name}
          {p.sku ? ` (${p.sku})` : ''}
        </option>
      ))}
    </>
  )
}
