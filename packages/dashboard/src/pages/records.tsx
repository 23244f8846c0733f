// What the Contacts and Products pages share (docs/dashboard.md "Contacts"):
// a record's new and edit pages, the Delete of a list's row, the notice of
// what was just done, and the fields as the API takes them.
import { useEffect, useState, type ReactNode } from 'react'
import { Link, Route, Routes, useLocation, useNavigate, useParams } from 'react-router'
import { ActionButton, Card, ErrorMessage, Field, Loading, Notice, Page, SearchInput, useLoad, type PageMeta } from '../ui.tsx'
import { Timeline } from './Timeline.tsx'

/** A record of these pages: what the API answers for a contact or a product, as far as the pages need. */
interface Named {
  id: string
  name: string
  updatedAt: string
}

/** The form of a record: `record` to edit (none for a new one); `onDone` gets the API's answer. */
export type RecordForm<T, B> = (props: { record?: T; label: string; submitLabel: string; save: (body: B) => Promise<T>; onDone: (record: T) => void }) => ReactNode

/** A page's three addresses: the list, `new`, and `:id` (its edit page). */
export function RecordRoutes({ list, create, edit }: { list: ReactNode; create: ReactNode; edit: ReactNode }) {
  return (
    <Routes>
      <Route index element={list} />
      <Route path="new" element={create} />
      <Route path=":id" element={edit} />
    </Routes>
  )
}

/**
 * What the last action on the records of a page did ("Acme created."), handed to the page it led to in the
 * history state: kept while the page stays, and taken out of the history entry so that a reload does not say it again.
 */
