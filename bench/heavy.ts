// Heavy work and the event loop (issue 26, wired into bench/run.ts; run it
// alone with BENCH_ONLY=heavy npm run bench). One organization with 1,000
// contacts and one invoice of 500 lines (the most an invoice takes), each
// line's description long enough to wrap. Measured with autocannon, each for
// BENCH_SECONDS: GET /api/health and GET /api/contacts?page=3&limit=20 alone
// (the baseline), then the same while ten clients each download the
// invoice's PDF again and again for the whole run (ten large PDFs rendering
// at once, all the time). The p99 of both under the PDFs is the figure of the
// issue (goal: under 50 ms); the PDFs done per second and any refusal (503
// when the render queue is full) are printed beside it.
import { randomBytes } from 'node:crypto'
import autocannon from 'autocannon'
import type { App } from '../src/core/module.ts'

type Row = { name: string; value: string }
const LINES = 500
const RENDERERS = Number(process.env.BENCH_HEAVY_PDFS ?? 10)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)

interface Measured {
  requestsPerSecond: number
  p99Ms: number
  /** Requests with no answer within autocannon's 10 s timeout. */
  timeouts: number
  errors: number
}

/** As bench/run.ts measures (not imported: run.ts is the entry, still evaluating when it loads this file). */
async function measure(opts: autocannon.Options): Promise<Measured> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, workers: 1, ...opts })
  return { requestsPerSecond: Math.round(result.requests.average), p99Ms: result.latency.p99, timeouts: result.timeouts, errors: result.errors - result.timeouts + result.non2xx }
}

async function setUp(app: App) {
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench heavy', name: 'Bench', email: `bench-h-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'member' } })
  const token = key.json().key as string
  await app.ctx.db.query(
    `INSERT INTO contacts (id, organization_id, name, email, phone, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'Contact ' || g, 'heavy' || g || '@example.com', '+1 555 ' || g,
            now() - g * interval '1 second', now() - g * interval '1 second'
     FROM generate_series(1, 1000) g`,
    [organization.id],
  )
  await app.ctx.db.query('ANALYZE contacts')
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const contact = await app.inject({ method: 'POST', url: '/api/contacts', headers, payload: { name: 'Heavy Buyer GmbH', email: `buyer-${randomBytes(4).toString('hex')}@example.com` } })
  const lineItems = Array.from({ length: LINES }, (_, i) => ({
    description: `Line ${i + 1}: consulting on the migration of the warehouse, including on-site workshops, travel and the written report (phase ${1 + (i % 7)})`,
    quantity: 1 + (i % 9),
    unitPrice: 1250 + i * 37,
    discount: i % 5 === 0 ? 10 : 0,
    taxRate: i % 3 === 0 ? 7 : 19,
  }))
  const inv = await app.inject({ method: 'POST', url: '/api/invoices', headers, payload: { contactId: contact.json().id, currency: 'eur', lineItems, notes: 'Thank you for your business.' } })
  if (inv.statusCode !== 201) throw new Error(`invoice: ${inv.statusCode} ${inv.body}`)
  return { headers: { authorization: `Bearer ${token}` }, invoiceId: inv.json().id as string }
}

/** RENDERERS clients, each downloading the PDF again as soon as it has it, until stopped. */
function renderLoad(url: string, headers: Record<string, string>) {
  let stop = false
  const counts = { done: 0, refused: 0, failed: 0, bytes: 0 }
  const clients = Array.from({ length: RENDERERS }, async () => {
    while (!stop) {
      const res = await fetch(url, { headers })
      const body = await res.arrayBuffer()
      if (res.status === 200) {
        counts.done++
        counts.bytes = body.byteLength
      } else if (res.status === 503) {
        counts.refused++
        // A refused client waits as Retry-After says, as a well-behaved client does.
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)))
      } else counts.failed++
    }
  })
  return {
    counts,
    async stop() {
      stop = true
      await Promise.all(clients)
    },
  }
}

export async function heavyBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_HEAVY === 'off') return []
  const { headers, invoiceId } = await setUp(app)
  const pdfUrl = `${base}/api/invoices/${invoiceId}/pdf`
  // One PDF alone, five times after a warm-up: the render's own time.
  const times: number[] = []
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now()
    const res = await fetch(pdfUrl, { headers })
    const bytes = (await res.arrayBuffer()).byteLength
    if (res.status !== 200) throw new Error(`PDF: ${res.status}`)
    if (i > 0) times.push(performance.now() - t0)
    if (i === 0) console.log(`[${label}] heavy: the ${LINES}-line invoice PDF is ${Math.round(bytes / 1024)} KiB`)
  }
  times.sort((a, b) => a - b)
  const single = times[Math.floor(times.length / 2)]
  console.log(`[${label}] heavy: one ${LINES}-line invoice PDF alone: median ${single.toFixed(0)} ms`)

  const targets: Array<[string, string, Record<string, string>]> = [
    ['GET /health', `${base}/api/health`, {}],
    ['GET /contacts?page=3&limit=20', `${base}/api/contacts?page=3&limit=20`, headers],
  ]
  const rows: Row[] = [{ name: `${label}: one ${LINES}-line invoice PDF alone (median of 5)`, value: `${single.toFixed(0)} ms` }]
  const show = (r: Measured) =>
    `${r.requestsPerSecond} req/s, p99 ${r.p99Ms} ms${r.timeouts ? `, ${r.timeouts} timed out (no answer in 10 s, not in the p99)` : ''}${r.errors ? `, ${r.errors} errors` : ''}`
  for (const [name, url, h] of targets) {
    const alone = await measure({ url, headers: h })
    console.log(`[${label}] heavy: ${name} alone: ${show(alone)}`)
    rows.push({ name: `${label}: ${name} alone`, value: show(alone) })

    const load = renderLoad(pdfUrl, headers)
    const started = performance.now()
    const loaded = await measure({ url, headers: h })
    const seconds = (performance.now() - started) / 1000
    await load.stop()
    const { done, refused, failed } = load.counts
    const pdfs = `${(done / seconds).toFixed(1)} PDFs/s${refused ? `, ${refused} refused (503)` : ''}${failed ? `, ${failed} FAILED` : ''}`
    console.log(`[${label}] heavy: ${name} while ${RENDERERS} PDFs render: ${show(loaded)}; ${pdfs}`)
    rows.push({ name: `${label}: ${name} while ${RENDERERS} ${LINES}-line PDFs render`, value: `${show(loaded)} (${pdfs})` })
  }
  return rows
}

export const benchmarks = [heavyBench]
