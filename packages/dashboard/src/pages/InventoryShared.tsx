// What the Inventory tabs share (docs/inventory.md "Dashboard page"): the tabs, quantities in words,
// the organization's locations and warehouses by name, and a storable product picked by name.
import { useState } from 'react'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Badge, Field, Tabs, useDebounced, useLoad, type Tone } from '../ui.tsx'

export type Location = Schemas['Location']
export type LocationType = Location['type']

/** The inventory's tabs: stock, transfers, adjustments, moves, locations. */
export function InventoryTabs() {
  return (
    <Tabs
      label="Inventory"
      tabs={[
        { to: '/inventory', label: 'Stock', end: true },
        { to: '/inventory/transfers', label: 'Transfers' },
        { to: '/inventory/adjustments', label: 'Adjustments' },
        { to: '/inventory/moves', label: 'Moves' },
        { to: '/inventory/locations', label: 'Locations' },
      ]}
    />
  )
}

export const qty = (n: number) => new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 }).format(n)
/** A signed quantity: "+3", "−2", "0". */
export const signedQty = (n: number) => (n > 0 ? `+${qty(n)}` : n < 0 ? `−${qty(-n)}` : '0')

export const LOCATION_TYPES: LocationType[] = ['internal', 'supplier', 'customer', 'production', 'inventory_loss']
const typeWords: Record<LocationType, string> = { internal: 'internal (stock)', supplier: 'supplier', customer: 'customer', production: 'production', inventory_loss: 'inventory loss' }
const typeTone: Record<LocationType, Tone> = { internal: 'good', supplier: 'info', customer: 'info', production: 'neutral', inventory_loss: 'warn' }
export const locationTypeWord = (t: LocationType) => typeWords[t]
export const LocationTypeBadge = ({ type }: { type: LocationType }) => <Badge tone={typeTone[type]}>{typeWords[type]}</Badge>

/**
 * The organization's locations, A to Z (the first 100, the API's page limit), to name the ids the
 * moves and adjustments carry and to fill the location selects: one call per page.
 */
export function useLocations() {
  const { api } = useSession()
  const loaded = useLoad(() => api.get('/api/inventory/locations', { params: { query: { limit: 100, sortBy: 'name', sortOrder: 'asc' } } }), [])
  const list = loaded.data?.data ?? []
  const byId = new Map(list.map((l) => [l.id, l]))
  return { ...loaded, list, name: (id: string) => byId.get(id)?.name ?? id, byId }
}

/**
 * The warehouses, known through their internal locations (warehouses have no route of their own),
 * named by them: "Warehouse of Stock, Shelf A".
 */
export function warehousesOf(locations: Location[]) {
  const byWarehouse = new Map<string, string[]>()
  for (const l of [...locations].sort((a, b) => a.code.localeCompare(b.code))) {
    if (l.warehouseId && l.type === 'internal') byWarehouse.set(l.warehouseId, [...(byWarehouse.get(l.warehouseId) ?? []), l.name])
  }
  for (const l of locations) if (l.warehouseId && !byWarehouse.has(l.warehouseId)) byWarehouse.set(l.warehouseId, [l.name])
  return [...byWarehouse].map(([id, names]) => ({ id, label: `Warehouse of ${names.slice(0, 2).join(', ')}${names.length > 2 ? '…' : ''}` }))
}

type Product = { id: string; name: string; sku?: string | null }

/**
 * A storable product picked by name or SKU: a search box (searched on the server once the typing
 * pauses) and a select of the first 20 matches, A to Z. A product chosen before (or named by the
 * address) stays a choice while another search runs. `allowAll`: a filter, whose empty choice is
 * every product.
 */
export function ProductPicker({ label, value, onChange, allowAll, known }: { label: string; value: string; onChange: (product: Product | null) => void; allowAll?: boolean; /** The chosen product when the page knows it (its name), so that it needs no look-up. */ known?: Product | null }) {
  const { api } = useSession()
  const [search, setSearch] = useState('')
  const wanted = useDebounced(search.trim())
  const found = useLoad(() => api.get('/api/products', { params: { query: { type: 'storable', limit: 20, sortBy: 'name', sortOrder: 'asc', ...(wanted ? { search: wanted } : {}) } } }), [wanted])
  const rows: Product[] = found.data?.data ?? []
  // A product named by the address (a shared link) and not among the matches: its name is asked once.
  const missing = value && known?.id !== value && !rows.some((p) => p.id === value) && found.data ? value : ''
  const named = useLoad(async () => (missing ? await api.get('/api/products/{id}', { params: { path: { id: missing } } }) : null), [missing])
  const extra = [known, named.data].find((p) => p && p.id === value && !rows.some((r) => r.id === value))
  const options = extra ? [extra, ...rows] : rows
  const total = found.data?.meta.total ?? 0
  return (
    <>
      <Field label={`Find ${label.toLowerCase()}`}>
        <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} autoComplete="off" placeholder="Name or SKU" />
      </Field>
      <Field label={label} hint={found.data && !allowAll ? `${total} match${total === 1 ? '' : 'es'}${total > rows.length ? `, first ${rows.length} shown` : ''}` : undefined}>
        <select value={value} required={!allowAll} aria-busy={found.loading} onChange={(e) => onChange(options.find((p) => p.id === e.target.value) ?? null)}>
          <option value="">{allowAll ? 'all products' : options.length ? 'choose a product' : 'no storable product matches'}</option>
          {options.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
              {p.sku ? ` (${p.sku})` : ''}
            </option>
          ))}
        </select>
      </Field>
    </>
  )
}
