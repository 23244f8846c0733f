// The shell's helpers around every page (docs/dashboard.md "Finding your way"):
// the search across records (Ctrl+K), the keyboard shortcuts, the breadcrumbs,
// the test-mode banner and the dark-mode toggle.
import { useEffect, useId, useRef, useState, useSyncExternalStore, type ReactNode } from 'react'
import { Link, useLocation, useNavigate } from 'react-router'
import type { PageEntry } from './pages.tsx'
import { useSession } from './session.tsx'
import { currentPageTitle, errorText, useDebounced, useLoad } from './ui.tsx'

// ---------------------------------------------------------------- dark mode

const THEME_KEY = 'bp.theme'
type Theme = 'light' | 'dark'
const darkQuery = () => window.matchMedia('(prefers-color-scheme: dark)')
function storedTheme(): Theme | null {
  try {
    const t = localStorage.getItem(THEME_KEY)
    return t === 'dark' || t === 'light' ? t : null
  } catch {
    return null
  }
}
const themeListeners = new Set<() => void>()
/** The theme shown: the one chosen with the toggle (kept in localStorage), else the system's (prefers-color-scheme). */
const effectiveTheme = (): Theme => storedTheme() ?? (darkQuery().matches ? 'dark' : 'light')
function applyTheme() {
  document.documentElement.dataset.theme = effectiveTheme()
  for (const l of themeListeners) l()
}

/** Called once before the first render (main.tsx), so that no page flashes in the other theme; follows the system's changes. */
export function startTheme() {
  applyTheme()
  darkQuery().addEventListener('change', applyTheme)
}

/** A button that switches between light and dark and keeps the choice; `aria-pressed` says whether dark is on. */
export function ThemeToggle() {
  const theme = useSyncExternalStore(
    (l) => (themeListeners.add(l), () => void themeListeners.delete(l)),
    effectiveTheme,
  )
  return (
    <button
      type="button"
      aria-pressed={theme === 'dark'}
      onClick={() => {
        try {
          localStorage.setItem(THEME_KEY, theme === 'dark' ? 'light' : 'dark')
        } catch {}
        applyTheme()
      }}
    >
      Dark mode
    </button>
  )
}

// ---------------------------------------------------------------- test mode

/** On every page when the API runs in test mode (GET /api's `environment`, docs/platform.md): nothing here moves real money. */
export function TestModeBanner() {
  const { api } = useSession()
  const index = useLoad(() => api.get('/api'), [])
  if (index.data?.environment !== 'test') return null
  return (
    <p className="test-banner" role="note">
      <strong>Test mode.</strong> This server runs with test data: payments go to the local test processor and no real money moves.
    </p>
  )
}

// ---------------------------------------------------------------- breadcrumbs

/** The menu entry an address belongs to: the longest page path it starts with. */
export function entryOf(pathname: string, mine: PageEntry[]): PageEntry | undefined {
  return mine.filter((p) => pathname === p.path || pathname.startsWith(`${p.path}/`)).sort((a, b) => b.path.length - a.path.length)[0]
}

/**
 * Under a menu entry's own page (a record, a new one, a tab): its entry and the
 * page's title, "Purchase orders / Purchase order P00012", derived once here from
 * the address, pages.tsx and the title the page shows (Page in ui.tsx).
 */
export function Breadcrumbs({ mine }: { mine: PageEntry[] }) {
  const { pathname } = useLocation()
  const title = useSyncExternalStore(currentPageTitle.subscribe, currentPageTitle.get)
  const entry = entryOf(pathname, mine)
  if (!entry || pathname === entry.path || pathname === `${entry.path}/` || !title || title === entry.label) return null
  return (
    <nav className="breadcrumbs" aria-label="Breadcrumb">
      <ol>
        <li>
          <Link to={entry.path}>{entry.label}</Link>
        </li>
        <li>
          <span aria-current="page">{title}</span>
        </li>
      </ol>
    </nav>
  )
}

// ---------------------------------------------------------------- dialogs

/** A modal dialog (the browser's <dialog>: the rest of the page inert, Escape closes it); Tab stays inside; the focus returns where it was. */
function Dialog({ open, onClose, label, className, children }: { open: boolean; onClose: () => void; label: string; className?: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog || !open) return
    const before = document.activeElement as HTMLElement | null
    dialog.showModal()
    return () => {
      dialog.close()
      before?.focus()
    }
  }, [open])
  if (!open) return null
  return (
    <dialog
      ref={ref}
      className={className ? `dialog ${className}` : 'dialog'}
      aria-label={label}
      onCancel={(e) => {
        e.preventDefault()
        onClose()
      }}
      onKeyDown={(e) => {
        if (e.key !== 'Tab') return
        // Focus trapped: Tab from the last control goes to the first, Shift+Tab from the first to the last.
        const focusable = [...e.currentTarget.querySelectorAll<HTMLElement>('input, button, a[href], select, textarea, [tabindex]:not([tabindex="-1"])')].filter((el) => !el.hasAttribute('disabled'))
        if (focusable.length === 0) return
        const first = focusable[0]
        const last = focusable[focusable.length - 1]
        if (e.shiftKey && document.activeElement === first) {
          e.preventDefault()
          last.focus()
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault()
          first.focus()
        }
      }}
    >
      {children}
    </dialog>
  )
}

