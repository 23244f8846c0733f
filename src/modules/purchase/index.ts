import { defineModule } from '../../core/module.ts'
import { purchaseRoutes } from './purchase.routes.ts'
import { PurchaseService } from './purchase.service.ts'
import { VendorsService } from './vendors.service.ts'
import { purchaseEventTypes } from './purchase.schemas.ts'

export type { PurchaseService, VendorsService }
export { PurchaseOrder, VendorBill } from './purchase.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    purchase: PurchaseService
  }
}

/**
 * Purchasing (docs/purchase.md "RFQs and purchase orders"): vendors (contacts with vendor = true) and
 * their pricelists, RFQs that become purchase orders, receipts through the
 * inventory module's transfers, and vendor bills. docs/purchase.md.
 */
export const purchaseModule = defineModule({
  name: 'purchase',
  needs: ['contacts', 'products', 'mail', 'identity', 'inventory', 'accounting'],
  async register(app, ctx) {
    const { contacts, products, mail, identity, inventory, accounting } = ctx.services
    const vendors = new VendorsService(ctx.db, { contacts, products })
    const purchase = new PurchaseService(ctx.db, ctx.events, vendors, { contacts, products, mail, identity, inventory, accounting, cpu: ctx.cpu })
    // Bills and bill payments made before the ledger (docs/accounting.md "History").
    accounting.registerHistory('purchase', (q, organizationId) => purchase.history(q, organizationId))
    ctx.events.declare(purchaseEventTypes)
    purchaseRoutes(app, purchase, vendors)
    // Receipts validated in the inventory module directly, and the history, credit 2200 at the PO's prices.
    inventory.registerReceiptPricing(purchase.receiptPricing)
    return purchase
  },
})
