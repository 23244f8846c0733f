// The dashboard's small kit: data loading, errors in the API's words, tables
// with server-side paging, labelled fields, buttons that show progress.
import { cloneElement, useCallback, useEffect, useId, useLayoutEffect, useRef, useState, useSyncExternalStore, type InputHTMLAttributes, type ReactElement, type ReactNode } from 'react'
import { NavLink, useLocation, useSearchParams } from 'react-router'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { unwrapUndefined, withinLoad, wrapUndefined } from './cache.ts'
import type { ErrorCode, Schemas } from '../../sdk/src/index.ts'
import { isApiError, useRateLimitWait } from './session.tsx'

export type PageMeta = Schemas['PageMeta']

/**
 * Runs `load` now and whenever `deps` change; `reload()` runs it again. Errors are kept, not thrown.
 * On TanStack Query (docs/dashboard.md "Cached reads"): the GETs `load` sends as the page opens
 * are answered from the shared cache when the same request was answered less than STALE_MS ago
 * (by this page or another); any later run (`deps` changed, `reload()`) asks the API.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  // One key per mounted use: its state is its own (two pages never show each other's data); the sharing is per request.
  const [instance] = useState(() => ++loadInstances)
  const runs = useRef(0)
  const query = useQuery({
    queryKey: ['load', instance, ...deps],
    queryFn: async () => wrapUndefined(await withinLoad(runs.current++ === 0 ? 'cached' : 'fresh', load)),
    staleTime: 0,
    gcTime: 0,
    placeholderData: keepPreviousData,
  })
  const { refetch } = query
  const reload = useCallback(() => void refetch(), [refetch])
  return { data: unwrapUndefined(query.data) as T | undefined, error: query.error ?? undefined, loading: query.isFetching, reload }
}
let loadInstances = 0

/**
 * A list's filters kept in the page's address, so that Back from a detail,
 * Forward, a reload and a shared link all show the same list: `get(key)` and
 * `choice(key, allowed)` to read, `set(key, value)` to change one (empty
 * removes it; any change but the page's goes back to page 1 and replaces the
 * history entry, a page change adds one), `page` the page asked for.
 */
export function useUrlFilters() {
  const [address, setParams] = useSearchParams()
  // The router renders a new address in a transition: until it does, the
  // controls show the filters just set (a checkbox would otherwise spring back).
  const [pending, setPending] = useState<URLSearchParams | null>(null)
  useEffect(() => setPending(null), [address])
  const params = pending ?? address
  // The filters as last set, so that two changes in one event both count.
  const latest = useRef(params)
  latest.current = params
  const set = useCallback(
    (key: string, value: string) => {
      const next = new URLSearchParams(latest.current)
      if (value) next.set(key, value)
      else next.delete(key)
      if (key !== 'page') next.delete('page')
      latest.current = next
      setPending(next)
      setParams(next, { replace: key !== 'page' })
    },
    [setParams],
  )
  const get = (key: string) => params.get(key) ?? ''
  /** A filter with a closed set of values: one of `allowed`, else `fallback` (a hand-edited address never sends the API a value it refuses). */
  function choice<T extends string>(key: string, allowed: readonly T[]): T | ''
  function choice<T extends string>(key: string, allowed: readonly T[], fallback: T): T
  function choice<T extends string>(key: string, allowed: readonly T[], fallback: T | '' = ''): T | '' {
    const value = params.get(key)
    return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback
  }
  const page = Math.max(1, Math.trunc(Number(params.get('page') ?? 1)) || 1)
  return { params, set, get, choice, page, setPage: (n: number) => set('page', n > 1 ? String(n) : '') }
}

/** How long a search box waits after the last keystroke before it searches (docs/dashboard.md "Request budget"). */
export const SEARCH_DEBOUNCE_MS = 300

/**
 * `value`, once it has stayed the same for `ms` milliseconds: what a search
 * sends the API, so that typing a name costs one request, not one a keystroke.
 */
export function useDebounced<T>(value: T, ms = SEARCH_DEBOUNCE_MS): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

/**
 * A search box bound to a filter of the address: typing sets the filter
 * (trimmed) once the typing pauses (useDebounced), and a change of the
 * address (Back, a menu link) shows in the box.
 */