// ---------------------------------------------------------------- Ctrl+K

interface Hit {
  key: string
  kind: string
  label: string
  detail?: string
  to: string
}

/** The most records of each resource a search shows. */
const HITS_PER_RESOURCE = 5

/**
 * The records the role may read whose list searches `text` (debounced: one
 * call per resource per pause), among contacts, products, invoices and
 * quotations: only those whose page the role has.
 */
function useRecordSearch(text: string, mine: PageEntry[]) {
  const { api } = useSession()
  const wanted = useDebounced(text.trim())
  const has = (path: string) => mine.some((p) => p.path === path)
  return useLoad(async () => {
    if (wanted.length < 2) return []
    const query = { search: wanted, limit: HITS_PER_RESOURCE }
    const [contacts, products, invoices, quotations] = await Promise.all([
      has('/contacts') ? api.get('/api/contacts', { params: { query: { ...query, sortBy: 'name', sortOrder: 'asc' } } }) : null,
      has('/products') ? api.get('/api/products', { params: { query: { ...query, sortBy: 'name', sortOrder: 'asc' } } }) : null,
      has('/invoices') ? api.get('/api/invoices', { params: { query } }) : null,
      has('/quotations') ? api.get('/api/sales/quotations', { params: { query } }) : null,
    ])
    const hits: Hit[] = [
      ...(contacts?.data ?? []).map((c) => ({ key: `c${c.id}`, kind: 'Contact', label: c.name, detail: c.email ?? undefined, to: `/contacts/${c.id}` })),
      ...(products?.data ?? []).map((p) => ({ key: `p${p.id}`, kind: 'Product', label: p.name, detail: p.sku ?? undefined, to: `/products/${p.id}` })),
      ...(invoices?.data ?? []).map((i) => ({ key: `i${i.id}`, kind: 'Invoice', label: i.number ?? 'Draft invoice', detail: i.contact?.name ?? undefined, to: `/invoices/${i.id}` })),
      ...(quotations?.data ?? []).map((q) => ({ key: `q${q.id}`, kind: 'Quotation', label: q.reference, detail: q.contact?.name ?? undefined, to: `/quotations/${q.id}` })),
    ]
    return hits
  }, [wanted, mine.length])
}

/** Ctrl+K (Cmd+K): a search across the records and the pages, in a dialog; arrows move, Enter opens. */
export function CommandPalette({ open, onClose, mine }: { open: boolean; onClose: () => void; mine: PageEntry[] }) {
  return (
    <Dialog open={open} onClose={onClose} label="Search" className="palette">
      <PaletteBody onClose={onClose} mine={mine} />
    </Dialog>
  )
}

function PaletteBody({ onClose, mine }: { onClose: () => void; mine: PageEntry[] }) {
  const [text, setText] = useState('')
  const [active, setActive] = useState(0)
  const navigate = useNavigate()
  const id = useId()
  const records = useRecordSearch(text, mine)
  const words = text.trim().toLowerCase()
  const pageHits: Hit[] = mine.filter((p) => !words || p.label.toLowerCase().includes(words)).map((p) => ({ key: `page${p.path}`, kind: 'Page', label: p.label, to: p.path }))
  const hits = [...pageHits, ...(words.length >= 2 ? (records.data ?? []) : [])]
  useEffect(() => setActive(0), [text, records.data])
  const current = Math.min(active, hits.length - 1)
  const go = (hit: Hit | undefined) => {
    if (!hit) return
    onClose()
    navigate(hit.to)
  }
  const searching = words.length >= 2 && records.loading
  return (
    <div className="palette-body">
      <label htmlFor={`${id}-q`} className="field-label">
        Search records and pages
      </label>
      <input
        id={`${id}-q`}
        type="search"
        autoFocus
        role="combobox"
        aria-expanded={hits.length > 0}
        aria-controls={`${id}-list`}
        aria-autocomplete="list"
        aria-activedescendant={hits[current] ? `${id}-${hits[current].key}` : undefined}
        autoComplete="off"
        placeholder="A contact, a product, an invoice, a quotation or a page"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault()
            setActive((a) => Math.min(a + 1, hits.length - 1))
          } else if (e.key === 'ArrowUp') {
            e.preventDefault()
            setActive((a) => Math.max(a - 1, 0))
          } else if (e.key === 'Enter') {
            e.preventDefault()
            go(hits[current])
          } else if (e.key === 'Escape') {
            // A search box would only clear its text on the first Escape: Escape closes, whatever is typed.
            e.preventDefault()
            onClose()
          }
        }}
      />
      <p className="palette-status" role="status">
        {records.error ? errorText(records.error) : searching ? 'Searching…' : words.length >= 2 ? `${hits.length} found` : ''}
      </p>
      <ul id={`${id}-list`} role="listbox" aria-label="Results" className="palette-list">
        {hits.map((h, i) => (
          <li
            key={h.key}
            id={`${id}-${h.key}`}
            role="option"
            aria-selected={i === current}
            className={i === current ? 'active' : undefined}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => go(h)}
          >
            <span className="palette-kind">{h.kind}</span> <span className="palette-label">{h.label}</span>
            {h.detail && <span className="palette-detail"> {h.detail}</span>}
          </li>
        ))}
      </ul>
      <div className="palette-foot">
        <span className="muted">↑ ↓ to move, Enter to open, Escape to close</span>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  )
}

