// Issue 27: what posting to the ledger costs the business writes it rides on
// (docs/accounting.md "Posting"). Measures, on PostgreSQL, over HTTP on loopback:
//   - POST /invoices/:id/pay: BENCH_CONNECTIONS loops, each paying 1 cent at a
//     time on its own sent invoice (one organization): payments per second, p99;
//   - POST /inventory/transfers/:id/validate: 5-line receipts from the supplier
//     of products with a cost (each posts five stock-move entries), made
//     beforehand: validations per second;
//   - quote to cash (bench/quote-to-cash.ts): flows per second.
// With BENCH_BEFORE=<a checkout of an earlier commit, with node_modules>, the
// same measures run against that checkout's app too, alternately, ROUNDS
// times, each on a fresh database: the before and after of one run.
//   npx tsx bench/posting.ts            (BENCH_DATABASE_URL, default the local server)
//   BENCH_BEFORE=/work/wt-before npx tsx bench/posting.ts
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { createDatabase } from '../test/helpers/app.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const BASE_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const HERE = fileURLToPath(new URL('..', import.meta.url))

type Api = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<any>

function client(base: string, token: string): Api {
  return async (method, path, body) => {
    const res = await fetch(`${base}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = await res.json().catch(() => undefined)
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }
}

/** `connections` loops calling `step` until SECONDS pass (or it answers false); answers steps per second and the p99 of one step, in ms. */
async function loops(connections: number, step: (loop: number) => Promise<boolean | void>) {
  const times: number[] = []
  let errors = 0
  const started = performance.now()
  const deadline = started + SECONDS * 1000
  await Promise.all(Array.from({ length: connections }, async (_, loop) => {
    while (performance.now() < deadline) {
      const t0 = performance.now()
      try {
        if ((await step(loop)) === false) break
        times.push(performance.now() - t0)
      } catch (err) {
        if (errors++ === 0) console.error((err as Error).message)
      }
    }
  }))
  const seconds = (performance.now() - started) / 1000
  times.sort((a, b) => a - b)
  return { perSecond: Math.round((times.length / seconds) * 10) / 10, p99: Math.round(times[Math.floor(times.length * 0.99)] ?? 0), errors }
}

async function measureCheckout(label: string, dir: string): Promise<Record<string, string>> {
  const { buildApp } = await import(`${dir}/src/app.ts`)
  const { loadConfig } = await import(`${dir}/src/config.ts`)
  const { benchQuoteToCash } = await import(`${dir}/bench/quote-to-cash.ts`)
  const database = await createDatabase(BASE_URL, 'bp_bench_posting')
  const config = loadConfig({ DATABASE_URL: database.url, DATA_DIR: 'memory://', RATE_LIMIT: 'off', JOBS: 'off', LOG_LEVEL: 'silent', JWT_SECRET: 'bench-secret-that-is-long-enough-0123456789' })
  const app = await buildApp(config, { logger: false })
  const out: Record<string, string> = {}
  try {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
    const reg = await app.inject({ method: 'POST', url: '/api/auth/register', payload: { organizationName: 'Bench posting', name: 'Bench', email: `bench-p-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' } })
    const admin = client(base, reg.json().accessToken)
    const key = await admin('POST', '/api-keys', { name: 'bench', environment: 'test', role: 'member' })
    const api = client(base, key.key)

    // Payments: one sent invoice of 10,000,000.00 per loop, paid 1 cent at a time.
    const contact = await api('POST', '/contacts', { name: 'Bench customer', email: `c-${randomBytes(4).toString('hex')}@example.com` })
    const product = await api('POST', '/products', { name: 'Bench service', price: 100_000_000 })
    const invoices: string[] = []
    for (let i = 0; i < CONNECTIONS; i++) {
      const inv = await api('POST', '/invoices', { contactId: contact.id, lineItems: [{ productId: product.id, quantity: 10, taxRate: 0 }] })
      await api('POST', `/invoices/${inv.id}/send`, {})
      invoices.push(inv.id)
    }
    const pay = await loops(CONNECTIONS, async (loop) => { await api('POST', `/invoices/${invoices[loop]}/pay`, { amount: 1 }) })
    out.pay = `${pay.perSecond}/s, p99 ${pay.p99} ms${pay.errors ? `, ${pay.errors} errors` : ''}`
    console.log(`[${label}] POST /invoices/:id/pay: ${out.pay}`)

    // Receipts of 5 products with a cost, made beforehand.
    const parts = await Promise.all(Array.from({ length: 50 }, (_, i) => api('POST', '/products', { name: `Part ${i}`, price: 1000 + i, cost: 700 + i, type: 'storable' })))
    const transfers: string[] = []
    const needed = Math.max(200, SECONDS * 400)
    for (let i = 0; i < needed; i += CONNECTIONS) {
      transfers.push(...(await Promise.all(Array.from({ length: CONNECTIONS }, (_, j) => api('POST', '/inventory/transfers', {
        type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK',
        moves: Array.from({ length: 5 }, (_, k) => ({ productId: parts[((i + j) * 5 + k) % parts.length].id, demandQty: 1 + k })),
      }).then((t: { id: string }) => t.id)))))
    }
    let next = 0
    const validate = await loops(CONNECTIONS, async () => {
      const id = transfers[next++]
      if (!id) return false
      await api('POST', `/inventory/transfers/${id}/validate`, {})
    })
    out.validate = `${validate.perSecond}/s, p99 ${validate.p99} ms${validate.errors ? `, ${validate.errors} errors` : ''}${next > transfers.length ? ' (ran out of transfers)' : ''}`
    console.log(`[${label}] POST /inventory/transfers/:id/validate (5 lines): ${out.validate}`)

    const flows = await benchQuoteToCash({ baseUrl: base, token: key.key, durationSeconds: SECONDS, concurrency: CONNECTIONS })
    out.quoteToCash = `${flows.flowsPerSecond} flows/s${flows.errors ? `, ${flows.errors} errors` : ''}`
    console.log(`[${label}] quote to cash: ${out.quoteToCash}`)
    const { rows } = await app.ctx.db.query(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'journal_lines'`)
    if (rows[0].n) {
      const lines = await app.ctx.db.query('SELECT count(*)::int AS n FROM journal_lines')
      console.log(`[${label}] journal lines written: ${lines.rows[0].n}`)
    }
  } finally {
    await app.close()
    await database.drop()
  }
  return out
}

const checkouts: Array<[string, string]> = [['after', HERE]]
if (process.env.BENCH_BEFORE) checkouts.unshift(['before', process.env.BENCH_BEFORE.replace(/\/?$/, '/')])
const results: Array<[string, Record<string, string>]> = []
for (let round = 1; round <= ROUNDS; round++) {
  for (const [label, dir] of checkouts) results.push([`${label} #${round}`, await measureCheckout(`${label} #${round}`, dir)])
}
console.log('\n| run | POST /invoices/:id/pay | transfer validation (5 lines) | quote to cash |\n|---|---|---|---|')
for (const [label, r] of results) console.log(`| ${label} | ${r.pay} | ${r.validate} | ${r.quoteToCash} |`)
process.exit(0)
