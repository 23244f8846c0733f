// Export a list as CSV through a report run (docs/dashboard-platform.md "Export"):
// starts the run of `type` with the list's filters as its parameters, looks at
// it a few times while it runs, and downloads the file once it has succeeded.
// A run that takes longer is left on the Reports page, which says so.
import { useState } from 'react'
import { Link } from 'react-router'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ErrorMessage } from '../ui.tsx'
import { downloadRun, POLL_DELAYS_MS, type ReportRun, type ReportType } from './Reports.tsx'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** "Export CSV": the report run of `type` with `parameters` (the list's filters), then its file saved. */
export function ExportButton({ type, parameters, label = 'Export CSV' }: { type: ReportType; parameters: Schemas['ReportParameters']; label?: string }) {
  const { api } = useSession()
  const [state, setState] = useState<{ busy: boolean; said?: string; error?: unknown; late?: boolean }>({ busy: false })
  const run = async () => {
    setState({ busy: true, said: 'Preparing the file…' })
    try {
      let r: ReportRun = await api.post('/api/reports', { body: { type, parameters } })
      for (const wait of POLL_DELAYS_MS) {
        if (r.status === 'succeeded' || r.status === 'failed') break
        await sleep(wait)
        r = await api.get('/api/reports/{id}', { params: { path: { id: r.id } } })
      }
      if (r.status === 'failed') throw new Error(`The export failed: ${r.error ?? 'no reason was given'}.`)
      if (r.status !== 'succeeded') return setState({ busy: false, late: true })
      await downloadRun(api, r)
      setState({ busy: false, said: `Exported ${r.rows ?? 0} ${r.rows === 1 ? 'row' : 'rows'}: ${r.file?.filename ?? 'the file'} is saved.` })
    } catch (error) {
      setState({ busy: false, error })
    }
  }
  return (
    <span className="action">
      <button type="button" disabled={state.busy} aria-busy={state.busy} onClick={() => void run()}>
        {state.busy && <span className="spinner" aria-hidden="true" />}
        {label}
      </button>
      <span role="status" className="hint">
        {state.late ? (
          <>
            Still running: <Link to="/reports">download it from Reports</Link> once it is done.
          </>
        ) : (
          state.said
        )}
      </span>
      {state.error ? <ErrorMessage error={state.error} /> : null}
    </span>
  )
}
