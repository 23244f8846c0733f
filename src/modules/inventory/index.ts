import { defineModule } from '../../core/module.ts'
import { inventoryRoutes } from './inventory.routes.ts'
import { InventoryService } from './inventory.service.ts'
import { locationsRoutes } from './locations.routes.ts'
import { LocationsService } from './locations.service.ts'
import { inventoryEventTypes } from './inventory.schemas.ts'

export type { InventoryService, LocationsService }
export type { StockMoveExportRow } from './inventory.repository.ts'
export type { NewTransfer, ValidateInput } from './inventory.service.ts'
export type { TransferType, TransferStatus } from './inventory.schemas.ts'
export { Transfer } from './inventory.schemas.ts'
/** Exact decimal sums and differences of quantities (what the ledger stores). */
export { add, sub } from './decimal.lib.ts'

declare module '../../core/module.ts' {
  interface Services {
    inventory: InventoryService
  }
}

/**
 * Inventory (docs/inventory.md): warehouses and locations (every new
 * organization gets the default ones), the stock ledger of done moves with its
 * quants and per-product totals, transfers and their reservations,
 * adjustments. Purchase receipts (and later manufacturing) go through
 * InventoryService's createTransfer / validateTransfer / cancelTransfer /
 * getTransfer, inside the caller's transaction.
 */
export const inventoryModule = defineModule({
  name: 'inventory',
  needs: ['products'],
  async register(app, ctx) {
    const locations = new LocationsService(ctx.db)
    ctx.onOrganizationCreated.push(locations.createDefaults)
    locationsRoutes(app, locations)
    const inventory = new InventoryService(ctx.db, ctx.events, ctx.services.products)
    ctx.events.declare(inventoryEventTypes)
    inventoryRoutes(app, inventory)
    return inventory
  },
})
