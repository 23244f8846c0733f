import { useState } from 'react'
import { Link, Navigate, Route, Routes, useNavigate, useParams } from 'react-router'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, CurrencySelect, date, dateTime, ErrorMessage, Field, Form, formFields, ListView, Loading, money, Notice, Page, SearchInput, Table, useLoad, useUrlFilters } from '../ui.tsx'
import { ACCOUNT_TYPES, AccountingTabs, CURRENCIES, ledger, SOURCE_TYPES, sourceWord, TypeBadge, useChart, type Account, type AccountType, type JournalEntry } from './ledger.tsx'
import { ManualEntry } from './ManualEntry.tsx'
import { BalanceSheetView, ProfitAndLossView, TrialBalanceView } from './AccountingReports.tsx'

/** Accounting (docs/dashboard.md "Accounting"): journal entries, the chart of accounts, the three reports and the lock date. */
export function AccountingPage() {
  return (
    <Routes>
      <Route index element={<Navigate to="entries" replace />} />
      <Route path="entries" element={<EntriesView />} />
      <Route path="entries/new" element={<ManualEntry />} />
      <Route path="entries/:id" element={<EntryView />} />
      <Route path="accounts" element={<ChartView />} />
      <Route path="accounts/:id" element={<AccountLedgerView />} />
      <Route path="trial-balance" element={<TrialBalanceView />} />
      <Route path="profit-and-loss" element={<ProfitAndLossView />} />
      <Route path="balance-sheet" element={<BalanceSheetView />} />
      <Route path="lock-date" element={<LockDateView />} />
    </Routes>
  )
}

const ACCOUNT_SORTS = ['code', 'name'] as const

