// The lines of a new invoice or quotation (docs/dashboard.md "Preview"): a
// table of product lines typed in major units, the line items the API takes,
// and the Preview that asks the API for the totals through a dry run
// (`Prefer: dry-run`) without creating anything.
import { useState, type ReactNode } from 'react'
import { Link } from 'react-router'
import { ApiError, type Schemas } from '../../../sdk/src/index.ts'
import { CurrencySelect, ErrorMessage, money, Table, useLoad } from '../ui.tsx'
import { useSession } from '../session.tsx'
import { ContactPicker, fromCents, toCents } from './finance.tsx'

export interface Line {
  key: number
  productId: string
  /**
   * An invoice's own wording of the line, kept when a draft is edited (the API
   * otherwise names it after the product); a line without a product is a
   * `description` line (an invoice made through the API may have some).
   * Undefined for a new line and once another product is chosen.
   */
  description?: string
  quantity: string
  unitPrice: string
  discount: string
  taxRate: string
}
let lineKey = 0
const newLine = (): Line => ({ key: ++lineKey, productId: '', quantity: '1', unitPrice: '', discount: '', taxRate: '' })

/** A number as typed back in a line's field: '' for nothing (0 is the default of a discount or a tax). */
const typed = (n: number | null | undefined) => (n ? String(n) : '')

/** The lines of an invoice as the editor shows them (money in major units), for a draft's edit. */
export const invoiceLines = (items: Schemas['InvoiceLine'][]): Line[] =>
  items.map((l) => ({ key: ++lineKey, productId: l.productId ?? '', description: l.description, quantity: String(l.quantity), unitPrice: fromCents(l.unitPrice), discount: typed(l.discount), taxRate: typed(l.taxRate) }))

/** A line without a product: it has its own description (an invoice's line made through the API). */
const isTextLine = (l: Line) => !l.productId && l.description !== undefined

export interface LineItem {
  productId: string
  quantity: number
  unitPrice?: number
  discount?: number
  taxRate?: number
}

export interface InvoiceLineItem {
  productId?: string
  description?: string
  quantity: number
  unitPrice?: number
  discount?: number
  taxRate?: number
}

/** A percentage typed in a line (discount, tax): undefined when empty, else a number from 0 to 100 or an error naming the line. */
function percent(text: string, what: string, n: number): number | undefined {
  if (!text.trim()) return undefined
  const value = Number(text)
  if (!(value >= 0 && value <= 100)) throw new Error(`Line ${n}: the ${what} is a percentage from 0 to 100.`)
  return value || undefined
}

/** The line items of the API's create request; throws an Error naming the line when one is not filled in as the API needs. */
export function lineItems(lines: Line[]): LineItem[] {
  return lines.map((l, i) => productLine(l, i + 1))
}

/** Line `n` of a product, as the API takes it; an Error naming the line when it is not filled in as the API needs. */
function productLine(l: Line, n: number): LineItem {
  const quantity = Number(l.quantity)
  const unitPrice = l.unitPrice ? toCents(l.unitPrice) : undefined
  if (!l.productId) throw new Error(`Line ${n}: choose a product.`)
  if (!(quantity > 0)) throw new Error(`Line ${n}: the quantity must be above 0.`)
  if (l.unitPrice && unitPrice === undefined) throw new Error(`Line ${n}: the unit price must be an amount like 120.50.`)
  const discount = percent(l.discount, 'discount', n)
  const taxRate = percent(l.taxRate, 'tax rate', n)
  return { productId: l.productId, quantity, ...(unitPrice !== undefined ? { unitPrice } : {}), ...(discount ? { discount } : {}), ...(taxRate ? { taxRate } : {}) }
}

/**
 * The line items of an invoice's PATCH: as lineItems, and a line keeps its
 * own description; a line without a product needs its description and its
 * unit price (docs/invoicing.md "Fields").
 */
export function invoiceLineItems(lines: Line[]): InvoiceLineItem[] {
  return lines.map((l, i) => {
    const n = i + 1
    if (!isTextLine(l)) return { ...productLine(l, n), ...(l.description?.trim() ? { description: l.description.trim() } : {}) }
    const description = l.description?.trim() ?? ''
    if (!description) throw new Error(`Line ${n}: write the description of the line.`)
    const quantity = Number(l.quantity)
    if (!(quantity > 0)) throw new Error(`Line ${n}: the quantity must be above 0.`)
    const unitPrice = toCents(l.unitPrice)
    if (unitPrice === undefined) throw new Error(`Line ${n}: the unit price must be an amount like 120.50.`)
    const discount = percent(l.discount, 'discount', n)
    const taxRate = percent(l.taxRate, 'tax rate', n)
    return { description, quantity, unitPrice, ...(discount ? { discount } : {}), ...(taxRate ? { taxRate } : {}) }
  })
}

/**
 * A new invoice's or quotation's form as it is typed: the customer, the
 * currency, the lines and the products (of that currency) they may name, and
 * the last Preview, dropped by any change (`changed`). `request()` is what the
 * two create requests share; it throws an Error naming what is missing.
 */
