// Webhooks (issue 15, wired into bench/run.ts): events per second from the
// domain event to a receiver, and the delivery lag under load. One
// organization with one endpoint (contact.created) on a loopback receiver that
// answers 200 at once; autocannon creates contacts through the API for
// BENCH_WEBHOOKS_SECONDS (each commit appends contact.created); the event
// dispatcher and the delivery worker run in the same process as the API, as
// in production. Then it waits until every event has arrived.
//   - events/s: events delivered / (last arrival - first event's createdAt);
//   - lag: arrival at the receiver - the event's createdAt (p50, p99, max).
// BENCH_WEBHOOKS=off skips it. Alone: BENCH_ONLY=webhooks npm run bench
// (PostgreSQL when BENCH_DATABASE_URL or DATABASE_URL is set, then PGlite
// unless BENCH_PGLITE=off).
import autocannon from 'autocannon'
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { App } from '../src/core/module.ts'

const SECONDS = Number(process.env.BENCH_WEBHOOKS_SECONDS ?? process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const BURST = Number(process.env.BENCH_WEBHOOKS_BURST ?? 5000)
type Row = { name: string; value: string }

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

export async function webhooksBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_WEBHOOKS === 'off') return []
  const arrived = new Map<string, number>()
  let duplicates = 0
  const receiver = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const id = String(req.headers['webhook-id'])
      if (arrived.has(id)) duplicates++
      else arrived.set(id, Date.now())
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  const reg = await app.inject({
    method: 'POST', url: '/api/auth/register',
    payload: { organizationName: 'Bench webhooks', name: 'Bench', email: `bench-w-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const auth = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }
  const ep = await app.inject({ method: 'POST', url: '/api/webhook-endpoints', headers: auth, payload: { url, enabledEvents: ['contact.created'] } })
  if (ep.statusCode !== 201) throw new Error(`webhook endpoint: ${ep.statusCode} ${ep.body}`)

  // The benchmark app runs without jobs: start the event dispatcher and the delivery worker here.
  const worker = app.services.webhooks!.worker!
  await app.ctx.events.start()
  await worker.start()
  try {
    const load = await autocannon({
      url: `${base}/api/contacts`, method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench [<id>]' }), idReplacement: true,
      connections: CONNECTIONS, duration: SECONDS, workers: 1,
    })
    // Requests autocannon cut off at the end may still commit: let them.
    await new Promise((r) => setTimeout(r, 500))
    const { rows } = await app.ctx.db.query<{ id: string; created_at: Date }>(
      `SELECT id, created_at FROM domain_events WHERE organization_id = $1 AND type = 'contact.created'`, [organization.id],
    )
    const deadline = Date.now() + 120_000
    while (arrived.size < rows.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    const lags = rows.filter((e) => arrived.has(e.id)).map((e) => arrived.get(e.id)! - e.created_at.getTime()).sort((a, b) => a - b)
    const first = Math.min(...rows.map((e) => e.created_at.getTime()))
    const last = Math.max(...arrived.values())
    const perSecond = Math.round(arrived.size / ((last - first) / 1000))
    const summary = `${perSecond} events/s (${arrived.size} of ${rows.length} delivered, ${duplicates} duplicates; API ${Math.round(load.requests.average)} POST/s, ${load.non2xx + load.errors} errors); lag p50 ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms, max ${lags.at(-1)} ms`
    console.log(`[${label}] webhooks under load: ${summary}`)

    // Capacity: a burst of BURST events appended at once (100 per transaction), from the first append to the last arrival.
    arrived.clear()
    const t0 = Date.now()
    for (let i = 0; i < BURST; i += 100) {
      await app.ctx.db.tx(async (q) => {
        for (let j = i; j < Math.min(BURST, i + 100); j++) {
          const id = crypto.randomUUID()
          await app.ctx.events.append(q, { organizationId: organization.id, type: 'contact.created', resource: { type: 'contact', id }, object: { id, name: `Burst ${j}` } })
        }
      })
    }
    const appended = Date.now() - t0
    while (arrived.size < BURST && Date.now() < t0 + 300_000) await new Promise((r) => setTimeout(r, 20))
    const burstMs = Math.max(...arrived.values()) - t0
    const burst = `${Math.round(arrived.size / (burstMs / 1000))} events/s (${arrived.size} of ${BURST} in ${(burstMs / 1000).toFixed(1)} s, appended in ${(appended / 1000).toFixed(1)} s, ${duplicates} duplicates)`
    console.log(`[${label}] webhooks burst: ${burst}`)
    return [
      { name: `${label}: webhooks, POST /contacts for ${SECONDS} s (${CONNECTIONS} connections) to a receiver`, value: summary },
      { name: `${label}: webhooks, burst of ${BURST} events to a receiver`, value: burst },
    ]
  } finally {
    await worker.stop()
    await app.ctx.events.stop()
    await new Promise((r) => receiver.close(r))
  }
}

export const benchmarks = [webhooksBench]
