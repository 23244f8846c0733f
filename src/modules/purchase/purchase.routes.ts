import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import { PdfResponse } from '../../core/documents/index.ts'
import { optionalBody } from '../../core/optional-body.ts'
import type { PurchaseService } from './purchase.service.ts'
import type { VendorsService } from './vendors.service.ts'
import * as S from './purchase.schemas.ts'

const tags = ['purchase']
const org = (req: Parameters<typeof principalOf>[0]) => principalOf(req).organizationId

export function purchaseRoutes(app: App, purchase: PurchaseService, vendors: VendorsService) {
  // ---------------------------------------------------------- vendors
  app.get('/purchase/vendors', {
    schema: {
      operationId: 'listVendors', tags, summary: 'List vendors',
      description: 'Contacts with vendor = true. search matches name and e-mail.',
      querystring: S.VendorListQuery, response: responses({ 200: S.VendorList }),
    },
  }, async (req) => vendors.list(org(req), req.query))

  app.post('/purchase/vendors', {
    schema: {
      operationId: 'createVendor', tags, summary: 'Create a vendor',
      description: 'Creates a contact with vendor = true (also listed at /contacts). E-mail is unique among the contacts of the organization (409).',
      body: S.CreateVendorBody, response: responses({ 201: S.Vendor }, [409, 422]),
    },
  }, async (req, reply) => reply.status(201).send(await vendors.create(org(req), req.body)))

  app.get('/purchase/vendors/:id', {
    schema: {
      operationId: 'getVendor', tags, summary: 'Get a vendor',
      description: 'A contact of the organization with vendor = true; any other id (a contact that is not a vendor too) gives 404.',
      params: IdParams, response: responses({ 200: S.Vendor }, [404]),
    },
  }, async (req) => vendors.get(org(req), req.params.id))

  app.get('/purchase/vendors/:id/pricelists', {
    schema: {
      operationId: 'listVendorPricelists', tags, summary: "List a vendor's pricelist",
      description: 'Prices of the vendor per product, currency and minimum quantity. Filter: productId. 404 unless the id names a vendor of the organization.',
      params: IdParams, querystring: S.PricelistListQuery, response: responses({ 200: S.VendorPricelistList }, [404]),
    },
  }, async (req) => vendors.listPricelists(org(req), req.params.id, req.query))

  app.post('/purchase/vendors/:id/pricelists', {
    schema: {
      operationId: 'createVendorPricelist', tags, summary: 'Add a price to a vendor pricelist',
      description: "A price (cents) of a product from this vendor for lines of at least minQty, in a currency (default: the vendor's, else usd). One price per product, currency and minQty (409). 404 unless the id names a vendor; an unknown productId is 422.",
      params: IdParams, body: S.CreatePricelistBody, response: responses({ 201: S.VendorPricelist }, [404, 409, 422]),
    },
  }, async (req, reply) => reply.status(201).send(await vendors.createPricelist(org(req), req.params.id, req.body)))

  // ---------------------------------------------------------- RFQs
  app.get('/purchase/rfqs', {
    schema: {
      operationId: 'listRfqs', tags, summary: 'List RFQs and purchase orders',
      description: 'Every RFQ, whatever its status (confirmed ones are the purchase orders). Filters: status, vendorId, from/to (creation date). search matches reference, vendor name and e-mail.',
      querystring: S.RfqListQuery, response: responses({ 200: S.PurchaseOrderList }, [422]),
    },
  }, async (req) => purchase.listRfqs(org(req), req.query))

  app.post('/purchase/rfqs', {
    schema: {
      operationId: 'createRfq', tags, summary: 'Create a draft RFQ',
      description: "Numbered PO/<year>/<sequence> at once. vendorId must be a vendor of the organization (422). Lines: storable products, one line per product; a line without unitPrice takes the vendor's pricelist price in the RFQ's currency (the row with the highest minQty not above the quantity), and without one it is 422. total = sum of round(quantity * unitPrice). buyer is the calling user.",
      body: S.CreateRfqBody, response: responses({ 201: S.PurchaseOrder }, [422]),
    },
  }, async (req, reply) => reply.status(201).send(await purchase.create(principalOf(req), req.body)))

  app.get('/purchase/rfqs/:id', {
    schema: {
      operationId: 'getRfq', tags, summary: 'Get an RFQ',
      description: "An RFQ (or purchase order) of the caller's organization; any other id gives 404.",
      params: IdParams, response: responses({ 200: S.PurchaseOrder }, [404]),
    },
  }, async (req) => purchase.get(org(req), req.params.id))

  app.patch('/purchase/rfqs/:id', {
    schema: {
      operationId: 'updateRfq', tags, summary: 'Update a draft RFQ',
      description: 'Draft only: any other status gives 400. The fields of create; lineItems replaces every line (priced as on create). Changing the currency needs lineItems (422).',
      params: IdParams, body: S.UpdateRfqBody, response: responses({ 200: S.PurchaseOrder }, [404, 422]),
    },
  }, async (req) => purchase.update(org(req), req.params.id, req.body))

  app.delete('/purchase/rfqs/:id', {
    schema: {
      operationId: 'deleteRfq', tags, summary: 'Delete a draft RFQ',
      description: 'Draft only (204): any other status gives 400.',
      params: IdParams, response: responses({ 204: NoContent }, [404]),
    },
  }, async (req, reply) => {
    await purchase.delete(org(req), req.params.id)
    return reply.status(204).send()
  })

  app.post('/purchase/rfqs/:id/send', {
    schema: {
      operationId: 'sendRfq', tags, summary: 'E-mail the RFQ PDF to the vendor',
      description: "Draft becomes sent and the PDF is queued in the outbox for the vendor's e-mail (or `to`); a sent RFQ may be sent again (another e-mail). Answers the RFQ. Confirmed or cancelled: 409; no e-mail address: 422.",
      params: IdParams, body: S.SendRfqBody, response: responses({ 200: S.PurchaseOrder }, [404, 409, 422]),
    },
    ...optionalBody,
  }, async (req) => purchase.send(principalOf(req), req.params.id, req.body))

  app.post('/purchase/rfqs/:id/confirm', {
    schema: {
      operationId: 'confirmRfq', tags, summary: 'Confirm an RFQ into a purchase order',
      description: 'Draft or sent becomes confirmed: prices are locked, the reference stays as the PO number, and the receipt transfer LOC-SUPPLIER -> LOC-STOCK (WH/IN/<n>, ready) is created in the same transaction. Answers the purchase order. Confirmed or cancelled: 409; a line whose product is no longer storable: 422.',
      params: IdParams, response: responses({ 200: S.PurchaseOrder }, [404, 409, 422]),
    },
  }, async (req) => purchase.confirm(org(req), req.params.id))

  app.post('/purchase/rfqs/:id/cancel', {
    schema: {
      operationId: 'cancelRfq', tags, summary: 'Cancel an RFQ',
      description: 'Draft or sent becomes cancelled. Confirmed or cancelled: 409.',
      params: IdParams, response: responses({ 200: S.PurchaseOrder }, [404, 409]),
    },
  }, async (req) => purchase.cancel(org(req), req.params.id))

  app.get('/purchase/rfqs/:id/pdf', {
    schema: {
      operationId: 'getRfqPdf', tags, summary: 'Download the RFQ as PDF',
      description: 'The RFQ (titled Purchase Order once confirmed) as a PDF, the same document that send attaches.',
      params: IdParams, response: responses({ 200: PdfResponse }, [404]),
    },
  }, async (req, reply) => {
    const pdf = await purchase.pdf(org(req), req.params.id)
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${pdf.filename}"`).send(pdf.content)
  })

  // ---------------------------------------------------------- purchase orders
  app.get('/purchase/orders', {
    schema: {
      operationId: 'listPurchaseOrders', tags, summary: 'List purchase orders',
      description: 'Confirmed RFQs, with receivedQty on each line, receiptStatus (pending, partial, received) and billId. Filters: vendorId, receiptStatus, from/to (confirmation date). search matches reference, vendor name and e-mail.',
      querystring: S.PurchaseOrderListQuery, response: responses({ 200: S.PurchaseOrderList }, [422]),
    },
  }, async (req) => purchase.listOrders(org(req), req.query))

  app.get('/purchase/orders/:id', {
    schema: {
      operationId: 'getPurchaseOrder', tags, summary: 'Get a purchase order',
      description: 'A confirmed RFQ of the organization; an RFQ that is not confirmed is no purchase order (404).',
      params: IdParams, response: responses({ 200: S.PurchaseOrder }, [404]),
    },
  }, async (req) => purchase.getOrder(org(req), req.params.id))

  app.post('/purchase/orders/:id/receive', {
    schema: {
      operationId: 'receivePurchaseOrder', tags, summary: 'Receive goods of a purchase order',
      description: 'Validates the pending receipt transfer with the quantities sent (lines not sent stay on its backorder), puts them in LOC-STOCK and books them on the lines. A quantity above the open quantity of its line: 400 and nothing is received. Not confirmed or fully received: 409. A product not on the order, a repeated product or a receiptDate after today: 422.',
      params: IdParams, body: S.ReceiveBody, response: responses({ 201: S.ReceiptResult }, [404, 409, 422]),
    },
  }, async (req, reply) => reply.status(201).send(await purchase.receive(org(req), req.params.id, req.body)))

  app.post('/purchase/orders/:id/bill', {
    schema: {
      operationId: 'billPurchaseOrder', tags, summary: 'Record the vendor bill of a purchase order',
      description: 'A posted vendor bill BILL/<year>/<sequence> for the ordered lines and total, nothing paid. Once per purchase order (409); an RFQ not confirmed: 409. dueDate defaults to invoiceDate + 30 days and may not be before it (422).',
      params: IdParams, body: S.BillBody, response: responses({ 201: S.VendorBill }, [404, 409, 422]),
    },
  }, async (req, reply) => reply.status(201).send(await purchase.bill(org(req), req.params.id, req.body)))

  // ---------------------------------------------------------- vendor bills
  app.get('/purchase/bills', {
    schema: {
      operationId: 'listVendorBills', tags, summary: 'List vendor bills',
      description: 'Filters: status, vendorId, purchaseOrderId, from/to (invoice date). search matches the bill number, vendor name and vendor invoice number.',
      querystring: S.BillListQuery, response: responses({ 200: S.VendorBillList }, [422]),
    },
  }, async (req) => purchase.listBills(org(req), req.query))

  app.get('/purchase/bills/:id', {
    schema: {
      operationId: 'getVendorBill', tags, summary: 'Get a vendor bill',
      description: "A vendor bill of the caller's organization; any other id gives 404.",
      params: IdParams, response: responses({ 200: S.VendorBill }, [404]),
    },
  }, async (req) => purchase.getBill(org(req), req.params.id))

  app.post('/purchase/bills/:id/pay', {
    schema: {
      operationId: 'payVendorBill', tags, summary: 'Record a payment of a vendor bill',
      description: 'Pays part or all of the amount due: status paid once nothing is due (event bill.paid), posted before. Above the amount due (so any amount on a paid bill): 422. Parallel payments never pay more than the bill. The ledger posts Dr 2000, Cr 1000 on the paymentDate; a paymentDate on or before the lock date: 422 PERIOD_LOCKED, nothing paid.',
      params: IdParams, body: S.PayBillBody, response: responses({ 200: S.BillPaymentResult }, [404, 422]),
    },
  }, async (req) => purchase.payBill(org(req), req.params.id, req.body))
}
