// Tenancy contract fixtures of the purchase module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { createPurchaseOrder, createRfq, createStorable, createVendor, createVendorBill } from '../../../test/helpers/purchase.ts'
import { defineTenancyFixtures, foreignProduct, type ForeignRecord } from '../../../test/helpers/tenancy.ts'

const UNKNOWN = '00000000-0000-4000-8000-000000000000'

const foreignVendor = async (other: TestOrg): Promise<ForeignRecord> => {
  const v = await createVendor(other)
  return { id: v.id, secrets: [v.name, v.email] }
}

const vendor = async (o: TestOrg) => ({ id: (await createVendor(o)).id })
const rfq = async (o: TestOrg) => ({ id: (await createRfq(o)).id as string })
const order = async (o: TestOrg) => ({ id: (await createPurchaseOrder(o)).id as string })

// receive: the body names a product of the purchase order its params just made.
let lastOrderProduct = UNKNOWN
const orderToReceive = async (o: TestOrg) => {
  const po = await createPurchaseOrder(o)
  lastOrderProduct = po.lineItems[0].productId
  return { id: po.id as string }
}

/** A valid RFQ body naming the owner's own vendor and storable product. */
const rfqBody = async (o: TestOrg) => ({
  vendorId: (await createVendor(o)).id,
  lineItems: [{ productId: (await createStorable(o)).id, quantity: 2, unitPrice: 100 }],
})
const rfqFields = {
  vendorId: { status: 422, foreign: foreignVendor },
  'lineItems[].productId': { status: 422, foreign: foreignProduct },
} as const

export default defineTenancyFixtures({
  paths: {
    '/purchase/vendors/:id': vendor,
    '/purchase/vendors/:id/pricelists': vendor,
    '/purchase/rfqs/:id': rfq,
    '/purchase/rfqs/:id/send': rfq,
    '/purchase/rfqs/:id/confirm': rfq,
    '/purchase/rfqs/:id/cancel': rfq,
    '/purchase/rfqs/:id/pdf': rfq,
    '/purchase/orders/:id': order,
    '/purchase/orders/:id/receive': order,
    '/purchase/orders/:id/bill': order,
    '/purchase/bills/:id': async (o) => ({ id: (await createVendorBill(o)).id as string }),
    '/purchase/bills/:id/pay': async (o) => ({ id: (await createVendorBill(o)).id as string }),
  },
  bodies: {
    'POST /purchase/vendors/:id/pricelists': { productId: UNKNOWN, price: 100 },
    'PATCH /purchase/rfqs/:id': { notes: 'Updated' },
    'POST /purchase/orders/:id/receive': { lines: [{ productId: UNKNOWN, receivedQty: 1 }] },
    'POST /purchase/orders/:id/bill': { vendorInvoiceNumber: 'VINV-1' },
    'POST /purchase/bills/:id/pay': { amount: 1 },
  },
  references: {
    'POST /purchase/rfqs': { body: rfqBody, unchanged: '/purchase/rfqs', fields: rfqFields },
    'PATCH /purchase/rfqs/:id': { params: rfq, body: rfqBody, unchanged: '/purchase/rfqs/:id', fields: rfqFields },
    'POST /purchase/vendors/:id/pricelists': {
      params: vendor,
      body: async (o) => ({ productId: (await createStorable(o)).id, price: 100 }),
      unchanged: '/purchase/vendors/:id/pricelists',
      fields: { productId: { status: 422, foreign: foreignProduct } },
    },
    'POST /purchase/orders/:id/receive': {
      params: orderToReceive,
      body: async () => ({ lines: [{ productId: lastOrderProduct, receivedQty: 1 }] }),
      unchanged: '/purchase/orders/:id',
      fields: { 'lines[].productId': { status: 422, foreign: foreignProduct } },
    },
  },
  lists: {
    '/purchase/vendors': async (o) => {
      const v = await createVendor(o)
      return [v.id, v.name, v.email]
    },
    '/purchase/rfqs': async (o) => [(await rfq(o)).id],
    '/purchase/orders': async (o) => [(await order(o)).id],
    '/purchase/bills': async (o) => {
      const b = await createVendorBill(o)
      return [b.id, b.vendorInvoiceNumber]
    },
  },
})
