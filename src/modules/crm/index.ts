import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { crmRoutes } from './crm.routes.ts'
import { CrmService } from './crm.service.ts'

declare module '../services.ts' {
  interface Services {
    crm: CrmService
  }
}

export async function crmModule(app: App, ctx: ModuleContext) {
  const crm = new CrmService(ctx.db, ctx.services.contacts, `${ctx.config.publicUrl?.replace(/\/$/, '') ?? ''}/api/crm/capture`)
  ctx.services.crm = crm
  crmRoutes(app, crm)
}
