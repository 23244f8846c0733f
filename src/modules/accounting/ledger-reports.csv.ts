import { toCsvText, type CsvColumn } from '../../core/csv.ts'
import type { AccountAmount, BalanceSheet, ProfitAndLoss, TrialBalance } from './ledger-reports.schemas.ts'

/** The three reports that have a CSV form (docs/accounting.md "Reports"). */
export type LedgerCsvReport =
  | { type: 'trial_balance'; answer: TrialBalance }
  | { type: 'profit_and_loss'; answer: ProfitAndLoss }
  | { type: 'balance_sheet'; answer: BalanceSheet }

const text = (key: string): CsvColumn => ({ key })
const number = (key: string): CsvColumn => ({ key, number: true })

/** Integer cents as decimal major units: 123450 -> "1234.50", -5 -> "-0.05". */
export function majorUnits(cents: number): string {
  const abs = Math.abs(cents)
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

const sectionRows = (section: string, rows: AccountAmount[], currency: string) =>
  rows.map((r) => [section, r.account.code, r.account.name, r.account.type, majorUnits(r.amount), currency])

/**
 * A report as CSV records: one line per account (sorted by code within its
 * section), money in decimal major units, the currency on every line. The
 * balance sheet ends with an `earnings` line (income - expenses up to asOf),
 * which makes its lines after the assets add up to the assets. Pure.
 */
export function ledgerCsvRecords(report: LedgerCsvReport): { columns: CsvColumn[]; rows: Array<Array<string | number>> } {
  switch (report.type) {
    case 'trial_balance':
      return {
        columns: [text('accountCode'), text('accountName'), text('accountType'), number('debit'), number('credit'), number('balance'), text('currency')],
        rows: report.answer.data.map((r) => [r.account.code, r.account.name, r.account.type, majorUnits(r.debit), majorUnits(r.credit), majorUnits(r.balance), report.answer.currency]),
      }
    case 'profit_and_loss': {
      const a = report.answer
      return {
        columns: [text('section'), text('accountCode'), text('accountName'), text('accountType'), number('amount'), text('currency')],
        rows: [...sectionRows('income', a.income, a.currency), ...sectionRows('expenses', a.expenses, a.currency)],
      }
    }
    case 'balance_sheet': {
      const a = report.answer
      return {
        columns: [text('section'), text('accountCode'), text('accountName'), text('accountType'), number('amount'), text('currency')],
        rows: [
          ...sectionRows('assets', a.assets, a.currency), ...sectionRows('liabilities', a.liabilities, a.currency), ...sectionRows('equity', a.equity, a.currency),
          ['earnings', '', 'Earnings (income - expenses)', '', majorUnits(a.totals.earnings), a.currency],
        ],
      }
    }
  }
}

export const toLedgerCsv = (report: LedgerCsvReport) => {
  const { columns, rows } = ledgerCsvRecords(report)
  return toCsvText(columns, rows)
}
