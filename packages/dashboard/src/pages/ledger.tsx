// The accounting pages' shared bits (docs/dashboard.md "Accounting"): the ledger's shapes,
// the calls they make through the SDK, account types and entry sources in
// words, the tabs and the chart every select offers.
import { NavLink } from 'react-router'
import { ApiError, type Sdk } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Badge, saveBlob, useLoad, type PageMeta, type Tone } from '../ui.tsx'

export type AccountType = 'asset' | 'liability' | 'equity' | 'income' | 'expense'
export const ACCOUNT_TYPES: AccountType[] = ['asset', 'liability', 'equity', 'income', 'expense']

export interface Account {
  id: string
  code: string
  name: string
  type: AccountType
  system: boolean
  createdAt: string
}
export type SourceType = 'invoice' | 'invoice_payment' | 'invoice_cancellation' | 'vendor_bill' | 'bill_payment' | 'stock_move' | 'revaluation' | 'manual' | 'reversal'
export const SOURCE_TYPES: SourceType[] = ['invoice', 'invoice_payment', 'invoice_cancellation', 'vendor_bill', 'bill_payment', 'stock_move', 'revaluation', 'manual', 'reversal']

export interface JournalLine {
  accountId: string
  accountCode: string
  accountName: string
  debit: number
  credit: number
  description: string | null
}
export interface JournalEntry {
  id: string
  number: string
  date: string
  currency: string
  memo: string | null
  source: { type: SourceType; id: string } | null
  lines: JournalLine[]
  reverses: { id: string; number: string } | null
  reversedBy: { id: string; number: string } | null
  createdAt: string
}
type AccountRef = Pick<Account, 'id' | 'code' | 'name' | 'type'>
export interface TrialBalance {
  asOf: string
  currency: string
  data: { account: AccountRef; debit: number; credit: number; balance: number }[]
  totals: { debit: number; credit: number }
}
export interface StatementLine {
  account: AccountRef
  amount: number
}
export interface ProfitAndLoss {
  period: { from: string; to: string }
  currency: string
  income: StatementLine[]
  expenses: StatementLine[]
  totals: { income: number; expenses: number; net: number }
}
export interface BalanceSheet {
  asOf: string
  currency: string
  assets: StatementLine[]
  liabilities: StatementLine[]
  equity: StatementLine[]
  totals: { assets: number; liabilities: number; equity: number; earnings: number; liabilitiesAndEquity: number }
}
export interface Envelope<T> {
  data: T[]
  meta: PageMeta
}
export interface ManualLine {
  accountId: string
  debit?: number
  credit?: number
  description?: string
}

type Query = Record<string, string | number | boolean | undefined>
type Init = { params?: { path?: Record<string, string>; query?: Query }; body?: unknown }
type Call = (path: string, init?: Init) => Promise<unknown>
const clean = (query: Query): Query => Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== ''))

