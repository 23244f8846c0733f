// Every page of the dashboard: its address, its place in the navigation and
// the roles that see it (docs/platform.md "Roles"). A page a role may
// not use is neither linked nor routed for it; the API refuses it anyway.
import { lazy, type ComponentType } from 'react'
import type { Role } from './session.tsx'
// Code split per menu group (docs/dashboard.md "Code splitting"): a group's pages are one chunk, fetched
// the first time one of them opens; App.tsx shows a spinner meanwhile (Suspense).
const sales = () => import('./groups/sales.ts')
const operations = () => import('./groups/operations.ts')
const purchase = () => import('./groups/purchase.ts')
const finance = () => import('./groups/finance.ts')
const support = () => import('./groups/support.ts')
const account = () => import('./groups/account.ts')
const settings = () => import('./groups/settings.ts')
const lazyPage = <G,>(group: () => Promise<G>, name: keyof G) => lazy(async () => ({ default: (await group())[name] as ComponentType }))
const OverviewPage = lazyPage(sales, 'OverviewPage')
const QuotationsPage = lazyPage(sales, 'QuotationsPage')
const SalesOrdersPage = lazyPage(sales, 'SalesOrdersPage')
const InvoicesPage = lazyPage(sales, 'InvoicesPage')
const CreditNotesPage = lazyPage(sales, 'CreditNotesPage')
const ContactsPage = lazyPage(sales, 'ContactsPage')
const ProductsPage = lazyPage(sales, 'ProductsPage')
const InventoryPage = lazyPage(operations, 'InventoryPage')
const ProjectsPage = lazyPage(operations, 'ProjectsPage')
const EmployeesPage = lazyPage(operations, 'EmployeesPage')
const ManufacturingBomsPage = lazyPage(operations, 'ManufacturingBomsPage')
const ManufacturingOrdersPage = lazyPage(operations, 'ManufacturingOrdersPage')
const LeadsPage = lazyPage(sales, 'LeadsPage')
const AccountingPage = lazyPage(finance, 'AccountingPage')
const ReportsPage = lazyPage(finance, 'ReportsPage')
const PurchaseOrdersPage = lazyPage(purchase, 'PurchaseOrdersPage')
const PurchaseVendorsPage = lazyPage(purchase, 'PurchaseVendorsPage')
const PurchaseBillsPage = lazyPage(purchase, 'PurchaseBillsPage')
const HelpdeskPage = lazyPage(support, 'HelpdeskPage')
const LicensesPage = lazyPage(account, 'LicensesPage')
const StorePage = lazyPage(account, 'StorePage')
const DownloadsPage = lazyPage(account, 'DownloadsPage')
const BillingPage = lazyPage(account, 'BillingPage')
const SupportPage = lazyPage(account, 'SupportPage')
const AdminLicensesPage = lazyPage(settings, 'AdminLicensesPage')
const ImportPage = lazyPage(settings, 'ImportPage')
const ApiKeysPage = lazyPage(settings, 'ApiKeysPage')
const UsersPage = lazyPage(settings, 'UsersPage')
const WebhooksPage = lazyPage(settings, 'WebhooksPage')
const EventsPage = lazyPage(settings, 'EventsPage')
const OrganizationPage = lazyPage(settings, 'OrganizationPage')

/** The menu's groups, in their order (docs/dashboard.md "Layout"). */
export const GROUPS = ['Sales', 'Operations', 'Purchase', 'Finance', 'Support', 'Account', 'Settings'] as const

export interface PageEntry {
  path: string
  label: string
  /** Navigation group. */
  group: (typeof GROUPS)[number]
  roles: readonly Role[]
  Component: ComponentType
}

const staff = ['admin', 'member'] as const

const buyers = ['customer', 'admin'] as const

