// The three reports of the ledger (docs/dashboard.md "Accounting"): trial
// balance, profit and loss, balance sheet, for one currency at a time, with
// their dates in the address and a CSV download of what is shown.
import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { useSession } from '../session.tsx'
import { ActionButton, Card, CurrencySelect, date, ErrorMessage, Field, Loading, money, Page, Table, useLoad, useUrlFilters } from '../ui.tsx'
import { AccountingTabs, CURRENCIES, ledger, TypeBadge, type StatementLine } from './ledger.tsx'

type Filters = ReturnType<typeof useUrlFilters>

function CurrencyField({ f, currency }: { f: Filters; currency: string }) {
  return (
    <CurrencySelect value={currency} onChange={(c) => f.set('currency', c === 'usd' ? '' : c)} />
  )
}

function DateField({ f, name, label, hint }: { f: Filters; name: string; label: string; hint?: string }) {
  return (
    <Field label={label} hint={hint}>
      <input type="date" value={f.get(name)} onChange={(e) => f.set(name, e.target.value)} />
    </Field>
  )
}

/** The report's card: its filters, the CSV of the same query, then what `children` makes of the answer. */
function Report<T>({ title, filters, report, csv, children }: { title: string; filters: ReactNode; report: { data?: T; error: unknown }; csv: () => Promise<void>; children: (data: T) => ReactNode }) {
  return (
    <Page title="Accounting">
      <AccountingTabs />
      <Card
        title={title}
        actions={
          <div className="filters">
            {filters}
            <ActionButton action={csv}>Download CSV</ActionButton>
          </div>
        }
      >
        <ErrorMessage error={report.error} />
        {!report.data && !report.error && <Loading />}
        {report.data && children(report.data)}
      </Card>
    </Page>
  )
}

/** An account of a report, linked to its ledger over the report's dates and currency. */
const accountCell = (a: { id: string; code: string; name: string }, query: Record<string, string>) => {
  const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v && v !== 'usd')).toString()
  return (
    <Link to={`/accounting/accounts/${a.id}${q ? `?${q}` : ''}`}>
      {a.code} {a.name}
    </Link>
  )
}

/** Trial balance: every account with lines up to asOf, its debits, credits and balance; the totals always agree. */
export function TrialBalanceView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const asOf = f.get('asOf')
  const currency = f.choice('currency', CURRENCIES, 'usd')
  const report = useLoad(() => ledger(api).trialBalance({ asOf, currency }), [asOf, currency])
  const query = { asOf, currency }
  return (
    <Report
      title="Trial balance"
      report={report}
      csv={() => ledger(api).downloadCsv('/api/accounting/trial-balance', query, `trial-balance-${report.data?.asOf ?? asOf}-${currency}.csv`)}
      filters={
        <>
          <DateField f={f} name="asOf" label="As of" hint="Empty: today" />
          <CurrencyField f={f} currency={currency} />
        </>
      }
    >
      {(tb) => {
        const cur = tb.currency
        return (
          <>
            <p className="report-period">
              As of {date(tb.asOf)}, in {cur.toUpperCase()}.
            </p>
            <Table
              caption={`Trial balance as of ${tb.asOf}`}
              rows={tb.data}
              rowKey={(r) => r.account.id}
              empty={`No entry in ${cur.toUpperCase()} is dated on or before ${tb.asOf}.`}
              columns={[
                { label: 'Account', cell: (r) => accountCell(r.account, { to: tb.asOf, currency: cur }) },
                { label: 'Type', cell: (r) => <TypeBadge type={r.account.type} /> },
                { label: 'Debit', align: 'right', cell: (r) => money(r.debit, cur) },
                { label: 'Credit', align: 'right', cell: (r) => money(r.credit, cur) },
                { label: 'Balance', align: 'right', cell: (r) => money(r.balance, cur) },
              ]}
              foot={
                <tr>
                  <th scope="row" colSpan={2}>
                    Total
                  </th>
                  <td className="num">{money(tb.totals.debit, cur)}</td>
                  <td className="num">{money(tb.totals.credit, cur)}</td>
                  <td className="num">{money(tb.totals.debit - tb.totals.credit, cur)}</td>
                </tr>
              }
            />
          </>
        )
      }}
    </Report>
  )
}

