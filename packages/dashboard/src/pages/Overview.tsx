import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Card, CURRENCIES, CurrencySelect, Empty, ErrorMessage, Field, Loading, money, Page, useLoad, useUrlFilters } from '../ui.tsx'
import { monthStart, statusWord, today } from './finance.tsx'

type Period = 'year' | 'ytd' | 'month'
const PERIODS: Record<Period, string> = { year: 'Last 12 months', ytd: 'Year to date', month: 'This month' }
const PERIOD_KEYS = Object.keys(PERIODS) as Period[]

function range(period: Period): { from: string; to: string } {
  const to = today()
  if (period === 'month') return { from: monthStart(0), to }
  if (period === 'ytd') return { from: `${to.slice(0, 4)}-01-01`, to }
  return { from: monthStart(11), to }
}

const ACCENT = '#1f4fd1'
const SECOND = '#98a2b3'

/** Money for an axis: short (`$12K`). */
const compact = (cents: number, currency: string) => {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase(), notation: 'compact', maximumFractionDigits: 1 }).format(cents / 100)
  } catch {
    return String(cents / 100)
  }
}

const monthLabel = (period: string) => (/^\d{4}-\d{2}$/.test(period) ? new Date(`${period}-01T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', year: '2-digit', timeZone: 'UTC' }) : period)

/**
 * A chart with its accessible alternative: the drawing is hidden from assistive
 * technology, a one-sentence summary is shown under it, and the figures are a
 * visually hidden table.
 */
function Chart({ title, summary, columns, rows, empty, children }: { title: string; summary: string; columns: string[]; rows: ReactNode[][]; empty?: ReactNode; children: ReactNode }) {
  return (
    <Card title={title}>
      {empty ? (
        <Empty>{empty}</Empty>
      ) : (
        <figure className="chart">
          <div className="chart-area" aria-hidden="true">
            {children}
          </div>
          <figcaption className="muted">{summary}</figcaption>
          {/* Hidden in a box: `width: 1px` does not apply to a table's own box, which would widen a phone's page. */}
          <div className="visually-hidden">
            <table>
              <caption>{title}</caption>
              <thead>
                <tr>
                  {columns.map((c) => (
                    <th key={c} scope="col">
                      {c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((r, i) => (
                  <tr key={i}>
                    {r.map((cell, j) => (j === 0 ? <th key={j} scope="row">{cell}</th> : <td key={j}>{cell}</td>))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </figure>
      )}
    </Card>
  )
}

function Kpi({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <div className="kpi">
      <div className="kpi-label">{label}</div>
      <div className="kpi-value">{value}</div>
      {hint && <div className="hint">{hint}</div>}
    </div>
  )
}

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`
const num = (n: number) => new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(n)

/** Business overview: the KPIs of /analytics/overview and four charts (revenue, pipeline, receivables aging, stock below reorder). */
export function OverviewPage() {
  const { api } = useSession()
  // The period and currency live in the address, as a list's filters do.
  const f = useUrlFilters()
  const period = f.choice('period', PERIOD_KEYS, 'year')
  const currency = f.choice('currency', CURRENCIES, 'usd')
  const { from, to } = range(period)
  const groupBy = period === 'month' ? 'day' : 'month'
  const data = useLoad(async () => {
    const query = { from, to, currency }
    const [overview, revenue, pipeline, aging, reorder] = await Promise.all([
      api.get('/api/analytics/overview', { params: { query } }),
      api.get('/api/sales/revenue', { params: { query: { ...query, groupBy } } }),
      api.get('/api/sales/pipeline', { params: { query } }),
      // JSON unless Accept asks for CSV (the type names both).
      api.get('/api/analytics/receivables/aging', { params: { query: { asOf: to, currency } } }) as Promise<Schemas['ReceivablesAging']>,
      api.get('/api/inventory/products', { params: { query: { belowReorder: true, sortBy: 'available', sortOrder: 'asc', limit: 8 } } }),
    ])
    return { overview, revenue, pipeline, aging, reorder }
  }, [from, to, currency, groupBy])

  const d = data.data
  const cur = d?.overview.currency ?? currency
  const m = (cents: number) => money(cents, cur)
  const nothingYet = d && d.overview.sales.orders === 0 && d.overview.sales.quotations === 0 && d.aging.totals.invoices === 0

  return (
    <Page
      title="Overview"
      actions={
        <div className="filters">
          <Field label="Period">
            <select value={period} onChange={(e) => f.set('period', e.target.value === 'year' ? '' : e.target.value)}>
              {Object.entries(PERIODS).map(([k, v]) => (
                <option key={k} value={k}>
                  {v}
                </option>
              ))}
            </select>
          </Field>
          <CurrencySelect value={currency} onChange={(c) => f.set('currency', c === 'usd' ? '' : c)} />
        </div>
      }
    >
      <ErrorMessage error={data.error} />
      {!d && !data.error && <Loading />}
      {d && (
        <>
          <p className="muted overview-period">
            {PERIODS[period]}: {d.overview.period.from} to {d.overview.period.to}, in {cur.toUpperCase()}. Receivables and stock as of {to}.
          </p>
          {nothingYet && (
            <Empty>
              No invoices yet: <Link to="/quotations/new">create a quotation</Link>, send and confirm it, then invoice the order. Sales, receivables and stock figures appear here as
              you work.
            </Empty>
          )}
          <section aria-label="Key figures" className="kpis overview-kpis">
            <Kpi label="Revenue" value={m(d.overview.sales.revenue)} hint={`${d.overview.sales.orders} orders`} />
            <Kpi label="Quotations" value={num(d.overview.sales.quotations)} hint={`${percent(d.overview.sales.conversionRate)} confirmed`} />
            <Kpi label="Receivables" value={m(d.overview.receivables.outstanding)} hint="outstanding" />
            <Kpi label="Overdue" value={m(d.overview.receivables.overdue)} hint="past due date" />
            <Kpi label="Payables" value={m(d.overview.payables.outstanding)} hint="owed to vendors" />
            <Kpi label="Stock value" value={m(d.overview.inventory.stockValue)} hint={`${d.overview.inventory.belowReorder} below reorder point`} />
          </section>
          <p className="muted overview-ops">
            Operations: {num(d.overview.manufacturing.unitsProduced)} units produced ({d.overview.manufacturing.ordersDone} production orders done) · {num(d.overview.projects.hoursLogged)} hours
            logged ({num(d.overview.projects.billableHours)} billable) · {d.overview.helpdesk.ticketsCreated} tickets opened, {d.overview.helpdesk.ticketsClosed} closed,{' '}
            {percent(d.overview.helpdesk.slaBreachRate)} past their SLA
          </p>
          <div className="grid">
            <Chart
              title={groupBy === 'day' ? 'Revenue by day' : 'Revenue by month'}
              summary={`${m(d.revenue.total.revenue)} from ${d.revenue.total.orders} confirmed orders${d.revenue.data.length ? `; best ${groupBy}: ${(() => {
                const best = d.revenue.data.reduce((a, b) => (b.revenue > a.revenue ? b : a))
                return `${monthLabel(best.period)} (${m(best.revenue)})`
              })()}` : ''}.`}
              columns={['Period', 'Revenue', 'Orders']}
              rows={d.revenue.data.map((r) => [monthLabel(r.period), m(r.revenue), r.orders])}
              empty={d.revenue.total.orders === 0 ? 'No revenue in this period: confirm a quotation to make an order.' : undefined}
            >
              <ResponsiveContainer width="100%" height={240}>
                <BarChart data={d.revenue.data} accessibilityLayer={false} margin={{ top: 8, right: 8, left: 8, bottom: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} />
                  <XAxis dataKey="period" tickFormatter={monthLabel} fontSize={12} />
                  <YAxis tickFormatter={(v: number) => compact(v, cur)} fontSize={12} width={64} />
                  <Tooltip formatter={(v) => m(Number(v))} labelFormatter={(l) => monthLabel(String(l))} />
                  <Bar dataKey="revenue" name="Revenue" fill={ACCENT} radius={[3, 3, 0, 0]} />
                </BarChart>
              </ResponsiveContainer>
            </Chart>
            <Chart
              title="Pipeline by stage"
              summary={`Open pipeline (draft and sent quotations): ${m(d.pipeline.totalPipeline)}. ${d.pipeline.stages.map((s) => `${statusWord(s.stage)} ${s.count}`).join(', ')}.`}
              columns={['Stage', 'Quotations', 'Value']}
              rows={d.pipeline.stages.map((s) => [statusWord(s.stage), s.count, m(s.value)])}
              empty={d.pipeline.stages.every((s) => s.count === 0) ? <>No quotations in this period. <Link to="/quotations/new">Create a quotation</Link>.</> : undefined}
            >
              <ResponsiveContainer width="100%" height={240}>
                <BarChart data={d.pipeline.stages.map((s) => ({ ...s, label: statusWord(s.stage) }))} accessibilityLayer={false} margin={{ top: 8, right: 8, left: 8, bottom: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} />
                  <XAxis dataKey="label" fontSize={12} />
                  <YAxis tickFormatter={(v: number) => compact(v, cur)} fontSize={12} width={64} />
                  <Tooltip formatter={(v, _n, item) => [`${m(Number(v))} (${(item.payload as { count: number }).count} quotations)`, 'Value']} />
                  <Bar dataKey="value" name="Value" fill={ACCENT} radius={[3, 3, 0, 0]} />
                </BarChart>
              </ResponsiveContainer>
            </Chart>
            <Chart
              title="Receivables aging"
              summary={`${m(d.aging.totals.total)} open on ${d.aging.totals.invoices} invoices as of ${d.aging.asOf}; ${m(d.aging.totals.total - d.aging.totals.current)} past due.`}
              columns={['Bucket', 'Open amount']}
              rows={agingBuckets(d.aging.totals).map((b) => [b.label, m(b.value)])}
              empty={d.aging.totals.invoices === 0 ? 'Nothing to collect: no sent invoice is open. Send an invoice and its open amount shows here by age.' : undefined}
            >
              <ResponsiveContainer width="100%" height={240}>
                <BarChart data={agingBuckets(d.aging.totals)} accessibilityLayer={false} margin={{ top: 8, right: 8, left: 8, bottom: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} />
                  <XAxis dataKey="label" fontSize={11} interval={0} />
                  <YAxis tickFormatter={(v: number) => compact(v, cur)} fontSize={12} width={64} />
                  <Tooltip formatter={(v) => m(Number(v))} />
                  <Bar dataKey="value" name="Open amount" fill="#b54708" radius={[3, 3, 0, 0]} />
                </BarChart>
              </ResponsiveContainer>
            </Chart>
            <Chart
              title="Stock below reorder point"
              summary={`${d.reorder.meta.total} products are at or below their reorder point${d.reorder.data.length ? `; lowest: ${d.reorder.data.map((p) => `${p.productName} ${num(p.available)} of ${num(p.reorderPoint)}`).slice(0, 3).join(', ')}` : ''}.`}
              columns={['Product', 'Available', 'On hand', 'Reorder point']}
              rows={d.reorder.data.map((p) => [p.productName, `${num(p.available)} ${p.uom}`, `${num(p.onHand)} ${p.uom}`, `${num(p.reorderPoint)} ${p.uom}`])}
              empty={d.reorder.meta.total === 0 ? 'Every product is above its reorder point (set one on a storable product to be warned here).' : undefined}
            >
              <ResponsiveContainer width="100%" height={240}>
                <BarChart data={d.reorder.data} layout="vertical" accessibilityLayer={false} margin={{ top: 8, right: 8, left: 8, bottom: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" horizontal={false} />
                  <XAxis type="number" fontSize={12} />
                  <YAxis type="category" dataKey="productName" fontSize={12} width={120} />
                  <Tooltip />
                  <Legend />
                  <Bar dataKey="available" name="Available" fill="#b42318" />
                  <Bar dataKey="reorderPoint" name="Reorder point" fill={SECOND} />
                </BarChart>
              </ResponsiveContainer>
              {d.reorder.meta.total > d.reorder.data.length && <p className="hint">The {d.reorder.data.length} lowest of {d.reorder.meta.total}.</p>}
            </Chart>
          </div>
        </>
      )}
    </Page>
  )
}

function agingBuckets(t: { current: number; days1to30: number; days31to60: number; days61to90: number; over90: number }) {
  return [
    { label: 'Not yet due', value: t.current },
    { label: '1–30 days', value: t.days1to30 },
    { label: '31–60 days', value: t.days31to60 },
    { label: '61–90 days', value: t.days61to90 },
    { label: 'Over 90 days', value: t.over90 },
  ]
}
