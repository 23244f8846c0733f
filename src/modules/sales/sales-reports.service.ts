import type { Db } from '../../core/db.ts'
import { NotFoundError, ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import { quotationsRepository as quotations } from './quotations.repository.ts'
import { PIPELINE_STAGES, type PipelineQuery, type RevenueQuery, type TeamMember, type TeamQuery } from './sales-reports.schemas.ts'
import { parseTimestamp, type DayRange } from '../../core/dates.ts'
import { normalizeCurrency } from '../../core/money.ts'

const DAY_MS = 24 * 3600 * 1000
const MAX_PERIODS = 1000
const PERIOD_DAYS = { day: 1, week: 7, month: 28 } as const
const OPEN_STAGES = new Set(['draft', 'sent'])

/** from/to as whole UTC days: `to` defaults to today, `from` to 1 January of to's year; from after to is 422. */
function dayRange(query: { from?: string; to?: string }): DayRange {
  const day = (value: string, field: string) => parseTimestamp(value, field).toISOString().slice(0, 10)
  const to = query.to ? day(query.to, 'to') : new Date().toISOString().slice(0, 10)
  const from = query.from ? day(query.from, 'from') : `${to.slice(0, 4)}-01-01`
  if (from > to) throw new ValidationError('from must not be after to')
  return { from, to }
}

const days = (r: DayRange) => (Date.parse(r.to) - Date.parse(r.from)) / DAY_MS + 1

/** Pipeline, revenue and team figures of GET /sales/pipeline, /sales/revenue and /sales/team (docs/sales.md). */
export class SalesReportsService {
  constructor(
    private readonly db: Db,
    private readonly deps: Pick<Services, 'orders' | 'employees'>,
  ) {}

  /** The currency asked for, else the one most of the period's documents use, else usd. */
  private async currency(organizationId: string, range: DayRange, asked: string | undefined, source: 'orders' | 'quotations') {
    if (asked) return normalizeCurrency(asked)
    const main = source === 'orders'
      ? await this.deps.orders.mainCurrency(organizationId, range)
      : await quotations.mainCurrency(this.db, organizationId, range.from, range.to)
    return main ?? 'usd'
  }

  /** Quotations created in the period by status; the open pipeline is draft plus sent. */
  async pipeline(organizationId: string, query: PipelineQuery) {
    const period = dayRange(query)
    const currency = await this.currency(organizationId, period, query.currency, 'quotations')
    const rows = new Map((await quotations.byStatus(this.db, organizationId, { ...period, currency })).map((r) => [r.status, r]))
    const stages = PIPELINE_STAGES.map((stage) => ({ stage, count: rows.get(stage)?.count ?? 0, value: rows.get(stage)?.value ?? 0 }))
    const totalPipeline = stages.filter((s) => OPEN_STAGES.has(s.stage)).reduce((sum, s) => sum + s.value, 0)
    return { stages, totalPipeline, currency, period }
  }

  /** Orders confirmed in the period (not cancelled or refunded), per day, week or month, with empty periods as zero. */
  async revenue(organizationId: string, query: RevenueQuery) {
    const period = dayRange(query)
    if (days(period) / PERIOD_DAYS[query.groupBy] > MAX_PERIODS) {
      throw new ValidationError(`The range has more than ${MAX_PERIODS} periods; shorten it or group by a longer period`)
    }
    const currency = await this.currency(organizationId, period, query.currency, 'orders')
    const data = await this.deps.orders.revenue(organizationId, { ...period, unit: query.groupBy, currency })
    const total = data.reduce((t, d) => ({ revenue: t.revenue + d.revenue, orders: t.orders + d.orders }), { revenue: 0, orders: 0 })
    return { data, total, currency, groupBy: query.groupBy, period }
  }

  /** Every salesperson with quotations or orders in the period, best revenue first. */
  async team(organizationId: string, query: TeamQuery) {
    const period = dayRange(query)
    const currency = await this.currency(organizationId, period, query.currency, 'orders')
    const range = { ...period, currency }
    const [quoted, ordered] = await Promise.all([
      quotations.bySalesperson(this.db, organizationId, range),
      this.deps.orders.bySalesperson(organizationId, range),
    ])
    const members = new Map<string, Omit<TeamMember, 'salesperson'>>()
    const member = (id: string) => {
      if (!members.has(id)) members.set(id, { quotations: 0, quotationsValue: 0, quotationsConfirmed: 0, conversionRate: 0, orders: 0, revenue: 0 })
      return members.get(id)!
    }
    for (const r of quoted) Object.assign(member(r.salesperson_id), { quotations: r.quotations, quotationsValue: r.value, quotationsConfirmed: r.confirmed, conversionRate: r.confirmed / r.quotations })
    for (const r of ordered) Object.assign(member(r.salesperson_id), { orders: r.orders, revenue: r.revenue })
    const data: TeamMember[] = []
    for (const [id, figures] of members) {
      const employee = await this.deps.employees.get(organizationId, id).catch((err) => {
        if (err instanceof NotFoundError) return undefined
        throw err
      })
      if (employee) data.push({ salesperson: { id, name: employee.name }, ...figures })
    }
    data.sort((a, b) => b.revenue - a.revenue || b.quotationsValue - a.quotationsValue || a.salesperson.name.localeCompare(b.salesperson.name))
    return { data, currency, period }
  }
}
