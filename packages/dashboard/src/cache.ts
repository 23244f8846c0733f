// Shared cached reads (docs/dashboard.md "Cached reads"): one TanStack Query
// client for the whole dashboard. The pages' reads (useLoad in ui.tsx) run on
// useQuery, and the SDK's GETs made by a page as it opens are answered from a
// cache of requests for a short while, so that the same read on two pages (the
// contact picker's first page, the product list of the lines, a list visited
// again) costs one request. Every write, answered or refused, marks every cached read stale.
import { QueryClient } from '@tanstack/react-query'
import type { Sdk } from '../../sdk/src/index.ts'

/** How long a read answers from the cache when a page opens, in milliseconds. */
export const STALE_MS = 30_000

export const queryClient = new QueryClient({
  defaultOptions: {
    // The SDK retries what may be retried (429, 502, 503); a page refetches when it says so (reload), never on focus.
    queries: { retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false, structuralSharing: false },
  },
})

/** TanStack Query refuses `undefined` as data: a load that answers nothing is kept as this. */
const NOTHING = Symbol('nothing')
export const wrapUndefined = <T>(value: T): T | typeof NOTHING => (value === undefined ? NOTHING : value)
export const unwrapUndefined = <T>(value: T | typeof NOTHING | undefined): T | undefined => (value === NOTHING ? undefined : (value as T | undefined))

/** Measuring only (docs/dashboard.md "Cached reads"): `localStorage['bp.cache'] = 'off'` makes every read ask the API. */
const cacheOff = () => {
  try {
    return localStorage.getItem('bp.cache') === 'off'
  } catch {
    return false
  }
}

/**
 * How the GETs made now are answered: `cached` while a page's load opens it
 * (useLoad's first run), `fresh` for any later run (a filter, a page, reload()),
 * and `none` outside a load (an action's own reads, a poll): never from the cache.
 */
let mode: 'none' | 'cached' | 'fresh' = 'none'

/** Runs the synchronous part of `load` with its GETs answered in `how` (the GETs sent after an `await` in it are `none`). */
export function withinLoad<T>(how: 'cached' | 'fresh', load: () => T): T {
  const before = mode
  mode = how
  try {
    return load()
  } finally {
    mode = before
  }
}

/** Whether a GET's options can be a cache key (plain params; no headers, body parsing or signal of its own). */
function cacheable(init: Record<string, unknown> | undefined): boolean {
  if (!init) return true
  return Object.keys(init).every((k) => k === 'params')
}

/** A write sent as a dry run (the SDK's `dryRun` option, or `Prefer: dry-run`): it changes nothing. */
function isDryRun(init: Record<string, unknown> | undefined): boolean {
  if (init?.dryRun) return true
  const headers = init?.headers as Record<string, string> | undefined
  return Boolean(headers && Object.entries(headers).some(([k, v]) => k.toLowerCase() === 'prefer' && /dry-run/i.test(String(v))))
}

/**
 * The session's SDK with the shared cache: GET answers from the cache of
 * requests inside a load (see `mode`), sharing a request already on its way;
 * a POST, PUT, PATCH, DELETE (not a dry run), answered or refused, or an import marks every
 * cached read stale, since a write of the ERP moves more than its own resource
 * (a payment posts journal entries, a receipt moves stock).
 */
export function cachedSdk(api: Sdk): Sdk {
  const get = ((path: string, init?: Record<string, unknown>) => {
    const how = mode
    if (how === 'none' || !cacheable(init) || cacheOff()) return (api.get as (p: string, i?: unknown) => Promise<unknown>)(path, init)
    return queryClient
      .fetchQuery({
        queryKey: ['api', path, init?.params ?? null],
        queryFn: async () => wrapUndefined(await (api.get as (p: string, i?: unknown) => Promise<unknown>)(path, init)),
        staleTime: how === 'cached' ? STALE_MS : 0,
      })
      .then(unwrapUndefined)
  }) as Sdk['get']
  const write =
    <M extends 'post' | 'put' | 'patch' | 'delete'>(method: M) =>
    (async (path: string, init?: Record<string, unknown>) => {
      try {
        return await (api[method] as (p: string, i?: unknown) => Promise<unknown>)(path, init)
      } finally {
        // A refusal too: it often says that the records moved under the page (a lead converted meanwhile, stock
        // counted against figures another user changed), so the page's next reads must see them as they are now.
        if (!isDryRun(init)) void queryClient.invalidateQueries({ queryKey: ['api'], refetchType: 'none' })
      }
    }) as Sdk[M]
  return {
    ...api,
    get,
    post: write('post'),
    put: write('put'),
    patch: write('patch'),
    delete: write('delete'),
    imports: {
      create: async (source, options) => {
        const answer = await api.imports.create(source, options)
        // A dry run too: it is an import of its own, listed with the others.
        void queryClient.invalidateQueries({ queryKey: ['api'], refetchType: 'none' })
        return answer
      },
    },
  }
}
