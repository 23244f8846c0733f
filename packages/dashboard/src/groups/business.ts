// The pages of one menu group, one chunk of the build, loaded the first time one of them opens (docs/dashboard.md "Code splitting").
export { OverviewPage } from '../pages/Overview.tsx'
export { QuotationsPage } from '../pages/Quotations.tsx'
export { InvoicesPage } from '../pages/Invoices.tsx'
export { ContactsPage } from '../pages/Contacts.tsx'
export { ProductsPage } from '../pages/Products.tsx'
export { InventoryPage } from '../pages/Inventory.tsx'
export { AccountingPage } from '../pages/Accounting.tsx'