export function useDraft(initial?: { contact: { id: string; name: string }; currency: string; lines: Line[] }) {
  const { api } = useSession()
  const [contactId, setContactId] = useState(initial?.contact.id ?? '')
  const [currency, setCurrency] = useState(initial?.currency ?? 'usd')
  const [lines, setLines] = useState<Line[]>(initial?.lines.length ? initial.lines : [newLine()])
  const [preview, setPreview] = useState<PreviewState>(null)
  const products = useLoad(() => api.get('/api/products', { params: { query: { limit: 100, sortBy: 'name', sortOrder: 'asc' } } }), [])
  const changed = () => setPreview(null)
  const request = () => {
    if (!contactId) throw new Error('Customer: choose the customer (search by name or e-mail).')
    return { contactId, currency, lineItems: lineItems(lines) }
  }
  return { initialContact: initial?.contact, contactId, setContactId, currency, setCurrency, lines, setLines, products, productList: (products.data?.data ?? []).filter((p) => p.currency === currency), preview, setPreview, changed, request }
}
export type Draft = ReturnType<typeof useDraft>

/** The head of a new document: the customer picked by name, the currency, and `children` (its dates). */
export function DraftHeader({ draft, children }: { draft: Draft; children: ReactNode }) {
  return (
    <div className="row" onChange={draft.changed}>
      <ContactPicker
        label="Customer"
        initial={draft.initialContact}
        value={draft.contactId}
        onChange={(id) => {
          draft.setContactId(id)
          draft.changed()
        }}
        required
      />
      <CurrencySelect value={draft.currency} onChange={draft.setCurrency} />
      {children}
    </div>
  )
}

/** A line's amount before tax as the page estimates it (the Preview asks the API). */
function lineTotal(l: Line) {
  const price = toCents(l.unitPrice)
  const qty = Number(l.quantity)
  if (price === undefined || !(qty > 0)) return undefined
  return Math.round((qty * price * (100 - (Number(l.discount) || 0))) / 100)
}

/** The table of lines: a product by name (its price filled in), quantity, unit price, discount and tax in percent. */
export function LinesEditor({ caption, draft }: { caption: string; draft: Draft }) {
  const { lines, setLines, products, productList, currency, changed: onChange } = draft
  const update = (key: number, patch: Partial<Line>) => {
    setLines((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l)))
    onChange()
  }
  const subtotal = lines.reduce((s, l) => s + (lineTotal(l) ?? 0), 0)
  return (
    <fieldset className="lines">
      <legend>Lines</legend>
      <ErrorMessage error={products.error} />
      {products.data && productList.length === 0 && (
        <p className="empty">
          No product is priced in {currency.toUpperCase()} yet. <Link to="/products/new">Create a product</Link> (or <Link to="/settings/import">import them</Link>), then come back.
        </p>
      )}
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Product</th>
              <th scope="col" className="num">
                Quantity
              </th>
              <th scope="col" className="num">
                Unit price
              </th>
              <th scope="col" className="num">
                Discount %
              </th>
              <th scope="col" className="num">
                Tax %
              </th>
              <th scope="col" className="num">
                Total
              </th>
              <th scope="col">
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l, i) => (
              <tr key={l.key}>
                <td>
                  {isTextLine(l) ? (
                    <input aria-label={`Description, line ${i + 1}`} value={l.description} required maxLength={500} onChange={(e) => update(l.key, { description: e.target.value })} />
                  ) : (
                    <select
                      aria-label={`Product, line ${i + 1}`}
                      value={l.productId}
                      required
                      onChange={(e) => {
                        const p = productList.find((x) => x.id === e.target.value)
                        update(l.key, { productId: e.target.value, description: undefined, ...(p ? { unitPrice: fromCents(p.price) } : {}) })
                      }}
                    >
                      <option value="">choose a product</option>
                      {/* A saved line's product that the list does not hold (another currency, beyond the first 100): named by the line. */}
                      {l.productId && !productList.some((p) => p.id === l.productId) && <option value={l.productId}>{l.description ?? 'the saved product'}</option>}
                      {productList.map((p) => (
                        <option key={p.id} value={p.id}>
                          {p.name}
                          {p.sku ? ` (${p.sku})` : ''}
                        </option>
                      ))}
                    </select>
                  )}
                </td>
                <td className="num">
                  <input aria-label={`Quantity, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.quantity} required onChange={(e) => update(l.key, { quantity: e.target.value })} />
                </td>
                <td className="num">
                  <input aria-label={`Unit price, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.unitPrice} placeholder="product price" onChange={(e) => update(l.key, { unitPrice: e.target.value })} />
                </td>
                <td className="num">
                  <input aria-label={`Discount percent, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.discount} placeholder="0" onChange={(e) => update(l.key, { discount: e.target.value })} />
                </td>
                <td className="num">
                  <input aria-label={`Tax percent, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.taxRate} placeholder="0" onChange={(e) => update(l.key, { taxRate: e.target.value })} />
                </td>
                <td className="num">{money(lineTotal(l), currency)}</td>
                <td>
                  <button
                    type="button"
                    disabled={lines.length === 1}
                    onClick={() => {
                      setLines((ls) => ls.filter((x) => x.key !== l.key))
                      onChange()
                    }}
                  >
                    Remove <span className="visually-hidden">line {i + 1}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={5} className="num">
                Subtotal (before tax)
              </th>
              <td className="num">
                <strong>{money(subtotal, currency)}</strong>
              </td>
              <td />
            </tr>
          </tfoot>
        </table>
      </div>
      <div>
        <button
          type="button"
          onClick={() => {
            setLines((ls) => [...ls, newLine()])
            onChange()
          }}
        >
          Add a line
        </button>
      </div>
    </fieldset>
  )
}

