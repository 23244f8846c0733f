import { defineModule } from '../../core/module.ts'
import { manufacturingRoutes } from './manufacturing.routes.ts'
import { ManufacturingService } from './manufacturing.service.ts'

export type { ManufacturingService }
export { Bom } from './manufacturing.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    manufacturing: ManufacturingService
  }
}

/**
 * Manufacturing (SPEC 2.6, 3.5, 4.5): bills of materials so far; production
 * and work orders on the inventory ledger are to come. docs/manufacturing.md.
 */
export const manufacturingModule = defineModule({
  name: 'manufacturing',
  needs: ['products'],
  async register(app, ctx) {
    const manufacturing = new ManufacturingService(ctx.db, { products: ctx.services.products })
    manufacturingRoutes(app, manufacturing)
    return manufacturing
  },
})
