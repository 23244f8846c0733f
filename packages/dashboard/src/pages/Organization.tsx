// Settings, Organization (docs/dashboard-platform.md "Organization"),
// API: docs/documents.md "The organization profile": what documents print about the seller. Admins
// change it (PATCH /organization) and upload the logo printed on PDFs; the
// other roles read it.
import { Fragment, useEffect, useState } from 'react'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Card, ErrorMessage, Field, Form, formFields, Loading, Notice, Page, useLoad } from '../ui.tsx'

type Profile = Schemas['OrganizationProfile']

/** The logo's limits (docs/documents.md): PNG or JPEG, 256 KiB. */
const LOGO_MAX_BYTES = 256 * 1024

/** The logo's bytes as a data: URL (the page's CSP admits images from 'self' and data:, not blob:). */
const asDataUrl = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'))
    reader.readAsDataURL(blob)
  })

const orNull = (v: string | undefined) => v ?? null

/** The body of PATCH /organization from the form: every field it shows, an emptied one as null, the address null when empty. */
function profileBody(data: FormData) {
  const f = formFields(data)
  const lines = (f.lines ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
  if (lines.length > 4) throw new Error('Address: four lines at most (street, building, suite).')
  if (f.country && !/^[A-Za-z]{2}$/.test(f.country)) throw new Error('Country: two letters, e.g. PL.')
  return {
    name: f.name ?? '',
    legalName: orNull(f.legalName),
    email: orNull(f.email),
    phone: orNull(f.phone),
    taxId: orNull(f.taxId),
    address: lines.length || f.city || f.postalCode || f.country ? { lines, city: orNull(f.city), postalCode: orNull(f.postalCode), country: orNull(f.country) } : null,
    paymentInstructions: orNull(f.paymentInstructions),
  }
}

export function OrganizationPage() {
  const { api, role } = useSession()
  const profile = useLoad(() => api.get('/api/organization'), [])
  const p = profile.data
  const admin = role === 'admin'
  return (
    <Page title="Organization">
      <p>What invoices, quotations and purchase orders print about the organization.{admin ? '' : ' Only an admin may change it.'}</p>
      <ErrorMessage error={profile.error} />
      {!p && !profile.error && <Loading />}
      {p && (
        <>
          <Card title="Profile">{admin ? <ProfileForm profile={p} onSaved={profile.reload} /> : <ProfileView profile={p} />}</Card>
          <Card title="Logo">
            <Logo profile={p} admin={admin} onSaved={profile.reload} />
          </Card>
        </>
      )}
    </Page>
  )
}

function ProfileView({ profile: p }: { profile: Profile }) {
  const address = p.address ? [...p.address.lines, [p.address.postalCode, p.address.city].filter(Boolean).join(' '), p.address.country].filter(Boolean) : []
  const rows: [string, string][] = [
    ['Name', p.name],
    ['Legal name', p.legalName ?? '—'],
    ['Address', address.join(', ') || '—'],
    ['Tax id', p.taxId ?? '—'],
    ['E-mail', p.email ?? '—'],
    ['Phone', p.phone ?? '—'],
    ['Payment instructions', p.paymentInstructions ?? '—'],
  ]
  return (
    <dl className="details">
      {rows.map(([k, v]) => (
        <Fragment key={k}>
          <dt>{k}</dt>
          <dd style={{ whiteSpace: 'pre-line' }}>{v}</dd>
        </Fragment>
      ))}
    </dl>
  )
}

function ProfileForm({ profile: p, onSaved }: { profile: Profile; onSaved: () => void }) {
  const { api } = useSession()
  return (
    <Form key={p.updatedAt} label="Organization profile" submitLabel="Save changes" submit={(data) => api.patch('/api/organization', { body: profileBody(data) })} done={() => 'Changes saved: new documents print them.'} onDone={onSaved}>
      <div className="row">
        <Field label="Name" hint="The header of documents and the sender of e-mails">
          <input name="name" required maxLength={200} defaultValue={p.name} autoComplete="organization" />
        </Field>
        <Field label="Legal name" hint="Printed under the name when it differs">
          <input name="legalName" maxLength={200} defaultValue={p.legalName ?? ''} />
        </Field>
        <Field label="Tax id" hint="VAT or other tax number">
          <input name="taxId" maxLength={50} defaultValue={p.taxId ?? ''} />
        </Field>
        <Field label="E-mail">
          <input name="email" type="email" maxLength={254} defaultValue={p.email ?? ''} />
        </Field>
        <Field label="Phone">
          <input name="phone" type="tel" maxLength={50} defaultValue={p.phone ?? ''} />
        </Field>
      </div>
      <fieldset className="group">
        <legend>Address</legend>
        <div className="row">
          <Field label="Street" hint="One to four lines">
            <textarea name="lines" rows={2} defaultValue={p.address?.lines.join('\n') ?? ''} />
          </Field>
          <Field label="City">
            <input name="city" maxLength={100} defaultValue={p.address?.city ?? ''} />
          </Field>
          <Field label="Postal code">
            <input name="postalCode" maxLength={20} defaultValue={p.address?.postalCode ?? ''} />
          </Field>
          <Field label="Country" hint="Two letters, e.g. PL">
            <input name="country" maxLength={2} size={4} defaultValue={p.address?.country ?? ''} />
          </Field>
        </div>
      </fieldset>
      <Field label="Payment instructions" hint="Printed on invoices still to be paid (bank account, IBAN)">
        <textarea name="paymentInstructions" rows={3} maxLength={2000} defaultValue={p.paymentInstructions ?? ''} />
      </Field>
    </Form>
  )
}

/** The logo: its preview (GET /organization/logo, with the token, so not a plain <img src>), and for admins an upload and Remove. */
function Logo({ profile: p, admin, onSaved }: { profile: Profile; admin: boolean; onSaved: () => void }) {
  const { api } = useSession()
  const [src, setSrc] = useState<string>()
  const [error, setError] = useState<unknown>()
  const logo = p.logo
  useEffect(() => {
    setSrc(undefined)
    if (!logo) return
    let live = true
    void (async () => {
      const { data, response } = await api.raw.GET('/api/organization/logo', { parseAs: 'blob' })
      if (!live) return
      if (!response.ok || !data) return setError(new Error('The logo could not be loaded.'))
      setSrc(await asDataUrl(data))
    })()
    return () => {
      live = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [p.updatedAt])
  return (
    <>
      <ErrorMessage error={error} />
      {logo ? (
        <p>
          {src ? <img src={src} alt={`Logo of ${p.name}`} data-testid="logo-preview" style={{ maxWidth: 180, maxHeight: 60, display: 'block', marginBottom: '0.5rem' }} /> : <Loading label="Loading the logo" />}
          {logo.contentType === 'image/png' ? 'PNG' : 'JPEG'}, {logo.width} × {logo.height} pixels, {(logo.size / 1024).toFixed(1)} KB; printed top left on every PDF.
        </p>
      ) : (
        <Notice>No logo: documents print the name alone.</Notice>
      )}
      {admin && (
        <Form
          label="Upload a logo"
          submitLabel="Upload logo"
          submit={async (data) => {
            const file = data.get('logo')
            if (!(file instanceof File) || file.size === 0) throw new Error('Logo: choose a PNG or JPEG file.')
            if (file.size > LOGO_MAX_BYTES) throw new Error(`Logo: the file is ${(file.size / 1024).toFixed(0)} KB; the most is 256 KB.`)
            return api.patch('/api/organization', { body: { logo: await asDataUrl(file) } })
          }}
          done={() => 'Logo saved: new documents print it.'}
          onDone={onSaved}
          actions={
            logo && (
              <ActionButton variant="danger" confirm="Remove the logo? Documents will print the name alone." action={() => api.patch('/api/organization', { body: { logo: null } })} done="Logo removed." onDone={onSaved}>
                Remove logo
              </ActionButton>
            )
          }
        >
          <Field label="Logo file" hint="PNG or JPEG, at most 256 KB and 2000 × 2000 pixels">
            <input name="logo" type="file" accept="image/png,image/jpeg" required />
          </Field>
        </Form>
      )}
    </>
  )
}
