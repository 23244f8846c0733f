// What the Purchase pages share (docs/dashboard.md "Purchase"): a list's
// search and status filter kept in the address, and the notice handed over
// from the page an action came from.
import { useState } from 'react'
import { useLocation } from 'react-router'
import { Field, SearchInput, useUrlFilters } from '../ui.tsx'

/** A list's page, search and status (one of `statuses`, else all), read from the address. */
export function useSearchStatus<S extends string>(statuses: readonly S[]) {
  const f = useUrlFilters()
  return { f, page: f.page, search: f.get('search'), status: f.choice('status', statuses) }
}

/** The filter bar of such a list: the search box and the status select (`words` names each status). */
export function SearchStatusFilters<S extends string>({ label, placeholder, statuses, words, list }: { label: string; placeholder: string; statuses: readonly S[]; words: Partial<Record<string, string>>; list: ReturnType<typeof useSearchStatus<S>> }) {
  return (
    <div className="filters" role="search" aria-label={label}>
      <Field label="Search">
        <SearchInput value={list.search} onSearch={(v) => list.f.set('search', v)} placeholder={placeholder} />
      </Field>
      <Field label="Status">
        <select value={list.status} onChange={(e) => list.f.set('status', e.target.value)}>
          <option value="">all</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {words[s] ?? s}
            </option>
          ))}
        </select>
      </Field>
    </div>
  )
}

/** What the page that led here said ("Bill … recorded"), from the history state, and `say` for what this page does next. */
export function useSaid() {
  const flash = (useLocation().state as { flash?: unknown } | null)?.flash
  return useState(typeof flash === 'string' ? flash : undefined)
}