// ---------------------------------------------------------------- shortcuts

/** `g` then a letter: the page it goes to (when the role has it). */
export const GO_KEYS: Record<string, string> = {
  o: '/overview',
  q: '/quotations',
  i: '/invoices',
  c: '/contacts',
  p: '/products',
  n: '/inventory',
  a: '/accounting',
  r: '/purchase/orders',
  v: '/purchase/vendors',
  b: '/purchase/bills',
  h: '/helpdesk',
  l: '/licenses',
  s: '/store',
  d: '/downloads',
  m: '/billing',
  k: '/settings/api-keys',
  u: '/settings/users',
}

/** Whether a key press is typing: in a field, a select or editable text (the shortcuts then stay out of the way). */
const typing = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))

/**
 * The keyboard (docs/dashboard.md "Finding your way"): Ctrl+K or Cmd+K opens the
 * search anywhere; outside a field, `?` lists the shortcuts, `g` then a letter
 * goes to a page, `/` focuses the page's search box.
 */
export function useShortcuts(mine: PageEntry[]) {
  const [palette, setPalette] = useState(false)
  const [help, setHelp] = useState(false)
  const navigate = useNavigate()
  const pending = useRef(0)
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault()
        setHelp(false)
        setPalette(true)
        return
      }
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typing(e.target) || document.querySelector('dialog[open]')) return
      if (pending.current && Date.now() - pending.current < 1500) {
        pending.current = 0
        const path = GO_KEYS[e.key.toLowerCase()]
        if (path && mine.some((p) => p.path === path)) {
          e.preventDefault()
          navigate(path)
        }
        return
      }
      if (e.key === 'g') pending.current = Date.now()
      else if (e.key === '?') {
        e.preventDefault()
        setHelp(true)
      } else if (e.key === '/') {
        const box = document.querySelector<HTMLInputElement>('main input[type="search"]')
        if (box) {
          e.preventDefault()
          box.focus()
        }
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [mine, navigate])
  return { palette, help, openPalette: () => setPalette(true), closePalette: () => setPalette(false), closeHelp: () => setHelp(false), openHelp: () => setHelp(true) }
}

/** `?`: the shortcuts, those of pages the role has. */
export function ShortcutsHelp({ open, onClose, mine }: { open: boolean; onClose: () => void; mine: PageEntry[] }) {
  const go = Object.entries(GO_KEYS).flatMap(([key, path]) => {
    const entry = mine.find((p) => p.path === path)
    return entry ? [{ key, label: entry.label }] : []
  })
  return (
    <Dialog open={open} onClose={onClose} label="Keyboard shortcuts" className="shortcuts">
      <h2>Keyboard shortcuts</h2>
      <p className="muted">Not while typing in a field.</p>
      <dl>
        <div>
          <dt>
            <kbd>Ctrl</kbd> + <kbd>K</kbd> (<kbd>⌘</kbd> + <kbd>K</kbd>)
          </dt>
          <dd>Search records and pages</dd>
        </div>
        <div>
          <dt>
            <kbd>/</kbd>
          </dt>
          <dd>Go to the page's search box</dd>
        </div>
        <div>
          <dt>
            <kbd>?</kbd>
          </dt>
          <dd>This list</dd>
        </div>
        {go.map((g) => (
          <div key={g.key}>
            <dt>
              <kbd>g</kbd> then <kbd>{g.key}</kbd>
            </dt>
            <dd>{g.label}</dd>
          </div>
        ))}
      </dl>
      <button type="button" onClick={onClose} autoFocus>
        Close
      </button>
    </Dialog>
  )
}

