// The pages of one menu group, one chunk of the build, loaded the first time one of them opens (docs/dashboard.md "Code splitting").
export { LicensesPage } from '../pages/Licenses.tsx'
export { StorePage } from '../pages/Store.tsx'
export { DownloadsPage } from '../pages/Downloads.tsx'
export { BillingPage } from '../pages/Billing.tsx'
export { SupportPage } from '../pages/Support.tsx'
