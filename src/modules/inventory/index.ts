import { defineModule } from '../../core/module.ts'
import { inventoryRoutes } from './inventory.routes.ts'
import { InventoryService } from './inventory.service.ts'
import { locationsRoutes } from './locations.routes.ts'
import { LocationsService } from './locations.service.ts'
import { inventoryEventTypes } from './inventory.schemas.ts'
import { ValuationService } from './valuation.service.ts'

export type { InventoryService, LocationsService }
export type { StockMoveExportRow } from './inventory.repository.ts'
export type { NewTransfer, ValidateInput } from './inventory.service.ts'
export type { ReceiptPrices, ReceiptPricing } from './valuation.service.ts'
export type { TransferType, TransferStatus } from './inventory.schemas.ts'
export { StockImportRow, Transfer } from './inventory.schemas.ts'
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
 * getTransfer, inside the caller's transaction. Each done move between an
 * internal location and another type posts its journal entry in the same
 * transaction (valuation.service.ts).
 */
export const inventoryModule = defineModule({
  name: 'inventory',
  needs: ['products', 'accounting'],
  async register(app, ctx) {
    const locations = new LocationsService(ctx.db)
    ctx.onOrganizationCreated.push(locations.createDefaults)
    locationsRoutes(app, locations)
    // Every done move between an internal location and another type posts its entry; a cost change revalues the stock on hand
    // (docs/accounting.md "Posting rules: stock moves and revaluations").
    const valuation = new ValuationService(ctx.services.accounting, ctx.services.products)
    ctx.services.products.onCostChanged(valuation.onCostChanged)
    ctx.services.accounting.registerHistory('inventory', valuation.history)
    const inventory = new InventoryService(ctx.db, ctx.events, ctx.services.products, valuation)
    ctx.events.declare(inventoryEventTypes)
    inventoryRoutes(app, inventory)
    return inventory
  },
})
