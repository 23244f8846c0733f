// Module benchmarks run by bench/run.ts after the contacts runs, on the same
// app and database: quote-to-cash flows, the invoice list over 100,000
// invoices (BENCH_INVOICE_LIST=off skips it and its seed), and license validation.
import { randomBytes } from 'node:crypto'
import type { App } from '../src/core/module.ts'
import { benchValidate, setupValidate } from './license-validate.ts'
import { benchInvoiceList, benchQuoteToCash, seedInvoices } from './quote-to-cash.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
type Row = { name: string; value: string }

/** A fresh organization and an admin token for one benchmark. */
async function freshOrg(app: App) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { organizationName: 'Bench modules', name: 'Bench', email: `bench-m-${randomBytes(4).toString('hex')}@example.com`, password: 'benchmark password' },
  })
  const { organization, accessToken } = res.json()
  return { id: organization.id as string, token: accessToken as string }
}

async function quoteToCash(label: string, app: App, base: string): Promise<Row[]> {
  const org = await freshOrg(app)
  const flows = await benchQuoteToCash({ baseUrl: base, token: org.token, durationSeconds: SECONDS })
  console.log(`[${label}] quote to cash: ${flows.flowsPerSecond} flows/s`)
  const rows = [{ name: `${label}: quote-to-cash (quotation, confirm, invoice, pay)`, value: `${flows.flowsPerSecond} flows/s${flows.errors ? `, ${flows.errors} errors` : ''}` }]
  if (process.env.BENCH_INVOICE_LIST === 'off') return rows
  await seedInvoices(app, org.id, 100_000)
  const list = await benchInvoiceList({ baseUrl: base, token: org.token, durationSeconds: SECONDS })
  console.log(`[${label}] invoice list over 100k: ${list.requestsPerSecond} req/s, p99 ${list.p99Ms} ms`)
  rows.push({ name: `${label}: GET /invoices, 100k invoices, filters and sort`, value: `${list.requestsPerSecond} req/s, p99 ${list.p99Ms} ms${list.errors ? `, ${list.errors} errors` : ''}` })
  return rows
}

async function licenseValidate(label: string, app: App, base: string): Promise<Row[]> {
  const org = await freshOrg(app)
  const { body, licenseKey } = await setupValidate(base, org.token)
  const r = await benchValidate({ baseUrl: base, token: licenseKey, body, durationSeconds: SECONDS })
  console.log(`[${label}] POST /licenses/validate: ${r.requestsPerSecond} req/s, p99 ${r.p99Ms} ms`)
  return [{ name: `${label}: POST /licenses/validate (license-key bearer)`, value: `${r.requestsPerSecond} req/s, p99 ${r.p99Ms} ms${r.errors ? `, ${r.errors} errors` : ''}` }]
}

export const benchmarks = [licenseValidate, quoteToCash]
