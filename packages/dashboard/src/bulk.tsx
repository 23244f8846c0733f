// Bulk actions on a list (docs/dashboard.md "Bulk actions"): rows of the page
// shown are ticked, then one action runs on each of them in turn (the API has
// no bulk routes for these; one call per row, one at a time, keeps inside the
// rate limit and lets each refusal be told). A summary says what was done and
// what the API refused, in its words.
import { useEffect, useMemo, useState } from 'react'
import { confirmAction, errorText, toast, type Column } from './ui.tsx'

/** The ticked rows of the page shown: cleared when the page changes (a new set of rows). */
export function useSelection<T>(rows: T[] | undefined, rowKey: (row: T) => string) {
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set())
  const keys = useMemo(() => (rows ?? []).map(rowKey), [rows, rowKey])
  const page = keys.join(',')
  useEffect(() => setTicked(new Set()), [page])
  const chosen = (rows ?? []).filter((r) => ticked.has(rowKey(r)))
  return {
    chosen,
    has: (row: T) => ticked.has(rowKey(row)),
    toggle: (row: T) =>
      setTicked((t) => {
        const next = new Set(t)
        const key = rowKey(row)
        if (next.has(key)) next.delete(key)
        else next.add(key)
        return next
      }),
    all: chosen.length > 0 && chosen.length === keys.length,
    toggleAll: () => setTicked((t) => (t.size === keys.length ? new Set() : new Set(keys))),
    clear: () => setTicked(new Set()),
  }
}

export type Selection<T> = ReturnType<typeof useSelection<T>>

/** The first column of a list with bulk actions: a box per row, named after the row. */
export function selectColumn<T>(selection: Selection<T>, name: (row: T) => string): Column<T> {
  return {
    label: 'Select',
    cell: (row) => <input type="checkbox" aria-label={`Select ${name(row)}`} checked={selection.has(row)} onChange={() => selection.toggle(row)} />,
  }
}

export interface BulkAction<T> {
  /** The button's words, e.g. "Delete". */
  label: string
  /** Asked first, with the number of rows (destructive actions). */
  confirm?: (count: number) => string
  /** Whether the action applies to the row (a draft may be sent, a paid invoice not): others are left out and counted. */
  applies?: (row: T) => boolean
  run: (row: T) => Promise<unknown>
  /** "Deleted 3 contacts" */
  done: (count: number) => string
  danger?: boolean
}

/**
 * The bar above a list with bulk actions: how many rows are ticked, a box to
 * tick the whole page, and the actions. Each action runs on the ticked rows
 * one after the other; then a toast says how many it did, and the rows the
 * API refused are listed with its reason. `onDone` reloads the list.
 */
export function BulkBar<T>({ selection, actions, name, what, onDone }: { selection: Selection<T>; actions: BulkAction<T>[]; name: (row: T) => string; what: string; onDone: () => void }) {
  const [busy, setBusy] = useState<string>()
  const [refused, setRefused] = useState<string[]>([])
  const count = selection.chosen.length
  const run = async (action: BulkAction<T>) => {
    const rows = selection.chosen.filter((r) => action.applies?.(r) ?? true)
    const skipped = count - rows.length
    if (rows.length === 0) {
      setRefused([`None of the ${count} ticked ${what} can be: ${action.label.toLowerCase()}.`])
      return
    }
    if (action.confirm && !confirmAction(action.confirm(rows.length))) return
    setBusy(action.label)
    setRefused([])
    const problems: string[] = []
    let ok = 0
    for (const row of rows) {
      try {
        await action.run(row)
        ok++
      } catch (err) {
        problems.push(`${name(row)}: ${errorText(err)}`)
      }
    }
    setBusy(undefined)
    if (skipped) problems.unshift(`${skipped} ticked ${skipped === 1 ? 'was' : 'were'} left out: ${action.label.toLowerCase()} does not apply to ${skipped === 1 ? 'it' : 'them'}.`)
    setRefused(problems)
    if (ok) toast(action.done(ok))
    selection.clear()
    onDone()
  }
  return (
    <div className="bulk-bar" role="group" aria-label={`Bulk actions on ${what}`}>
      <label>
        <input type="checkbox" checked={selection.all} onChange={selection.toggleAll} /> Tick every {what.replace(/s$/, '')} of this page
      </label>
      <span role="status">{count ? `${count} ticked` : ''}</span>
      {actions.map((a) => (
        <button key={a.label} type="button" className={a.danger ? 'danger' : undefined} disabled={count === 0 || busy !== undefined} aria-busy={busy === a.label} onClick={() => void run(a)}>
          {busy === a.label && <span className="spinner" aria-hidden="true" />}
          {a.label}
          {count ? ` (${count})` : ''}
        </button>
      ))}
      {refused.length > 0 && (
        <div className="bulk-refused" role="alert">
          <ul>
            {refused.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}
