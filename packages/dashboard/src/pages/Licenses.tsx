import { useState } from 'react'
import { useSearchParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, CopyButton, date, Empty, ErrorMessage, Field, Form, formFields, ListView, Loading, Notice, Page, SearchInput, Table, useDebounced, useLoad, useUrlFilters, type Tone } from '../ui.tsx'

type License = Schemas['License']
type AdminLicense = Schemas['AdminLicense']
/** A holder as the pickers show it: a user (admins) or a customer account (support). */
type Holder = Schemas['LicenseHolder'] | Schemas['User']
type Status = License['status']
const STATUSES: Status[] = ['active', 'expired', 'inactive', 'suspended', 'revoked']

const statusTone: Record<Status, Tone> = { active: 'good', inactive: 'neutral', suspended: 'warn', expired: 'bad', revoked: 'bad' }

export function StatusBadge({ status }: { status: Status }) {
  return <Badge tone={statusTone[status]}>{status}</Badge>
}

/** The notice after the payment processor sends the buyer back (?checkout=success or cancelled). */
export function CheckoutNotice() {
  const [params, setParams] = useSearchParams()
  const checkout = params.get('checkout')
  if (checkout !== 'success' && checkout !== 'cancelled') return null
  const dismiss = () => setParams((p) => (p.delete('checkout'), p.delete('session'), p), { replace: true })
  return (
    <div className="notice-row">
      {checkout === 'success' ? (
        <Notice>Payment received, thank you. Your license is listed below as soon as the payment processor confirms it; the keys are also on their way by e-mail.</Notice>
      ) : (
        <div className="notice notice-muted" role="status">
          Checkout cancelled: nothing was charged.
        </div>
      )}
      <button type="button" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  )
}

/** Account, licenses (docs/licenses.md "License client endpoints"): the caller's own licenses, the domains each is activated on, and releasing a domain. */
export function LicensesPage() {
  const { api } = useSession()
  const list = useLoad(() => api.get('/api/licenses'), [])
  return (
    <Page title="Licenses" actions={<button type="button" onClick={list.reload}>Refresh</button>}>
      <CheckoutNotice />
      <ErrorMessage error={list.error} />
      {!list.data && !list.error && <Loading />}
      {list.data && list.data.length === 0 && <Empty>You have no licenses yet. Buy a connector in the Store; its license key appears here once the payment is confirmed.</Empty>}
      {list.data?.map((l) => (
        <Card
          key={l.id}
          title={`${l.product.name}`}
          actions={
            <span className="license-meta">
              <StatusBadge status={l.status} /> <span className="muted">ERP {l.erpVersion} · module</span> <code>{l.moduleName}</code>
            </span>
          }
        >
          <div className="secret-value">
            <code>{l.key}</code>
            <CopyButton text={l.key} label="Copy key" />
          </div>
          <dl className="details">
            <dt>Activations</dt>
            <dd>
              {l.activationsCount} of {l.activationsLimit} domain{l.activationsLimit === 1 ? '' : 's'}
            </dd>
            <dt>Expires</dt>
            <dd>{l.expiresAt ? date(l.expiresAt) : 'never (perpetual)'}</dd>
            <dt>Bought</dt>
            <dd>{date(l.createdAt)}</dd>
          </dl>
          <Table
            caption={`Domains of ${l.key}`}
            rows={l.domains}
            rowKey={(d) => d}
            empty="Not activated on any domain yet. Enter the key in the connector's settings in your ERP to activate it."
            columns={[
              { label: 'Domain', cell: (d) => <code>{d}</code> },
              {
                label: 'Actions',
                cell: (d) => (
                  <ActionButton
                    variant="danger"
                    confirm={`Deactivate ${d}? The connector there stops working until it is activated again, and the slot is free for another domain.`}
                    action={() => api.post('/api/licenses/deactivate', { body: { key: l.key, domain: d } })}
                    onDone={list.reload}
                  >
                    Deactivate <span className="visually-hidden">{d}</span>
                  </ActionButton>
                ),
              },
            ]}
          />
        </Card>
      ))}
    </Page>
  )
}

