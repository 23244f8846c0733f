import type { ModuleDefinition, ModuleName } from '../core/module.ts'
import { accountingModule } from './accounting/index.ts'
import { analyticsModule } from './analytics/index.ts'
import { billingModule } from './billing/index.ts'
import { contactsModule } from './contacts/index.ts'
import { crmModule } from './crm/index.ts'
import { employeesModule } from './employees/index.ts'
import { helpdeskModule } from './helpdesk/index.ts'
import { identityModule } from './identity/index.ts'
import { importsModule } from './imports/index.ts'
import { inventoryModule } from './inventory/index.ts'
import { invoicesModule } from './invoices/index.ts'
import { licensesModule } from './licenses/index.ts'
import { mailModule } from './mail/index.ts'
import { manufacturingModule } from './manufacturing/index.ts'
import { ordersModule } from './orders/index.ts'
import { productsModule } from './products/index.ts'
import { projectsModule } from './projects/index.ts'
import { purchaseModule } from './purchase/index.ts'
import { reportsModule } from './reports/index.ts'
import { salesModule } from './sales/index.ts'
import { systemModule } from './system/index.ts'
import { webhooksModule } from './webhooks/index.ts'

/**
 * Every module of the service. The order does not matter: buildApp loads each
 * after the modules its definition says it needs (core/module.ts).
 */
export const modules: ReadonlyArray<ModuleDefinition<string, ModuleName>> = [
  systemModule,
  identityModule,
  mailModule,
  contactsModule,
  productsModule,
  employeesModule,
  inventoryModule,
  invoicesModule,
  ordersModule,
  salesModule,
  purchaseModule,
  manufacturingModule,
  projectsModule,
  crmModule,
  licensesModule,
  billingModule,
  helpdeskModule,
  webhooksModule,
  analyticsModule,
  reportsModule,
  accountingModule,
  importsModule,
]