/** The accounting routes, through the signed-in SDK client (same credentials, retries and errors as every page). */
export function ledger(api: Sdk) {
  const get = api.get as unknown as Call
  const post = api.post as unknown as Call
  const patch = api.patch as unknown as Call
  const del = api.delete as unknown as Call
  return {
    accounts: (query: { page?: number; limit?: number; type?: AccountType | ''; search?: string; sortBy?: 'code' | 'name' }) => get('/api/accounting/accounts', { params: { query: clean(query) } }) as Promise<Envelope<Account>>,
    createAccount: (body: { code: string; name: string; type: AccountType }) => post('/api/accounting/accounts', { body }) as Promise<Account>,
    renameAccount: (id: string, name: string) => patch('/api/accounting/accounts/{id}', { params: { path: { id } }, body: { name } }) as Promise<Account>,
    deleteAccount: (id: string) => del('/api/accounting/accounts/{id}', { params: { path: { id } } }) as Promise<void>,
    entries: (query: { page?: number; limit?: number; accountId?: string; sourceType?: SourceType | ''; currency?: string; from?: string; to?: string }) => get('/api/accounting/entries', { params: { query: clean(query) } }) as Promise<Envelope<JournalEntry>>,
    entry: (id: string) => get('/api/accounting/entries/{id}', { params: { path: { id } } }) as Promise<JournalEntry>,
    postEntry: (body: { date: string; currency: string; memo?: string; lines: ManualLine[] }) => post('/api/accounting/entries', { body }) as Promise<JournalEntry>,
    reverse: (id: string, body: { date?: string; memo?: string }) => post('/api/accounting/entries/{id}/reverse', { params: { path: { id } }, body }) as Promise<JournalEntry>,
    trialBalance: (query: { asOf?: string; currency?: string }) => get('/api/accounting/trial-balance', { params: { query: clean(query) } }) as Promise<TrialBalance>,
    profitAndLoss: (query: { from?: string; to?: string; currency?: string }) => get('/api/accounting/profit-and-loss', { params: { query: clean(query) } }) as Promise<ProfitAndLoss>,
    balanceSheet: (query: { asOf?: string; currency?: string }) => get('/api/accounting/balance-sheet', { params: { query: clean(query) } }) as Promise<BalanceSheet>,
    organization: () => get('/api/organization') as Promise<{ id: string; name: string; lockDate?: string | null }>,
    setLockDate: (lockDate: string | null) => patch('/api/organization', { body: { lockDate } }) as Promise<{ lockDate?: string | null }>,
    /** A report as CSV (`Accept: text/csv`), saved as a file. */
    async downloadCsv(report: 'trial-balance' | 'profit-and-loss' | 'balance-sheet', query: Query, filename: string) {
      const raw = api.raw.GET as unknown as (path: string, init: Init & { headers: Record<string, string>; parseAs: 'blob' }) => Promise<{ data?: Blob; error?: unknown; response: Response }>
      const { data, error, response } = await raw(`/api/accounting/${report}`, { params: { query: clean(query) }, headers: { Accept: 'text/csv' }, parseAs: 'blob' })
      if (!response.ok || !data) throw new ApiError(response, error)
      saveBlob(data, filename)
    },
  }
}

/** How an account type reads in the chart: one tone per type (colour only helps; the badge says the type). */
export const accountTypeTone: Record<AccountType, Tone> = { asset: 'info', liability: 'warn', equity: 'neutral', income: 'good', expense: 'bad' }

/** A journal entry's source in words. */
export const sourceWord: Record<SourceType, string> = {
  invoice: 'invoice sent',
  invoice_payment: 'invoice payment',
  invoice_cancellation: 'invoice cancelled',
  vendor_bill: 'vendor bill',
  bill_payment: 'bill payment',
  stock_move: 'stock move',
  revaluation: 'revaluation',
  manual: 'manual',
  reversal: 'reversal',
}

export const CURRENCIES = ['usd', 'eur', 'gbp', 'chf', 'cad', 'aud', 'jpy', 'inr'] as const

export function AccountingTabs() {
  return (
    <nav className="tabs" aria-label="Accounting">
      <NavLink to="/accounting/entries">Journal entries</NavLink>
      <NavLink to="/accounting/accounts">Chart of accounts</NavLink>
      <NavLink to="/accounting/trial-balance">Trial balance</NavLink>
      <NavLink to="/accounting/profit-and-loss">Profit and loss</NavLink>
      <NavLink to="/accounting/balance-sheet">Balance sheet</NavLink>
      <NavLink to="/accounting/lock-date">Lock date</NavLink>
    </nav>
  )
}

export const TypeBadge = ({ type }: { type: AccountType }) => <Badge tone={accountTypeTone[type]}>{type}</Badge>

/** Every account of the chart, for the selects of the filters and of the manual entry (the chart is small: one page of 100). */
export function useChart() {
  const { api } = useSession()
  return useLoad(async () => (await ledger(api).accounts({ limit: 100, sortBy: 'code' })).data, [])
}
