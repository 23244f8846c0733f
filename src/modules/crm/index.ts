import { defineModule } from '../../core/module.ts'
import { crmRoutes } from './crm.routes.ts'
import { CrmService } from './crm.service.ts'

export type { CrmService }

declare module '../../core/module.ts' {
  interface Services {
    crm: CrmService
  }
}

/** Leads captured by the public form and their conversion into contacts. */
export const crmModule = defineModule({
  name: 'crm',
  needs: ['contacts'],
  async register(app, ctx) {
    const crm = new CrmService(ctx.db, ctx.services.contacts, `${ctx.config.publicUrl?.replace(/\/$/, '') ?? ''}/api/crm/capture`)
    crmRoutes(app, crm)
    return crm
  },
})
