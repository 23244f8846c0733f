import { ageCutoffs } from '../../core/aging.ts'
import { MAX_YEAR, MIN_YEAR } from '../../core/dates.ts'
import { ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import { lineTotal } from '../../core/money.ts'
import {
  GROUP_BY, type Overview, type PayablesAging, type ReceivablesAging, type SalesBreakdown, type SalesGroupBy, type StockValuation,
} from './analytics.schemas.ts'

type Deps = Pick<Services, 'invoices' | 'purchase' | 'inventory' | 'orders' | 'sales' | 'manufacturing' | 'projects' | 'helpdesk'>

/** Parameters as clients (query strings) and report runs give them; every field is checked here too. */
export interface AgingParams { asOf?: string; currency?: string; contactId?: string }
export interface PayablesAgingParams { asOf?: string; currency?: string; vendorId?: string }
export interface ValuationParams { asOf?: string; currency?: string; warehouseId?: string }
export interface SalesParams { from?: string; to?: string; currency?: string; groupBy?: string; limit?: number | string }
export interface OverviewParams { from?: string; to?: string; currency?: string }

/** Days past due that open each bucket after current: 1 days1to30, 31 days31to60, 61 days61to90, 91 over90. */
const AGE_THRESHOLDS = [1, 31, 61, 91]
const BUCKETS = ['current', 'days1to30', 'days31to60', 'days61to90', 'over90'] as const
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const NO_KEY = { product: 'No product', customer: 'No customer', salesperson: 'No salesperson' } as const

const today = () => new Date().toISOString().slice(0, 10)

/** A YYYY-MM-DD day that exists, within the years every date input accepts; 422 naming the field otherwise. */
export function parseDay(value: unknown, field: string): string {
  const m = typeof value === 'string' ? DATE.exec(value) : null
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
    const date = new Date(Date.UTC(y, mo - 1, d))
    if (y >= MIN_YEAR && y <= MAX_YEAR && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d) return value as string
  }
  throw new ValidationError(`${field} must be a date (YYYY-MM-DD) between ${MIN_YEAR} and ${MAX_YEAR}`)
}

function currencyOf(value: unknown): string {
  if (value === undefined) return 'usd'
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value)) throw new ValidationError('currency must be a three-letter ISO 4217 code')
  return value.toLowerCase()
}

function idOf(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !UUID.test(value)) throw new ValidationError(`${field} must be a UUID`)
  return value
}

/** from/to: to defaults to today, from to the first day of to's month; from after to is 422. */
export function periodOf(p: { from?: unknown; to?: unknown }) {
  const to = p.to === undefined ? today() : parseDay(p.to, 'to')
  const from = p.from === undefined ? `${to.slice(0, 8)}01` : parseDay(p.from, 'from')
  if (from > to) throw new ValidationError('from must not be after to')
  return { from, to }
}

const asOfOf = (value: unknown) => (value === undefined ? today() : parseDay(value, 'asOf'))

/**
 * The parameters of each report GET checked, with their defaults applied:
 * every rule the GET applies beyond its query schema (a real day in range,
 * from not after to, a groupBy and a limit), one ValidationError (422)
 * naming each problem. The GETs read their parameters through these, and so
 * do report runs at POST /reports (module reports), so that a run is refused
 * with the GET's rules, not accepted to fail later.
 */
