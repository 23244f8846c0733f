import type { FastifyReply, FastifyRequest } from 'fastify'
import { principalOf, STAFF } from '../../core/auth.ts'
import { ValidationError } from '../../core/errors.ts'
import { ReadCoalescer } from '../../core/coalesce.ts'
import type { App } from '../../core/module.ts'
import { responses } from '../../core/schemas.ts'
import { toCsv, type CsvReport } from './analytics.csv.ts'
import * as S from './analytics.schemas.ts'
import { parseDay, type AnalyticsService } from './analytics.service.ts'

const tags = ['analytics']

/**
 * docs/analytics.md "Common rules": 422 for a malformed date or a missing required parameter,
 * where a query string that breaks its schema is 400 everywhere else; this
 * runs before the schema, so those two cases answer 422 and every other
 * query problem (unknown enum value, limit out of range) stays 400.
 */
function checkQuery(dates: string[], required: string[] = []) {
  return async (req: FastifyRequest) => {
    const query = (req.query ?? {}) as Record<string, unknown>
    const problems: string[] = []
    for (const field of required) if (query[field] === undefined) problems.push(`${field} is required`)
    for (const field of dates) {
      if (typeof query[field] !== 'string') continue
      try {
        parseDay(query[field], field)
      } catch (err) {
        problems.push(...[(err as ValidationError).messages].flat())
      }
    }
    if (problems.length) throw new ValidationError(problems)
  }
}

/** `Accept: text/csv` asks for the CSV form (docs/analytics.md "CSV"); anything else gets JSON. */
const wantsCsv = (req: FastifyRequest) => /(^|,)\s*text\/csv\s*(;|,|$)/i.test(String(req.headers.accept ?? ''))

/** The bytes, made once per shared run (sending a string would have every response measure and encode 400 KB again). */
interface Body { bytes: Buffer; filename?: string }

/**
 * Answers the report `compute` makes: JSON by the route's schema, or CSV when
 * asked and `csv` names the file. Identical requests of one organization in
 * flight at the same time share one computation and one serialized body
 * (core/coalesce.ts: each is still computed after its request arrived); the
 * key is everything the body depends on: the route, the organization, the
 * format and the query.
 */
async function answer<R extends { [key: string]: unknown }>(
  shared: ReadCoalescer, req: FastifyRequest, reply: FastifyReply, compute: () => Promise<R>,
  csv?: { type: CsvReport['type']; filename: (report: R) => string },
) {
  const asCsv = csv !== undefined && wantsCsv(req)
  const key = `${req.routeOptions.url}\n${principalOf(req).organizationId}\n${asCsv ? 'csv' : 'json'}\n${JSON.stringify(req.query)}`
  const body = await shared.run<Body>(key, async () => {
    const report = await compute()
    // The four CSV reports declare a schema per media type; the overview one schema.
    if (!asCsv) return { bytes: Buffer.from(String(csv ? reply.serializeInput(report, '200', 'application/json') : reply.serializeInput(report, '200'))) }
    return { bytes: Buffer.from(toCsv({ type: csv.type, answer: report } as CsvReport)), filename: csv.filename(report) }
  })
  if (body.filename === undefined) return reply.type('application/json; charset=utf-8').send(body.bytes)
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${body.filename}.csv"`)
    .send(body.bytes)
}

const csvNote = ' With `Accept: text/csv` the answer is CSV: a header row, one line per row of data, nested references flattened (contactId, contactName, ...), money in decimal major units, a currency column on every line;' +
  " a text cell that begins with =, +, -, @, a tab or a carriage return gets a leading ' so that a spreadsheet does not run it as a formula (number columns are left as they are)."
const dateRules = ' Dates are YYYY-MM-DD (UTC days, inclusive); a malformed date or a missing required parameter is 422, an unknown value of an enumerated parameter 400. Amounts are integer cents of one currency (default usd); documents in other currencies do not count.'