/** Licenses of the organization for admin and support: issue by hand, suspend, reinstate, revoke (docs/licenses.md, Administration). */
export function AdminLicensesPage() {
  const { api, role } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const status = f.choice('status', STATUSES)
  const productId = f.get('productId')
  const key = f.get('key')
  const userId = f.get('userId')
  const [issued, setIssued] = useState<AdminLicense | null>(null)
  const products = useLoad(() => api.get('/api/products', { params: { query: { licensed: true, limit: 100, sortBy: 'name', sortOrder: 'asc' } } }), [])
  // The holder filter: admins may list every user; support the customer accounts (GET /admin/license-holders, 20 at most).
  const users = useLoad(
    async (): Promise<Holder[]> =>
      role === 'admin'
        ? (await api.get('/api/users', { params: { query: { limit: 100, sortBy: 'name', sortOrder: 'asc' } } })).data
        : (await api.get('/api/admin/license-holders', { params: { query: { limit: 20 } } })).data,
    [role],
  )
  const list = useLoad(
    () =>
      api.get('/api/admin/licenses', {
        params: { query: { page, limit: 20, sortBy: 'createdAt', sortOrder: 'desc', ...(status ? { status } : {}), ...(productId ? { productId } : {}), ...(key ? { key } : {}), ...(userId ? { userId } : {}) } },
      }),
    [page, status, productId, key, userId],
  )
  // The API answers each license's holder by name (docs/licenses.md "Holders by name"); null to support for a staff account.
  const holder = (l: AdminLicense) => {
    if (l.holder)
      return (
        <span>
          {l.holder.name}
          <br />
          <span className="muted small">{l.holder.email}</span>
        </span>
      )
    if (l.userId) return <span className="muted">A staff account</span>
    return <span className="muted">No holder</span>
  }
  // The holder filter shows the chosen holder's name even when it is not among the first users listed.
  const listedHolder = userId ? list.data?.data.find((l) => l.userId === userId)?.holder : undefined
  const filterHolders = [...(users.data ?? []), ...(listedHolder && !users.data?.some((u) => u.id === userId) ? [listedHolder] : [])]
  const transition = (l: AdminLicense, action: 'suspend' | 'reinstate' | 'revoke') => () => {
    const params = { path: { id: l.id } }
    if (action === 'suspend') return api.post('/api/admin/licenses/{id}/suspend', { params })
    if (action === 'reinstate') return api.post('/api/admin/licenses/{id}/reinstate', { params })
    return api.post('/api/admin/licenses/{id}/revoke', { params })
  }

  return (
    <Page title="Licenses (admin)">
      <Card title="Issue a license">
        <ErrorMessage error={products.error ?? users.error} />
        <Form
          label="Issue a license"
          submitLabel="Issue license"
          submit={async (data) => {
            const f = formFields(data)
            return api.post('/api/admin/licenses', {
              body: {
                productId: f.productId ?? '',
                userId: f.userId ?? '',
                ...(f.activationsLimit ? { activationsLimit: Number(f.activationsLimit) } : {}),
                ...(f.expiresAt ? { expiresAt: new Date(`${f.expiresAt}T23:59:59`).toISOString() } : {}),
              },
            })
          }}
          onDone={(l) => {
            setIssued(l)
            list.reload()
          }}
        >
          <div className="row">
            <Field label="Product">
              <select name="productId" required defaultValue="">
                <option value="" disabled>
                  Choose a connector
                </option>
                {products.data?.data.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name} (ERP {p.erpVersion})
                  </option>
                ))}
              </select>
            </Field>
            <HolderPicker staff={role === 'admin'} />
            <Field label="Activations limit" hint="Domains; empty: the product's default">
              <input name="activationsLimit" type="number" min={1} max={10000} />
            </Field>
            <Field label="Expires on" hint="Empty: the product's default">
              <input name="expiresAt" type="date" />
            </Field>
          </div>
        </Form>
        {issued && (
          <div className="secret" role="status">
            <p>
              Issued license <code>{issued.key}</code> for {issued.product.name}
              {issued.holder ? ` to ${issued.holder.name} (${issued.holder.email})` : ''}.
            </p>
          </div>
        )}
      </Card>
      <Card
        title="Licenses"
        actions={
          <div className="filters">
            <Field label="Key">
              <SearchInput value={key} onSearch={(v) => f.set('key', v)} placeholder="Exact license key" maxLength={64} />
            </Field>
            <Field label="Holder">
              <select value={userId} onChange={(e) => f.set('userId', e.target.value)}>
                <option value="">all</option>
                {filterHolders.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Status">
              <select value={status} onChange={(e) => f.set('status', e.target.value)}>
                <option value="">all</option>
                {STATUSES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            </Field>
            <Field label="Product">
              <select value={productId} onChange={(e) => f.set('productId', e.target.value)}>
                <option value="">all</option>
                {products.data?.data.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
        }
      >
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Licenses of the organization"
          rowKey={(l) => l.id}
          empty={status || productId || key || userId ? 'No license matches these filters.' : 'No licenses yet. Issue one above, or sell connectors in the Store.'}
          columns={[
            { label: 'Key', cell: (l) => <code className="nowrap">{l.key}</code> },
            {
              label: 'Product',
              cell: (l) => (
                <span>
                  {l.product.name}
                  <br />
                  <span className="muted small">ERP {l.erpVersion}</span>
                </span>
              ),
            },
            { label: 'Holder', cell: (l) => holder(l) },
            { label: 'Status', cell: (l) => <StatusBadge status={l.status} /> },
            { label: 'Activations', align: 'right', cell: (l) => `${l.activationsCount} / ${l.activationsLimit}` },
            { label: 'Expires', cell: (l) => (l.expiresAt ? date(l.expiresAt) : 'never') },
            {
              label: 'Actions',
              cell: (l) => (
                <div className="actions">
                  {l.status === 'active' && (
                    <ActionButton action={transition(l, 'suspend')} onDone={list.reload}>
                      Suspend <span className="visually-hidden">{l.key}</span>
                    </ActionButton>
                  )}
                  {l.status === 'suspended' && (
                    <ActionButton action={transition(l, 'reinstate')} onDone={list.reload}>
                      Reinstate <span className="visually-hidden">{l.key}</span>
                    </ActionButton>
                  )}
                  {l.status !== 'revoked' && (
                    <ActionButton variant="danger" confirm={`Revoke ${l.key}? This cannot be undone: the connector stops working on every domain.`} action={transition(l, 'revoke')} onDone={list.reload}>
                      Revoke <span className="visually-hidden">{l.key}</span>
                    </ActionButton>
                  )}
                </div>
              ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}

/**
 * The holder of a license to issue, picked by name or e-mail: a search box
 * (searched on the server once the typing pauses) and a select of the first
 * 20 matches, A to Z; the select puts the account's id into the form's
 * `userId`. Admins search every user (GET /users); support, who may not list
 * users, the organization's customer accounts (GET /admin/license-holders).
 */
function HolderPicker({ staff }: { staff: boolean }) {
  const { api } = useSession()
  const [search, setSearch] = useState('')
  // The account chosen stays a choice while another search runs.
  const [chosen, setChosen] = useState<Holder | null>(null)
  const wanted = useDebounced(search.trim())
  const found = useLoad(async (): Promise<{ data: Holder[]; meta: Schemas['PageMeta'] }> => {
    const query = { limit: 20, ...(wanted ? { search: wanted } : {}) }
    return staff ? api.get('/api/users', { params: { query: { ...query, sortBy: 'name', sortOrder: 'asc' } } }) : api.get('/api/admin/license-holders', { params: { query } })
  }, [wanted, staff])
  const matches = found.data?.data ?? []
  const rows = chosen && !matches.some((u) => u.id === chosen.id) ? [chosen, ...matches] : matches
  const total = found.data?.meta.total ?? 0
  return (
    <>
      <Field label={staff ? 'Find a user' : 'Find a customer'}>
        <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} autoComplete="off" placeholder="Name or e-mail" />
      </Field>
      <Field label="Holder" hint={found.data ? `${total} match${total === 1 ? '' : 'es'}${total > matches.length ? `, first ${matches.length} shown` : ''}` : undefined}>
        <select name="userId" required value={chosen?.id ?? ''} onChange={(e) => setChosen(rows.find((u) => u.id === e.target.value) ?? null)} aria-busy={found.loading}>
          <option value="" disabled>
            {rows.length ? (staff ? 'Choose a user' : 'Choose a customer') : staff ? 'No user matches' : 'No customer matches'}
          </option>
          {rows.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name} ({u.email}{'role' in u ? `, ${u.role}` : ''})
            </option>
          ))}
        </select>
      </Field>
      <ErrorMessage error={found.error} />
    </>
  )
}
