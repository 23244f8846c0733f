// Reports (docs/dashboard-platform.md "Reports"; API: docs/analytics.md "Report runs"):
// an admin or a member starts a report run (a type the API offers and its
// parameters), follows the runs while they run (a few calls, then a Refresh
// button), and downloads the CSV of a run that succeeded.
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { ApiError, type Schemas, type Sdk } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, CURRENCIES, dateTime, Field, Form, formFields, ListView, Notice, Page, saveBlob, useLoad, useUrlFilters, type Tone } from '../ui.tsx'
import { ContactPicker } from './finance.tsx'

export type ReportRun = Schemas['ReportRun']
type Parameters = Schemas['ReportParameters']

/** The types POST /reports names in its description (a type whose module is not loaded is the API's 422, shown as such). */
export const REPORT_TYPES = ['contacts', 'products', 'invoices', 'stock_moves', 'timesheets', 'journal_entries', 'receivables_aging', 'payables_aging', 'stock_valuation', 'sales', 'trial_balance'] as const
export type ReportType = (typeof REPORT_TYPES)[number]

/** What each type is, in words, and the parameters it takes (docs/analytics.md "Types"). */
const TYPES: Record<ReportType, { label: string; params: readonly (keyof Parameters)[] }> = {
  // Started here without filters (every record); the lists' Export CSV sends their filters.
  contacts: { label: 'Contacts', params: [] },
  products: { label: 'Products', params: [] },
  invoices: { label: 'Invoices (by invoice date)', params: ['from', 'to'] },
  stock_moves: { label: 'Stock moves (done)', params: ['from', 'to'] },
  timesheets: { label: 'Timesheets', params: ['from', 'to'] },
  journal_entries: { label: 'Journal lines', params: ['from', 'to'] },
  receivables_aging: { label: 'Receivables aging', params: ['asOf', 'contactId', 'currency'] },
  payables_aging: { label: 'Payables aging', params: ['asOf', 'vendorId', 'currency'] },
  stock_valuation: { label: 'Stock valuation', params: ['asOf', 'currency'] },
  sales: { label: 'Sales breakdown', params: ['groupBy', 'from', 'to', 'limit', 'currency'] },
  trial_balance: { label: 'Trial balance', params: ['asOf', 'currency'] },
}
export const reportLabel = (type: string) => (TYPES as Record<string, { label: string } | undefined>)[type]?.label ?? type

const STATUSES = ['pending', 'running', 'succeeded', 'failed'] as const
export const runTone: Record<ReportRun['status'], Tone> = { pending: 'neutral', running: 'info', succeeded: 'good', failed: 'bad' }

/** The waits between two looks at something that runs in the background: a few calls over about half a minute, then the page stops asking. */
export const POLL_DELAYS_MS = [1000, 1000, 2000, 2000, 3000, 3000, 5000, 5000, 5000, 5000]

/**
 * Loads `list` again while `running(data)` holds, after each of POLL_DELAYS_MS in turn; once they are spent it
 * stops and answers a notice with a Refresh button (which starts again). Answers null otherwise.
 */
export function usePoll<T>(list: { data?: T; reload: () => void }, running: (data: T) => boolean): ReactNode {
  const looks = useRef(0)
  const [spent, setSpent] = useState(false)
  const busy = list.data !== undefined && running(list.data)
  useEffect(() => {
    if (!busy) {
      looks.current = 0
      setSpent(false)
      return
    }
    const wait = POLL_DELAYS_MS[looks.current]
    if (wait === undefined) {
      setSpent(true)
      return
    }
    const timer = setTimeout(() => {
      looks.current += 1
      list.reload()
    }, wait)
    return () => clearTimeout(timer)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [list.data])
  if (!spent) return null
  return (
    <Notice>
      Still running: the page has stopped asking.{' '}
      <button
        type="button"
        onClick={() => {
          looks.current = 0
          setSpent(false)
          list.reload()
        }}
      >
        Refresh
      </button>
    </Notice>
  )
}

/** Saves the CSV of a succeeded run (the token is in a header, so it cannot be a plain link). */
export async function downloadRun(api: Sdk, run: Pick<ReportRun, 'id' | 'type' | 'file'>) {
  const { data, error, response } = await api.raw.GET('/api/reports/{id}/file', { params: { path: { id: run.id } }, parseAs: 'blob' })
  if (!response.ok || !data) throw new ApiError(response, error)
  saveBlob(data, run.file?.filename ?? `${run.type}.csv`)
}

const today = () => new Date().toISOString().slice(0, 10)
const monthStart = () => `${today().slice(0, 8)}01`

/** A run's parameters in words: "from 2026-11-01 to 2026-11-30, USD". */
const parametersText = (p: Record<string, unknown>) =>
  Object.entries(p)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => (k === 'currency' ? String(v).toUpperCase() : k.endsWith('Id') ? `${k.slice(0, -2)} chosen` : `${k} ${String(v)}`))
    .join(', ') || '—'

