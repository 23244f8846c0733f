// Contacts (docs/dashboard.md "Contacts"): the customers and vendors of the
// organization, listed A to Z, created, edited and deleted, so that a new
// organization can make its first quotation without the API.
import { useEffect, useState, type ReactNode } from 'react'
import { Link, Route, Routes, useLocation, useNavigate, useParams } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, CURRENCIES, ErrorMessage, Field, Form, formFields, ListView, Loading, Notice, Page, SearchInput, useLoad, useUrlFilters } from '../ui.tsx'

type Contact = Schemas['Contact']
type ContactType = Contact['type']
const TYPES: ContactType[] = ['company', 'individual']
const KINDS = ['customers', 'vendors'] as const

export function ContactsPage() {
  return (
    <Routes>
      <Route index element={<ContactList />} />
      <Route path="new" element={<NewContact />} />
      <Route path=":id" element={<EditContact />} />
    </Routes>
  )
}

/**
 * What the last action on the records of a page did ("Acme created."), handed to the page it led to in the
 * history state: kept while the page stays, and taken out of the history entry so that a reload does not say it again.
 */
export function useFlash(): string | undefined {
  const { state, pathname, search, hash } = useLocation()
  const navigate = useNavigate()
  const incoming = (state as { flash?: unknown } | null)?.flash
  const [flash, setFlash] = useState(typeof incoming === 'string' ? incoming : undefined)
  useEffect(() => {
    if (typeof incoming !== 'string') return
    setFlash(incoming)
    navigate({ pathname, search, hash }, { replace: true, state: null })
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [incoming])
  return flash
}

/** The flash of the page, said once, politely (role status). */
export function Flash({ text }: { text: string | undefined }) {
  return text ? <Notice>{text}</Notice> : null
}

/** A form field as the API takes a nullable string: trimmed, and null when left empty (an edit clears it). */
export const orNull = (value: string | undefined) => (value ? value : null)

/** A whole or decimal number typed in a field, or undefined when empty; an Error naming the field when it is not a number from 0 to `max`. */
export function numberField(text: string | undefined, label: string, { integer = false, max = 1_000_000_000 } = {}): number | undefined {
  if (!text) return undefined
  const value = Number(text)
  if (!Number.isFinite(value) || value < 0 || value > max || (integer && !Number.isInteger(value))) throw new Error(`${label}: ${integer ? 'a whole number' : 'a number'} from 0 to ${max.toLocaleString('en')}.`)
  return value
}

/** Contacts: searched (once the typing pauses), filtered by customers or vendors and by type, A to Z, paged; the filters live in the address. */
function ContactList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const kind = f.choice('kind', KINDS)
  const type = f.choice('type', TYPES)
  const flash = useFlash()
  const list = useLoad(
    () => api.get('/api/contacts', { params: { query: { page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(search ? { search } : {}), ...(kind ? { vendor: kind === 'vendors' } : {}), ...(type ? { type } : {}) } } }),
    [page, search, kind, type],
  )
  const [deleted, setDeleted] = useState<string>()
  return (
    <Page
      title="Contacts"
      actions={
        <Link className="button primary" to="/contacts/new">
          New contact
        </Link>
      }
    >
      <Flash text={deleted ?? flash} />
      <Card>
        <div className="filters" role="search" aria-label="Filter contacts">
          <Field label="Search">
            <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Name or e-mail" />
          </Field>
          <Field label="Customers or vendors">
            <select value={kind} onChange={(e) => f.set('kind', e.target.value)}>
              <option value="">all</option>
              <option value="customers">customers</option>
              <option value="vendors">vendors</option>
            </select>
          </Field>
          <Field label="Type">
            <select value={type} onChange={(e) => f.set('type', e.target.value)}>
              <option value="">all</option>
              {TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </Field>
        </div>
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Contacts"
          rowKey={(c) => c.id}
          empty={
            search || kind || type ? (
              'No contact matches these filters.'
            ) : (
              <>
                No contacts yet. <Link to="/contacts/new">Create a contact</Link>, or import them (<Link to="/settings/import">Import</Link>).
              </>
            )
          }
          columns={[
            { label: 'Name', cell: (c) => <Link to={`/contacts/${c.id}`}>{c.name}</Link> },
            { label: 'E-mail', cell: (c) => c.email ?? '—' },
            { label: 'Phone', cell: (c) => c.phone ?? '—' },
            { label: 'Type', cell: (c) => c.type },
            { label: 'Role', cell: (c) => (c.vendor ? <Badge tone="info">vendor</Badge> : <Badge>customer</Badge>) },
            { label: 'City', cell: (c) => [c.address?.city, c.address?.country].filter(Boolean).join(', ') || '—' },
            {
              label: 'Actions',
              cell: (c) => (
                <ActionButton variant="danger" confirm={`Delete the contact ${c.name}? This cannot be undone.`} action={() => api.delete('/api/contacts/{id}', { params: { path: { id: c.id } } })} onDone={() => {
                    setDeleted(`${c.name} deleted.`)
                    if (list.data?.data.length === 1 && page > 1) f.setPage(page - 1)
                    else list.reload()
                  }}
                >
                  Delete <span className="visually-hidden">{c.name}</span>
                </ActionButton>
              ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}

function NewContact() {
  const { api } = useSession()
  const navigate = useNavigate()
  return (
    <Page title="New contact">
      <Card>
        <ContactForm label="New contact" submitLabel="Create contact" save={(body) => api.post('/api/contacts', { body: { ...body, name: body.name } })} onDone={(c) => navigate('/contacts', { state: { flash: `${c.name} created.` } })} />
      </Card>
      <p>
        <Link to="/contacts">Back to the contacts</Link>
      </p>
    </Page>
  )
}

function EditContact() {
  const { id = '' } = useParams()
  const { api } = useSession()
  const navigate = useNavigate()
  const [saved, setSaved] = useState<string>()
  const contact = useLoad(() => api.get('/api/contacts/{id}', { params: { path: { id } } }), [id])
  const c = contact.data
  return (
    <Page
      title={c ? c.name : 'Contact'}
      actions={
        c && (
          <ActionButton variant="danger" confirm={`Delete the contact ${c.name}? This cannot be undone.`} action={() => api.delete('/api/contacts/{id}', { params: { path: { id } } })} onDone={() => navigate('/contacts', { state: { flash: `${c.name} deleted.` } })}>
            Delete contact
          </ActionButton>
        )
      }
    >
      <ErrorMessage error={contact.error} />
      {!c && !contact.error && <Loading />}
      {c && (
        <>
          <Flash text={saved} />
          <Card>
            <ContactForm
              key={c.updatedAt}
              label="Edit contact"
              submitLabel="Save changes"
              contact={c}
              save={(body) => api.patch('/api/contacts/{id}', { params: { path: { id } }, body })}
              onDone={() => {
                setSaved('Changes saved.')
                contact.reload()
              }}
            />
          </Card>
        </>
      )}
      <p>
        <Link to="/contacts">Back to the contacts</Link>
      </p>
    </Page>
  )
}

type ContactBody = { name: string } & Partial<Pick<Contact, 'email' | 'phone' | 'type' | 'vendor' | 'taxId' | 'paymentTerms' | 'leadTimeDays' | 'minOrderQty'>> & {
  currency?: string | null
  address?: { lines: string[]; city: string | null; postalCode: string | null; country: string | null } | null
}

/** The body of a create or an edit from the form: cleared fields as null, the vendor terms only for a vendor, the address null when empty. */
function contactBody(data: FormData): ContactBody {
  const f = formFields(data)
  const vendor = data.get('vendor') === 'on'
  const lines = (f.lines ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  if (lines.length > 4) throw new Error('Address: four lines at most (street, building, suite).')
  const address = lines.length || f.city || f.postalCode || f.country ? { lines, city: orNull(f.city), postalCode: orNull(f.postalCode), country: orNull(f.country) } : null
  return {
    name: f.name ?? '',
    email: orNull(f.email),
    phone: orNull(f.phone),
    type: (f.type ?? 'company') as ContactType,
    vendor,
    taxId: orNull(f.taxId),
    address,
    ...(vendor ? { paymentTerms: orNull(f.paymentTerms), currency: orNull(f.currency), leadTimeDays: numberField(f.leadTimeDays, 'Lead time', { integer: true, max: 2147483647 }) ?? null, minOrderQty: numberField(f.minOrderQty, 'Minimum order quantity') ?? null } : {}),
  }
}

/** The fields of POST /contacts (the address and, for a vendor, its terms): a new contact's, or `contact`'s to edit. */
function ContactForm({ label, submitLabel, contact, save, onDone }: { label: string; submitLabel: string; contact?: Contact; save: (body: ContactBody) => Promise<Contact>; onDone: (c: Contact) => void }) {
  const [vendor, setVendor] = useState(contact?.vendor ?? false)
  return (
    <Form label={label} submitLabel={submitLabel} submit={(data) => save(contactBody(data))} onDone={onDone}>
      <div className="row">
        <Field label="Name">
          <input name="name" required maxLength={200} defaultValue={contact?.name} autoComplete="off" />
        </Field>
        <Field label="E-mail">
          <input name="email" type="email" maxLength={254} defaultValue={contact?.email ?? ''} autoComplete="off" />
        </Field>
        <Field label="Phone">
          <input name="phone" type="tel" maxLength={50} defaultValue={contact?.phone ?? ''} autoComplete="off" />
        </Field>
        <Field label="Type">
          <select name="type" defaultValue={contact?.type ?? 'company'}>
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </Field>
        <Field label="Tax id" hint="VAT or other tax number">
          <input name="taxId" maxLength={50} defaultValue={contact?.taxId ?? ''} autoComplete="off" />
        </Field>
      </div>
      <fieldset className="group">
        <legend>Address</legend>
        <div className="row">
          <Field label="Street" hint="One to four lines">
            <textarea name="lines" rows={2} defaultValue={contact?.address?.lines.join('\n') ?? ''} />
          </Field>
          <Field label="City">
            <input name="city" maxLength={100} defaultValue={contact?.address?.city ?? ''} />
          </Field>
          <Field label="Postal code">
            <input name="postalCode" maxLength={20} defaultValue={contact?.address?.postalCode ?? ''} />
          </Field>
          <Field label="Country" hint="Two letters, e.g. PL">
            <input name="country" maxLength={2} size={4} defaultValue={contact?.address?.country ?? ''} />
          </Field>
        </div>
      </fieldset>
      <label className="check">
        <input type="checkbox" name="vendor" checked={vendor} onChange={(e) => setVendor(e.target.checked)} /> Vendor (we buy from this contact)
      </label>
      {vendor && <VendorTerms contact={contact} />}
    </Form>
  )
}

function VendorTerms({ contact }: { contact?: Contact }): ReactNode {
  return (
    <fieldset className="group">
      <legend>Vendor terms</legend>
      <div className="row">
        <Field label="Payment terms" hint="e.g. 30 days net">
          <input name="paymentTerms" maxLength={100} defaultValue={contact?.paymentTerms ?? ''} />
        </Field>
        <Field label="Purchase currency">
          <select name="currency" defaultValue={contact?.currency ?? ''}>
            <option value="">none</option>
            {[...new Set([...CURRENCIES, ...(contact?.currency ? [contact.currency] : [])])].map((c) => (
              <option key={c} value={c}>
                {c.toUpperCase()}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Lead time (days)">
          <input name="leadTimeDays" inputMode="numeric" className="narrow" defaultValue={contact?.leadTimeDays ?? ''} />
        </Field>
        <Field label="Minimum order quantity">
          <input name="minOrderQty" inputMode="decimal" className="narrow" defaultValue={contact?.minOrderQty ?? ''} />
        </Field>
      </div>
    </fieldset>
  )
}
