// The pages of one menu group, one chunk of the build, loaded the first time one of them opens (docs/dashboard.md "Code splitting").
export { InventoryPage } from '../pages/Inventory.tsx'
export { ProjectsPage } from '../pages/Projects.tsx'
export { EmployeesPage } from '../pages/Employees.tsx'
export { ManufacturingBomsPage } from '../pages/ManufacturingBoms.tsx'
export { ManufacturingOrdersPage } from '../pages/ManufacturingOrders.tsx'