export function analyticsRoutes(app: App, analytics: AnalyticsService) {
  const org = (req: FastifyRequest) => principalOf(req).organizationId
  const shared = new ReadCoalescer()

  app.get('/analytics/receivables/aging', {
    schema: {
      operationId: 'getReceivablesAging', tags, summary: 'Receivables aging',
      description: 'Open amounts of invoices as of asOf, per customer, in age buckets of days past due. An invoice counts when dated on or before asOf and neither draft nor cancelled now; it is open for its total minus its payments dated on or before asOf.' + dateRules + csvNote,
      querystring: S.AgingQuery, response: { ...responses({}, [422]), 200: S.jsonOrCsv(S.ReceivablesAging) },
    },
    config: { access: { roles: STAFF } },
    preValidation: checkQuery(['asOf']),
  }, (req, reply) => answer(shared, req, reply, () => analytics.receivablesAging(org(req), req.query), {
    type: 'receivables_aging', filename: (report) => `receivables-aging-${report.asOf}`,
  }))

  app.get('/analytics/payables/aging', {
    schema: {
      operationId: 'getPayablesAging', tags, summary: 'Payables aging',
      description: 'Amounts due on vendor bills dated on or before asOf, per vendor, in age buckets of days past due.' + dateRules + csvNote,
      querystring: S.PayablesAgingQuery, response: { ...responses({}, [422]), 200: S.jsonOrCsv(S.PayablesAging) },
    },
    config: { access: { roles: STAFF } },
    preValidation: checkQuery(['asOf']),
  }, (req, reply) => answer(shared, req, reply, () => analytics.payablesAging(org(req), req.query), {
    type: 'payables_aging', filename: (report) => `payables-aging-${report.asOf}`,
  }))

  app.get('/analytics/stock/valuation', {
    schema: {
      operationId: 'getStockValuation', tags, summary: 'Stock valuation',
      description: "Every storable product priced in the currency with its quantity at internal locations from the moves done up to the end of asOf, valued at the product's cost." + dateRules + csvNote,
      querystring: S.ValuationQuery, response: { ...responses({}, [422]), 200: S.jsonOrCsv(S.StockValuation) },
    },
    config: { access: { roles: STAFF } },
    preValidation: checkQuery(['asOf']),
  }, (req, reply) => answer(shared, req, reply, () => analytics.stockValuation(org(req), req.query), {
    type: 'stock_valuation', filename: (report) => `stock-valuation-${report.asOf}`,
  }))

  app.get('/analytics/sales', {
    schema: {
      operationId: 'getSalesBreakdown', tags, summary: 'Sales by product, customer or salesperson',
      description: 'The orders GET /sales/revenue counts for the period, grouped; revenue net of tax. from/to default to the current month up to today.' + dateRules + csvNote,
      querystring: S.SalesQuery, response: { ...responses({}, [422]), 200: S.jsonOrCsv(S.SalesBreakdown) },
    },
    config: { access: { roles: STAFF } },
    preValidation: checkQuery(['from', 'to'], ['groupBy']),
  }, (req, reply) => answer(shared, req, reply, () => analytics.sales(org(req), req.query), {
    type: 'sales', filename: (report) => `sales-by-${report.groupBy}-${report.period.from}-${report.period.to}`,
  }))

  app.get('/analytics/overview', {
    schema: {
      operationId: 'getAnalyticsOverview', tags, summary: 'Business overview',
      description: 'One figure per module for the period (default: the first day of the current month to today), each equal to what the owning endpoint answers (docs/analytics.md).' + dateRules,
      querystring: S.OverviewQuery, response: responses({ 200: S.Overview }, [422]),
    },
    config: { access: { roles: STAFF } },
    preValidation: checkQuery(['from', 'to']),
  }, (req, reply) => answer(shared, req, reply, () => analytics.overview(org(req), req.query)))
}
