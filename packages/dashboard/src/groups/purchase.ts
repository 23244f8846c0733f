// The pages of one menu group, one chunk of the build, loaded the first time one of them opens (docs/dashboard.md "Code splitting").
export { PurchaseOrdersPage } from '../pages/PurchaseOrders.tsx'
export { PurchaseVendorsPage } from '../pages/PurchaseVendors.tsx'
export { PurchaseBillsPage } from '../pages/PurchaseBills.tsx'
