// The accounting pages' shared bits (docs/dashboard.md "Accounting"): the ledger's shapes,
// the calls they make through the SDK, account types and entry sources in
// words, the tabs and the chart every select offers.
import { ApiError, type paths, type Schemas, type Sdk } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { Badge, CURRENCIES, saveBlob, Tabs, useLoad, type Tone } from '../ui.tsx'

export type Account = Schemas['Account']
export type AccountType = Account['type']
export const ACCOUNT_TYPES: AccountType[] = ['asset', 'liability', 'equity', 'income', 'expense']
export type JournalEntry = Schemas['JournalEntry']
export type SourceType = NonNullable<JournalEntry['source']>['type']
export const SOURCE_TYPES: SourceType[] = ['invoice', 'invoice_payment', 'invoice_cancellation', 'vendor_bill', 'bill_payment', 'stock_move', 'revaluation', 'manual', 'reversal']
export type TrialBalance = Schemas['TrialBalance']
export type ProfitAndLoss = Schemas['ProfitAndLoss']
export type BalanceSheet = Schemas['BalanceSheet']
/** One account's amount in a statement (profit and loss, balance sheet). */
export type StatementLine = BalanceSheet['assets'][number]
export type ManualLine = NonNullable<paths['/api/accounting/entries']['post']['requestBody']>['content']['application/json']['lines'][number]

/** The query without its empty filters (an empty field of the page is no filter, not an empty value). */
function clean<Q extends Record<string, string | number | undefined>>(query: Q): Partial<Q> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== '')) as Partial<Q>
}

/** The accounting routes, through the signed-in SDK client (same credentials, retries and errors as every page). */
export function ledger(api: Sdk) {
  return {
    accounts: (query: { page?: number; limit?: number; type?: AccountType | ''; search?: string; sortBy?: 'code' | 'name' }) => api.get('/api/accounting/accounts', { params: { query: clean(query) as { type?: AccountType } } }),
    createAccount: (body: { code: string; name: string; type: AccountType }) => api.post('/api/accounting/accounts', { body }),
    renameAccount: (id: string, name: string) => api.patch('/api/accounting/accounts/{id}', { params: { path: { id } }, body: { name } }),
    deleteAccount: (id: string) => api.delete('/api/accounting/accounts/{id}', { params: { path: { id } } }),
    entries: (query: { page?: number; limit?: number; accountId?: string; sourceType?: SourceType | ''; currency?: string; from?: string; to?: string }) =>
      api.get('/api/accounting/entries', { params: { query: clean(query) as { sourceType?: SourceType } } }),
    accountLedger: (id: string, query: { page?: number; limit?: number; from?: string; to?: string; currency?: string }) => api.get('/api/accounting/accounts/{id}/ledger', { params: { path: { id }, query: clean(query) } }),
    entry: (id: string) => api.get('/api/accounting/entries/{id}', { params: { path: { id } } }),
    postEntry: (body: { date: string; currency: string; memo?: string; lines: ManualLine[] }) => api.post('/api/accounting/entries', { body }),
    reverse: (id: string, body: { date?: string; memo?: string }) => api.post('/api/accounting/entries/{id}/reverse', { params: { path: { id } }, body }),
    // The reports answer CSV too (to Accept: text/csv); the SDK asks for JSON, so the answer is the JSON one.
    trialBalance: (query: { asOf?: string; currency?: string }) => api.get('/api/accounting/trial-balance', { params: { query: clean(query) } }) as Promise<TrialBalance>,
    profitAndLoss: (query: { from?: string; to?: string; currency?: string }) => api.get('/api/accounting/profit-and-loss', { params: { query: clean(query) } }) as Promise<ProfitAndLoss>,
    balanceSheet: (query: { asOf?: string; currency?: string }) => api.get('/api/accounting/balance-sheet', { params: { query: clean(query) } }) as Promise<BalanceSheet>,
    organization: () => api.get('/api/organization'),
    setLockDate: (lockDate: string | null) => api.patch('/api/organization', { body: { lockDate } }),
    /** A report as CSV (`Accept: text/csv`), saved as a file. */
    async downloadCsv(report: '/api/accounting/trial-balance' | '/api/accounting/profit-and-loss' | '/api/accounting/balance-sheet', query: Record<string, string>, filename: string) {
      const { data, error, response } = await api.raw.GET(report, { params: { query: clean(query) }, headers: { Accept: 'text/csv' }, parseAs: 'blob' })
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

/** The currencies of the ledger's filters: the dashboard's one list. */
export { CURRENCIES }

/** The section's tabs; on a phone the row scrolls sideways, and the current tab is scrolled into sight. */
export function AccountingTabs() {
  return (
    <Tabs
      label="Accounting"
      tabs={[
        { to: '/accounting/entries', label: 'Journal entries' },
        { to: '/accounting/accounts', label: 'Chart of accounts' },
        { to: '/accounting/trial-balance', label: 'Trial balance' },
        { to: '/accounting/profit-and-loss', label: 'Profit and loss' },
        { to: '/accounting/balance-sheet', label: 'Balance sheet' },
        { to: '/accounting/lock-date', label: 'Lock date' },
      ]}
    />
  )
}

export const TypeBadge = ({ type }: { type: AccountType }) => <Badge tone={accountTypeTone[type]}>{type}</Badge>

/** Every account of the chart, for the selects of the filters and of the manual entry (the chart is small: one page of 100). */
export function useChart() {
  const { api } = useSession()
  return useLoad(async () => (await ledger(api).accounts({ limit: 100, sortBy: 'code' })).data, [])
}