export const pages: PageEntry[] = [
  { path: '/overview', label: 'Overview', group: 'Sales', roles: staff, Component: OverviewPage },
  { path: '/quotations', label: 'Quotations', group: 'Sales', roles: staff, Component: QuotationsPage },
  // The orders confirmed from quotations, to invoice (docs/dashboard-finance.md "Sales orders").
  { path: '/sales/orders', label: 'Sales orders', group: 'Sales', roles: staff, Component: SalesOrdersPage },
  { path: '/invoices', label: 'Invoices', group: 'Sales', roles: staff, Component: InvoicesPage },
  // Issued from an invoice's page, listed here (docs/dashboard-finance.md "Credit notes").
  { path: '/credit-notes', label: 'Credit notes', group: 'Sales', roles: staff, Component: CreditNotesPage },
  // The records a quotation names (docs/dashboard.md "Contacts" and "Products"): admins and members write them.
  { path: '/contacts', label: 'Contacts', group: 'Sales', roles: staff, Component: ContactsPage },
  { path: '/products', label: 'Products', group: 'Sales', roles: staff, Component: ProductsPage },
  { path: '/inventory', label: 'Inventory', group: 'Operations', roles: staff, Component: InventoryPage },
  // From project to billable hours (docs/dashboard-projects.md): every project and employee route admits admins and members.
  { path: '/projects', label: 'Projects', group: 'Operations', roles: staff, Component: ProjectsPage },
  { path: '/employees', label: 'Employees', group: 'Operations', roles: staff, Component: EmployeesPage },
  // The general ledger (docs/dashboard.md "Accounting"): the chart and the lock date are changed by admins only, inside the page.
  // From BOM to finished goods, and the CRM's leads (docs/dashboard-manufacturing-crm.md): every route admits admins and members; the capture settings, admin only, are a tab inside Leads.
  { path: '/manufacturing/boms', label: 'Bills of materials', group: 'Operations', roles: staff, Component: ManufacturingBomsPage },
  { path: '/manufacturing/orders', label: 'Production', group: 'Operations', roles: staff, Component: ManufacturingOrdersPage },
  { path: '/crm/leads', label: 'Leads', group: 'Sales', roles: staff, Component: LeadsPage },
  { path: '/accounting', label: 'Accounting', group: 'Finance', roles: staff, Component: AccountingPage },
  // Report runs: CSV exports made in the background (docs/dashboard-platform.md "Reports"); POST and GET /reports admit admins and members.
  { path: '/reports', label: 'Reports', group: 'Finance', roles: staff, Component: ReportsPage },
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
  // The customer's own support requests (docs/helpdesk.md "Dashboard pages"); staff answer them on Helpdesk, whose tabs hold teams, SLA policies and statistics.
  { path: '/support', label: 'Support', group: 'Account', roles: ['customer'], Component: SupportPage },
  { path: '/admin/licenses', label: 'Licenses (admin)', group: 'Settings', roles: ['admin', 'support'], Component: AdminLicensesPage },
  // Moving records in from CSV files, checked by a dry run first (docs/dashboard.md "Import").
  { path: '/settings/import', label: 'Import', group: 'Settings', roles: staff, Component: ImportPage },
  { path: '/settings/api-keys', label: 'API keys', group: 'Settings', roles: ['admin', 'support', 'agent', 'member', 'customer'], Component: ApiKeysPage },
  { path: '/settings/users', label: 'Users and roles', group: 'Settings', roles: ['admin'], Component: UsersPage },
  // docs/dashboard-platform.md: every /webhook-endpoints route is admin only; GET /events admits admins and members;
  // GET /organization admits every role (PATCH admin only): the staff read it; the customer portal has no use for it.
  { path: '/settings/webhooks', label: 'Webhooks', group: 'Settings', roles: ['admin'], Component: WebhooksPage },
  { path: '/settings/events', label: 'Events', group: 'Settings', roles: staff, Component: EventsPage },
  { path: '/settings/organization', label: 'Organization', group: 'Settings', roles: ['admin', 'member', 'support', 'agent'], Component: OrganizationPage },
]

/** Where a role lands after signing in: its first page. */
export const homeOf = (role: Role) => pages.find((p) => p.roles.includes(role))?.path ?? '/settings/api-keys'

/** Addresses that moved, kept so that bookmarks and links already sent still work (the dashboard once spelled the resource "licences"). */
export const moved: { from: string; to: string }[] = [
  { from: '/licences', to: '/licenses' },
  { from: '/admin/licences', to: '/admin/licenses' },
]

export { staff }
