import { useEffect } from 'react'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, Field, ListView, money, Page, useLoad, useUrlFilters } from '../ui.tsx'
import { CheckoutNotice } from './Licenses.tsx'

type Product = Schemas['Product']

/**
 * Pages that send the browser to the payment processor keep their button busy
 * until it leaves; back from there through the back/forward cache, they start
 * afresh instead of showing that button still busy.
 */
export function useFreshOnBack() {
  useEffect(() => {
    const onShow = (e: PageTransitionEvent) => e.persisted && window.location.reload()
    window.addEventListener('pageshow', onShow)
    return () => window.removeEventListener('pageshow', onShow)
  }, [])
}

const priceOf = (p: Product) => `${money(p.price, p.currency)}${p.billing === 'recurring' && p.interval ? ` / ${p.interval}` : ''}`

/**
 * Account, store (docs/billing.md "Checkout"): the connector modules for sale. Buy starts
 * a checkout and sends the browser to the payment processor's page, which
 * sends it back to Licenses (paid) or here (cancelled).
 */
export function StorePage() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const erpVersion = f.get('erpVersion')
  const list = useLoad(
    () => api.get('/api/products', { params: { query: { licensed: true, page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(erpVersion ? { erpVersion } : {}) } } }),
    [page, erpVersion],
  )
  // The ERP versions on sale (the catalogue of connectors is short), and the licenses the caller holds.
  const versions = useLoad(async () => {
    const all = await api.get('/api/products', { params: { query: { licensed: true, limit: 100 } } })
    return [...new Set(all.data.map((p) => p.erpVersion).filter((v): v is string => !!v))].sort((a, b) => parseFloat(b) - parseFloat(a))
  }, [])
  const owned = useLoad(() => api.get('/api/licenses'), [])
  const ownedOf = (p: Product) => owned.data?.filter((l) => l.productId === p.id && l.status === 'active').length ?? 0
  useFreshOnBack()
  const buy = async (p: Product) => {
    const origin = window.location.origin
    // A cancelled checkout comes back to the list as it was (its filter and page).
    const back = new URLSearchParams({ checkout: 'cancelled' })
    for (const [k, v] of f.params) if (k !== 'checkout' && k !== 'session') back.append(k, v)
    const checkout = await api.post('/api/billing/checkout', {
      body: { items: [{ productId: p.id, quantity: 1 }], successUrl: `${origin}/licenses?checkout=success&session={CHECKOUT_SESSION_ID}`, cancelUrl: `${origin}/store?${back}` },
    })
    // The processor's hosted page (the local processor's is served by this service).
    window.location.assign(checkout.url)
    // Keep the button busy while the browser leaves.
    await new Promise(() => undefined)
  }

  return (
    <Page title="Store">
      <CheckoutNotice />
      <Card
        title="Connector modules"
        actions={
          <Field label="ERP version">
            <select value={erpVersion} onChange={(e) => f.set('erpVersion', e.target.value)}>
              <option value="">all</option>
              {erpVersion && !versions.data?.includes(erpVersion) && <option>{erpVersion}</option>}
              {versions.data?.map((v) => (
                <option key={v}>{v}</option>
              ))}
            </select>
          </Field>
        }
      >
        <p className="muted">Each license is for one module and one ERP major version, and is activated on as many domains as its limit allows. Payment is handled by our payment processor.</p>
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Connector modules for sale"
          rowKey={(p) => p.id}
          empty={erpVersion ? `No connector for ERP ${erpVersion} yet. Pick another version.` : 'No connectors are for sale yet.'}
          columns={[
            {
              label: 'Connector',
              cell: (p) => (
                <div>
                  <strong>{p.name}</strong>
                  {p.description && <div className="muted">{p.description}</div>}
                  <div className="muted">
                    module <code>{p.moduleName}</code>
                  </div>
                </div>
              ),
            },
            { label: 'ERP version', cell: (p) => p.erpVersion },
            { label: 'Domains', align: 'right', cell: (p) => p.activationsLimit ?? 1 },
            { label: 'Billing', cell: (p) => (p.billing === 'recurring' ? <Badge tone="info">{`subscription, every ${p.interval ?? 'period'}`}</Badge> : <Badge>one-time</Badge>) },
            { label: 'Price', align: 'right', cell: (p) => <strong>{priceOf(p)}</strong> },
            { label: 'Yours', cell: (p) => (ownedOf(p) > 0 ? <Badge tone="good">{`${ownedOf(p)} active license${ownedOf(p) > 1 ? 's' : ''}`}</Badge> : <span className="muted">—</span>) },
            {
              label: 'Actions',
              cell: (p) => (
                <ActionButton variant="primary" action={() => buy(p)}>
                  Buy <span className="visually-hidden">{`${p.name} for ERP ${p.erpVersion}`}</span>
                </ActionButton>
              ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}
