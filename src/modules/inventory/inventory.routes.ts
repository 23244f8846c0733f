import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import { optionalBody } from '../../core/optional-body.ts'
import type { InventoryService } from './inventory.service.ts'
import * as S from './inventory.schemas.ts'

const tags = ['inventory']
const STATE = 'Validate, confirm or cancel of a transfer already validated or cancelled gives 400 (INVALID_STATE).'

export function inventoryRoutes(app: App, inventory: InventoryService) {
  app.get('/inventory/products', {
    schema: {
      operationId: 'listProductStock', tags, summary: 'List the stock of storable products',
      description: 'Storable products with onHand (sum over internal locations, or over those of warehouseId), reserved (by ready transfers) and available = onHand - reserved. belowReorder=true keeps products with a reorderPoint above 0 and available <= reorderPoint. search matches name and SKU. Default sort: name.',
      querystring: S.ProductStockQuery, response: responses({ 200: S.ProductStockList }),
    },
  }, async (req) => inventory.listProductStock(principalOf(req).organizationId, req.query))

  app.get('/inventory/products/:productId/stock', {
    schema: {
      operationId: 'getProductStockByLocation', tags, summary: 'Stock of a product by location',
      description: 'A bare array of the internal locations holding a non-zero quantity of the product. An unknown product gives 404; a product that is not storable holds no stock ([]).',
      params: S.ProductStockParams, response: responses({ 200: S.LocationStock }, [404]),
    },
  }, async (req) => inventory.productLocations(principalOf(req).organizationId, req.params.productId))

  app.get('/inventory/transfers', {
    schema: {
      operationId: 'listTransfers', tags, summary: 'List transfers',
      description: 'Filters: type, status, from/to (scheduled date). search matches reference and origin.',
      querystring: S.TransferListQuery, response: responses({ 200: S.TransferList }, [422]),
    },
  }, async (req) => inventory.listTransfers(principalOf(req).organizationId, req.query))

  app.post('/inventory/transfers', {
    schema: {
      operationId: 'createTransfer', tags, summary: 'Create a transfer',
      description: 'Created in draft, numbered WH/IN/<n> (receipt), WH/OUT/<n> (delivery) or WH/INT/<n> (internal). Locations and products must be of the organization; only storable products, one move per product (422 otherwise).',
      body: S.CreateTransferBody, response: responses({ 201: S.Transfer }, [422]),
    },
  }, async (req, reply) => reply.status(201).send(await inventory.create(principalOf(req).organizationId, req.body)))

  app.get('/inventory/transfers/:id', {
    schema: { operationId: 'getTransfer', tags, summary: 'Get a transfer', description: "A transfer of the caller's organization; any other id gives 404.", params: IdParams, response: responses({ 200: S.Transfer }, [404]) },
  }, async (req) => inventory.getTransfer(principalOf(req).organizationId, req.params.id))

  app.post('/inventory/transfers/:id/confirm', {
    schema: {
      operationId: 'confirmTransfer', tags, summary: 'Confirm a transfer (draft to ready)',
      description: `Reserves each move's demand at an internal source and moves the transfer to ready; short stock gives 400 (INSUFFICIENT_STOCK) and reserves nothing. A non-internal source (supplier, customer, production, inventory loss) needs no stock. A transfer already ready gives 400. ${STATE}`,
      params: IdParams, response: responses({ 200: S.Transfer }, [404]),
    },
  }, async (req) => inventory.confirm(principalOf(req).organizationId, req.params.id))

  app.post('/inventory/transfers/:id/validate', {
    schema: {
      operationId: 'validateTransfer', tags, summary: 'Validate a transfer',
      description: `From draft or ready: the done quantities (each move's demand unless moves[{productId, doneQty}] overrides it) are posted to the ledger and the transfer is done. Moves done below their demand leave a backorder transfer for the rest, in the state the original had (backorder in the answer). doneQty above the demand, negative, for a product without a move, or zero on every move: 422. Taking more than an internal source holds (its unreserved stock plus this transfer's own reservation): 400 INSUFFICIENT_STOCK, nothing changes. ${STATE}`,
      params: IdParams, body: S.ValidateTransferBody, response: responses({ 200: S.Transfer }, [404, 422]),
    },
    ...optionalBody,
  }, async (req) => inventory.validate(principalOf(req).organizationId, req.params.id, req.body))

  app.post('/inventory/transfers/:id/cancel', {
    schema: {
      operationId: 'cancelTransfer', tags, summary: 'Cancel a transfer',
      description: `From draft or ready; releases the transfer's reservation. ${STATE}`,
      params: IdParams, response: responses({ 200: S.Transfer }, [404]),
    },
  }, async (req) => inventory.cancel(principalOf(req).organizationId, req.params.id))

  app.get('/inventory/adjustments', {
    schema: {
      operationId: 'listAdjustments', tags, summary: 'List inventory adjustments',
      description: 'Filters: locationId, from/to (the adjustment date).',
      querystring: S.AdjustmentListQuery, response: responses({ 200: S.AdjustmentList }, [422]),
    },
  }, async (req) => inventory.listAdjustments(principalOf(req).organizationId, req.query))

  app.post('/inventory/adjustments', {
    schema: {
      operationId: 'createAdjustment', tags, summary: 'Adjust the counted stock of a location',
      description: "Numbered WH/ADJ/<n>. Afterwards the internal location holds each line's realQty, through done moves from or to the inventory-loss location (doneAt = date, default now; a day after today is 422). difference, when sent, must be realQty - theoreticalQty (422); theoreticalQty is what the location holds when the adjustment posts: filled in when left out, and a sent value that disagrees is 422 (nothing posted), so that each difference is the move posted. Storable products only, one line per product (422). A realQty below what ready transfers hold reserved there gives 400.",
      body: S.CreateAdjustmentBody, response: responses({ 201: S.Adjustment }, [422]),
    },
  }, async (req, reply) => reply.status(201).send(await inventory.createAdjustment(principalOf(req).organizationId, req.body)))

  app.get('/inventory/adjustments/:id', {
    schema: { operationId: 'getAdjustment', tags, summary: 'Get an inventory adjustment', description: "An adjustment of the caller's organization; any other id gives 404.", params: IdParams, response: responses({ 200: S.Adjustment }, [404]) },
  }, async (req) => inventory.getAdjustment(principalOf(req).organizationId, req.params.id))

  app.get('/inventory/moves', {
    schema: {
      operationId: 'listMoves', tags, summary: 'List done stock moves (the ledger)',
      description: 'Every done move: validated transfers and adjustments. Filters: productId, locationId (either end), reference (exact), from/to (doneAt). Default sort: doneAt.',
      querystring: S.MoveListQuery, response: responses({ 200: S.StockMoveList }, [422]),
    },
  }, async (req) => inventory.listMoves(principalOf(req).organizationId, req.query))
}