/**
 * The header that makes a write a dry run: checked and carried out, then rolled back (docs/platform.md "Dry runs").
 * Sent as a header rather than the SDK's `dryRun: true` because the page reads the answer's Preference-Applied;
 * the SDK sees the header all the same (no Idempotency-Key, safe to send again).
 */
export const DRY_RUN = { Prefer: 'dry-run' } as const

/**
 * Sends a create request as a dry run and answers the body the API would
 * have answered. A server that did not apply the dry run (no
 * `Preference-Applied: dry-run`) really created the record: that is said, not
 * shown as a preview.
 */
export async function dryRun<T>(send: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await send()
  if (!response.ok || data === undefined) throw new ApiError(response, error)
  if (response.headers.get('preference-applied') !== 'dry-run') throw new Error('The API did not apply the dry run (no Preference-Applied: dry-run in its answer): the record was created. Check the list before creating it again.')
  return data
}

/** What both an invoice and a quotation answer: their totals, and lines named by description (invoice) or product (quotation). */
type PreviewLine = Pick<Schemas['InvoiceLine'], 'quantity' | 'unitPrice' | 'discount' | 'taxRate' | 'total'> & ({ description: string } | { productName: string | null })
export type Previewed = Pick<Schemas['Invoice'], 'subtotal' | 'taxAmount' | 'total' | 'currency'> & { lineItems: PreviewLine[] }

/** What the Preview shows: the totals the API computed in a dry run (or its refusal), until the form changes. */
export function PreviewResult({ preview, what }: { preview: PreviewState; what: string }) {
  if (!preview) return null
  if (preview.error) return <ErrorMessage error={preview.error} />
  const p = preview.result
  if (!p) return null
  const m = (cents: number) => money(cents, p.currency)
  return (
    <section className="preview" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <p className="muted" role="status">
        The totals the API computed for this {what} in a dry run: nothing was created. Total {m(p.total)}.
      </p>
      <Table
        caption={`Preview of the ${what}'s lines`}
        rows={p.lineItems.map((l, i) => ({ ...l, key: String(i) }))}
        rowKey={(l) => l.key}
        empty="No lines."
        scrollable
        columns={[
          { label: 'Line', cell: (l) => ('description' in l ? l.description : (l.productName ?? '—')) },
          { label: 'Quantity', align: 'right', cell: (l) => l.quantity },
          { label: 'Unit price', align: 'right', cell: (l) => m(l.unitPrice) },
          { label: 'Discount', align: 'right', cell: (l) => (l.discount ? `${l.discount} %` : '—') },
          { label: 'Tax', align: 'right', cell: (l) => (l.taxRate ? `${l.taxRate} %` : '—') },
          { label: 'Total', align: 'right', cell: (l) => m(l.total) },
        ]}
      />
      <dl className="details totals preview-totals" aria-label="Preview totals">
        <dt>Subtotal</dt>
        <dd>{m(p.subtotal)}</dd>
        <dt>Tax</dt>
        <dd>{m(p.taxAmount)}</dd>
        <dt>Total</dt>
        <dd>
          <strong>{m(p.total)}</strong>
        </dd>
      </dl>
    </section>
  )
}

export type PreviewState = { result?: Previewed; error?: unknown } | null

/** The Preview button of a create form: runs `preview` on the form's data and hands over the answer or the refusal. */
export function PreviewButton({ preview, onResult }: { preview: (data: FormData) => Promise<Previewed>; onResult: (state: PreviewState) => void }) {
  const [busy, setBusy] = useState(false)
  return (
    <button
      type="button"
      disabled={busy}
      aria-busy={busy}
      onClick={async (e) => {
        const form = e.currentTarget.form
        if (!form) return
        setBusy(true)
        onResult(null)
        try {
          onResult({ result: await preview(new FormData(form)) })
        } catch (error) {
          onResult({ error })
        } finally {
          setBusy(false)
        }
      }}
    >
      {busy && <span className="spinner" aria-hidden="true" />}
      Preview
    </button>
  )
}
