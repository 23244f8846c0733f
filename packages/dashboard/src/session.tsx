// Who is signed in, and the SDK client every page calls the API with.
// The token pair is kept in localStorage so that a reload stays signed in; the
// SDK refreshes the access token when it expires and hands the new pair back.
import { ApiError, createSdk, type Schemas, type Sdk, type Tokens } from '../../sdk/src/index.ts'
import { cachedSdk, queryClient } from './cache.ts'
import { createContext, useCallback, useContext, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react'

export type Role = Schemas['User']['role']
export type Me = { user: Schemas['User']; organization: Schemas['Organization'] }

const STORE = 'bp.session'
const origin = () => window.location.origin

/**
 * When the API last refused a request for the rate limit (429), the time (ms
 * since the epoch) until which it asks to wait: the SDK waits that long before
 * it retries (docs/platform.md "Client backoff"), and the page says so meanwhile
 * (RateLimitNotice, Loading) instead of a silent spinner. Any other answer clears it.
 */
let waitUntil = 0
const listeners = new Set<() => void>()
function setWaitUntil(until: number) {
  if (until === waitUntil) return
  waitUntil = until
  for (const l of listeners) l()
}

/** The SDK's fetch: the browser's, watching for 429 (Retry-After, else X-RateLimit-Reset, else a minute). */
async function watchedFetch(request: Request): Promise<Response> {
  const response = await fetch(request)
  if (response.status === 429) {
    const after = Number(response.headers.get('retry-after'))
    const reset = Number(response.headers.get('x-ratelimit-reset'))
    setWaitUntil(after > 0 ? Date.now() + after * 1000 : reset > 0 ? reset * 1000 : Date.now() + 60_000)
  } else setWaitUntil(0)
  return response
}

/** Whole seconds left before the API takes requests again after a 429 (0: no wait), counting down each second. */
export function useRateLimitWait(): number {
  const until = useSyncExternalStore(
    (l) => (listeners.add(l), () => void listeners.delete(l)),
    () => waitUntil,
  )
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!until) return
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [until])
  return until ? Math.max(0, Math.ceil((until - now) / 1000)) : 0
}

/** Shown on every page while the API asks to wait: why nothing moves, and for how long. */
export function RateLimitNotice() {
  const wait = useRateLimitWait()
  if (!wait) return null
  return (
    <div className="notice rate-limit" role="status">
      Too many requests: the API's budget of requests for this minute is spent. The page carries on by itself in {wait} s.
    </div>
  )
}

const sdkOptions = { baseUrl: origin(), maxAttempts: 3, fetch: watchedFetch }

/** A client without credentials, for the public routes (sign in, register). */
export const anonymous = createSdk(sdkOptions)

interface Session {
  api: Sdk
  me: Me
  role: Role
  signOut(): Promise<void>
}
interface SessionState {
  session: Session | null
  /** True until the stored pair has been tried. */
  loading: boolean
  signIn(tokens: Tokens): Promise<void>
}

const Context = createContext<SessionState | null>(null)

function load(): Tokens | null {
  try {
    const raw = localStorage.getItem(STORE)
    return raw ? (JSON.parse(raw) as Tokens) : null
  } catch {
    return null
  }
}
const save = (tokens: Tokens | null) => (tokens ? localStorage.setItem(STORE, JSON.stringify(tokens)) : localStorage.removeItem(STORE))

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null)
  const [loading, setLoading] = useState(true)

  const open = useCallback(async (tokens: Tokens) => {
    // Nothing read for someone else answers from the cache (docs/dashboard.md "Cached reads").
    queryClient.clear()
    const api = cachedSdk(createSdk({ ...sdkOptions, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, onTokens: save }))
    const me = (await api.get('/api/auth/me')) as Me
    save(api.tokens() ?? tokens)
    const signOut = async () => {
      const current = api.tokens()
      save(null)
      setSession(null)
      queryClient.clear()
      if (current?.refreshToken) await api.post('/api/auth/logout', { body: { refreshToken: current.refreshToken } }).catch(() => undefined)
    }
    setSession({ api, me, role: me.user.role, signOut })
  }, [])

  useEffect(() => {
    const stored = load()
    if (!stored) return setLoading(false)
    open(stored)
      .catch(() => save(null))
      .finally(() => setLoading(false))
  }, [open])

  const value = useMemo<SessionState>(() => ({ session, loading, signIn: open }), [session, loading, open])
  return <Context.Provider value={value}>{children}</Context.Provider>
}

export function useSessionState(): SessionState {
  const state = useContext(Context)
  if (!state) throw new Error('useSessionState outside SessionProvider')
  return state
}

/** The signed-in session; only for pages behind the sign-in (App renders them only then). */
export function useSession(): Session {
  const { session } = useSessionState()
  if (!session) throw new Error('useSession without a session')
  return session
}

export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError
