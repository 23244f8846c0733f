// The pages of one menu group, one chunk of the build, loaded the first time one of them opens (docs/dashboard.md "Code splitting").
export { AccountingPage } from '../pages/Accounting.tsx'
export { ReportsPage } from '../pages/Reports.tsx'
