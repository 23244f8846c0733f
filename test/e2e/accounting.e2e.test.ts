// In Chromium: the dashboard's Accounting section (issue 27). A few entries
// posted through the API; then, signed in as the admin: the chart of accounts
// (an account created, renamed, deleted, and one with lines refused), a manual
// entry through the form (refused while unbalanced or while a line has both a
// debit and a credit, then posted), the entries list and its filters, a
// reversal, the trial balance, an account's ledger with its running balance,
// profit and loss and balance sheet with totals
// computed by hand, and the lock date refusing an entry in the locked period.
// At 1280x800 and at 390x844 (a phone), axe-core on every page.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { createOrg, unique, type TestOrg } from '../helpers/app.ts'
import { expectAccessible, expectSoon, expectValue, needsBrowser, ok, onPhone, shot, signIn, SKIP_E2E, startE2E, text, type E2E } from '../helpers/browser.ts'

let e: E2E
before(async () => {
  if (!SKIP_E2E) e = await startE2E()
})
after(async () => await e?.close())


// Two whole months before this one (P2) and the last one (P1), so that every date is in the past and no period is today's.
const now = new Date()
const month = (back: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7)
const P2 = month(2)
const P1 = month(1)
const endOf = (m: string) => new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).toISOString().slice(0, 10)

const table = (page: Page, name: string) => page.getByRole('table', { name, exact: true })
const cells = async (page: Page, name: string, row: RegExp) => (await table(page, name).getByRole('row', { name: row }).getByRole('cell').allInnerTexts()).map(text)
const column = async (page: Page, name: string, n: number) => (await table(page, name).locator(`tbody tr td:nth-child(${n})`).allInnerTexts()).map(text)
const footer = async (page: Page, name: string) => (await table(page, name).locator('tfoot tr').first().locator('th, td').allInnerTexts()).map(text)

async function seed(o: TestOrg) {
  const chart = (await ok(o.get('/accounting/accounts?limit=100'), 200)).data as { id: string; code: string }[]
  const acc = Object.fromEntries(chart.map((a) => [a.code, a.id]))
  const entry = (date: string, memo: string, lines: [string, number, number][]) =>
    ok(o.post('/accounting/entries', { date, currency: 'usd', memo, lines: lines.map(([code, debit, credit]) => ({ accountId: acc[code], ...(debit ? { debit } : {}), ...(credit ? { credit } : {}) })) }))
  await entry(`${P2}-01`, "Owner's capital", [['1000', 5_000_000, 0], ['3000', 0, 5_000_000]])
  await entry(`${P2}-15`, 'Consulting, first month', [['1100', 1_210_000, 0], ['4000', 0, 1_000_000], ['2100', 0, 210_000]])
  await entry(`${P2}-28`, 'Customer payment', [['1000', 1_210_000, 0], ['1100', 0, 1_210_000]])
  const duplicate = await entry(`${P1}-05`, 'Customer payment, recorded twice', [['1000', 50_000, 0], ['1100', 0, 50_000]])
  return { acc, duplicate }
}