/** The chart of accounts: filtered by type, searched, sorted; admins add, rename and delete accounts. */
function ChartView() {
  const { api, role } = useSession()
  const l = ledger(api)
  const f = useUrlFilters()
  const { page } = f
  const type = f.choice('type', ACCOUNT_TYPES)
  const search = f.get('search')
  const sortBy = f.choice('sort', ACCOUNT_SORTS, 'code')
  const [renaming, setRenaming] = useState<Account | null>(null)
  const [created, setCreated] = useState<Account | null>(null)
  const list = useLoad(() => l.accounts({ page, limit: 50, sortBy, type, search }), [page, type, search, sortBy])
  const admin = role === 'admin'
  return (
    <Page title="Accounting">
      <AccountingTabs />
      {created && (
        <Notice>
          Account {created.code} {created.name} created.
        </Notice>
      )}
      <Card
        title="Chart of accounts"
        actions={
          <div className="filters" role="search" aria-label="Filter accounts">
            <Field label="Type">
              <select value={type} onChange={(e) => f.set('type', e.target.value)}>
                <option value="">all types</option>
                {ACCOUNT_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </Field>
            <Field label="Search">
              <SearchInput value={search} onSearch={(v) => f.set('search', v)} placeholder="Code or name" />
            </Field>
            <Field label="Sort by">
              <select value={sortBy} onChange={(e) => f.set('sort', e.target.value === 'code' ? '' : e.target.value)}>
                <option value="code">Code</option>
                <option value="name">Name</option>
              </select>
            </Field>
          </div>
        }
      >
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Chart of accounts"
          rowKey={(a) => a.id}
          empty={type || search ? 'No account matches these filters.' : 'The chart is empty.'}
          columns={[
            { label: 'Code', cell: (a) => <code>{a.code}</code> },
            { label: 'Name', cell: (a) => <Link to={`/accounting/accounts/${a.id}`}>{a.name}</Link> },
            { label: 'Type', cell: (a) => <TypeBadge type={a.type} /> },
            { label: 'Kind', cell: (a) => (a.system ? <Badge>system</Badge> : <span className="muted">own</span>) },
            ...(admin
              ? [
                  {
                    label: 'Actions',
                    cell: (a: Account) => (
                      <span className="row-actions">
                        <button type="button" onClick={() => setRenaming(a)}>
                          Rename <span className="visually-hidden">{a.code}</span>
                        </button>
                        {!a.system && (
                          <ActionButton
                            variant="danger"
                            confirm={`Delete account ${a.code} ${a.name}?`}
                            action={() => l.deleteAccount(a.id)}
                            onDone={() => {
                              setCreated(null)
                              list.reload()
                            }}
                          >
                            Delete <span className="visually-hidden">{a.code}</span>
                          </ActionButton>
                        )}
                      </span>
                    ),
                  },
                ]
              : []),
          ]}
        />
      </Card>
      {admin && renaming && (
        <Card title={`Rename ${renaming.code}`}>
          <Form
            key={renaming.id}
            label={`Rename account ${renaming.code}`}
            submitLabel="Save name"
            submit={(data) => l.renameAccount(renaming.id, String(data.get('name') ?? '').trim())}
            onDone={() => {
              setRenaming(null)
              list.reload()
            }}
          >
            <Field label="Name">
              <input name="name" defaultValue={renaming.name} required maxLength={200} />
            </Field>
          </Form>
        </Card>
      )}
      {admin && (
        <Card title="New account">
          <Form
            label="New account"
            submitLabel="Create account"
            submit={(data) => {
              const v = formFields(data)
              return l.createAccount({ code: v.code ?? '', name: v.name ?? '', type: (v.type ?? 'expense') as AccountType })
            }}
            onDone={(a) => {
              setCreated(a)
              list.reload()
            }}
          >
            <div className="row">
              <Field label="Code" hint="3 to 10 digits, unique">
                <input name="code" required inputMode="numeric" pattern="[0-9]{3,10}" />
              </Field>
              <Field label="Name">
                <input name="name" required maxLength={200} />
              </Field>
              <Field label="Type">
                <select name="type" defaultValue="expense">
                  {ACCOUNT_TYPES.map((t) => (
                    <option key={t}>{t}</option>
                  ))}
                </select>
              </Field>
            </div>
          </Form>
        </Card>
      )}
    </Page>
  )
}

/**
 * The ledger of one account: its lines oldest first with the running balance
 * (debit - credit, from the first line ever), and the opening balance before
 * `from`; dates and currency in the address.
 */
function AccountLedgerView() {
  const { api } = useSession()
  const { id = '' } = useParams()
  const f = useUrlFilters()
  const { page } = f
  const from = f.get('from')
  const to = f.get('to')
  const currency = f.choice('currency', CURRENCIES, 'usd')
  const list = useLoad(() => ledger(api).accountLedger(id, { page, limit: 50, from, to, currency }), [id, page, from, to, currency])
  const meta = list.data?.meta
  const cur = meta?.currency ?? currency
  return (
    <Page title={meta ? `Ledger of ${meta.account.code} ${meta.account.name}` : 'Account ledger'} actions={<Link to="/accounting/accounts">Chart of accounts</Link>}>
      <AccountingTabs />
      <Card
        title="Lines"
        actions={
          <div className="filters" role="search" aria-label="Filter the ledger">
            <Field label="From">
              <input type="date" value={from} onChange={(e) => f.set('from', e.target.value)} />
            </Field>
            <Field label="To">
              <input type="date" value={to} onChange={(e) => f.set('to', e.target.value)} />
            </Field>
            <CurrencySelect value={currency} onChange={(c) => f.set('currency', c === 'usd' ? '' : c)} />
          </div>
        }
      >
        {meta && (
          <p className="report-period">
            {from ? `Opening balance on ${date(from)}` : 'Opening balance'}: <strong>{money(meta.openingBalance, cur)}</strong> (debit − credit, in {cur.toUpperCase()}).{' '}
            <Link to={`/accounting/entries?accountId=${id}`}>Its entries</Link>
          </p>
        )}
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Ledger lines"
          rowKey={(l) => `${l.entryId}-${l.debit}-${l.credit}-${l.balance}`}
          empty={from || to ? 'No line of this account in this period.' : `No line of this account in ${cur.toUpperCase()} yet.`}
          columns={[
            { label: 'Date', cell: (l) => <span className="nowrap">{date(l.date)}</span> },
            { label: 'Entry', cell: (l) => <Link to={`/accounting/entries/${l.entryId}`}>{l.number}</Link> },
            { label: 'Memo', cell: (l) => [l.memo, l.description].filter(Boolean).join(' · ') || <span className="muted">—</span> },
            { label: 'Debit', align: 'right', cell: (l) => (l.debit ? money(l.debit, cur) : '') },
            { label: 'Credit', align: 'right', cell: (l) => (l.credit ? money(l.credit, cur) : '') },
            { label: 'Balance', align: 'right', cell: (l) => money(l.balance, cur) },
          ]}
        />
      </Card>
    </Page>
  )
}

const debits = (e: JournalEntry) => e.lines.reduce((s, l) => s + l.debit, 0)

/** An entry's place in a reversal pair, in words. */
function ReversalBadge({ entry }: { entry: JournalEntry }) {
  if (entry.reversedBy) return <Badge tone="warn">reversed by {entry.reversedBy.number}</Badge>
  if (entry.reverses) return <Badge tone="info">reverses {entry.reverses.number}</Badge>
  return null
}

/** Journal entries, newest first; the filters (account, source, currency, dates) live in the address. */
function EntriesView() {
  const { api } = useSession()
  const f = useUrlFilters()
  const { page } = f
  const accountId = f.get('accountId')
  const sourceType = f.choice('sourceType', SOURCE_TYPES)
  const currency = f.choice('currency', CURRENCIES)
  const from = f.get('from')
  const to = f.get('to')
  const chart = useChart()
  const list = useLoad(() => ledger(api).entries({ page, limit: 20, accountId, sourceType, currency, from, to }), [page, accountId, sourceType, currency, from, to])
  const filtered = accountId || sourceType || currency || from || to
  return (
    <Page
      title="Accounting"
      actions={
        <Link className="button primary" to="/accounting/entries/new">
          New manual entry
        </Link>
      }
    >
      <AccountingTabs />
      <Card title="Journal entries">
        <div className="filters filter-grid entry-filters" role="search" aria-label="Filter journal entries">
          <Field label="Account">
            <select value={accountId} onChange={(e) => f.set('accountId', e.target.value)}>
              <option value="">all accounts</option>
              {chart.data?.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.code} {a.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Source">
            <select value={sourceType} onChange={(e) => f.set('sourceType', e.target.value)}>
              <option value="">all sources</option>
              {SOURCE_TYPES.map((s) => (
                <option key={s} value={s}>
                  {sourceWord[s]}
                </option>
              ))}
            </select>
          </Field>
          <CurrencySelect value={currency} onChange={(c) => f.set('currency', c)} all="all currencies" />
          <Field label="From">
            <input type="date" value={from} onChange={(e) => f.set('from', e.target.value)} />
          </Field>
          <Field label="To">
            <input type="date" value={to} onChange={(e) => f.set('to', e.target.value)} />
          </Field>
        </div>
        <ErrorMessage error={chart.error} />
        <ListView
          list={list}
          onPage={f.setPage}
          caption="Journal entries"
          rowKey={(e) => e.id}
          empty={
            filtered ? (
              'No entry matches these filters.'
            ) : (
              <>
                No entries yet. Sending an invoice, a payment, a vendor bill or a stock move posts one; or <Link to="/accounting/entries/new">post a manual entry</Link>.
              </>
            )
          }
          columns={[
            { label: 'Number', cell: (e) => <Link to={`/accounting/entries/${e.id}`}>{e.number}</Link> },
            { label: 'Date', cell: (e) => <span className="nowrap">{date(e.date)}</span> },
            { label: 'Memo', cell: (e) => e.memo || <span className="muted">—</span> },
            { label: 'Source', cell: (e) => (e.source ? sourceWord[e.source.type] : <span className="muted">—</span>) },
            { label: 'Accounts', cell: (e) => [...new Set(e.lines.map((l) => l.accountCode))].join(', ') },
            { label: 'Amount', align: 'right', cell: (e) => money(debits(e), e.currency) },
            { label: 'Reversal', cell: (e) => <ReversalBadge entry={e} /> },
          ]}
        />
      </Card>
    </Page>
  )
}

/** Where an entry comes from: a link to the document when the dashboard has its page. */
function SourceOf({ entry }: { entry: JournalEntry }) {
  const s = entry.source
  if (!s) return <>—</>
  if (s.type === 'invoice' || s.type === 'invoice_cancellation') return <Link to={`/invoices/${s.id}`}>{sourceWord[s.type]}</Link>
  // A manual entry's source is the credential that posted it, a reversal's the entry it reverses (shown below): the word says enough.
  if (s.type === 'manual' || s.type === 'reversal') return <>{sourceWord[s.type]}</>
  return (
    <>
      {sourceWord[s.type]} <code>{s.id}</code>
    </>
  )
}

/** One entry: its lines with their totals, and its reversal (a new entry with debits and credits swapped; entries are never edited). */
function EntryView() {
  const { api } = useSession()
  const { id = '' } = useParams()
  const navigate = useNavigate()
  const entry = useLoad(() => ledger(api).entry(id), [id])
  const e = entry.data
  return (
    <Page title={e ? `Entry ${e.number}` : 'Journal entry'} actions={<Link to="/accounting/entries">All entries</Link>}>
      <AccountingTabs />
      <ErrorMessage error={entry.error} />
      {!e && !entry.error && <Loading />}
      {e && (
        <>
          <Card title="Details">
            <dl className="details">
              <dt>Date</dt>
              <dd>{date(e.date)}</dd>
              <dt>Currency</dt>
              <dd>{e.currency.toUpperCase()}</dd>
              <dt>Memo</dt>
              <dd>{e.memo || '—'}</dd>
              <dt>Source</dt>
              <dd>
                <SourceOf entry={e} />
              </dd>
              {e.reverses && (
                <>
                  <dt>Reverses</dt>
                  <dd>
                    <Link to={`/accounting/entries/${e.reverses.id}`}>{e.reverses.number}</Link>
                  </dd>
                </>
              )}
              {e.reversedBy && (
                <>
                  <dt>Reversed by</dt>
                  <dd>
                    <Link to={`/accounting/entries/${e.reversedBy.id}`}>{e.reversedBy.number}</Link>
                  </dd>
                </>
              )}
              <dt>Posted</dt>
              <dd>{dateTime(e.createdAt)}</dd>
            </dl>
          </Card>
          <Card title="Lines">
            <Table
              caption={`Lines of ${e.number}`}
              rows={e.lines}
              rowKey={(l) => `${l.accountId}-${l.debit}-${l.credit}-${l.description ?? ''}`}
              empty="This entry has no lines."
              columns={[
                { label: 'Account', cell: (l) => `${l.accountCode} ${l.accountName}` },
                { label: 'Description', cell: (l) => l.description || <span className="muted">—</span> },
                { label: 'Debit', align: 'right', cell: (l) => (l.debit ? money(l.debit, e.currency) : '') },
                { label: 'Credit', align: 'right', cell: (l) => (l.credit ? money(l.credit, e.currency) : '') },
              ]}
              foot={
                <tr>
                  <th scope="row" colSpan={2}>
                    Total
                  </th>
                  <td className="num">{money(debits(e), e.currency)}</td>
                  <td className="num">{money(e.lines.reduce((s, l) => s + l.credit, 0), e.currency)}</td>
                </tr>
              }
            />
          </Card>
          {!e.reversedBy && (
            <Card title="Reverse this entry">
              <p className="muted small">Entries are never changed or deleted: a reversal posts a new entry with every debit and credit swapped.</p>
              <Form
                label="Reverse this entry"
                submitLabel={`Reverse ${e.number}`}
                submit={(data) => {
                  const v = formFields(data)
                  return ledger(api).reverse(e.id, { ...(v.date ? { date: v.date } : {}), ...(v.memo ? { memo: v.memo } : {}) })
                }}
                onDone={(r) => navigate(`/accounting/entries/${r.id}`)}
              >
                <div className="row">
                  <Field label="Reversal date" hint="Empty: the API's default">
                    <input type="date" name="date" />
                  </Field>
                  <Field label="Memo">
                    <input name="memo" maxLength={500} placeholder={`Reversal of ${e.number}`} />
                  </Field>
                </div>
              </Form>
            </Card>
          )}
        </>
      )}
    </Page>
  )
}

/** The lock date: nothing may be posted dated on or before it. Everyone sees it; admins set or clear it. */
function LockDateView() {
  const { api, role } = useSession()
  const l = ledger(api)
  const org = useLoad(() => l.organization(), [])
  const [saved, setSaved] = useState<string | null | undefined>(undefined)
  const lockDate = org.data?.lockDate ?? null
  return (
    <Page title="Accounting">
      <AccountingTabs />
      <Card title="Lock date">
        <ErrorMessage error={org.error} />
        {!org.data && !org.error && <Loading />}
        {org.data && (
          <>
            <p className="lock-state">
              {lockDate ? (
                <>
                  The books are locked up to <strong>{date(lockDate)}</strong> ({lockDate}): no entry, manual or from a business action, may be dated on or before it.
                </>
              ) : (
                'The books are open: no lock date is set.'
              )}
            </p>
            {saved !== undefined && <Notice>{saved ? `Lock date set to ${saved}.` : 'Lock date cleared.'}</Notice>}
            {role === 'admin' ? (
              <Form
                key={lockDate ?? ''}
                label="Set the lock date"
                submitLabel="Save lock date"
                submit={async (data) => {
                  const value = String(data.get('lockDate') ?? '')
                  await l.setLockDate(value || null)
                  return value || null
                }}
                onDone={(value) => {
                  setSaved(value)
                  org.reload()
                }}
              >
                <Field label="Lock date" hint="Empty to open the books again">
                  <input type="date" name="lockDate" defaultValue={lockDate ?? ''} />
                </Field>
              </Form>
            ) : (
              <p className="muted small">Only an admin may change the lock date.</p>
            )}
          </>
        )}
      </Card>
    </Page>
  )
}
