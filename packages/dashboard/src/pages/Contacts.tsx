// Contacts (docs/dashboard.md "Contacts"): the customers and vendors of the
// organization, listed A to Z, created, edited and deleted, so that a new
// organization can make its first quotation without the API.
import { useState } from 'react'
import { Link } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Badge, CURRENCIES, Field, Form, formFields, ListView, useLoad, useUrlFilters } from '../ui.tsx'
import { BulkBar, selectColumn, useSelection } from '../bulk.tsx'
import { ExportButton } from './ExportButton.tsx'
import { ChoiceFilter, currenciesWith, DeleteRow, EditRecord, emptyRecords, NewRecord, numberField, orNull, RecordList, RecordRoutes, useRecordList } from './records.tsx'

type Contact = Schemas['Contact']
type ContactType = Contact['type']
const TYPES: ContactType[] = ['company', 'individual']
const KINDS = ['customers', 'vendors'] as const

export function ContactsPage() {
  const { api } = useSession()
  const common = { what: 'contact', listPath: '/contacts', Form: ContactForm }
  return (
    <RecordRoutes
      list={<ContactList />}
      create={<NewRecord {...common} create={(body: ContactBody) => api.post('/api/contacts', { body })} />}
      edit={
        <EditRecord
          {...common}
          load={(id) => api.get('/api/contacts/{id}', { params: { path: { id } } })}
          update={(id, body: ContactBody) => api.patch('/api/contacts/{id}', { params: { path: { id } }, body })}
          remove={(id) => api.delete('/api/contacts/{id}', { params: { path: { id } } })}
        />
      }
    />
  )
}

/** Contacts: searched (once the typing pauses), filtered by customers or vendors and by type, A to Z, paged; the filters live in the address. */
function ContactList() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const search = f.get('search')
  const kind = f.choice('kind', KINDS)
  const type = f.choice('type', TYPES)
  const list = useLoad(
    () => api.get('/api/contacts', { params: { query: { page, limit: 20, sortBy: 'name', sortOrder: 'asc', ...(search ? { search } : {}), ...(kind ? { vendor: kind === 'vendors' } : {}), ...(type ? { type } : {}) } } }),
    [page, search, kind, type],
  )
  const rows = useRecordList(list, page, f.setPage)
  const selection = useSelection(list.data?.data, (c) => c.id)
  return (
    <RecordList
      title="Contacts"
      what="contact"
      listPath="/contacts"
      notice={rows.notice}
      search={search}
      onSearch={(v) => f.set('search', v)}
      searchPlaceholder="Name or e-mail"
      filters={
        <>
          <ChoiceFilter label="Customers or vendors" value={kind} values={KINDS} onChange={(v) => f.set('kind', v)} />
          <ChoiceFilter label="Type" value={type} values={TYPES} onChange={(v) => f.set('type', v)} />
          {/* The list as CSV through a report run, with these filters (docs/dashboard-platform.md "Export"). */}
          <ExportButton type="contacts" parameters={{ ...(search ? { search } : {}), ...(kind ? { vendor: kind === 'vendors' } : {}), ...(type ? { contactType: type } : {}) }} />
        </>
      }
    >
      {Boolean(list.data?.data.length) && (
        <BulkBar
          selection={selection}
          what="contacts"
          name={(c) => c.name}
          onDone={list.reload}
          actions={[
            {
              label: 'Delete',
              danger: true,
              confirm: (n) => `Delete ${n} contact${n === 1 ? '' : 's'}? This cannot be undone.`,
              run: (c) => api.delete('/api/contacts/{id}', { params: { path: { id: c.id } } }),
              done: (n) => `Deleted ${n} contact${n === 1 ? '' : 's'}.`,
            },
          ]}
        />
      )}
      <ListView
        list={list}
        onPage={f.setPage}
        caption="Contacts"
        rowKey={(c) => c.id}
        empty={emptyRecords('contact', '/contacts', Boolean(search || kind || type))}
        columns={[
          selectColumn(selection, (c) => c.name),
          { label: 'Name', cell: (c) => <Link to={`/contacts/${c.id}`}>{c.name}</Link> },
          { label: 'E-mail', cell: (c) => c.email ?? '—' },
          { label: 'Phone', cell: (c) => c.phone ?? '—' },
          { label: 'Type', cell: (c) => c.type },
          { label: 'Customer or vendor', cell: (c) => (c.vendor ? <Badge tone="info">vendor</Badge> : <Badge>customer</Badge>) },
          { label: 'City', cell: (c) => [c.address?.city, c.address?.country].filter(Boolean).join(', ') || '—' },
          {
            label: 'Actions',
            cell: (c) => (
              <DeleteRow what="contact" name={c.name} remove={() => api.delete('/api/contacts/{id}', { params: { path: { id: c.id } } })} onDone={() => rows.deleted(c.name)} />
            ),
          },
        ]}
      />
    </RecordList>
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
function ContactForm({ label, submitLabel, record: contact, save, onDone }: { label: string; submitLabel: string; record?: Contact; save: (body: ContactBody) => Promise<Contact>; onDone: (c: Contact) => void }) {
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

function VendorTerms({ contact }: { contact?: Contact }) {
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
            {currenciesWith(CURRENCIES, contact?.currency).map((c) => (
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
