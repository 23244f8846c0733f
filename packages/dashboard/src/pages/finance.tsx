// Shared bits of the finance pages (overview, invoices, quotations): status
// badges in words, money input in major units, dates as the API wants them.
import { useState, type ReactNode } from 'react'
import { ApiError, type Schemas, type Sdk } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Badge, Card, Field, money, saveBlob, SearchInput, Table, useDebounced, useLoad, useUrlFilters, type Column, type Tone } from '../ui.tsx'

type InvoiceStatus = Schemas['Invoice']['status']
type QuotationStatus = Schemas['Quotation']['status']

export const INVOICE_STATUSES: InvoiceStatus[] = ['draft', 'sent', 'partial_paid', 'paid', 'overdue', 'cancelled']
export const QUOTATION_STATUSES: QuotationStatus[] = ['draft', 'sent', 'confirmed', 'cancelled']
export const ORDER_STATUSES: Schemas['Order']['status'][] = ['confirmed', 'invoiced', 'cancelled', 'refunded']

const words: Record<string, string> = { partial_paid: 'partially paid' }
export const statusWord = (status: string) => words[status] ?? status

/** The tone of an invoice's, a quotation's or a sales order's status. */
const tones: Record<string, Tone> = {
  draft: 'neutral',
  sent: 'info',
  partial_paid: 'warn',
  paid: 'good',
  overdue: 'bad',
  cancelled: 'neutral',
  confirmed: 'good',
  invoiced: 'good',
  refunded: 'warn',
}

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={tones[status] ?? 'neutral'}>{statusWord(status)}</Badge>
}

/** "12.50" (major units, as typed) to 1250 cents; undefined when not a non-negative amount with at most two decimals. */
export function toCents(text: string | undefined): number | undefined {
  if (!text) return undefined
  const clean = text.replace(/[\s,]/g, '')
  if (!/^\d+(\.\d{1,2})?$/.test(clean)) return undefined
  const [whole, frac = ''] = clean.split('.')
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'))
}

/** 1250 cents to "12.50", for an input's default value. */
export const fromCents = (cents: number) => (cents / 100).toFixed(2)

/** A UTC day `YYYY-MM-DD`, `months` months before today's month start (0: the first of this month). */
export function monthStart(monthsBack: number, now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsBack, 1)).toISOString().slice(0, 10)
}
export const today = () => new Date().toISOString().slice(0, 10)

/**
 * Picks a contact by searching the contacts on the server as one types (once
 * the typing pauses): a search box, and a select of the first 20 matches, A to
 * Z. `name` puts the id into a form's data.
 */
export function ContactPicker({ label, value, onChange, name, required, allowAll, initial }: { label: string; value: string; onChange: (id: string) => void; name?: string; required?: boolean; /** A filter: the empty choice means every contact, and no hints (the filter bar stays one grid). */ allowAll?: boolean; /** The contact already chosen (a draft being edited), offered even when it is not among the first 20 found. */ initial?: { id: string; name: string } }) {
  const { api } = useSession()
  const [search, setSearch] = useState('')
  const [chosen, setChosen] = useState<{ id: string; name: string } | null>(initial ?? null)
  // The API sorts descending unless told (docs/platform.md "Lists"): names run A to Z only with sortOrder=asc.
  const wanted = useDebounced(search.trim())
  const found = useLoad(() => api.get('/api/contacts', { params: { query: { limit: 20, sortBy: 'name', sortOrder: 'asc', ...(wanted ? { search: wanted } : {}) } } }), [wanted])
  const rows = found.data?.data ?? []
  const options = chosen && value === chosen.id && !rows.some((c) => c.id === chosen.id) ? [chosen, ...rows] : rows
  return (
    <>
      <Field label={`Find ${label.toLowerCase()}`}>
        <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} autoComplete="off" placeholder="Name or e-mail" />
      </Field>
      <Field label={label} hint={found.data && !allowAll ? `${found.data.meta.total} match${found.data.meta.total === 1 ? '' : 'es'}${found.data.meta.total > rows.length ? `, first ${rows.length} shown` : ''}` : undefined}>
        <select
          name={name}
          value={value}
          required={required}
          aria-busy={found.loading}
          onChange={(e) => {
            const c = options.find((o) => o.id === e.target.value)
            setChosen(c ? { id: c.id, name: c.name } : null)
            onChange(e.target.value)
          }}
        >
          <option value="">{allowAll ? 'all contacts' : options.length ? 'choose a contact' : 'no contact matches'}</option>
          {options.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
              {'email' in c && c.email ? ` (${c.email})` : ''}
            </option>
          ))}
        </select>
      </Field>
    </>
  )
}

/** Downloads a document's PDF through the SDK's raw client and saves it. */
export async function downloadPdf(api: Sdk, path: '/api/invoices/{id}/pdf' | '/api/sales/quotations/{id}/pdf', id: string, filename: string) {
  const { data, error, response } = await api.raw.GET(path, { params: { path: { id } }, parseAs: 'blob' })
  if (!response.ok || !data) throw new ApiError(response, error)
  saveBlob(data, `${filename.replace(/[^\w.-]+/g, '-')}.pdf`)
}

/**
 * The filters both document lists take (search, status, contact, date range,
 * sort), read from the page's address (useUrlFilters): `query` holds those
 * that are set, as the list's query parameters.
 */