export const reportParameters = {
  receivables_aging: (p: AgingParams) => ({ asOf: asOfOf(p.asOf), currency: currencyOf(p.currency), contactId: idOf(p.contactId, 'contactId') }),
  payables_aging: (p: PayablesAgingParams) => ({ asOf: asOfOf(p.asOf), currency: currencyOf(p.currency), vendorId: idOf(p.vendorId, 'vendorId') }),
  stock_valuation: (p: ValuationParams) => ({ asOf: asOfOf(p.asOf), currency: currencyOf(p.currency), warehouseId: idOf(p.warehouseId, 'warehouseId') }),
  sales(p: SalesParams) {
    const problems: string[] = []
    if (p.groupBy === undefined) problems.push('groupBy is required (product, customer or salesperson)')
    else if (!(GROUP_BY as readonly unknown[]).includes(p.groupBy)) problems.push('groupBy must be one of: product, customer, salesperson')
    // A report run's parameters may hold the limit as JSON text ("25") as well as a number.
    const limit = p.limit === undefined ? 10 : typeof p.limit === 'string' && /^\d{1,3}$/.test(p.limit) ? Number(p.limit) : p.limit
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100) problems.push('limit must be an integer from 1 to 100')
    if (problems.length) throw new ValidationError(problems)
    return { period: periodOf(p), currency: currencyOf(p.currency), groupBy: p.groupBy as SalesGroupBy, limit: limit as number }
  },
} satisfies Record<string, (p: never) => unknown>

interface BucketRow { amounts: number[]; count: number }
type Buckets = Record<(typeof BUCKETS)[number] | 'total' | 'invoices', number>
const emptyBuckets = (): Buckets => ({ current: 0, days1to30: 0, days31to60: 0, days61to90: 0, over90: 0, total: 0, invoices: 0 })

/** The order of String.prototype.localeCompare (the same default locale and options), with its collator made once. */
const byLocale = new Intl.Collator().compare

/** Bucket amounts (in BUCKETS order) and an invoice count added into b. */
function add(b: Buckets, amounts: readonly number[], count: number) {
  for (let i = 0; i < amounts.length; i++) {
    b[BUCKETS[i]] += amounts[i]
    b.total += amounts[i]
  }
  b.invoices += count
}

/** Per-party bucket rows (as the owning modules give them) into report rows and totals. */
function aging<P extends { id: string; name: string; email: string | null }>(rows: Array<{ party: P } & BucketRow>) {
  const parties = new Map<string, { party: P; b: Buckets }>()
  const totals = emptyBuckets()
  for (const r of rows) {
    let entry = parties.get(r.party.id)
    if (!entry) parties.set(r.party.id, (entry = { party: r.party, b: emptyBuckets() }))
    add(entry.b, r.amounts, r.count)
    add(totals, r.amounts, r.count)
  }
  const data = [...parties.values()].sort((a, b) => b.b.total - a.b.total || byLocale(a.party.name, b.party.name) || byLocale(a.party.id, b.party.id))
  return { data, totals }
}

/**
 * The analytics of docs/analytics.md "Common rules", computed at read time
 * from what the owning modules publish (docs/analytics.md). Each method takes
 * the parameters of its GET as given (strings; report runs pass theirs) and
 * answers the report object of that GET; bad parameters are ValidationError (422).
 */
export class AnalyticsService {
  constructor(private readonly deps: Deps) {}

  async receivablesAging(organizationId: string, params: AgingParams): Promise<ReceivablesAging> {
    const { asOf, currency, contactId } = reportParameters.receivables_aging(params)
    const rows = await this.deps.invoices.openAmounts(organizationId, { asOf, currency, contactId, cutoffs: ageCutoffs(asOf, AGE_THRESHOLDS) })
    const { data, totals } = aging(rows.map((r) => ({ party: { id: r.contact_id, name: r.contact_name, email: r.contact_email }, amounts: r.amounts, count: r.invoices })))
    return { asOf, currency, data: data.map(({ party, b }) => ({ contact: party, ...b })), totals }
  }

  /** The `totals` of receivablesAging, without its rows (the overview's figures): one aggregate, no contact. */
  private async receivablesTotals(organizationId: string, params: { asOf: string; currency: string }): Promise<Pick<ReceivablesAging, 'totals'>> {
    const [row] = await this.deps.invoices.openAmounts(organizationId, { ...params, cutoffs: ageCutoffs(params.asOf, AGE_THRESHOLDS), perContact: false })
    const totals = emptyBuckets()
    if (row) add(totals, row.amounts, row.invoices)
    return { totals }
  }

