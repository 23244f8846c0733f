// Every page of the dashboard: its address, its place in the navigation and
// the roles that see it (docs/platform.md "Roles"). A page a role may
// not use is neither linked nor routed for it; the API refuses it anyway.
import { lazy, type ComponentType } from 'react'
import type { Role } from './session.tsx'
// Code split per menu group (docs/dashboard.md "Code splitting"): a group's pages are one chunk, fetched
// the first time one of them opens; App.tsx shows a spinner meanwhile (Suspense).
const business = () => import('./groups/business.ts')
const purchase = () => import('./groups/purchase.ts')
const support = () => import('./groups/support.ts')
const account = () => import('./groups/account.ts')
const settings = () => import('./groups/settings.ts')
const lazyPage = <G,>(group: () => Promise<G>, name: keyof G) => lazy(async () => ({ default: (await group())[name] as ComponentType }))
const ApiKeysPage = lazyPage(settings, 'ApiKeysPage')
const HelpdeskPage = lazyPage(support, 'HelpdeskPage')
const InventoryPage = lazyPage(business, 'InventoryPage')
const InvoicesPage = lazyPage(business, 'InvoicesPage')
const OverviewPage = lazyPage(business, 'OverviewPage')
const QuotationsPage = lazyPage(business, 'QuotationsPage')
const UsersPage = lazyPage(settings, 'UsersPage')
const AdminLicensesPage = lazyPage(account, 'AdminLicensesPage')
const LicensesPage = lazyPage(account, 'LicensesPage')
const StorePage = lazyPage(account, 'StorePage')
const DownloadsPage = lazyPage(account, 'DownloadsPage')
const BillingPage = lazyPage(account, 'BillingPage')
const AccountingPage = lazyPage(business, 'AccountingPage')
const ImportPage = lazyPage(settings, 'ImportPage')
const ContactsPage = lazyPage(business, 'ContactsPage')
const ProductsPage = lazyPage(business, 'ProductsPage')
const PurchaseVendorsPage = lazyPage(purchase, 'PurchaseVendorsPage')
const PurchaseOrdersPage = lazyPage(purchase, 'PurchaseOrdersPage')
const PurchaseBillsPage = lazyPage(purchase, 'PurchaseBillsPage')

export interface PageEntry {
  path: string
  label: string
  /** Navigation group. */
  group: 'Business' | 'Purchase' | 'Support' | 'Account' | 'Settings'
  roles: readonly Role[]
  Component: ComponentType
}

const staff = ['admin', 'member'] as const

const buyers = ['customer', 'admin'] as const

export const pages: PageEntry[] = [
  { path: '/overview', label: 'Overview', group: 'Business', roles: staff, Component: OverviewPage },
  { path: '/quotations', label: 'Quotations', group: 'Business', roles: staff, Component: QuotationsPage },
  { path: '/invoices', label: 'Invoices', group: 'Business', roles: staff, Component: InvoicesPage },
  // The records a quotation names (docs/dashboard.md "Contacts" and "Products"): admins and members write them.
  { path: '/contacts', label: 'Contacts', group: 'Business', roles: staff, Component: ContactsPage },
  { path: '/products', label: 'Products', group: 'Business', roles: staff, Component: ProductsPage },
  { path: '/inventory', label: 'Inventory', group: 'Business', roles: staff, Component: InventoryPage },
  // The general ledger (docs/dashboard.md "Accounting"): the chart and the lock date are changed by admins only, inside the page.
  { path: '/accounting', label: 'Accounting', group: 'Business', roles: staff, Component: AccountingPage },
  // From RFQ to paid vendor bill (docs/dashboard.md "Purchase"): every purchase route admits admins and members.
  { path: '/purchase/orders', label: 'Purchase orders', group: 'Purchase', roles: staff, Component: PurchaseOrdersPage },
  { path: '/purchase/vendors', label: 'Vendors', group: 'Purchase', roles: staff, Component: PurchaseVendorsPage },
  { path: '/purchase/bills', label: 'Vendor bills', group: 'Purchase', roles: staff, Component: PurchaseBillsPage },
  { path: '/helpdesk', label: 'Helpdesk', group: 'Support', roles: ['admin', 'support', 'agent'], Component: HelpdeskPage },
  // Account (the customer portal, docs/portal.md): each acts on the caller's own licenses and billing.
  { path: '/licenses', label: 'Licenses', group: 'Account', roles: buyers, Component: LicensesPage },
  { path: '/store', label: 'Store', group: 'Account', roles: buyers, Component: StorePage },
  { path: '/downloads', label: 'Downloads', group: 'Account', roles: buyers, Component: DownloadsPage },
  { path: '/billing', label: 'Billing', group: 'Account', roles: buyers, Component: BillingPage },
  { path: '/admin/licenses', label: 'Licenses (admin)', group: 'Settings', roles: ['admin', 'support'], Component: AdminLicensesPage },
  // Moving records in from CSV files, checked by a dry run first (docs/dashboard.md "Import").
  { path: '/settings/import', label: 'Import', group: 'Settings', roles: staff, Component: ImportPage },
  { path: '/settings/api-keys', label: 'API keys', group: 'Settings', roles: ['admin', 'support', 'agent', 'member', 'customer'], Component: ApiKeysPage },
  { path: '/settings/users', label: 'Users and roles', group: 'Settings', roles: ['admin'], Component: UsersPage },
]

/** Where a role lands after signing in: its first page. */
export const homeOf = (role: Role) => pages.find((p) => p.roles.includes(role))?.path ?? '/settings/api-keys'

/** Addresses that moved, kept so that bookmarks and links already sent still work (the dashboard once spelled the resource "licences"). */
export const moved: { from: string; to: string }[] = [
  { from: '/licences', to: '/licenses' },
  { from: '/admin/licences', to: '/admin/licenses' },
]

export { staff }