/** One section of a statement (income, expenses, assets...): its accounts and their amounts, and its total. */
function Section({ title, rows, total, currency, empty, period }: { title: string; rows: StatementLine[]; total: number; currency: string; empty: string; period: { from?: string; to: string } }) {
  return (
    <section className="statement-section" aria-label={title}>
      <h3>{title}</h3>
      <Table
        caption={title}
        rows={rows}
        rowKey={(r) => r.account.id}
        empty={empty}
        columns={[
          { label: 'Account', cell: (r) => accountCell(r.account, { ...(period.from ? { from: period.from } : {}), to: period.to, currency }) },
          { label: 'Amount', align: 'right', cell: (r) => money(r.amount, currency) },
        ]}
        foot={
          <tr>
            <th scope="row">Total {title.toLowerCase()}</th>
            <td className="num">{money(total, currency)}</td>
          </tr>
        }
      />
    </section>
  )
}

/** A statement's closing lines (net, totals), as a definition list. */
function Totals({ label, rows }: { label: string; rows: [string, string][] }) {
  return (
    <dl className="details totals statement-totals" data-report={label}>
      {rows.map(([k, v]) => (
        <div key={k} className="statement-total">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  )
}

/** Profit and loss over a period (default the current month): income and expenses by account, and the net. */
export function ProfitAndLossView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const from = f.get('from')
  const to = f.get('to')
  const currency = f.choice('currency', CURRENCIES, 'usd')
  const report = useLoad(() => ledger(api).profitAndLoss({ from, to, currency }), [from, to, currency])
  return (
    <Report
      title="Profit and loss"
      report={report}
      csv={() => ledger(api).downloadCsv('/api/accounting/profit-and-loss', { from, to, currency }, `profit-and-loss-${report.data?.period.from ?? from}-${report.data?.period.to ?? to}-${currency}.csv`)}
      filters={
        <>
          <DateField f={f} name="from" label="From" hint="Empty: this month" />
          <DateField f={f} name="to" label="To" />
          <CurrencyField f={f} currency={currency} />
        </>
      }
    >
      {(pl) => (
        <>
          <p className="report-period">
            From {date(pl.period.from)} to {date(pl.period.to)}, in {pl.currency.toUpperCase()}.
          </p>
          <div className="statement">
            <Section title="Income" rows={pl.income} total={pl.totals.income} currency={pl.currency} empty="No income in this period." period={pl.period} />
            <Section title="Expenses" rows={pl.expenses} total={pl.totals.expenses} currency={pl.currency} empty="No expenses in this period." period={pl.period} />
          </div>
          <Totals
            label="Profit and loss totals"
            rows={[
              ['Income', money(pl.totals.income, pl.currency)],
              ['Expenses', money(pl.totals.expenses, pl.currency)],
              [pl.totals.net < 0 ? 'Net loss' : 'Net profit', money(pl.totals.net, pl.currency)],
            ]}
          />
        </>
      )}
    </Report>
  )
}

/** Balance sheet as of a day: assets against liabilities, equity and the earnings not yet closed into equity. */
export function BalanceSheetView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const asOf = f.get('asOf')
  const currency = f.choice('currency', CURRENCIES, 'usd')
  const report = useLoad(() => ledger(api).balanceSheet({ asOf, currency }), [asOf, currency])
  return (
    <Report
      title="Balance sheet"
      report={report}
      csv={() => ledger(api).downloadCsv('/api/accounting/balance-sheet', { asOf, currency }, `balance-sheet-${report.data?.asOf ?? asOf}-${currency}.csv`)}
      filters={
        <>
          <DateField f={f} name="asOf" label="As of" hint="Empty: today" />
          <CurrencyField f={f} currency={currency} />
        </>
      }
    >
      {(bs) => {
        const cur = bs.currency
        return (
          <>
            <p className="report-period">
              As of {date(bs.asOf)}, in {cur.toUpperCase()}.
            </p>
            <div className="statement">
              <Section title="Assets" rows={bs.assets} total={bs.totals.assets} currency={cur} empty="No assets." period={{ to: bs.asOf }} />
              <div className="statement-side">
                <Section title="Liabilities" rows={bs.liabilities} total={bs.totals.liabilities} currency={cur} empty="No liabilities." period={{ to: bs.asOf }} />
                <Section title="Equity" rows={bs.equity} total={bs.totals.equity} currency={cur} empty="No equity." period={{ to: bs.asOf }} />
              </div>
            </div>
            <Totals
              label="Balance sheet totals"
              rows={[
                ['Total assets', money(bs.totals.assets, cur)],
                ['Liabilities', money(bs.totals.liabilities, cur)],
                ['Equity', money(bs.totals.equity, cur)],
                ['Earnings (income − expenses to date)', money(bs.totals.earnings, cur)],
                ['Total liabilities and equity', money(bs.totals.liabilitiesAndEquity, cur)],
              ]}
            />
          </>
        )
      }}
    </Report>
  )
}