function useFlash(): string | undefined {
  const { state, pathname, search, hash } = useLocation()
  const navigate = useNavigate()
  const incoming = (state as { flash?: unknown } | null)?.flash
  const [flash, setFlash] = useState(typeof incoming === 'string' ? incoming : undefined)
  useEffect(() => {
    if (typeof incoming !== 'string') return
    setFlash(incoming)
    navigate({ pathname, search, hash }, { replace: true, state: null })
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [incoming])
  return flash
}

/**
 * A list's notice of what was just done: a create or a delete on another page, or a delete in the list
 * (`deleted(name)`, then the list is loaded again, or the page before when its last row went).
 */
export function useRecordList(list: { data?: { data: unknown[]; meta: PageMeta }; reload: () => void }, page: number, setPage: (page: number) => void) {
  const flash = useFlash()
  const [deleted, setDeleted] = useState<string>()
  const notice = deleted ?? flash
  return {
    notice: notice ? <Notice>{notice}</Notice> : null,
    deleted: (name: string) => {
      setDeleted(`${name} deleted.`)
      if (list.data?.data.length === 1 && page > 1) setPage(page - 1)
      else list.reload()
    },
  }
}

/**
 * A list page of records: its title, New, the notice of what was just done, the search box and the other
 * `filters`, then the list (`children`).
 */
export function RecordList({ title, what, listPath, notice, search, onSearch, searchPlaceholder, filters, children }: { title: string; what: string; listPath: string; notice: ReactNode; search: string; onSearch: (value: string) => void; searchPlaceholder: string; filters: ReactNode; children: ReactNode }) {
  return (
    <Page
      title={title}
      actions={
        <Link className="button primary" to={`${listPath}/new`}>
          New {what}
        </Link>
      }
    >
      {notice}
      <Card>
        <div className="filters" role="search" aria-label={`Filter ${what}s`}>
          <Field label="Search">
            <SearchInput value={search} onSearch={onSearch} placeholder={searchPlaceholder} />
          </Field>
          {filters}
        </div>
        {children}
      </Card>
    </Page>
  )
}

/** A filter of a closed set of values: "all", then each of `values`. */
export function ChoiceFilter({ label, value, values, onChange }: { label: string; value: string; values: readonly string[]; onChange: (value: string) => void }) {
  return (
    <Field label={label}>
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">all</option>
        {values.map((v) => (
          <option key={v}>{v}</option>
        ))}
      </select>
    </Field>
  )
}

/** What an empty list says: that the filters match nothing, or how to make the first record. */
export function emptyRecords(what: string, listPath: string, filtered: boolean): ReactNode {
  if (filtered) return `No ${what} matches these filters.`
  return (
    <>
      No {what}s yet. <Link to={`${listPath}/new`}>Create a {what}</Link>, or import them (<Link to="/settings/import">Import</Link>).
    </>
  )
}

/** The Delete of a list's row, confirmed first; named by the row for screen readers ("Delete Acme"). */
export function DeleteRow({ what, name, remove, onDone }: { what: string; name: string; remove: () => Promise<unknown>; onDone: () => void }) {
  return (
    <ActionButton variant="danger" confirm={`Delete the ${what} ${name}? This cannot be undone.`} action={remove} onDone={onDone}>
      Delete <span className="visually-hidden">{name}</span>
    </ActionButton>
  )
}

/** A new record's page: its form, then back to the list, which says what was created. */
export function NewRecord<T extends Named, B>({ what, listPath, Form, create }: { what: string; listPath: string; Form: RecordForm<T, B>; create: (body: B) => Promise<T> }) {
  const navigate = useNavigate()
  return (
    <Page title={`New ${what}`}>
      <Card>
        <Form label={`New ${what}`} submitLabel={`Create ${what}`} save={create} onDone={(r) => navigate(listPath, { state: { flash: `${r.name} created.` } })} />
      </Card>
      <p>
        <Link to={listPath}>Back to the {what}s</Link>
      </p>
    </Page>
  )
}

/** A record's page (`:id`): its form with its values, Save changes (said when done), Delete (confirmed, then back to the list). */
export function EditRecord<T extends Named, B>({ what, listPath, Form, load, update, remove }: { what: string; listPath: string; Form: RecordForm<T, B>; load: (id: string) => Promise<T>; update: (id: string, body: B) => Promise<T>; remove: (id: string) => Promise<unknown> }) {
  const { id = '' } = useParams()
  const navigate = useNavigate()
  const [saved, setSaved] = useState(false)
  const record = useLoad(() => load(id), [id])
  const r = record.data
  const title = `${what[0]!.toUpperCase()}${what.slice(1)}`
  return (
    <Page
      title={r ? r.name : title}
      actions={
        r && (
          <ActionButton variant="danger" confirm={`Delete the ${what} ${r.name}? This cannot be undone.`} action={() => remove(id)} onDone={() => navigate(listPath, { state: { flash: `${r.name} deleted.` } })}>
            Delete {what}
          </ActionButton>
        )
      }
    >
      <ErrorMessage error={record.error} />
      {!r && !record.error && <Loading />}
      {r && (
        <>
          {saved && <Notice>Changes saved.</Notice>}
          <Card>
            <Form
              key={r.updatedAt}
              label={`Edit ${what}`}
              submitLabel="Save changes"
              record={r}
              save={(body) => update(id, body)}
              onDone={() => {
                setSaved(true)
                record.reload()
              }}
            />
          </Card>
          {/* Its activity from GET /events?resourceId= (docs/dashboard-platform.md "Timeline"), again after each save. */}
          <Timeline resourceId={id} version={r.updatedAt} />
        </>
      )}
      <p>
        <Link to={listPath}>Back to the {what}s</Link>
      </p>
    </Page>
  )
}

/** A form field as the API takes a nullable string: null when left empty (an edit clears it). */
export const orNull = (value: string | undefined) => (value ? value : null)

/** A number typed in a field, or undefined when empty; an Error naming the field when it is not a number (whole, with `integer`) from 0 to `max`. */
export function numberField(text: string | undefined, label: string, { integer = false, max = 1_000_000_000 } = {}): number | undefined {
  if (!text) return undefined
  const value = Number(text)
  if (!Number.isFinite(value) || value < 0 || value > max || (integer && !Number.isInteger(value))) throw new Error(`${label}: ${integer ? 'a whole number' : 'a number'} from 0 to ${max.toLocaleString('en')}.`)
  return value
}

/** The currencies a record's select offers: the kit's, and the record's own when it is another. */
export const currenciesWith = (list: readonly string[], own: string | null | undefined) => [...new Set([...list, ...(own ? [own] : [])])]