  async payablesAging(organizationId: string, params: PayablesAgingParams): Promise<PayablesAging> {
    const { asOf, currency, vendorId } = reportParameters.payables_aging(params)
    const rows = await this.deps.purchase.openBillAmounts(organizationId, { asOf, currency, vendorId, cutoffs: ageCutoffs(asOf, AGE_THRESHOLDS) })
    const { data, totals } = aging(rows.map((r) => ({ party: { id: r.vendor_id, name: r.vendor_name, email: r.vendor_email }, amounts: r.amounts, count: r.bills })))
    return { asOf, currency, data: data.map(({ party, b }) => ({ vendor: party, ...b })), totals }
  }

  async stockValuation(organizationId: string, params: ValuationParams): Promise<StockValuation> {
    const { asOf, currency, warehouseId } = reportParameters.stock_valuation(params)
    const rows = await this.deps.inventory.stockAsOf(organizationId, { asOf, currency, warehouseId })
    const data = rows.map((r) => {
      const unitCost = r.cost ?? 0
      return { product: { id: r.id, name: r.name, sku: r.sku }, quantity: r.quantity, unitCost, value: lineTotal(r.quantity, unitCost) }
    })
    data.sort((a, b) => b.value - a.value || a.product.name.localeCompare(b.product.name) || a.product.id.localeCompare(b.product.id))
    return { asOf, currency, data, totals: { value: data.reduce((s, r) => s + r.value, 0) } }
  }

  async sales(organizationId: string, params: SalesParams): Promise<SalesBreakdown> {
    const { period, currency, groupBy, limit } = reportParameters.sales(params)
    const { groups, totals } = await this.deps.orders.salesBreakdown(organizationId, { ...period, currency, groupBy, limit })
    const data = groups.map((g) => ({
      key: { id: g.id, name: g.id === null ? NO_KEY[groupBy] : (g.name ?? '') },
      revenue: g.revenue,
      orders: g.orders,
      ...(groupBy === 'product' ? { quantity: g.quantity ?? 0 } : {}),
    }))
    return { period, currency, groupBy, data, totals }
  }

  async overview(organizationId: string, params: OverviewParams): Promise<Overview> {
    const period = periodOf(params)
    const currency = currencyOf(params.currency)
    const { inventory, sales, manufacturing, projects, helpdesk } = this.deps
    const [salesTotals, quotes, receivables, payables, valuation, reorder, production, hours, tickets] = await Promise.all([
      this.sales(organizationId, { ...period, currency, groupBy: 'salesperson', limit: 1 }),
      sales.quotationCounts(organizationId, { ...period, currency }),
      this.receivablesTotals(organizationId, { asOf: period.to, currency }),
      this.payablesAging(organizationId, { asOf: period.to, currency }),
      this.stockValuation(organizationId, { asOf: period.to, currency }),
      inventory.listProductStock(organizationId, { belowReorder: true, page: 1, limit: 1, sortOrder: 'asc' }),
      manufacturing.productionFigures(organizationId, period),
      projects.organizationHours(organizationId, period),
      helpdesk.stats(organizationId, period),
    ])
    return {
      period,
      currency,
      sales: {
        revenue: salesTotals.totals.revenue,
        orders: salesTotals.totals.orders,
        quotations: quotes.quotations,
        conversionRate: quotes.quotations === 0 ? 0 : quotes.confirmed / quotes.quotations,
      },
      receivables: { outstanding: receivables.totals.total, overdue: receivables.totals.total - receivables.totals.current },
      payables: { outstanding: payables.totals.total },
      inventory: { stockValue: valuation.totals.value, belowReorder: reorder.meta.total },
      manufacturing: production,
      projects: hours,
      helpdesk: { ticketsCreated: tickets.ticketsCreated, ticketsClosed: tickets.ticketsClosed, slaBreachRate: tickets.slaBreachRate },
    }
  }
}
