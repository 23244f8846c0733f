import { Suspense, useEffect, useMemo, useRef, useState } from 'react'
import { NavLink, Navigate, Route, Routes, useLocation } from 'react-router'
import { GROUPS, homeOf, moved, pages } from './pages.tsx'
import { ForgotPasswordPage, RegisterPage, ResetPasswordPage, SignInPage } from './pages/SignIn.tsx'
import { RateLimitNotice, useSession, useSessionState } from './session.tsx'
import { Breadcrumbs, CommandPalette, ShortcutsHelp, TestModeBanner, ThemeToggle, useShortcuts } from './shell.tsx'
import { Loading, Page, Empty } from './ui.tsx'


/**
 * The menu's state on a narrow screen (docs/dashboard.md "Layout"): closed at
 * first, closed again once a link is chosen (the address changes) and on
 * Escape, which gives the focus back to the menu button. Above the breakpoint
 * the stylesheet shows the sidebar whatever this says.
 */
function useMenu() {
  const [open, setOpen] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const { pathname, search } = useLocation()
  useEffect(() => setOpen(false), [pathname, search])
  useEffect(() => {
    if (!open) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return
      setOpen(false)
      button.current?.focus()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [open])
  return { open, button, toggle: () => setOpen((o) => !o), close: () => setOpen(false) }
}

function Shell() {
  const { me, role, signOut } = useSession()
  const mine = useMemo(() => pages.filter((p) => p.roles.includes(role)), [role])
  const menu = useMenu()
  const keys = useShortcuts(mine)
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className={menu.open ? 'sidebar menu-open' : 'sidebar'}>
        <div className="topbar">
          <div className="brand">
            <img src="/favicon.svg" alt="" width={28} height={28} />
            <span>{me.organization.name}</span>
          </div>
          <button ref={menu.button} type="button" className="menu-button" aria-expanded={menu.open} aria-controls="main-menu" onClick={menu.toggle}>
            <span className="menu-icon" aria-hidden="true" />
            Menu
          </button>
        </div>
        {/* A link chosen closes the menu even when it is the page already shown (the address does not change then). */}
        <div id="main-menu" className="menu" onClick={(e) => (e.target as HTMLElement).closest('a') && menu.close()}>
          <nav aria-label="Main">
            {GROUPS.map((g) => {
              const entries = mine.filter((p) => p.group === g)
              if (entries.length === 0) return null
              return (
                <div key={g} className="nav-group">
                  <h2 className="nav-title">{g}</h2>
                  <ul>
                    {entries.map((p) => (
                      <li key={p.path}>
                        <NavLink to={p.path}>{p.label}</NavLink>
                      </li>
                    ))}
                  </ul>
                </div>
              )
            })}
          </nav>
          <div className="whoami">
            <button type="button" onClick={keys.openPalette} aria-keyshortcuts="Control+K Meta+K">
              Search <kbd aria-hidden="true">Ctrl K</kbd>
            </button>
            <button type="button" onClick={keys.openHelp} aria-keyshortcuts="?">
              Keyboard shortcuts
            </button>
            <ThemeToggle />
            {/* The API reference is the API's own page (Scalar), outside the dashboard: a plain link. */}
            <a className="api-docs" href="/api/docs">
              API reference
            </a>
            <span>
              {me.user.name} <span className="role">({role})</span>
            </span>
            <button type="button" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </div>
      </aside>
      <main id="main" tabIndex={-1}>
        <TestModeBanner />
        <RateLimitNotice />
        <Breadcrumbs mine={mine} />
        {/* A page group's code is fetched the first time one of its pages opens (pages.tsx). */}
        <Suspense fallback={<Loading label="Loading the page" />}>
          <Routes>
            {mine.map((p) => (
              <Route key={p.path} path={`${p.path}/*`} element={<p.Component />} />
            ))}
            {moved.map((m) => (
              <Route key={m.from} path={`${m.from}/*`} element={<Moved from={m.from} to={m.to} />} />
            ))}
            <Route path="/" element={<Navigate to={homeOf(role)} replace />} />
            <Route path="/sign-in" element={<Return home={homeOf(role)} />} />
            <Route path="/register" element={<Navigate to={homeOf(role)} replace />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </main>
      <CommandPalette open={keys.palette} onClose={keys.closePalette} mine={mine} />
      <ShortcutsHelp open={keys.help} onClose={keys.closeHelp} mine={mine} />
    </div>
  )
}

/** An address that moved: the same place under its new path, with its query (a checkout's return, a list's filters) kept. */
function Moved({ from, to }: { from: string; to: string }) {
  const { pathname, search, hash } = useLocation()
  return <Navigate to={`${to}${pathname.slice(from.length)}${search}${hash}`} replace />
}

/**
 * Where a sign-in leads: back to the address opened while signed out (kept by
 * App in the sign-in page's history state), else the role's home page.
 */
function Return({ home }: { home: string }) {
  const { state } = useLocation()
  return <Navigate to={returnTarget(state) ?? home} replace />
}

/** The address to return to, from the sign-in page's history state: a path of this app only (never `//host` or a full URL). */
function returnTarget(state: unknown): string | undefined {
  const from = (state as { from?: unknown } | null)?.from
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') && !from.startsWith('/\\') && !/^\/(sign-in|register)\b/.test(from) ? from : undefined
}

function NotFound() {
  return (
    <Page title="Page not found">
      <Empty>This page does not exist, or your role may not open it. Pick a page in the menu.</Empty>
    </Page>
  )
}

export function App() {
  const { session, loading } = useSessionState()
  const location = useLocation()
  if (loading) return <Loading label="Signing in" />
  if (session) return <Shell />
  return (
    <Routes>
      <Route path="/register" element={<RegisterPage />} />
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route path="/reset-password" element={<ResetPasswordPage />} />
      <Route path="*" element={<Navigate to="/sign-in" replace state={location.pathname === '/' ? null : { from: `${location.pathname}${location.search}${location.hash}` }} />} />
    </Routes>
  )
}