export function useDocumentFilters<Status extends string, Sort extends string>(defaultSort: Sort) {
  const { params, set, get, page } = useUrlFilters()
  const filters = { status: get('status') as Status | '', search: get('search'), contactId: get('contactId'), from: get('from'), to: get('to') }
  const query = Object.fromEntries(Object.entries(filters).filter(([, v]) => v)) as Partial<{ status: Status; search: string; contactId: string; from: string; to: string }>
  return { ...filters, page, sort: (params.get('sort') ?? defaultSort) as Sort, query, filtered: Object.keys(query).length > 0, set }
}

/** The filter bar of a document list, bound to useDocumentFilters. */
export function DocumentFilters<Status extends string, Sort extends string>({ label, searchPlaceholder, statuses, dateLabel, sorts, f }: { label: string; searchPlaceholder: string; /** Empty: the list has no status (credit notes), no status select. */ statuses: readonly Status[]; dateLabel: string; sorts: Record<Sort, string>; f: ReturnType<typeof useDocumentFilters<Status, Sort>> }) {
  return (
    <div className="filters filter-grid" role="search" aria-label={label}>
      <Field label="Search">
        <SearchInput placeholder={searchPlaceholder} value={f.search} onSearch={(v) => f.set('search', v)} />
      </Field>
      {statuses.length > 0 && (
        <Field label="Status">
          <select value={f.status} onChange={(e) => f.set('status', e.target.value)}>
            <option value="">all</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {statusWord(s)}
              </option>
            ))}
          </select>
        </Field>
      )}
      <ContactPicker label="Contact" value={f.contactId} onChange={(id) => f.set('contactId', id)} allowAll />
      <Field label={`${dateLabel} from`}>
        <input type="date" value={f.from} onChange={(e) => f.set('from', e.target.value)} />
      </Field>
      <Field label={`${dateLabel} to`}>
        <input type="date" value={f.to} onChange={(e) => f.set('to', e.target.value)} />
      </Field>
      <Field label="Sort">
        <select value={f.sort} onChange={(e) => f.set('sort', e.target.value)}>
          {Object.entries<string>(sorts).map(([k, v]) => (
            <option key={k} value={k}>
              {v}
            </option>
          ))}
        </select>
      </Field>
    </div>
  )
}

const PAYMENT_METHODS = ['bank transfer', 'card', 'cash', 'check', 'other']

/** The body of a payment (an invoice's or a vendor bill's) from its form's fields: the amount in cents, the optional fields only when given. */
export const paymentBody = (f: Record<string, string>, amount: number) => ({
  amount,
  ...(f.paymentDate ? { paymentDate: f.paymentDate } : {}),
  ...(f.method ? { method: f.method } : {}),
  ...(f.reference ? { reference: f.reference } : {}),
})

/** The fields of a payment form: the amount (the amount due by default), the date, the method and the reference. */
export function PaymentFields({ amountDue, currency, amountPattern }: { amountDue: number; currency: string; amountPattern?: string }) {
  return (
    <div className="row">
      <Field label="Amount" hint={`At most ${money(amountDue, currency)} (${currency.toUpperCase()})`}>
        <input name="amount" inputMode="decimal" required defaultValue={fromCents(amountDue)} pattern={amountPattern} />
      </Field>
      <Field label="Payment date" hint="Today when left empty">
        <input name="paymentDate" type="date" />
      </Field>
      <Field label="Method">
        <select name="method" defaultValue="bank transfer">
          {PAYMENT_METHODS.map((x) => (
            <option key={x}>{x}</option>
          ))}
        </select>
      </Field>
      <Field label="Reference" hint="Bank reference, cheque number…">
        <input name="reference" maxLength={200} />
      </Field>
    </div>
  )
}

/** The figures of a line of a quotation, an order or an invoice. */
type LineFigures = { quantity: number; unitPrice: number; discount: number; taxRate: number | null; total: number }

/** The lines of a quotation, an order or an invoice, read-only; `name` is the first column (product or description). */
export function DocumentLines<L extends LineFigures>({ caption, lines, empty, name, currency }: { caption: string; lines: L[]; empty: string; name: Column<L>; currency: string }) {
  const m = (cents: number) => money(cents, currency)
  return (
    <Card title="Lines">
      <Table
        caption={caption}
        rows={lines.map((l, i) => ({ ...l, key: String(i) }))}
        rowKey={(l) => l.key}
        empty={empty}
        columns={[
          name,
          { label: 'Quantity', align: 'right', cell: (l) => l.quantity },
          { label: 'Unit price', align: 'right', cell: (l) => m(l.unitPrice) },
          { label: 'Discount', align: 'right', cell: (l) => (l.discount ? `${l.discount} %` : '—') },
          { label: 'Tax', align: 'right', cell: (l) => (l.taxRate ? `${l.taxRate} %` : '—') },
          { label: 'Total', align: 'right', cell: (l) => m(l.total) },
        ]}
      />
    </Card>
  )
}

/** A document's subtotal, tax and total; `children` (pairs of dt and dd) follow them: an invoice's paid and due. */
export function DocumentTotals({ doc, currency, children }: { doc: { subtotal: number; taxAmount: number; total: number }; currency: string; children?: ReactNode }) {
  const m = (cents: number) => money(cents, currency)
  return (
    <Card title="Totals">
      <dl className="details totals">
        <dt>Subtotal</dt>
        <dd>{m(doc.subtotal)}</dd>
        <dt>Tax</dt>
        <dd>{m(doc.taxAmount)}</dd>
        <dt>Total</dt>
        <dd>
          <strong>{m(doc.total)}</strong>
        </dd>
        {children}
      </dl>
    </Card>
  )
}