export function SearchInput({ value, onSearch, ...rest }: { value: string; onSearch: (value: string) => void } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'defaultValue' | 'onChange' | 'type'>) {
  const [text, setText] = useState(value)
  // Set only by typing, so that a change of the address is not sent back as a search.
  const [typed, setTyped] = useState<string | null>(null)
  const settled = useDebounced(typed)
  const latest = useRef(onSearch)
  latest.current = onSearch
  useEffect(() => {
    if (settled !== null && settled !== value) latest.current(settled)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [settled])
  useEffect(() => {
    setText((t) => (t.trim() === value ? t : value))
    setTyped((t) => (t === null || t === value ? t : null))
  }, [value])
  return (
    <input
      type="search"
      {...rest}
      value={text}
      onChange={(e) => {
        setText(e.target.value)
        setTyped(e.target.value.trim())
      }}
    />
  )
}

/** Seconds until the API takes requests again, from a 429's Retry-After or X-RateLimit-Reset (docs/platform.md "Rate limits"). */
export function secondsToWait(headers: Headers, now = Date.now()): number | undefined {
  const after = Number(headers.get('retry-after'))
  const reset = Number(headers.get('x-ratelimit-reset'))
  const seconds = Math.max(after > 0 ? after : 0, reset > 0 ? Math.ceil(reset - now / 1000) : 0)
  return seconds > 0 ? seconds : undefined
}

/**
 * What each closed error code (docs/errors.md "The codes") means to a person.
 * A `true` code is answered with the API's own sentence, which says what to
 * fix; the others with the sentence here (their API message is technical).
 * No code is ever shown: codes are for programs.
 */
const ERROR_SENTENCES: Record<ErrorCode, string | true> = {
  MALFORMED_REQUEST: 'The request could not be read. Reload the page and try again.',
  INVALID_PARAMETER: true,
  INVALID_STATE: true,
  ACTION_NOT_ALLOWED: true,
  LIMIT_EXCEEDED: true,
  INSUFFICIENT_STOCK: true,
  DRY_RUN_UNSUPPORTED: 'This action cannot be previewed.',
  UNAUTHENTICATED: true,
  INVALID_SIGNATURE: 'The signature of the request is not valid.',
  FORBIDDEN: 'Your role does not allow this. Ask an admin of the organization.',
  LICENSE_INACTIVE: true,
  LICENSE_EXPIRED: true,
  MODULE_MISMATCH: true,
  VERSION_MISMATCH: true,
  NOT_ACTIVATED_ON_DOMAIN: true,
  NOT_FOUND: 'It was not found: it may have been deleted. Reload the page.',
  ROUTE_NOT_FOUND: 'This part of the API does not exist on this server.',
  LICENSE_NOT_FOUND: true,
  ALREADY_EXISTS: true,
  STATE_CONFLICT: true,
  CONFLICT: true,
  IDEMPOTENCY_KEY_IN_USE: 'The same request is still running. Wait a moment, then reload the page.',
  ACTIVATION_LIMIT_REACHED: true,
  GONE: 'This is no longer available.',
  PAYLOAD_TOO_LARGE: 'The file or text is too large.',
  UNSUPPORTED_MEDIA_TYPE: 'This kind of file is not accepted.',
  VALIDATION_FAILED: true,
  PERIOD_LOCKED: true,
  IDEMPOTENCY_KEY_REUSED: 'The same request was already sent with other data. Reload the page and try again.',
  RATE_LIMITED: "Too many requests: the API's budget for this minute is spent. Try again in a minute.",
  QUEUE_FULL: 'The server is busy. Try again in a minute.',
  INTERNAL_ERROR: 'Something went wrong on the server. Try again; if it keeps failing, tell support.',
  SERVICE_UNAVAILABLE: 'The service is not available right now. Try again in a minute.',
}

/**
 * The API's sentence with its amounts as money: the API gives them in cents in
 * parentheses ("exceeds amount due (60810)"); with the page's `currency` they
 * read "($608.10)", without it the raw number is dropped.
 */
export function moneyInSentence(message: string, currency?: string): string {
  return message.replace(/\s?\((\d+)\)/g, (_, cents: string) => (currency ? ` (${money(Number(cents), currency)})` : ''))
}

/**
 * A failure as a sentence (docs/dashboard.md "Feedback and errors"): the API's
 * own message or the kit's sentence for its code (ERROR_SENTENCES), never the
 * code; amounts as money in `currency`; too many requests (429) with the time to
 * wait; no answer at all as such.
 */
export function errorText(error: unknown, currency?: string): string {
  if (isApiError(error) && error.status === 429) {
    const wait = secondsToWait(error.headers)
    return `Too many requests: the API's budget for this minute is spent. Try again ${wait ? `in ${wait} s` : 'in a minute'}.`
  }
  if (isApiError(error)) {
    const known = ERROR_SENTENCES[error.code as ErrorCode] as string | true | undefined
    if (typeof known === 'string') return known
    // No code of docs/errors.md: not the API's answer (a proxy's page, a timeout).
    if (known === undefined && error.status >= 500) return ERROR_SENTENCES.SERVICE_UNAVAILABLE as string
    const message = moneyInSentence(error.message.trim(), currency)
    if (message && !/^HTTP \d+$/.test(message)) return /[.!?]$/.test(message) ? message : `${message}.`
    return 'The API refused the request.'
  }
  if (error instanceof TypeError && /fetch|network/i.test(error.message)) return 'The API could not be reached: check the connection, then try again.'
  if (error instanceof Error) return error.message
  return String(error)
}

export function ErrorMessage({ error, currency }: { error: unknown; currency?: string }) {
  if (!error) return null
  return (
    <div className="error" role="alert">
      {errorText(error, currency)}
    </div>
  )
}

// Toasts: what an action did, said once in a polite live region that every
// Page holds, and gone after a few seconds (docs/dashboard.md "Feedback and errors").
let toastItems: { id: number; text: string }[] = []
let toastSeq = 0
const toastListeners = new Set<() => void>()
const setToasts = (next: typeof toastItems) => {
  toastItems = next
  for (const l of toastListeners) l()
}
/** How long a toast stays, in milliseconds. */
export const TOAST_MS = 8000

/** Says `text` in a toast: after an action succeeds (sent, added, recorded, changed). */
export function toast(text: string) {
  const id = ++toastSeq
  setToasts([...toastItems.slice(-2), { id, text }])
  setTimeout(() => setToasts(toastItems.filter((t) => t.id !== id)), TOAST_MS)
}

/** The live region of the toasts; always in the page (so that screen readers announce what appears in it). */
export function Toasts() {
  const items = useSyncExternalStore(
    (l) => (toastListeners.add(l), () => void toastListeners.delete(l)),
    () => toastItems,
  )
  return (
    <div className="toasts" role="status" aria-live="polite" aria-label="Messages">
      {items.map((t) => (
        <div key={t.id} className="toast">
          <span>{t.text}</span>
          <button type="button" aria-label="Hide this message" onClick={() => setToasts(toastItems.filter((x) => x.id !== t.id))}>
            ×
          </button>
        </div>
      ))}
    </div>
  )
}

/**
 * Asks before a destructive or privilege-changing action (a delete, a cancel,
 * a revoke, a role made admin): the browser's own confirmation dialog, which
 * every screen reader and keyboard knows. True when the person agrees.
 */
export function confirmAction(question: string): boolean {
  return window.confirm(question)
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <div className="notice" role="status">
      {children}
    </div>
  )
}

