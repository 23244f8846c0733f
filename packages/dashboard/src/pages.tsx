// Every page of the dashboard: its address, its place in the navigation and
// the roles that see it (docs/platform.md "Roles"). A page a role may
// not use is neither linked nor routed for it; the API refuses it anyway.
import type { ComponentType } from 'react'
import type { Role } from './session.tsx'
import { ApiKeysPage } from './pages/ApiKeys.tsx'
import { HelpdeskPage } from './pages/Helpdesk.tsx'
import { InventoryPage } from './pages/Inventory.tsx'
import { InvoicesPage } from './pages/Invoices.tsx'
import { OverviewPage } from './pages/Overview.tsx'
import { QuotationsPage } from './pages/Quotations.tsx'
import { UsersPage } from './pages/Users.tsx'
import { AdminLicensesPage, LicensesPage } from './pages/Licenses.tsx'
import { StorePage } from './pages/Store.tsx'
import { DownloadsPage } from './pages/Downloads.tsx'
import { BillingPage } from './pages/Billing.tsx'
import { AccountingPage } from './pages/Accounting.tsx'
import { ImportPage } from './pages/Import.tsx'
import { ContactsPage } from './pages/Contacts.tsx'
import { ProductsPage } from './pages/Products.tsx'
import { PurchaseVendorsPage } from './pages/PurchaseVendors.tsx'
import { PurchaseOrdersPage } from './pages/PurchaseOrders.tsx'
import { PurchaseBillsPage } from './pages/PurchaseBills.tsx'
import { ManufacturingBomsPage } from './pages/ManufacturingBoms.tsx'
import { ManufacturingOrdersPage } from './pages/ManufacturingOrders.tsx'
import { LeadsPage } from './pages/Leads.tsx'
import { ProjectsPage } from './pages/Projects.tsx'
import { EmployeesPage } from './pages/Employees.tsx'
import { SupportPage } from './pages/Support.tsx'
import { CreditNotesPage } from './pages/CreditNotes.tsx'
import { SalesOrdersPage } from './pages/SalesOrders.tsx'
import { ReportsPage } from './pages/Reports.tsx'
import { WebhooksPage } from './pages/Webhooks.tsx'
import { EventsPage } from './pages/Events.tsx'
import { OrganizationPage } from './pages/Organization.tsx'

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
  // The orders confirmed from quotations, to invoice (docs/dashboard-finance.md "Sales orders").
  { path: '/sales/orders', label: 'Sales orders', group: 'Business', roles: staff, Component: SalesOrdersPage },
  { path: '/invoices', label: 'Invoices', group: 'Business', roles: staff, Component: InvoicesPage },
  // Issued from an invoice's page, listed here (docs/dashboard-finance.md "Credit notes").
  { path: '/credit-notes', label: 'Credit notes', group: 'Business', roles: staff, Component: CreditNotesPage },
  // The records a quotation names (docs/dashboard.md "Contacts" and "Products"): admins and members write them.
  { path: '/contacts', label: 'Contacts', group: 'Business', roles: staff, Component: ContactsPage },
  { path: '/products', label: 'Products', group: 'Business', roles: staff, Component: ProductsPage },
  { path: '/inventory', label: 'Inventory', group: 'Business', roles: staff, Component: InventoryPage },
  // From project to billable hours (docs/dashboard-projects.md): every project and employee route admits admins and members.
  { path: '/projects', label: 'Projects', group: 'Business', roles: staff, Component: ProjectsPage },
  { path: '/employees', label: 'Employees', group: 'Business', roles: staff, Component: EmployeesPage },
  // The general ledger (docs/dashboard.md "Accounting"): the chart and the lock date are changed by admins only, inside the page.
  // From BOM to finished goods, and the CRM's leads (docs/dashboard-manufacturing-crm.md): every route admits admins and members; the capture settings, admin only, are a tab inside Leads.
  { path: '/manufacturing/boms', label: 'Bills of materials', group: 'Business', roles: staff, Component: ManufacturingBomsPage },
  { path: '/manufacturing/orders', label: 'Production', group: 'Business', roles: staff, Component: ManufacturingOrdersPage },
  { path: '/crm/leads', label: 'Leads', group: 'Business', roles: staff, Component: LeadsPage },
  { path: '/accounting', label: 'Accounting', group: 'Business', roles: staff, Component: AccountingPage },
  // Report runs: CSV exports made in the background (docs/dashboard-platform.md "Reports"); POST and GET /reports admit admins and members.
  { path: '/reports', label: 'Reports', group: 'Business', roles: staff, Component: ReportsPage },
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