test('accounting: chart, a manual entry refused until it balances then posted, the entries list, a reversal, the three reports and the lock date', { timeout: 120_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const o = await createOrg(e.t.app, 'Lumen Consulting')
  const { duplicate } = await seed(o)

  const page = await e.page()
  await signIn(page, o.adminEmail, o.password)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounting' }).click()
  await page.getByRole('heading', { name: 'Journal entries' }).waitFor()
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Chart of accounts' }).click()

  // The chart: the 13 accounts every organization has, by code; a type filter and a search, both in the address.
  await table(page, 'Chart of accounts').waitFor()
  await expectSoon(() => column(page, 'Chart of accounts', 1), ['1000', '1100', '1200', '1300', '2000', '2100', '2200', '3000', '4000', '5000', '5100', '5200', '5300'])
  assert.deepEqual(await cells(page, 'Chart of accounts', /Goods received not billed/), ['2200', 'Goods received not billed', 'liability', 'system', 'Rename 2200'])
  const filters = page.getByRole('search', { name: 'Filter accounts' })
  await filters.getByLabel('Type').selectOption('expense')
  await expectSoon(() => column(page, 'Chart of accounts', 1), ['5000', '5100', '5200', '5300'])
  await filters.getByLabel('Search').fill('price')
  await expectSoon(() => column(page, 'Chart of accounts', 2), ['Purchase price difference'])
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { type: 'expense', search: 'price' })
  await filters.getByLabel('Search').fill('')
  await filters.getByLabel('Type').selectOption('')
  await expectSoon(async () => (await column(page, 'Chart of accounts', 1)).length, 13)

  // Admin: two accounts of one's own; one renamed, the other deleted; a code taken twice is the API's 409.
  const create = page.getByRole('form', { name: 'New account' })
  const newAccount = async (code: string, name: string, type: string) => {
    await create.getByLabel('Code').fill(code)
    await create.getByLabel('Name').fill(name)
    await create.getByLabel('Type').selectOption(type)
    await create.getByRole('button', { name: 'Create account' }).click()
  }
  await newAccount('6100', 'Office rent', 'expense')
  await page.getByRole('status').filter({ hasText: 'Account 6100 Office rent created.' }).waitFor()
  await newAccount('6900', 'Sundry', 'expense')
  await page.getByRole('row', { name: /6900/ }).waitFor()
  await newAccount('6100', 'Rent again', 'expense')
  const taken = create.getByRole('alert')
  await taken.waitFor()
  // A sentence, never the code (docs/dashboard.md "Feedback and errors").
  assert.doesNotMatch(await taken.innerText(), /ALREADY_EXISTS/)
  await page.getByRole('button', { name: 'Rename 6100' }).click()
  const rename = page.getByRole('form', { name: 'Rename account 6100' })
  await expectValue(rename.getByLabel('Name'), 'Office rent')
  await rename.getByLabel('Name').fill('Rent')
  await rename.getByRole('button', { name: 'Save name' }).click()
  await expectSoon(() => cells(page, 'Chart of accounts', /^6100/), ['6100', 'Rent', 'expense', 'own', 'Rename 6100 Delete 6100'])
  await page.getByRole('button', { name: 'Delete 6900' }).click()
  await page.getByRole('row', { name: /6900/ }).waitFor({ state: 'detached' })
  assert.equal(await page.getByRole('button', { name: 'Delete 1000' }).count(), 0, 'a system account has no delete button')
  await expectAccessible(page, 'chart of accounts')
  await shot(page, 'accounting-chart')
  await onPhone(page, 'chart of accounts', 'accounting-chart')
  const accounts = (await ok(o.get('/accounting/accounts?limit=100&search=6'), 200)).data
  assert.deepEqual(accounts.map((a: any) => [a.code, a.name, a.type, a.system]), [['6100', 'Rent', 'expense', false]])

  // A manual entry: Dr 6100 Rent 2,400.00 against Cr 1000 Bank 2,000.00 is refused before it reaches the API.
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Journal entries' }).click()
  await page.getByRole('link', { name: 'New manual entry' }).click()
  const form = page.getByRole('form', { name: 'New manual entry' })
  await form.getByLabel('Date', { exact: true }).fill(`${P1}-02`)
  await form.getByLabel('Memo').fill('Office rent')
  await expectSoon(async () => (await form.getByLabel('Account, line 1').locator('option').count()) > 14, true)
  await form.getByLabel('Account, line 1').selectOption({ label: '6100 Rent' })
  await form.getByLabel('Debit, line 1').fill('2,400.00')
  await form.getByLabel('Description, line 1').fill('Rent, second month')
  await form.getByLabel('Account, line 2').selectOption({ label: '1000 Bank' })
  await form.getByLabel('Credit, line 2').fill('2000')
  const submit = form.getByRole('button', { name: 'Post entry' })
  const reason = form.locator('.blocked')
  assert.equal(await submit.isDisabled(), true)
  assert.equal(await reason.innerText(), 'Debits ($2,400.00) and credits ($2,000.00) differ by $400.00: the entry must balance.')
  assert.deepEqual(await footer(page, 'Lines of the entry'), ['Total', '$2,400.00', '$2,000.00', 'difference $400.00'])
  await expectAccessible(page, 'manual entry, unbalanced')
  await shot(page, 'accounting-manual-entry')
  await onPhone(page, 'manual entry', 'accounting-manual-entry', 'fieldset.lines tbody tr:last-child')
  // Balanced, but line 2 has both a debit and a credit: still refused.
  await form.getByLabel('Credit, line 2').fill('2400')
  await form.getByLabel('Debit, line 2').fill('100')
  await form.getByRole('button', { name: 'Add line' }).click()
  await form.getByLabel('Account, line 3').selectOption({ label: '1000 Bank' })
  await form.getByLabel('Credit, line 3').fill('100')
  await expectSoon(() => reason.innerText(), 'Line 2 has both a debit and a credit: a line is one or the other.')
  assert.equal(await submit.isDisabled(), true)
  await form.getByRole('button', { name: 'Remove line 3' }).click()
  await form.getByLabel('Debit, line 2').fill('')
  await expectSoon(() => reason.innerText(), '')
  assert.deepEqual(await footer(page, 'Lines of the entry'), ['Total', '$2,400.00', '$2,400.00', 'balanced'])
  await submit.click()
  const heading = page.getByRole('heading', { name: /^Entry JE\// })
  await heading.waitFor()
  const posted = (await ok(o.get(`/accounting/entries?accountId=${accounts[0].id}`), 200)).data
  assert.equal(posted.length, 1)
  const rent = posted[0]
  assert.equal(await heading.innerText(), `Entry ${rent.number}`)
  assert.deepEqual(
    [rent.date, rent.currency, rent.memo, rent.source?.type, rent.lines.map((l: any) => [l.accountCode, l.debit, l.credit, l.description])],
    [`${P1}-02`, 'usd', 'Office rent', 'manual', [['6100', 240_000, 0, 'Rent, second month'], ['1000', 0, 240_000, null]]],
  )
  assert.deepEqual(await cells(page, `Lines of ${rent.number}`, /6100/), ['6100 Rent', 'Rent, second month', '$2,400.00', ''])
  assert.deepEqual(await footer(page, `Lines of ${rent.number}`), ['Total', '$2,400.00', '$2,400.00'])

  // The list: newest first, with the new entry; filtered by account and by dates, in the address.
  await page.getByRole('link', { name: 'All entries' }).click()
  await expectSoon(() => column(page, 'Journal entries', 3), ['Customer payment, recorded twice', 'Office rent', 'Customer payment', 'Consulting, first month', "Owner's capital"])
  assert.deepEqual(await cells(page, 'Journal entries', new RegExp(rent.number)), [rent.number, new Date(`${P1}-02T00:00:00`).toLocaleDateString('en-US'), 'Office rent', 'manual', '6100, 1000', '$2,400.00', ''])
  await expectAccessible(page, 'journal entries')
  await shot(page, 'accounting-entries')
  await onPhone(page, 'journal entries', 'accounting-entries')
  await page.getByLabel('Account', { exact: true }).selectOption({ label: '1100 Accounts receivable' })
  await page.getByLabel('From', { exact: true }).fill(`${P2}-20`)
  await expectSoon(() => column(page, 'Journal entries', 3), ['Customer payment, recorded twice', 'Customer payment'])
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { accountId: (await ok(o.get('/accounting/accounts?search=receivable'), 200)).data[0].id, from: `${P2}-20` })
  await expectAccessible(page, 'journal entries, filtered')

  // The duplicate payment reversed from its page: a new entry with the lines swapped.
  await page.getByRole('link', { name: duplicate.number }).click()
  await page.getByRole('heading', { name: `Entry ${duplicate.number}` }).waitFor()
  await page.getByLabel('Reversal date').fill(`${P1}-06`)
  await page.getByRole('button', { name: `Reverse ${duplicate.number}` }).click()
  await page.getByRole('heading', { name: /^Entry JE\// }).filter({ hasNotText: duplicate.number }).waitFor()
  const reversal = (await ok(o.get(`/accounting/entries/${duplicate.id}`), 200)).reversedBy
  assert.ok(reversal)
  await page.getByRole('link', { name: duplicate.number }).waitFor()
  assert.deepEqual(await cells(page, `Lines of ${reversal.number}`, /1000/), ['1000 Bank', '—', '', '$500.00'])
  assert.deepEqual(await cells(page, `Lines of ${reversal.number}`, /1100/), ['1100 Accounts receivable', '—', '$500.00', ''])
  assert.equal(await page.getByRole('button', { name: /^Reverse / }).count(), 1, 'the reversal itself may be reversed')
  await page.getByRole('link', { name: duplicate.number }).click()
  await page.getByRole('heading', { name: `Entry ${duplicate.number}` }).waitFor()
  await page.getByRole('link', { name: reversal.number }).waitFor()
  assert.equal(await page.getByRole('button', { name: /^Reverse / }).count(), 0)
  await expectAccessible(page, 'journal entry')

  // Trial balance at the end of last month (by hand):
  // 1000 Bank: Dr 50,000.00 + 12,100.00 + 500.00, Cr 2,400.00 + 500.00 (reversal);  1100: Dr 12,100.00 + 500.00 (reversal), Cr 12,100.00 + 500.00.
  await page.goto(`/accounting/trial-balance?asOf=${endOf(P1)}`)
  const tb = `Trial balance as of ${endOf(P1)}`
  await table(page, tb).waitFor()
  const rows = async () => (await table(page, tb).locator('tbody tr').allInnerTexts()).map(text)
  await expectSoon(() => rows(), [
    '1000 Bank asset $62,600.00 $2,900.00 $59,700.00',
    '1100 Accounts receivable asset $12,600.00 $12,600.00 $0.00',
    '2100 Tax payable liability $0.00 $2,100.00 -$2,100.00',
    "3000 Owner's equity equity $0.00 $50,000.00 -$50,000.00",
    '4000 Sales income $0.00 $10,000.00 -$10,000.00',
    '6100 Rent expense $2,400.00 $0.00 $2,400.00',
  ])
  assert.deepEqual(await footer(page, tb), ['Total', '$77,600.00', '$77,600.00', '$0.00'])
  await expectAccessible(page, 'trial balance')
  // The CSV of the same report.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()])
  assert.equal(download.suggestedFilename(), `trial-balance-${endOf(P1)}-usd.csv`)

  // From the trial balance to the ledger of 1000 Bank up to the same day, oldest first, with the running balance (by hand).
  await table(page, tb).getByRole('link', { name: '1000 Bank' }).click()
  await page.getByRole('heading', { name: 'Ledger of 1000 Bank' }).waitFor()
  assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), { to: endOf(P1) })
  const ledgerRows = async () => (await table(page, 'Ledger lines').locator('tbody tr').allInnerTexts()).map((r) => text(r).split(' ').slice(1).join(' '))
  await expectSoon(ledgerRows, [
    `JE/${P2.slice(0, 4)}/00001 Owner's capital $50,000.00 $50,000.00`,
    `JE/${P2.slice(0, 4)}/00003 Customer payment $12,100.00 $62,100.00`,
    `${rent.number} Office rent $2,400.00 $59,700.00`,
    `${duplicate.number} Customer payment, recorded twice $500.00 $60,200.00`,
    `${reversal.number} Reversal of ${duplicate.number} $500.00 $59,700.00`,
  ])
  await page.getByLabel('From', { exact: true }).fill(`${P1}-01`)
  await expectSoon(async () => (await ledgerRows()).length, 3)
  assert.match(text(await page.locator('.report-period').innerText()), /: \$62,100\.00 \(debit − credit, in USD\)/)
  await expectAccessible(page, 'account ledger')

  // Profit and loss over both months: income 10,000.00 (4000), expenses 2,400.00 (6100), net 7,600.00.
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Profit and loss' }).click()
  await page.getByLabel('From', { exact: true }).fill(`${P2}-01`)
  await page.getByLabel('To', { exact: true }).fill(endOf(P1))
  await expectSoon(async () => (await page.locator('.statement-totals').innerText().catch(() => '')).replace(/\s+/g, ' ').trim(), 'Income $10,000.00 Expenses $2,400.00 Net profit $7,600.00')
  assert.deepEqual(await cells(page, 'Income', /4000/), ['4000 Sales', '$10,000.00'])
  assert.deepEqual(await cells(page, 'Expenses', /6100/), ['6100 Rent', '$2,400.00'])
  await expectAccessible(page, 'profit and loss')

  // Balance sheet at the end of last month: assets 59,700.00 (Bank; receivables 0) = liabilities 2,100.00 + equity 50,000.00 + earnings 7,600.00.
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Balance sheet' }).click()
  await page.getByLabel('As of').fill(endOf(P1))
  await expectSoon(
    async () => (await page.locator('.statement-totals').innerText().catch(() => '')).replace(/\s+/g, ' ').trim(),
    'Total assets $59,700.00 Liabilities $2,100.00 Equity $50,000.00 Earnings (income − expenses to date) $7,600.00 Total liabilities and equity $59,700.00',
  )
  assert.deepEqual(await cells(page, 'Assets', /1000/), ['1000 Bank', '$59,700.00'])
  assert.deepEqual(await cells(page, 'Liabilities', /2100/), ['2100 Tax payable', '$2,100.00'])
  assert.deepEqual(await cells(page, 'Equity', /3000/), ["3000 Owner's equity", '$50,000.00'])
  await expectAccessible(page, 'balance sheet')
  await shot(page, 'accounting-balance-sheet')
  await onPhone(page, 'balance sheet', 'accounting-balance-sheet')

  // An account with lines cannot be deleted: the API's 409, shown under the button.
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Chart of accounts' }).click()
  await page.getByRole('button', { name: 'Delete 6100' }).click()
  const inUse = page.getByRole('row', { name: /^6100/ }).getByRole('alert')
  await inUse.waitFor()
  // A sentence, never the code (docs/dashboard.md "Feedback and errors").
  assert.doesNotMatch(await inUse.innerText(), /CONFLICT/)
  assert.equal((await ok(o.get('/accounting/accounts?search=6100'), 200)).data.length, 1)

  // The lock date: set to the end of two months ago; an entry dated then is refused with PERIOD_LOCKED, and nothing is posted.
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Lock date' }).click()
  await page.getByText('The books are open: no lock date is set.').waitFor()
  await page.getByRole('form', { name: 'Set the lock date' }).getByLabel('Lock date').fill(endOf(P2))
  await page.getByRole('button', { name: 'Save lock date' }).click()
  await page.getByRole('status').filter({ hasText: `Lock date set to ${endOf(P2)}.` }).waitFor()
  assert.equal((await ok(o.get('/organization'), 200)).lockDate, endOf(P2))
  await expectAccessible(page, 'lock date')
  const before = (await ok(o.get('/accounting/entries'), 200)).meta.total
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Journal entries' }).click()
  await page.getByRole('link', { name: 'New manual entry' }).click()
  await form.getByLabel('Date', { exact: true }).fill(`${P2}-20`)
  await expectSoon(async () => (await form.getByLabel('Account, line 1').locator('option').count()) > 14, true)
  await form.getByLabel('Account, line 1').selectOption({ label: '6100 Rent' })
  await form.getByLabel('Debit, line 1').fill('10')
  await form.getByLabel('Account, line 2').selectOption({ label: '1000 Bank' })
  await form.getByLabel('Credit, line 2').fill('10')
  await submit.click()
  const locked = form.getByRole('alert')
  await locked.waitFor()
  // A sentence, never the code (docs/dashboard.md "Feedback and errors").
  assert.doesNotMatch(await locked.innerText(), /PERIOD_LOCKED/)
  assert.equal((await ok(o.get('/accounting/entries'), 200)).meta.total, before)
  assert.deepEqual(e.errors, [])
})

