// The pages of one menu group, one chunk of the build, loaded the first time one of them opens (docs/dashboard.md "Code splitting").
export { OverviewPage } from '../pages/Overview.tsx'
export { QuotationsPage } from '../pages/Quotations.tsx'
export { SalesOrdersPage } from '../pages/SalesOrders.tsx'
export { InvoicesPage } from '../pages/Invoices.tsx'
export { CreditNotesPage } from '../pages/CreditNotes.tsx'
export { ContactsPage } from '../pages/Contacts.tsx'
export { ProductsPage } from '../pages/Products.tsx'
export { LeadsPage } from '../pages/Leads.tsx'
