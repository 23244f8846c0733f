// Inventory, Locations (docs/inventory.md "Dashboard page"): list, create, edit and delete, the
// warehouse picked by name.
import { Link, useNavigate, useParams } from 'react-router'
import { useSession } from '../session.tsx'
import { ActionButton, Card, ErrorMessage, Field, Form, formFields, ListView, Loading, Notice, Page, SearchInput, toast, useLoad, useUrlFilters } from '../ui.tsx'
import { DeleteRow } from './records.tsx'
import { LOCATION_TYPES, LocationTypeBadge, locationTypeWord, InventoryTabs, useLocations, warehousesOf, type Location, type LocationType } from './InventoryShared.tsx'

const SORTS = ['name', 'code'] as const

/** GET /inventory/locations: search (name or code) and type in the address, A to Z. */
export function LocationsView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const type = f.choice('type', LOCATION_TYPES)
  const sortBy = f.choice('sort', SORTS, 'name')
  // Every location (first 100), to name each row's warehouse by its internal locations.
  const all = useLocations()
  const warehouses = new Map(warehousesOf(all.list).map((w) => [w.id, w.label]))
  const list = useLoad(
    () => api.get('/api/inventory/locations', { params: { query: { page, limit: 20, sortBy, sortOrder: 'asc', ...(search ? { search } : {}), ...(type ? { type } : {}) } } }),
    [page, search, type, sortBy],
  )
  return (
    <Page
      title="Inventory"
      actions={
        <Link className="button primary" to="/inventory/locations/new">
          New location
        </Link>
      }
    >
      <InventoryTabs />
      <Card title="Locations">
        <div className="filters" role="search" aria-label="Filter locations">
          <Field label="Search">
            <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Name or code" />
          </Field>
          <Field label="Type">
            <select value={type} onChange={(e) => f.set('type', e.target.value)}>
              <option value="">all</option>
              {LOCATION_TYPES.map((t) => (
                <option key={t} value={t}>
                  {locationTypeWord(t)}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Sort by">
            <select value={sortBy} onChange={(e) => f.set('sort', e.target.value === 'name' ? '' : e.target.value)}>
              <option value="name">Name</option>
              <option value="code">Code</option>
            </select>
          </Field>
        </div>
        <ErrorMessage error={all.error} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Locations"
          rowKey={(l) => l.id}
          empty={search || type ? 'No location matches these filters.' : 'No locations yet.'}
          columns={[
            { label: 'Name', cell: (l) => <Link to={`/inventory/locations/${l.id}`}>{l.name}</Link> },
            { label: 'Code', cell: (l) => <code>{l.code}</code> },
            { label: 'Type', cell: (l) => <LocationTypeBadge type={l.type} /> },
            { label: 'Warehouse', cell: (l) => (l.warehouseId ? (warehouses.get(l.warehouseId) ?? 'A warehouse') : <span className="muted">—</span>) },
            {
              label: 'Actions',
              cell: (l) => (
                <DeleteRow
                  what="location"
                  name={l.name}
                  remove={() => api.delete('/api/inventory/locations/{id}', { params: { path: { id: l.id } } })}
                  onDone={() => {
                    toast(`${l.name} deleted.`)
                    list.reload()
                  }}
                />
              ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}

/** The fields of a location: code (new only), name, type and its warehouse, picked by name. */
function LocationFields({ location, warehouses }: { location?: Location; warehouses: { id: string; label: string }[] }) {
  return (
    <div className="row">
      {!location && (
        <Field label="Code" hint="Letters, digits, - and _; the id is LOC-<code>">
          <input name="code" required maxLength={30} pattern="[A-Za-z0-9_\-]{1,30}" autoComplete="off" />
        </Field>
      )}
      <Field label="Name" hint={location ? undefined : 'Empty: the code'}>
        <input name="name" maxLength={200} defaultValue={location?.name} required={Boolean(location)} />
      </Field>
      <Field label="Type">
        <select name="type" defaultValue={location?.type ?? 'internal'}>
          {LOCATION_TYPES.map((t) => (
            <option key={t} value={t}>
              {locationTypeWord(t)}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Warehouse">
        <select name="warehouseId" defaultValue={location ? (location.warehouseId ?? '') : (warehouses[0]?.id ?? '')}>
          <option value="">none</option>
          {warehouses.map((w) => (
            <option key={w.id} value={w.id}>
              {w.label}
            </option>
          ))}
        </select>
      </Field>
    </div>
  )
}

export function NewLocationView() {
  const { api } = useSession()
  const navigate = useNavigate()
  const all = useLocations()
  return (
    <Page title="New location">
      <InventoryTabs />
      <Card>
        <ErrorMessage error={all.error} />
        {!all.data && !all.error ? (
          <Loading />
        ) : (
          <Form
            label="New location"
            submitLabel="Create location"
            submit={(data) => {
              const f = formFields(data)
              return api.post('/api/inventory/locations', {
                body: { code: f.code ?? '', ...(f.name ? { name: f.name } : {}), type: (f.type ?? 'internal') as LocationType, warehouseId: f.warehouseId ?? null },
              })
            }}
            onDone={(l) => {
              toast(`${l.name} created (${l.id}).`)
              navigate('/inventory/locations')
            }}
          >
            <LocationFields warehouses={warehousesOf(all.list)} />
          </Form>
        )}
      </Card>
      <p>
        <Link to="/inventory/locations">Back to the locations</Link>
      </p>
    </Page>
  )
}

export function EditLocationView() {
  const { api } = useSession()
  const { id = '' } = useParams()
  const navigate = useNavigate()
  const all = useLocations()
  const location = useLoad(() => api.get('/api/inventory/locations/{id}', { params: { path: { id } } }), [id])
  const l = location.data
  return (
    <Page
      title={l ? l.name : 'Location'}
      actions={
        l && (
          <ActionButton
            variant="danger"
            confirm={`Delete the location ${l.name}? This cannot be undone.`}
            action={() => api.delete('/api/inventory/locations/{id}', { params: { path: { id } } })}
            onDone={() => {
              toast(`${l.name} deleted.`)
              navigate('/inventory/locations')
            }}
          >
            Delete location
          </ActionButton>
        )
      }
    >
      <InventoryTabs />
      <ErrorMessage error={location.error ?? all.error} />
      {(!l || !all.data) && !location.error && <Loading />}
      {l && all.data && (
        <Card title={`Location ${l.code}`}>
          <Notice>
            Id <code>{l.id}</code>: a location holding stock or named by a transfer keeps its type, and one with moves cannot be deleted.
          </Notice>
          <Form
            key={l.updatedAt}
            label="Edit location"
            submitLabel="Save changes"
            done={() => 'Changes saved.'}
            submit={(data) => {
              const f = formFields(data)
              // Only what changed: the type of a location holding stock cannot change, even to itself in a request.
              const type = (f.type ?? l.type) as LocationType
              const warehouseId = f.warehouseId ?? null
              return api.patch('/api/inventory/locations/{id}', {
                params: { path: { id } },
                body: { name: f.name ?? l.name, ...(type !== l.type ? { type } : {}), ...(warehouseId !== l.warehouseId ? { warehouseId } : {}) },
              })
            }}
            onDone={location.reload}
          >
            <LocationFields location={l} warehouses={warehousesOf(all.list)} />
          </Form>
        </Card>
      )}
      <p>
        <Link to="/inventory/locations">Back to the locations</Link>
      </p>
    </Page>
  )
}
