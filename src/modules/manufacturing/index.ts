import { defineModule } from '../../core/module.ts'
import { manufacturingEventTypes } from './manufacturing.schemas.ts'
import { manufacturingRoutes } from './manufacturing.routes.ts'
import { ManufacturingService } from './manufacturing.service.ts'
import { ProductionService } from './production.service.ts'

export type { ManufacturingService, ProductionService }
export { Bom, ProductionOrder } from './manufacturing.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    manufacturing: ManufacturingService
  }
}

/**
 * Manufacturing (docs/manufacturing.md "BOMs", docs/manufacturing.md "Production orders"):
 * bills of materials, production orders whose stock moves through the
 * inventory module's transfers, and their work orders.
 */
export const manufacturingModule = defineModule({
  name: 'manufacturing',
  needs: ['products', 'inventory'],
  async register(app, ctx) {
    ctx.events.declare(manufacturingEventTypes)
    const { products, inventory } = ctx.services
    const manufacturing = new ManufacturingService(ctx.db, { products })
    manufacturingRoutes(app, manufacturing, new ProductionService(ctx.db, ctx.events, { products, inventory }))
    return manufacturing
  },
})
