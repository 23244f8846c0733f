// Vendors (docs/dashboard.md "Purchase"): the contacts the organization buys
// from, A to Z, searched; a vendor is made and edited on the Contacts page
// (a contact with Vendor ticked), so this list links there.
import { useState } from 'react'
import { Link } from 'react-router'
import { useSession } from '../session.tsx'
import { Card, ErrorMessage, Field, ListView, Page, SearchInput, useDebounced, useLoad, useUrlFilters } from '../ui.tsx'

export function PurchaseVendorsPage() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const list = useLoad(() => api.get('/api/purchase/vendors', { params: { query: { page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(search ? { search } : {}) } } }), [page, search])
  return (
    <Page
      title="Vendors"
      actions={
        <Link className="button primary" to="/contacts/new">
          New vendor
        </Link>
      }
    >
      <Card>
        <div className="filters" role="search" aria-label="Filter vendors">
          <Field label="Search">
            <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Name or e-mail" />
          </Field>
        </div>
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Vendors"
          rowKey={(v) => v.id}
          empty={
            search ? (
              'No vendor matches this search.'
            ) : (
              <>
                No vendors yet. <Link to="/contacts/new">Create a contact</Link> and tick Vendor, then request a quotation from it.
              </>
            )
          }
          columns={[
            { label: 'Name', cell: (v) => <Link to={`/contacts/${v.id}`}>{v.name}</Link> },
            { label: 'E-mail', cell: (v) => v.email ?? '—' },
            { label: 'Payment terms', cell: (v) => v.paymentTerms ?? '—' },
            { label: 'Currency', cell: (v) => v.currency?.toUpperCase() ?? '—' },
            { label: 'Lead time', align: 'right', cell: (v) => (v.leadTimeDays === null ? '—' : `${v.leadTimeDays} d`) },
            { label: 'Request', cell: (v) => <Link to={`/purchase/orders/new?vendorId=${v.id}`}>New RFQ <span className="visually-hidden">to {v.name}</span></Link> },
          ]}
        />
      </Card>
    </Page>
  )
}

/**
 * Picks a vendor by name: a search box (sent once the typing pauses) and a
 * select of the first 20 vendors that match, A to Z. The vendor chosen when
 * the page opened (from the address) is loaded once and kept among the choices.
 */
export function VendorPicker({ value, onChange }: { value: string; onChange: (id: string, currency: string | null) => void }) {
  const { api } = useSession()
  const [search, setSearch] = useState('')
  const wanted = useDebounced(search.trim())
  const found = useLoad(() => api.get('/api/purchase/vendors', { params: { query: { limit: 20, sortBy: 'name', sortOrder: 'asc', ...(wanted ? { search: wanted } : {}) } } }), [wanted])
  const [initial] = useState(value)
  const chosen = useLoad(async () => (initial ? api.get('/api/purchase/vendors/{id}', { params: { path: { id: initial } } }) : null), [])
  const rows = found.data?.data ?? []
  const options = chosen.data && !rows.some((v) => v.id === chosen.data!.id) ? [chosen.data, ...rows] : rows
  return (
    <>
      <ErrorMessage error={chosen.error ?? found.error} />
      <Field label="Find vendor">
        <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} autoComplete="off" placeholder="Name or e-mail" />
      </Field>
      <Field label="Vendor" hint={found.data ? `${found.data.meta.total} match${found.data.meta.total === 1 ? '' : 'es'}${found.data.meta.total > rows.length ? `, first ${rows.length} shown` : ''}` : undefined}>
        <select
          value={value}
          required
          aria-busy={found.loading}
          onChange={(e) => {
            const v = options.find((o) => o.id === e.target.value)
            onChange(e.target.value, v?.currency ?? null)
          }}
        >
          <option value="">{options.length ? 'choose a vendor' : 'no vendor matches'}</option>
          {options.map((v) => (
            <option key={v.id} value={v.id}>
              {v.name}
              {v.email ? ` (${v.email})` : ''}
            </option>
          ))}
        </select>
      </Field>
    </>
  )
}
