// Manufacturing (issue 13, wired into bench/run.ts): one organization with a
// product made from a 10-line BOM (10 storable components, stock for every
// order), and production orders of 2 units made beforehand; then, BENCH_CONNECTIONS at a time over HTTP for
// BENCH_MANUFACTURING_SECONDS, each order goes through
//   POST /confirm (10 reservations), POST /produce {qty: 1} (10 component
//   moves and 1 finished move, a backorder), POST /close (releases the rest)
// and the figure is completed cycles per second. Every order competes for the
// same 10 components: the worst case for the quant locks.
// BENCH_MANUFACTURING=off skips it.
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'
import type { InventoryService } from '../src/modules/inventory/index.ts'

const SECONDS = Number(process.env.BENCH_MANUFACTURING_SECONDS ?? process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const LINES = 10
type Row = { name: string; value: string }

export async function manufacturingBench(label: string, app: App, base: string): Promise<Row[]> {
  if (process.env.BENCH_MANUFACTURING === 'off') return []
  const reg = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench manufacturing', name: 'Bench', email: `bench-m-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = reg.json()
  const key = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${accessToken}` }, payload: { name: 'bench', environment: 'test', role: 'member' } })
  const headers = { authorization: `Bearer ${key.json().key}`, 'content-type': 'application/json' }
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api${path}`, { method, headers, body: body === undefined ? '{}' : JSON.stringify(body) })
    const json = await res.json()
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }

  // Enough orders for SECONDS at 100 cycles/s, at most 5,000; each needs 2 of every component.
  const count = Math.min(5_000, Math.max(100, SECONDS * 100))
  const product = await api('POST', '/products', { name: 'Bench assembly', price: 1000, type: 'storable' })
  const components: Array<{ id: string }> = []
  for (let i = 0; i < LINES; i++) components.push(await api('POST', '/products', { name: `Bench part ${i}`, price: 100, type: 'storable' }))
  const bom = await api('POST', '/manufacturing/boms', {
    name: 'Bench BOM', productId: product.id, components: components.map((c) => ({ productId: c.id, quantity: 1 })),
    operations: [{ name: 'Assemble', workcenter: 'Bench', durationMinutes: 10 }],
  })
  const inventory = app.services.inventory as InventoryService
  await app.ctx.db.tx(async (q) => {
    const receipt = await inventory.createTransfer(q, organization.id, {
      type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK',
      moves: components.map((c) => ({ productId: c.id, demandQty: count * 2 })),
    })
    await inventory.validateTransfer(q, organization.id, receipt.id)
  })
  // Made over HTTP beforehand (creation is not measured).
  const orders: string[] = []
  for (let i = 0; i < count; i += 20) {
    const made = await Promise.all(Array.from({ length: Math.min(20, count - i) }, () => api('POST', '/manufacturing/orders', { productId: product.id, bomId: bom.id, quantity: 2 })))
    orders.push(...made.map((o: { id: string }) => o.id))
  }

  const deadline = performance.now() + SECONDS * 1000
  let next = 0
  let cycles = 0
  let failed = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < orders.length && performance.now() < deadline) {
      const id = orders[next++]
      try {
        await api('POST', `/manufacturing/orders/${id}/confirm`)
        await api('POST', `/manufacturing/orders/${id}/produce`, { qty: 1 })
        await api('POST', `/manufacturing/orders/${id}/close`)
        cycles++
      } catch (err) {
        failed++
        if (failed === 1) console.error(err)
      }
    }
  }))
  const seconds = (performance.now() - t0) / 1000
  const perSecond = Math.round(cycles / seconds)
  console.log(`[${label}] manufacturing confirm+produce+close (${LINES}-line BOM): ${perSecond}/s over ${cycles}${failed ? `, ${failed} failed` : ''}`)
  return [{
    name: `${label}: POST confirm + produce + close of a ${LINES}-line BOM order, ${CONNECTIONS} at a time`,
    value: `${perSecond} orders/s (${Math.round(perSecond * 3)} requests/s)${failed ? ` (${failed} failed)` : ''}`,
  }]
}

export const benchmarks = [manufacturingBench]
