// Who is signed in, and the SDK client every page calls the API with.
// The token pair is kept in localStorage so that a reload stays signed in; the
// SDK refreshes the access token when it expires and hands the new pair back.
import { ApiError, createSdk, type Schemas, type Sdk, type Tokens } from '../../sdk/src/index.ts'
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react'

export type Role = Schemas['User']['role']
export type Me = { user: Schemas['User']; organization: Schemas['Organization'] }

const STORE = 'bp.session'
const origin = () => window.location.origin

/** A client without credentials, for the public routes (sign in, register). */
export const anonymous = createSdk({ baseUrl: origin(), maxAttempts: 3 })

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
    const api = createSdk({ baseUrl: origin(), accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, onTokens: save, maxAttempts: 3 })
    const me = (await api.get('/api/auth/me')) as Me
    save(api.tokens() ?? tokens)
    const signOut = async () => {
      const current = api.tokens()
      save(null)
      setSession(null)
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
