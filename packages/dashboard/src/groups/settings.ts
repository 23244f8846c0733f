// The pages of one menu group, one chunk of the build, loaded the first time one of them opens (docs/dashboard.md "Code splitting").
export { AdminLicensesPage } from '../pages/Licenses.tsx'
export { ImportPage } from '../pages/Import.tsx'
export { ApiKeysPage } from '../pages/ApiKeys.tsx'
export { UsersPage } from '../pages/Users.tsx'
export { WebhooksPage } from '../pages/Webhooks.tsx'
export { EventsPage } from '../pages/Events.tsx'
export { OrganizationPage } from '../pages/Organization.tsx'