/** What to show when a list is empty: what it holds and what to do about it. */
export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>
}

/** A spinner; while the API asks to wait (429), it says so and for how long instead (never a silent wait). */
export function Loading({ label = 'Loading' }: { label?: string }) {
  const wait = useRateLimitWait()
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {wait ? `Waiting for the API: too many requests, ${wait} s left…` : `${label}…`}
    </div>
  )
}

/** The title of the page shown, for the shell's breadcrumbs (shell.tsx). */
export const currentPageTitle = (() => {
  let title = ''
  const listeners = new Set<() => void>()
  return {
    get: () => title,
    set(next: string) {
      if (next === title) return
      title = next
      for (const l of listeners) l()
    },
    subscribe: (l: () => void) => (listeners.add(l), () => void listeners.delete(l)),
  }
})()

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Business Platform`
    currentPageTitle.set(title)
    return () => currentPageTitle.set('')
  }, [title])
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title">{title}</h1>
        {actions && <div className="actions">{actions}</div>}
      </header>
      {children}
      <Toasts />
    </section>
  )
}

export function Card({ title, children, actions }: { title?: string; children: ReactNode; actions?: ReactNode }) {
  const id = useId()
  return (
    <section className="card" aria-labelledby={title ? id : undefined}>
      {(title || actions) && (
        <header className="card-header">
          {title && <h2 id={id}>{title}</h2>}
          {actions}
        </header>
      )}
      {children}
    </section>
  )
}

/** Whether the box (shown when `shown`) is narrower than its content, so that it scrolls sideways; followed as the window's width changes. */
function useOverflows(shown: boolean) {
  const ref = useRef<HTMLDivElement>(null)
  const [overflows, setOverflows] = useState(false)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const check = () => setOverflows(el.scrollWidth > el.clientWidth + 1)
    check()
    const observer = new ResizeObserver(check)
    observer.observe(el)
    if (el.firstElementChild) observer.observe(el.firstElementChild)
    return () => observer.disconnect()
  }, [shown])
  return [ref, overflows] as const
}

export interface Column<T> {
  label: string
  cell: (row: T) => ReactNode
  align?: 'right'
}

/**
 * A table of rows; `empty` is shown instead when there are none; `foot` (rows of `<tr>`) closes it, for totals.
 * `scrollable`: a table with nothing to focus in it that may be wider than a phone; its box, which then scrolls
 * sideways, takes the keyboard's focus (and is named by the caption) so that it can be scrolled without a mouse.
 * Any other table's box does the same while it is narrower than the table (docs/dashboard.md "Layout").
 */
export function Table<T>({ caption, columns, rows, rowKey, empty, foot, scrollable }: { caption: string; columns: Column<T>[]; rows: T[]; rowKey: (row: T) => string; empty: ReactNode; foot?: ReactNode; scrollable?: boolean }) {
  const [box, overflows] = useOverflows(rows.length > 0)
  if (rows.length === 0) return <Empty>{empty}</Empty>
  return (
    <div ref={box} className="table-wrap" {...(scrollable || overflows ? { tabIndex: 0, role: 'region', 'aria-label': caption } : {})}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col" className={c.align === 'right' ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.label} className={c.align === 'right' ? 'num' : undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        {foot && <tfoot>{foot}</tfoot>}
      </table>
    </div>
  )
}

/**
 * A server-side list as every page shows it: the API's error, a spinner until
 * the first answer, then the rows (or what to do when there are none) and the
 * pager. `list` is useLoad's state of an enveloped list. The rows are a
 * table of `columns`, or whatever `render` makes of them.
 */
export function ListView<T>({ list, onPage, empty, ...view }: { list: { data?: { data: T[]; meta: PageMeta }; error: unknown }; onPage: (page: number) => void; empty: ReactNode } & ({ caption: string; columns: Column<T>[]; rowKey: (row: T) => string } | { render: (rows: T[]) => ReactNode })) {
  const rows = list.data?.data
  return (
    <>
      <ErrorMessage error={list.error} />
      {!list.data && !list.error && <Loading />}
      {list.data && rows && (
        <>
          {'render' in view ? rows.length === 0 ? <Empty>{empty}</Empty> : view.render(rows) : <Table rows={rows} empty={empty} {...view} />}
          <Pager meta={list.data.meta} onPage={onPage} />
        </>
      )}
    </>
  )
}

/** Page n of a server-side list (meta from the list envelope). */
export function Pager({ meta, onPage }: { meta: PageMeta | undefined; onPage: (page: number) => void }) {
  if (!meta) return null
  const page = meta.page ?? 1
  const totalPages = meta.totalPages ?? 1
  if (totalPages <= 1) return <p className="pager-total">{meta.total} in all</p>
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous
      </button>
      <span>
        Page {page} of {totalPages} ({meta.total} in all)
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
        Next
      </button>
    </nav>
  )
}

/** A labelled control: the label names the one input, select or textarea given as child (and the hint describes it). */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ReactElement<{ id?: string; 'aria-describedby'?: string }> }) {
  const id = useId()
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {cloneElement(children, { id, ...(hint ? { 'aria-describedby': `${id}-hint` } : {}) })}
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
    </div>
  )
}

/**
 * A button whose action is async: disabled with a spinner while it runs, the
 * API's message shown under it when it fails. `onDone` runs after success.
 */
export function ActionButton({ action, children, onDone, variant, confirm, done }: { action: () => Promise<unknown>; children: ReactNode; onDone?: () => void; variant?: 'primary' | 'danger'; /** Asked first (confirmAction). */ confirm?: string; /** Said in a toast after success. */ done?: string }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  return (
    <span className="action">
      <button
        type="button"
        className={variant}
        disabled={busy}
        aria-busy={busy}
        onClick={async () => {
          if (confirm && !confirmAction(confirm)) return
          setBusy(true)
          setError(undefined)
          try {
            await action()
            if (done) toast(done)
            onDone?.()
          } catch (err) {
            setError(err)
          } finally {
            setBusy(false)
          }
        }}
      >
        {busy && <span className="spinner" aria-hidden="true" />}
        {children}
      </button>
      {error ? <ErrorMessage error={error} /> : null}
    </span>
  )
}

/**
 * A form whose submit is async: the submit button shows progress, the API's
 * message is shown above the buttons, and `onDone` gets the answer; with
 * `done`, a toast says what happened and the form is cleared. While
 * `blocked` holds a reason, the submit button is disabled and the reason is
 * shown next to it (and describes it); pass null when nothing blocks it.
 * `actions` are more buttons beside the submit button (a Preview).
 */
export function Form<T>({ submit, onDone, label, children, submitLabel, blocked, actions, currency, done }: { submit: (data: FormData) => Promise<T>; onDone?: (result: T) => void; label: string; children: ReactNode; submitLabel: string; blocked?: ReactNode; actions?: ReactNode; /** The currency of the amounts in the API's messages. */ currency?: string; /** After success: said in a toast, and the form is cleared (passwords included). */ done?: (result: T) => string }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const reasonId = useId()
  return (
    <form
      className="form"
      aria-label={label}
      onSubmit={async (e) => {
        e.preventDefault()
        if (blocked) return
        const form = e.currentTarget
        setBusy(true)
        setError(undefined)
        try {
          const result = await submit(new FormData(form))
          if (done) {
            toast(done(result))
            form.reset()
          }
          onDone?.(result)
        } catch (err) {
          setError(err)
        } finally {
          setBusy(false)
        }
      }}
    >
      {children}
      <ErrorMessage error={error} currency={currency} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy || Boolean(blocked)} aria-busy={busy} aria-describedby={blocked ? reasonId : undefined}>
          {busy && <span className="spinner" aria-hidden="true" />}
          {submitLabel}
        </button>
        {actions}
        {blocked !== undefined && (
          // Kept in the page while empty, so that screen readers announce the reason when it appears.
          <span id={reasonId} className="blocked" role="status">
            {blocked}
          </span>
        )}
      </div>
    </form>
  )
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(text)
        setCopied(true)
        setTimeout(() => setCopied(false), 2000)
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  )
}

/** How a badge reads: the one set of tones every status of every page maps to. */
export type Tone = 'neutral' | 'good' | 'warn' | 'bad' | 'info'

/** A tab of Tabs; false leaves it out (a tab one role does not get). */
export type Tab = { to: string; label: string; end?: boolean } | false

/**
 * The tabs of a page group, as links (the address says which is open). On a
 * narrow screen they scroll sideways, and the open one is scrolled into view.
 */
export function Tabs({ label, tabs }: { label: string; tabs: Tab[] }) {
  const ref = useRef<HTMLElement>(null)
  const { pathname } = useLocation()
  useEffect(() => {
    const show = () => {
      const active = ref.current?.querySelector<HTMLElement>('a.active')
      if (ref.current && active) ref.current.scrollLeft = Math.max(0, active.offsetLeft - 12)
    }
    show()
    window.addEventListener('resize', show)
    return () => window.removeEventListener('resize', show)
  }, [pathname])
  return (
    <nav className="tabs" aria-label={label} ref={ref}>
      {tabs.map(
        (t) =>
          t && (
            <NavLink key={t.to} to={t.to} end={t.end}>
              {t.label}
            </NavLink>
          ),
      )}
    </nav>
  )
}

export function Badge({ tone = 'neutral', children }: { tone?: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>
}

/** The currencies the dashboard's selects offer (lower-case ISO 4217, as the API spells them). */
export const CURRENCIES = ['usd', 'eur', 'gbp', 'chf', 'cad', 'aud', 'jpy', 'inr'] as const

/** A labelled select of CURRENCIES; `all` names an empty first choice (a filter's "every currency"). */
export function CurrencySelect({ value, onChange, all }: { value: string; onChange: (currency: string) => void; all?: string }) {
  return (
    <Field label="Currency">
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {all && <option value="">{all}</option>}
        {CURRENCIES.map((c) => (
          <option key={c} value={c}>
            {c.toUpperCase()}
          </option>
        ))}
      </select>
    </Field>
  )
}

/** Money as the API gives it: integer minor units and an ISO currency code. */
export function money(amount: number | null | undefined, currency = 'USD'): string {
  if (amount === null || amount === undefined) return '—'
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100)
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`
  }
}

export const date = (value: string | null | undefined) => (value ? new Date(value.length === 10 ? `${value}T00:00:00` : value).toLocaleDateString() : '—')
export const dateTime = (value: string | null | undefined) => (value ? new Date(value).toLocaleString() : '—')

/** Fields of a FormData as strings, empty ones left out. */
export function formFields(data: FormData): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of data.entries()) if (typeof v === 'string' && v.trim() !== '') out[k] = v.trim()
  return out
}

/** Saves a Blob as a file in the browser (PDFs and CSV the API answers). */
export function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = filename
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