test('accounting: a member reads the section and posts entries, but the chart and the lock date are the admin\'s', { timeout: 60_000 }, async (t) => {
  if (!needsBrowser(t)) return
  const o = await createOrg(e.t.app, 'Lumen Members')
  const password = 'member-password-2026'
  const member = await ok(o.post('/users', { name: 'Mo Member', email: `${unique('mo')}@example.com`, password, role: 'member' }))
  await ok(o.patch('/organization', { lockDate: `${P2}-10` }), 200)
  const page = await e.page()
  await signIn(page, member.email, password)
  await page.goto('/accounting/accounts')
  await table(page, 'Chart of accounts').waitFor()
  assert.equal(await page.getByRole('form', { name: 'New account' }).count(), 0)
  assert.equal(await page.getByRole('button', { name: /^Rename / }).count(), 0)
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Lock date' }).click()
  await page.getByText(/The books are locked up to/).waitFor()
  assert.match(await page.locator('.lock-state').innerText(), new RegExp(`\\(${P2}-10\\)`))
  assert.equal(await page.getByRole('button', { name: 'Save lock date' }).count(), 0)
  await page.getByText('Only an admin may change the lock date.').waitFor()
  await expectAccessible(page, 'lock date (member)')
  await page.getByRole('navigation', { name: 'Accounting' }).getByRole('link', { name: 'Journal entries' }).click()
  await page.getByRole('link', { name: 'New manual entry' }).click()
  const form = page.getByRole('form', { name: 'New manual entry' })
  await form.getByLabel('Date', { exact: true }).fill(`${P1}-03`)
  await expectSoon(async () => (await form.getByLabel('Account, line 1').locator('option').count()) > 13, true)
  await form.getByLabel('Account, line 1').selectOption({ label: '1000 Bank' })
  await form.getByLabel('Debit, line 1').fill('75.5')
  await form.getByLabel('Account, line 2').selectOption({ label: "3000 Owner's equity" })
  await form.getByLabel('Credit, line 2').fill('75.50')
  await form.getByRole('button', { name: 'Post entry' }).click()
  await page.getByRole('heading', { name: /^Entry JE\// }).waitFor()
  const [posted] = (await ok(o.get('/accounting/entries'), 200)).data
  assert.deepEqual([posted.date, posted.lines.map((l: any) => [l.accountCode, l.debit, l.credit])], [`${P1}-03`, [['1000', 7_550, 0], ['3000', 0, 7_550]]])
  assert.deepEqual(e.errors, [])
})
