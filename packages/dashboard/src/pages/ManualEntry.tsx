import { useState } from 'react'
import { Link, useNavigate } from 'react-router'
import { useSession } from '../session.tsx'
import { Card, CurrencySelect, ErrorMessage, Field, Form, money, Page } from '../ui.tsx'
import { AccountingTabs, ledger, useChart, type ManualLine } from './ledger.tsx'
import { today, toCents } from './finance.tsx'

interface Line {
  key: number
  accountId: string
  debit: string
  credit: string
  description: string
}
let lineKey = 0
const newLine = (): Line => ({ key: ++lineKey, accountId: '', debit: '', credit: '', description: '' })

/**
 * What is wrong with the lines, in words (empty when they can be posted): the
 * API refuses the same (docs/accounting.md "Journal entries"), the form says it
 * before, while one types.
 */
export function linesProblems(lines: Line[], currency: string): { problems: string[]; debits: number; credits: number; rows: ManualLine[] } {
  const problems: string[] = []
  const rows: ManualLine[] = []
  let debits = 0
  let credits = 0
  lines.forEach((l, i) => {
    const n = i + 1
    const debit = l.debit.trim() ? toCents(l.debit) : 0
    const credit = l.credit.trim() ? toCents(l.credit) : 0
    if (debit === undefined) problems.push(`Line ${n}: the debit must be an amount like 120.50.`)
    if (credit === undefined) problems.push(`Line ${n}: the credit must be an amount like 120.50.`)
    if (debit === undefined || credit === undefined) return
    debits += debit
    credits += credit
    if (debit > 0 && credit > 0) problems.push(`Line ${n} has both a debit and a credit: a line is one or the other.`)
    else if (debit === 0 && credit === 0) problems.push(`Line ${n} has neither a debit nor a credit.`)
    if (!l.accountId) problems.push(`Line ${n}: choose an account.`)
    const description = l.description.trim()
    rows.push({ accountId: l.accountId, ...(debit > 0 ? { debit } : {}), ...(credit > 0 ? { credit } : {}), ...(description ? { description } : {}) })
  })
  if (lines.length < 2) problems.push('An entry needs at least two lines.')
  if (debits !== credits) problems.push(`Debits (${money(debits, currency)}) and credits (${money(credits, currency)}) differ by ${money(Math.abs(debits - credits), currency)}: the entry must balance.`)
  return { problems, debits, credits, rows }
}

/** A manual entry: date, currency, memo and 2 to 100 lines; posted only once every line is a debit or a credit and the debits equal the credits. */
export function ManualEntry() {
  const { api } = useSession()
  const navigate = useNavigate()
  const chart = useChart()
  const [currency, setCurrency] = useState('usd')
  const [lines, setLines] = useState<Line[]>(() => [newLine(), newLine()])
  const update = (key: number, patch: Partial<Line>) => setLines((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l)))
  const { problems, debits, credits, rows } = linesProblems(lines, currency)
  return (
    <Page title="New manual entry" actions={<Link to="/accounting/entries">All entries</Link>}>
      <AccountingTabs />
      <Card>
        <Form
          label="New manual entry"
          submitLabel="Post entry"
          blocked={problems.length ? problems.join(' ') : null}
          submit={(data) => {
            const memo = String(data.get('memo') ?? '').trim()
            return ledger(api).postEntry({ date: String(data.get('date') ?? ''), currency, ...(memo ? { memo } : {}), lines: rows })
          }}
          onDone={(e) => navigate(`/accounting/entries/${e.id}`)}
        >
          <div className="row">
            <Field label="Date">
              <input type="date" name="date" required defaultValue={today()} />
            </Field>
            <CurrencySelect value={currency} onChange={setCurrency} />
            <Field label="Memo">
              <input name="memo" maxLength={500} />
            </Field>
          </div>
          <fieldset className="lines entry-lines">
            <legend>Lines</legend>
            <ErrorMessage error={chart.error} />
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Lines of the entry</caption>
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col" className="num">
                      Debit
                    </th>
                    <th scope="col" className="num">
                      Credit
                    </th>
                    <th scope="col">Description</th>
                    <th scope="col">
                      <span className="visually-hidden">Remove</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {lines.map((l, i) => (
                    <tr key={l.key}>
                      <td data-label="Account">
                        <select aria-label={`Account, line ${i + 1}`} value={l.accountId} onChange={(e) => update(l.key, { accountId: e.target.value })}>
                          <option value="">choose an account</option>
                          {chart.data?.map((a) => (
                            <option key={a.id} value={a.id}>
                              {a.code} {a.name}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td data-label="Debit" className="num">
                        <input aria-label={`Debit, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.debit} onChange={(e) => update(l.key, { debit: e.target.value })} />
                      </td>
                      <td data-label="Credit" className="num">
                        <input aria-label={`Credit, line ${i + 1}`} className="narrow" inputMode="decimal" value={l.credit} onChange={(e) => update(l.key, { credit: e.target.value })} />
                      </td>
                      <td data-label="Description">
                        <input aria-label={`Description, line ${i + 1}`} value={l.description} maxLength={500} onChange={(e) => update(l.key, { description: e.target.value })} />
                      </td>
                      <td>
                        <button type="button" onClick={() => setLines((ls) => ls.filter((x) => x.key !== l.key))} disabled={lines.length <= 1}>
                          Remove <span className="visually-hidden">line {i + 1}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
                <tfoot>
                  <tr>
                    <th scope="row">Total</th>
                    <td data-label="Debits" className="num">
                      {money(debits, currency)}
                    </td>
                    <td data-label="Credits" className="num">
                      {money(credits, currency)}
                    </td>
                    <td colSpan={2} data-label="Difference">
                      {debits === credits ? <span className="balanced">balanced</span> : <span className="unbalanced">difference {money(Math.abs(debits - credits), currency)}</span>}
                    </td>
                  </tr>
                </tfoot>
              </table>
            </div>
            <div>
              <button type="button" onClick={() => setLines((ls) => [...ls, newLine()])} disabled={lines.length >= 100}>
                Add line
              </button>
            </div>
          </fieldset>
        </Form>
      </Card>
    </Page>
  )
}
