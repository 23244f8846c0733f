import type { FastifyReply, FastifyRequest } from 'fastify'
import { STAFF, principalOf } from '../../core/auth.ts'
import { ReadCoalescer } from '../../core/coalesce.ts'
import type { App } from '../../core/module.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import { toLedgerCsv, type LedgerCsvReport } from './ledger-reports.csv.ts'
import type { LedgerReportsService } from './ledger-reports.service.ts'
import * as S from './ledger-reports.schemas.ts'

const tags = ['accounting']

/** `Accept: text/csv` asks for the CSV form; anything else gets JSON. */
const wantsCsv = (req: FastifyRequest) => /(^|,)\s*text\/csv\s*(;|,|$)/i.test(String(req.headers.accept ?? ''))

/** The bytes of an answer, made once per shared run. */
interface Body { bytes: Buffer; filename?: string }

/**
 * Answers the report `compute` makes, as JSON or, when asked, CSV. Identical
 * requests of one organization in flight at once share one computation and
 * one serialized body, each still computed after its request arrived
 * (core/coalesce.ts, as the analytics reports do: docs/decisions/0009).
 */
async function answer<R extends LedgerCsvReport['answer']>(
  shared: ReadCoalescer, req: FastifyRequest, reply: FastifyReply, compute: () => Promise<R>, type: LedgerCsvReport['type'], filename: (report: R) => string,
) {
  const asCsv = wantsCsv(req)
  const key = `${req.routeOptions.url}\n${principalOf(req).organizationId}\n${asCsv ? 'csv' : 'json'}\n${JSON.stringify(req.query)}`
  const body = await shared.run<Body>(key, async () => {
    const report = await compute()
    if (!asCsv) return { bytes: Buffer.from(String(reply.serializeInput(report, '200', 'application/json'))) }
    return { bytes: Buffer.from(toLedgerCsv({ type, answer: report } as LedgerCsvReport)), filename: filename(report) }
  })
  if (body.filename === undefined) return reply.type('application/json; charset=utf-8').send(body.bytes)
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${body.filename}.csv"`)
    .send(body.bytes)
}

const rules = ' Amounts are integer cents of one currency (default usd). Dates are YYYY-MM-DD; a malformed date, or from after to, is 422.'
const csvNote = ' With `Accept: text/csv` the answer is CSV: a header row, one line per account, money in decimal major units, a currency column on every line.'

export function ledgerReportsRoutes(app: App, reports: LedgerReportsService) {
  const org = (req: FastifyRequest) => principalOf(req).organizationId
  const shared = new ReadCoalescer()

  app.get('/accounting/trial-balance', {
    schema: {
      operationId: 'getTrialBalance', tags, summary: 'Trial balance',
      description: 'Per account, sorted by code, the debits and credits of the lines dated up to asOf (default today) and their balance (debit - credit); accounts without lines are left out. totals.debit always equals totals.credit.' + rules + csvNote,
      querystring: S.AsOfQuery, response: { ...responses({}, [422]), 200: S.jsonOrCsv(S.TrialBalance) },
    },
    config: { access: { roles: STAFF } },
  }, (req, reply) => answer(shared, req, reply, () => reports.trialBalance(org(req), req.query), 'trial_balance', (r) => `trial-balance-${r.asOf}`))

  app.get('/accounting/profit-and-loss', {
    schema: {
      operationId: 'getProfitAndLoss', tags, summary: 'Profit and loss',
      description: "Income accounts (credit - debit) and expense accounts (debit - credit) over the lines dated from..to (default the current month), sorted by code; net = income - expenses." + rules + csvNote,
      querystring: S.PeriodQuery, response: { ...responses({}, [422]), 200: S.jsonOrCsv(S.ProfitAndLoss) },
    },
    config: { access: { roles: STAFF } },
  }, (req, reply) => answer(shared, req, reply, () => reports.profitAndLoss(org(req), req.query), 'profit_and_loss', (r) => `profit-and-loss-${r.period.from}-${r.period.to}`))

  app.get('/accounting/balance-sheet', {
    schema: {
      operationId: 'getBalanceSheet', tags, summary: 'Balance sheet',
      description: 'Assets (debit - credit), liabilities and equity (credit - debit) of the lines dated up to asOf (default today), sorted by code; earnings = income - expenses up to asOf. totals.assets always equals totals.liabilitiesAndEquity (liabilities + equity + earnings).' + rules + csvNote,
      querystring: S.AsOfQuery, response: { ...responses({}, [422]), 200: S.jsonOrCsv(S.BalanceSheet) },
    },
    config: { access: { roles: STAFF } },
  }, (req, reply) => answer(shared, req, reply, () => reports.balanceSheet(org(req), req.query), 'balance_sheet', (r) => `balance-sheet-${r.asOf}`))

  app.get('/accounting/accounts/:id/ledger', {
    schema: {
      operationId: 'getAccountLedger', tags, summary: "An account's ledger",
      description: "The account's lines in the currency dated from..to (both optional), oldest first, each with the entry's number, date, memo and source and the running balance (debit - credit) from the account's first line ever; meta.openingBalance is the balance before from." + rules,
      params: IdParams, querystring: S.LedgerQuery, response: responses({ 200: S.AccountLedger }, [404, 422]),
    },
    config: { access: { roles: STAFF } },
  }, async (req) => reports.ledger(org(req), req.params.id, req.query))
}