const sizeText = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`)

export function ReportsPage() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const status = f.choice('status', STATUSES)
  const type = f.choice('type', REPORT_TYPES)
  const list = useLoad(() => api.get('/api/reports', { params: { query: { page, limit: 20, sortOrder: 'desc', ...(status ? { status } : {}), ...(type ? { type } : {}) } } }), [page, status, type])
  const poll = usePoll(list, (l) => l.data.some((r) => r.status === 'pending' || r.status === 'running'))
  return (
    <Page title="Reports">
      <Card title="Start a report">
        <StartRun onStarted={list.reload} />
      </Card>
      <Card title="Report runs">
        <div className="filters" role="search" aria-label="Filter report runs">
          <Field label="Report">
            <select value={type} onChange={(e) => f.set('type', e.target.value)}>
              <option value="">all</option>
              {REPORT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {TYPES[t].label}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Status">
            <select value={status} onChange={(e) => f.set('status', e.target.value)}>
              <option value="">all</option>
              {STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </Field>
        </div>
        {poll}
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Report runs"
          rowKey={(r) => r.id}
          empty={status || type ? 'No report run matches these filters.' : 'No report runs yet. Start one above: the file is kept 30 days.'}
          columns={[
            { label: 'Report', cell: (r) => reportLabel(r.type) },
            { label: 'Parameters', cell: (r) => parametersText(r.parameters) },
            {
              label: 'Status',
              cell: (r) => (
                <>
                  <Badge tone={runTone[r.status]}>{r.status}</Badge>
                  {r.error && <span className="hint"> {r.error}</span>}
                </>
              ),
            },
            { label: 'Rows', align: 'right', cell: (r) => r.rows ?? '—' },
            { label: 'Requested by', cell: (r) => r.requestedBy.name },
            { label: 'Requested', cell: (r) => dateTime(r.createdAt) },
            { label: 'Completed', cell: (r) => dateTime(r.completedAt) },
            {
              label: 'File',
              cell: (r) =>
                r.file ? (
                  <ActionButton action={() => downloadRun(api, r)}>
                    Download <span className="visually-hidden">{`${reportLabel(r.type)} of ${dateTime(r.createdAt)}`}</span> ({sizeText(r.file.size)})
                  </ActionButton>
                ) : r.status === 'succeeded' ? (
                  'expired'
                ) : (
                  '—'
                ),
            },
          ]}
        />
      </Card>
    </Page>
  )
}

/** The form of a new run: the type, then the parameters that type takes. */
function StartRun({ onStarted }: { onStarted: () => void }) {
  const { api } = useSession()
  const [type, setType] = useState<ReportType>('invoices')
  const [contactId, setContactId] = useState('')
  const takes = (p: keyof Parameters) => TYPES[type].params.includes(p)
  return (
    <Form
      label="Start a report"
      submitLabel="Start report"
      submit={(data) => {
        const f = formFields(data)
        const parameters: Parameters = {}
        for (const p of ['from', 'to', 'asOf', 'currency'] as const) if (takes(p) && f[p]) parameters[p] = f[p]
        if (takes('groupBy')) parameters.groupBy = (f.groupBy ?? 'product') as Parameters['groupBy']
        if (takes('limit') && f.limit) {
          const limit = Number(f.limit)
          if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new Error('Groups: a whole number from 1 to 100.')
          parameters.limit = limit
        }
        if (takes('contactId') && contactId) parameters.contactId = contactId
        if (takes('vendorId') && contactId) parameters.vendorId = contactId
        return api.post('/api/reports', { body: { type, parameters } })
      }}
      done={(r) => `${reportLabel(r.type)} requested: it is listed below while it runs.`}
      onDone={() => {
        setContactId('')
        onStarted()
      }}
    >
      <div className="row">
        <Field label="Report">
          <select name="type" value={type} onChange={(e) => setType(e.target.value as ReportType)}>
            {REPORT_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPES[t].label}
              </option>
            ))}
          </select>
        </Field>
        {takes('groupBy') && (
          <Field label="Group by">
            <select name="groupBy" defaultValue="product">
              <option>product</option>
              <option>customer</option>
              <option>salesperson</option>
            </select>
          </Field>
        )}
        {takes('from') && (
          <Field label="From" hint={takes('groupBy') ? undefined : 'First day, inclusive'}>
            <input name="from" type="date" required={!takes('groupBy')} defaultValue={takes('groupBy') ? '' : monthStart()} />
          </Field>
        )}
        {takes('to') && (
          <Field label="To" hint={takes('groupBy') ? undefined : 'Last day, inclusive'}>
            <input name="to" type="date" required={!takes('groupBy')} defaultValue={takes('groupBy') ? '' : today()} />
          </Field>
        )}
        {takes('asOf') && (
          <Field label="As of" hint="Empty: today">
            <input name="asOf" type="date" />
          </Field>
        )}
        {takes('limit') && (
          <Field label="Groups" hint="1 to 100">
            <input name="limit" inputMode="numeric" className="narrow" />
          </Field>
        )}
        {takes('currency') && (
          <Field label="Currency">
            <select name="currency" defaultValue="">
              <option value="">the API's default</option>
              {CURRENCIES.map((c) => (
                <option key={c} value={c}>
                  {c.toUpperCase()}
                </option>
              ))}
            </select>
          </Field>
        )}
        {(takes('contactId') || takes('vendorId')) && <ContactPicker label={takes('vendorId') ? 'Vendor' : 'Contact'} value={contactId} onChange={setContactId} allowAll />}
      </div>
    </Form>
  )
}
