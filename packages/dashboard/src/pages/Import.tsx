// Settings, Import (docs/dashboard.md "Import"): a CSV file of contacts,
// products, employees or stock counts is checked first (a dry run: POST
// /imports with dryRun=true, followed until it ends), its errors shown by row;
// then the same file is imported for real. Below, the recent imports.
import { useEffect, useRef, useState, type DragEvent } from 'react'
import { Link, Route, Routes, useParams } from 'react-router'
import type { paths, Schemas } from '../../../sdk/src/index.ts'
import { isApiError, useSession } from '../session.tsx'
import { Badge, Card, dateTime, ErrorMessage, Field, ListView, Loading, Notice, Page, saveBlob, Table, useLoad, useUrlFilters, type Tone } from '../ui.tsx'

export function ImportPage() {
  return (
    <Routes>
      <Route index element={<NewImport />} />
      <Route path=":id" element={<ImportDetail />} />
    </Routes>
  )
}

type ImportJob = Schemas['Import']
type Resource = ImportJob['resource']
type Mode = ImportJob['mode']
const RESOURCES: Resource[] = ['contacts', 'products', 'employees', 'stock']

type Body<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never
type Columns<B> = Record<keyof B & string, 'required' | 'optional'>

/**
 * The columns of each resource: the field names of its POST (typed against the
 * SDK, so a field added to the API fails the build until it is listed here),
 * and for stock the three of a count (docs/imports.md "Columns").
 */
const COLUMNS: Record<Resource, Record<string, 'required' | 'optional'>> = {
  contacts: { name: 'required', email: 'optional', phone: 'optional', type: 'optional', vendor: 'optional', paymentTerms: 'optional', currency: 'optional', leadTimeDays: 'optional', minOrderQty: 'optional', address: 'optional', taxId: 'optional' } satisfies Columns<Body<'/api/contacts'>>,
  products: { name: 'required', sku: 'optional', description: 'optional', price: 'optional', currency: 'optional', type: 'optional', uom: 'optional', reorderPoint: 'optional', cost: 'optional', moduleName: 'optional', erpVersion: 'optional', billing: 'optional', interval: 'optional', activationsLimit: 'optional' } satisfies Columns<Body<'/api/products'>>,
  employees: { name: 'required', email: 'optional', department: 'optional', jobTitle: 'optional', hireDate: 'optional', userId: 'optional' } satisfies Columns<Body<'/api/employees'>>,
  stock: { sku: 'required', locationId: 'required', quantity: 'required' },
}

/** What each resource's upsert matches on (docs/imports.md "Modes"). */
const KEYS: Record<Resource, string> = { contacts: 'email', products: 'sku', employees: 'email', stock: 'sku and locationId' }

/** The largest file the API takes (docs/imports.md "Limits"); a larger one is refused here rather than sent. */
const MAX_BYTES = 10 * 1024 * 1024

