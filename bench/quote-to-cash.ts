// Benchmarks of the sales and invoicing modules (wired into bench/run.ts):
//   - benchQuoteToCash: complete flows per second of create quotation ->
//     confirm -> invoice the order -> pay, by parallel fetch loops on loopback;
//   - benchInvoiceList: GET /invoices with filters and sorts under autocannon,
//     meant to run after seedInvoices has put 100,000 invoices in the organization.
import autocannon from 'autocannon'
import type { Db } from '../src/core/db.ts'

interface Opts {
  baseUrl: string
  /** A bearer credential of an organization (member or admin). */
  token: string
  durationSeconds: number
  /** Flows or HTTP connections at a time (default BENCH_CONNECTIONS, else 10). */
  concurrency?: number
}

const concurrencyOf = (opts: Opts) => opts.concurrency ?? Number(process.env.BENCH_CONNECTIONS ?? 10)

async function api(opts: Opts, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await send(opts, method, path, body).catch((err: Error & { cause?: { code?: string } }) => {
    // A kept-alive socket the server closed while the benchmark seeded (idle past its
    // keep-alive timeout) resets the next request; a GET is safe to send again.
    if (method === 'GET' && err.cause?.code === 'ECONNRESET') return send(opts, method, path, body)
    throw err
  })
  const json = await res.json().catch(() => undefined)
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json as any
}

function send(opts: Opts, method: 'GET' | 'POST', path: string, body?: unknown) {
  return fetch(`${opts.baseUrl}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${opts.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

/** Quote to cash as a client does it: four calls per flow, `concurrency` flows at a time, for durationSeconds. */
export async function benchQuoteToCash(opts: Opts): Promise<{ flowsPerSecond: number; flows: number; errors: number }> {
  const contact = await api(opts, 'POST', '/contacts', { name: 'Bench Customer', email: `bench-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com` })
  const product = await api(opts, 'POST', '/products', { name: 'Bench product', price: 1999 })
  const flow = async () => {
    const quotation = await api(opts, 'POST', '/sales/quotations', { contactId: contact.id, lineItems: [{ productId: product.id, quantity: 3, discount: 10, taxRate: 20 }] })
    const order = await api(opts, 'POST', `/sales/quotations/${quotation.id}/confirm`)
    const invoice = await api(opts, 'POST', `/orders/${order.id}/invoice`, {})
    const paid = await api(opts, 'POST', `/invoices/${invoice.id}/pay`, { amount: invoice.total })
    if (paid.status !== 'paid') throw new Error(`flow ended ${paid.status}`)
  }
  let flows = 0
  let errors = 0
  const started = performance.now()
  const deadline = started + opts.durationSeconds * 1000
  await Promise.all(Array.from({ length: concurrencyOf(opts) }, async () => {
    while (performance.now() < deadline) {
      try {
        await flow()
        flows++
      } catch (err) {
        if (errors++ === 0) console.error(`quote-to-cash: ${(err as Error).message}`)
      }
    }
  }))
  const seconds = (performance.now() - started) / 1000
  return { flowsPerSecond: Math.round((flows / seconds) * 10) / 10, flows, errors }
}

/** GET /invoices with the filters and sort keys clients use, cycled by every connection. */
export async function benchInvoiceList(opts: Opts): Promise<{ requestsPerSecond: number; p99Ms: number; errors: number }> {
  const sample = await api(opts, 'GET', '/invoices?limit=1')
  const contactId = sample.data[0]?.contact.id ?? '00000000-0000-4000-8000-000000000000'
  const year = new Date().getUTCFullYear()
  const paths = [
    '/api/invoices?status=sent&sortBy=amount',
    '/api/invoices?sortBy=dueDate&sortOrder=asc',
    `/api/invoices?from=${year - 1}-01-01&to=${year - 1}-06-30&sortBy=createdAt`,
    `/api/invoices?contactId=${contactId}&sortBy=amount&sortOrder=asc`,
    '/api/invoices?status=overdue&sortBy=dueDate&page=5&limit=50',
    '/api/invoices?sortBy=status&page=3',
    '/api/invoices?status=paid&sortBy=createdAt&limit=100',
    '/api/invoices',
  ]
  const result = await autocannon({
    url: opts.baseUrl,
    connections: concurrencyOf(opts),
    duration: opts.durationSeconds,
    workers: 1,
    headers: { authorization: `Bearer ${opts.token}` },
    requests: paths.map((path) => ({ method: 'GET' as const, path })),
  })
  return { requestsPerSecond: Math.round(result.requests.average), p99Ms: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx }
}

/**
 * Bulk-inserts `count` invoices into the organization (with 50 contacts of its
 * own) in one INSERT ... SELECT: statuses, totals, dates and contacts spread
 * like a real ledger over the last two years, numbers taken from the
 * organization's INV sequence so later invoices keep counting from there.
 */
export async function seedInvoices(target: { ctx: { db: Db } } | Db, organizationId: string, count: number): Promise<void> {
  const db = 'ctx' in target ? target.ctx.db : target
  const year = new Date().getUTCFullYear()
  const contacts = await db.query<{ id: string; name: string; email: string }>(
    `INSERT INTO contacts (id, organization_id, name, email)
     SELECT gen_random_uuid(), $1, 'Ledger customer ' || g, 'ledger-' || g || '-' || substr(md5(random()::text), 1, 8) || '@example.com'
     FROM generate_series(1, 50) g RETURNING id, name, email`,
    [organizationId],
  )
  const { rows } = await db.query<{ value: number }>(
    `INSERT INTO sequences (organization_id, name, year, value) VALUES ($1, 'INV', $2, $3)
     ON CONFLICT (organization_id, name, year) DO UPDATE SET value = sequences.value + $3 RETURNING value`,
    [organizationId, year, count],
  )
  const first = rows[0].value - count + 1
  await db.query(
    `WITH c AS (SELECT row_number() OVER () - 1 AS i, * FROM json_to_recordset($5::json) AS x(id uuid, name text, email text)),
     g AS (
       SELECT n, (n % 6) AS s, 100 + (hashtext(n::text) & 65535) * 7 AS price,
              now() - ((hashtext('d' || n) & 1048575) % 730) * interval '1 day' AS issued
       FROM generate_series(0, $3 - 1) n)
     INSERT INTO invoices (id, organization_id, number, status, contact_id, contact_name, contact_email, line_items,
       subtotal, tax_amount, total, amount_paid, currency, invoice_date, due_date, sent_at, paid_at, cancelled_at, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'INV/' || $2 || '/' || lpad((($4 + n))::text, greatest(5, length(($4 + n)::text)), '0'),
       (ARRAY['draft', 'sent', 'partial_paid', 'paid', 'overdue', 'cancelled'])[s + 1],
       c.id, c.name, c.email,
       jsonb_build_array(jsonb_build_object('productId', NULL, 'productName', NULL, 'description', 'Service', 'quantity', 1,
         'unitPrice', price, 'discount', 0, 'taxRate', NULL, 'total', price)),
       price, 0, price,
       CASE s WHEN 2 THEN price / 2 WHEN 3 THEN price ELSE 0 END,
       'usd', issued, issued + interval '30 days',
       CASE WHEN s > 0 THEN issued END, CASE WHEN s = 3 THEN issued + interval '10 days' END, CASE WHEN s = 5 THEN issued END,
       issued, issued
     FROM g JOIN c ON c.i = g.n % 50`,
    [organizationId, year, count, first, JSON.stringify(contacts.rows)],
  )
  // Fresh statistics and visibility map, as autovacuum would leave them.
  await db.query('VACUUM ANALYZE invoices')
}
