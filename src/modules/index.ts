import type { App } from '../app.ts'
import { billingModule } from './billing/index.ts'
import { contactsModule } from './contacts/index.ts'
import { crmModule } from './crm/index.ts'
import { employeesModule } from './employees/index.ts'
import { identityModule } from './identity/index.ts'
import { invoicesModule } from './invoices/index.ts'
import { licensesModule } from './licenses/index.ts'
import { locationsModule } from './locations/index.ts'
import { mailModule } from './mail/index.ts'
import { ordersModule } from './orders/index.ts'
import { productsModule } from './products/index.ts'
import { salesModule } from './sales/index.ts'
import type { ModuleContext } from './services.ts'
import { adminJobsModule, systemModule } from './system/index.ts'

export type { ModuleContext, Services } from './services.ts'

/** Every module, in load order: a module may use the services of those before it. */
export const modules: Array<(app: App, ctx: ModuleContext) => Promise<void>> = [
  systemModule,
  identityModule,
  mailModule,
  contactsModule,
  productsModule,
  employeesModule,
  locationsModule,
  invoicesModule,
  ordersModule,
  salesModule,
  crmModule,
  licensesModule,
  billingModule,
  adminJobsModule,
]