const done = (job: ImportJob) => job.status === 'succeeded' || job.status === 'failed'
const tones: Record<ImportJob['status'], Tone> = { pending: 'neutral', running: 'info', succeeded: 'good', failed: 'bad' }
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`

/** The import calls, through the SDK. */
function useImports() {
  const { api } = useSession()
  return {
    create: (file: File, resource: Resource, mode: Mode, dryRun: boolean) => api.imports.create(file, { resource, mode, dryRun }),
    get: (id: string) => api.get('/api/imports/{id}', { params: { path: { id } } }),
    list: (page: number) => api.get('/api/imports', { params: { query: { page, limit: 10 } } }),
  }
}

/**
 * Follows an import until it ends: the job as last read, reading it again
 * every 400 ms while it is pending or running (docs/imports.md "Progress"). A read the network or the
 * server failed is tried again (the SDK already retried it); one the API
 * refused (a 4xx: the session ended, the import is gone) stops, with its
 * error. Stops when the page goes.
 */
function useFollow(initial: ImportJob | null): { job: ImportJob | null; error: unknown } {
  const imports = useImports()
  const [job, setJob] = useState(initial)
  const [error, setError] = useState<unknown>()
  useEffect(() => {
    setJob(initial)
    setError(undefined)
  }, [initial])
  const id = job && !done(job) ? job.id : null
  useEffect(() => {
    if (!id) return
    let stop = false
    let timer: ReturnType<typeof setTimeout>
    const tick = async () => {
      try {
        const next = await imports.get(id)
        if (stop) return
        setJob(next)
        if (!done(next)) timer = setTimeout(tick, 400)
      } catch (err) {
        if (stop) return
        if (isApiError(err) && err.status < 500) setError(err)
        else timer = setTimeout(tick, 2000)
      }
    }
    timer = setTimeout(tick, 400)
    return () => {
      stop = true
      clearTimeout(timer)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id])
  return { job, error }
}

/** Choose the resource, the mode and the file; check it (dry run); import it. */
function NewImport() {
  const imports = useImports()
  const { page, setPage } = useUrlFilters()
  const [resource, setResource] = useState<Resource>('contacts')
  const [mode, setMode] = useState<Mode>('insert')
  const [file, setFile] = useState<File | null>(null)
  const [check, setCheck] = useState<ImportJob | null>(null)
  const [run, setRun] = useState<ImportJob | null>(null)
  const [busy, setBusy] = useState<'check' | 'import' | null>(null)
  const [error, setError] = useState<unknown>()
  const [dragging, setDragging] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const { job: checked, error: checkError } = useFollow(check)
  const { job: imported, error: importError } = useFollow(run)
  const recent = useLoad(() => imports.list(page), [page, checked && done(checked), imported && done(imported)])

  /** Any change of what would be imported starts over: the last check no longer holds. */
  const reset = () => {
    setCheck(null)
    setRun(null)
    setError(undefined)
  }
  const choose = (f: File | null) => {
    reset()
    if (f && f.size > MAX_BYTES) {
      setFile(null)
      setError(new Error(`${f.name} is ${(f.size / 1024 / 1024).toFixed(1)} MiB: the API takes files of at most 10 MiB (50,000 rows). Split it into smaller files.`))
      return
    }
    setFile(f)
  }
  const start = async (dryRun: boolean) => {
    if (!file) return
    setBusy(dryRun ? 'check' : 'import')
    setError(undefined)
    try {
      const job = await imports.create(file, resource, mode, dryRun)
      if (dryRun) setCheck(job)
      else setRun(job)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(null)
    }
  }
  const onDrop = (e: DragEvent) => {
    e.preventDefault()
    setDragging(false)
    const f = e.dataTransfer.files[0]
    if (f) choose(f)
    if (input.current) input.current.value = ''
  }
  // Followed and not ended (a check whose reading was refused no longer holds the buttons).
  const running = busy !== null || Boolean((checked && !done(checked) && !checkError) || (imported && !done(imported) && !importError))
  const ready = checked?.status === 'succeeded' && !imported

  return (
    <Page title="Import">
      <Card title="Import a CSV file">
        <p className="muted import-intro">
          Move your records in from a spreadsheet: one row a record, a header row naming the columns. The file is checked first and nothing is written until every row is
          valid; then it is imported in one go, all or nothing. Admins and members may import.
        </p>
        <div className="row">
          <Field label="Records">
            <select
              value={resource}
              onChange={(e) => {
                setResource(e.target.value as Resource)
                reset()
              }}
            >
              {RESOURCES.map((r) => (
                <option key={r} value={r}>
                  {r === 'stock' ? 'stock counts' : r}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Mode" hint={mode === 'insert' ? 'Every row is a new record' : `A row whose ${KEYS[resource]} matches a record updates it; the others are new`}>
            <select
              value={mode}
              onChange={(e) => {
                setMode(e.target.value as Mode)
                reset()
              }}
            >
              <option value="insert">insert</option>
              <option value="upsert">upsert (update or insert)</option>
            </select>
          </Field>
        </div>
        <ColumnsHelp resource={resource} />
        <div
          className={`dropzone${dragging ? ' dragging' : ''}`}
          data-testid="dropzone"
          onDragOver={(e) => {
            e.preventDefault()
            setDragging(true)
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <Field label="CSV file" hint="Drop the file here, or choose it. UTF-8, comma-separated, at most 10 MiB and 50,000 rows.">
            <input ref={input} type="file" accept=".csv,text/csv" onChange={(e) => choose(e.target.files?.[0] ?? null)} />
          </Field>
          {file && (
            <p className="dropzone-file">
              Chosen: <strong>{file.name}</strong> <span className="muted">({(file.size / 1024).toFixed(1)} KiB)</span>
            </p>
          )}
        </div>
        <ErrorMessage error={error ?? checkError ?? importError} />
        <div className="form-actions">
          <button type="button" className={ready ? undefined : 'primary'} disabled={!file || running} aria-busy={busy === 'check'} onClick={() => void start(true)}>
            {busy === 'check' && <span className="spinner" aria-hidden="true" />}
            Check the file
          </button>
          {ready && (
            <button type="button" className="primary" disabled={running} aria-busy={busy === 'import'} onClick={() => void start(false)}>
              {busy === 'import' && <span className="spinner" aria-hidden="true" />}
              Import {count(checked.totalRows, 'row')}
            </button>
          )}
        </div>
        {checked && <ImportResult job={checked} />}
        {imported && <ImportResult job={imported} />}
      </Card>
      <Card title="Recent imports">
        <ListView
          list={recent}
          onPage={setPage}
          caption="Recent imports"
          rowKey={(j) => j.id}
          empty="No imports yet. Check a file above: its dry run is listed here, and so is the import."
          columns={[
            { label: 'Started', cell: (j) => <Link to={`/settings/import/${j.id}`}>{dateTime(j.createdAt)}</Link> },
            { label: 'Records', cell: (j) => j.resource },
            { label: 'Kind', cell: (j) => `${j.dryRun ? 'dry run' : 'import'}, ${j.mode}` },
            { label: 'Status', cell: (j) => <Badge tone={tones[j.status]}>{j.status}</Badge> },
            { label: 'Rows', align: 'right', cell: (j) => j.totalRows.toLocaleString() },
            { label: 'Created', align: 'right', cell: (j) => j.created.toLocaleString() },
            { label: 'Updated', align: 'right', cell: (j) => j.updated.toLocaleString() },
            { label: 'Errors', align: 'right', cell: (j) => j.errors.length.toLocaleString() },
          ]}
        />
      </Card>
    </Page>
  )
}

/** The columns of the chosen resource, a template to start from, and where they are documented. */
function ColumnsHelp({ resource }: { resource: Resource }) {
  const columns = Object.entries(COLUMNS[resource])
  return (
    <div className="columns-help">
      <p>
        <strong>Columns</strong> (the field names of the API's create request; an empty cell leaves the field out, money is in cents):{' '}
        {columns.map(([name, need], i) => (
          <span key={name}>
            {i > 0 && ', '}
            <code>{name}</code>
            {need === 'required' && <span className="muted"> (required)</span>}
          </span>
        ))}
        .
      </p>
      <p className="muted">
        Each column is described in <code>docs/imports.md</code> and in the <a href="/api/docs#tag/imports">API reference</a>.{' '}
        <button type="button" className="link" onClick={() => saveBlob(new Blob([`${columns.map(([name]) => name).join(',')}\r\n`], { type: 'text/csv' }), `${resource}-template.csv`)}>
          Download a template
        </button>
      </p>
      {resource === 'stock' && <LocationIds />}
    </div>
  )
}

/** Stock rows name their location (an internal one) by its code or its id: the internal locations with both. */
function LocationIds() {
  const { api } = useSession()
  const locations = useLoad(() => api.get('/api/inventory/locations', { params: { query: { type: 'internal', limit: 100, sortBy: 'code', sortOrder: 'asc' } } }), [])
  return (
    <details className="location-ids">
      <summary>Location ids</summary>
      <ErrorMessage error={locations.error} />
      {locations.data && (
        <Table
          caption="Internal locations: a locationId cell takes the code or the id"
          rows={locations.data.data}
          rowKey={(l) => l.id}
          empty="No internal location yet."
          scrollable
          columns={[
            { label: 'Location', cell: (l) => l.name },
            { label: 'Code', cell: (l) => <code>{l.code}</code> },
            { label: 'Id', cell: (l) => <code>{l.id}</code> },
          ]}
        />
      )}
    </details>
  )
}

/** What a dry run or an import found: progress while it runs, then the counts, or the errors by row. */
function ImportResult({ job }: { job: ImportJob }) {
  const what = job.dryRun ? 'Check' : 'Import'
  return (
    <section className="import-result" aria-label={`${what} of ${job.resource}`} data-testid={job.dryRun ? 'dry-run-result' : 'import-result'}>
      <h3>
        {what} <Badge tone={tones[job.status]}>{job.status}</Badge>
      </h3>
      {!done(job) && (
        <div role="status">
          <label className="progress-label">
            {job.status === 'pending' ? 'Waiting to start' : job.processedRows < job.totalRows ? `${job.processedRows.toLocaleString()} of ${job.totalRows.toLocaleString()} rows checked` : 'Every row checked; writing'}
            <progress className="progress" value={job.processedRows} max={Math.max(job.totalRows, 1)} />
          </label>
        </div>
      )}
      {job.status === 'succeeded' && (
        <Notice>
          {job.dryRun
            ? `The file is valid: importing it would create ${count(job.created, job.resource === 'stock' ? 'count' : 'record')} and update ${job.updated.toLocaleString()} (${count(job.totalRows, 'row')}). Nothing was written.`
            : `Imported ${count(job.totalRows, 'row')}: ${job.created.toLocaleString()} created, ${job.updated.toLocaleString()} updated.`}
        </Notice>
      )}
      {job.status === 'failed' && (
        <>
          <div className="error" role="alert">
            {job.errors.length === 0
              ? 'The import failed; nothing was written.'
              : `${count(job.errors.length, 'error')} in ${count(job.totalRows, 'row')}${job.errors.length >= 1000 ? ' (the first 1,000 are listed)' : ''}: nothing was written. Fix the file and check it again.`}
          </div>
          {job.errors.length > 0 && (
            <Table
              caption={`Errors of the ${job.dryRun ? 'check' : 'import'} by row`}
              rows={job.errors.map((e, i) => ({ ...e, key: String(i) }))}
              rowKey={(e) => e.key}
              empty="No errors."
              scrollable
              columns={[
                // Row 0: the import as a whole, a rule a concurrent change broke while writing (docs/imports.md "Errors").
                { label: 'Row', align: 'right', cell: (e) => (e.row === 0 ? 'all' : e.row) },
                { label: 'Field', cell: (e) => (e.field ? <code>{e.field}</code> : '—') },
                { label: 'Message', cell: (e) => e.message },
              ]}
            />
          )}
        </>
      )}
    </section>
  )
}

/** One import of the recent list, followed while it runs. */
function ImportDetail() {
  const { id = '' } = useParams()
  const imports = useImports()
  const loaded = useLoad(() => imports.get(id), [id])
  const { job, error } = useFollow(loaded.data ?? null)
  return (
    <Page title="Import" actions={<Link to="/settings/import">All imports</Link>}>
      <ErrorMessage error={loaded.error ?? error} />
      {!job && !loaded.error && <Loading />}
      {job && (
        <Card title={`${job.dryRun ? 'Dry run' : 'Import'} of ${job.resource}, ${job.mode}`}>
          <dl className="details">
            <dt>Started</dt>
            <dd>{dateTime(job.createdAt)}</dd>
            <dt>Ended</dt>
            <dd>{dateTime(job.completedAt)}</dd>
            <dt>Rows</dt>
            <dd>{job.totalRows.toLocaleString()}</dd>
          </dl>
          <ImportResult job={job} />
        </Card>
      )}
    </Page>
  )
}
