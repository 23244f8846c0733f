import { keysetBatches } from '../../core/batches.ts'
import type { Db } from '../../core/db.ts'
import { NotFoundError, ValidationError } from '../../core/errors.ts'
import { offsetPaging } from '../../core/pagination.ts'
import { utcDay } from '../../core/dates.ts'
import { currencyOf, parseDay, periodOf } from './accounting.lib.ts'
import type { AccountType } from './accounting.types.ts'
import { accountsRepository } from './accounts.repository.ts'
import { ledgerReportsRepository as repo, type AccountSums, type ExportLineRow } from './ledger-reports.repository.ts'
import type { AccountAmount, AccountLedger, AsOfQuery, BalanceSheet, LedgerQuery, PeriodQuery, ProfitAndLoss, TrialBalance } from './ledger-reports.schemas.ts'

const ref = (s: AccountSums) => ({ id: s.id, code: s.code, name: s.name, type: s.type })

/**
 * An account's amount as the reports show it (docs/accounting.md "Reports"):
 * assets and expenses debit - credit, liabilities, equity and income
 * credit - debit.
 */
export function signedAmount(type: AccountType, debit: number, credit: number): number {
  return type === 'asset' || type === 'expense' ? debit - credit : credit - debit
}

const total = (rows: AccountAmount[]) => rows.reduce((s, r) => s + r.amount, 0)

/** The parameters of an as-of report: asOf a day (default today), currency (default usd). */
export function asOfParameters(p: AsOfQuery) {
  return { asOf: p.asOf === undefined ? utcDay() : parseDay(p.asOf, 'asOf'), currency: currencyOf(p.currency) }
}

/** Trial balance, profit and loss, balance sheet and an account's ledger (docs/accounting.md "Reports"). */
export class LedgerReportsService {
  constructor(private readonly db: Db) {}

  async trialBalance(organizationId: string, query: AsOfQuery): Promise<TrialBalance> {
    const { asOf, currency } = asOfParameters(query)
    const rows = await repo.sums(this.db, organizationId, currency, null, asOf, null)
    const data = rows.map((r) => {
      const debit = Number(r.debit)
      const credit = Number(r.credit)
      return { account: ref(r), debit, credit, balance: debit - credit }
    })
    return {
      asOf, currency, data,
      totals: { debit: data.reduce((s, r) => s + r.debit, 0), credit: data.reduce((s, r) => s + r.credit, 0) },
    }
  }

  async profitAndLoss(organizationId: string, query: PeriodQuery): Promise<ProfitAndLoss> {
    const period = periodOf(query)
    const currency = currencyOf(query.currency)
    const rows = await repo.sums(this.db, organizationId, currency, period.from, period.to, ['income', 'expense'])
    const amounts = (type: AccountType) => rows.filter((r) => r.type === type).map((r) => ({ account: ref(r), amount: signedAmount(type, Number(r.debit), Number(r.credit)) }))
    const income = amounts('income')
    const expenses = amounts('expense')
    return { period, currency, income, expenses, totals: { income: total(income), expenses: total(expenses), net: total(income) - total(expenses) } }
  }

  async balanceSheet(organizationId: string, query: AsOfQuery): Promise<BalanceSheet> {
    const { asOf, currency } = asOfParameters(query)
    const rows = await repo.sums(this.db, organizationId, currency, null, asOf, null)
    const amounts = (type: AccountType) => rows.filter((r) => r.type === type).map((r) => ({ account: ref(r), amount: signedAmount(type, Number(r.debit), Number(r.credit)) }))
    const assets = amounts('asset')
    const liabilities = amounts('liability')
    const equity = amounts('equity')
    const earnings = total(amounts('income')) - total(amounts('expense'))
    return {
      asOf, currency, assets, liabilities, equity,
      totals: {
        assets: total(assets), liabilities: total(liabilities), equity: total(equity), earnings,
        liabilitiesAndEquity: total(liabilities) + total(equity) + earnings,
      },
    }
  }

  /** The account's lines from..to, oldest first, with the running balance from its first line ever. */
  async ledger(organizationId: string, accountId: string, query: LedgerQuery & { page: number; limit: number }): Promise<AccountLedger> {
    const from = query.from === undefined ? null : parseDay(query.from, 'from')
    const to = query.to === undefined ? null : parseDay(query.to, 'to')
    if (from && to && from > to) throw new ValidationError('from must not be after to')
    const currency = currencyOf(query.currency)
    const account = await accountsRepository.find(this.db, organizationId, accountId)
    if (!account) throw new NotFoundError('Account')
    const opening = from === null ? '0' : await repo.balanceBefore(this.db, organizationId, accountId, currency, from)
    const paging = offsetPaging(query, `ledger:${organizationId}:${accountId}:${currency}:${from}:${to}`)
    const [count, rows] = await Promise.all([
      repo.countLines(this.db, organizationId, accountId, currency, from, to),
      repo.ledgerPage(this.db, organizationId, accountId, currency, from, to, opening, paging.offset, query.limit),
    ])
    const page = paging.page(rows.map((r) => ({
      entryId: r.entry_id, number: r.number, date: r.date, memo: r.memo,
      source: r.source_type && r.source_id !== null ? { type: r.source_type, id: r.source_id } : null,
      description: r.description, debit: Number(r.debit), credit: Number(r.credit), balance: Number(r.balance),
    })), count)
    return {
      data: page.data,
      meta: { ...page.meta, openingBalance: Number(opening), account: { id: account.id, code: account.code, name: account.name, type: account.type }, currency },
    }
  }

  /** Every journal line dated from..to, oldest first (the `journal_entries` report run). */
  async *exportLines(organizationId: string, range: { from: string; to: string }) {
    for await (const { key: _key, lineNo: _n, ...row } of keysetBatches<ExportLineRow>((after, limit) => repo.exportBatch(this.db, organizationId, range.from, range.to, after, limit))) yield row
  }
}
