import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import { optionalBody } from '../../core/optional-body.ts'
import type { ManufacturingService } from './manufacturing.service.ts'
import type { ProductionService } from './production.service.ts'
import * as S from './manufacturing.schemas.ts'

const tags = ['manufacturing']
const org = (req: Parameters<typeof principalOf>[0]) => principalOf(req).organizationId

export function manufacturingRoutes(app: App, mfg: ManufacturingService, production: ProductionService) {
  // ---------------------------------------------------------- BOMs
  app.get('/manufacturing/boms', {
    schema: {
      operationId: 'listBoms', tags, summary: 'List bills of materials',
      description: 'Filter: productId (the product a BOM makes). search matches the BOM name.',
      querystring: S.BomListQuery, response: responses({ 200: S.BomList }),
    },
  }, async (req) => mfg.listBoms(org(req), req.query))

  app.post('/manufacturing/boms', {
    schema: {
      operationId: 'createBom', tags, summary: 'Create a bill of materials',
      description: "productId and every component productId must name products of the organization (422); a component must be a storable product, and may not be the BOM's product nor appear twice (422). type defaults to manufacture, quantity to 1, uom (of the BOM and of each component) to the product's. A phantom BOM cycle (a product reached again through phantom BOMs) is 422.",
      body: S.CreateBomBody, response: responses({ 201: S.Bom }, [422]),
    },
  }, async (req, reply) => reply.status(201).send(await mfg.createBom(org(req), req.body)))

  app.get('/manufacturing/boms/:id', {
    schema: {
      operationId: 'getBom', tags, summary: 'Get a bill of materials',
      description: "A BOM of the caller's organization; any other id gives 404.",
      params: IdParams, response: responses({ 200: S.Bom }, [404]),
    },
  }, async (req) => mfg.getBom(org(req), req.params.id))

  app.patch('/manufacturing/boms/:id', {
    schema: {
      operationId: 'updateBom', tags, summary: 'Update a bill of materials',
      description: 'The fields of create, each optional; components and operations replace the whole list. The rules of create apply to the result (422).',
      params: IdParams, body: S.UpdateBomBody, response: responses({ 200: S.Bom }, [404, 422]),
    },
  }, async (req) => mfg.updateBom(org(req), req.params.id, req.body))

  app.delete('/manufacturing/boms/:id', {
    schema: {
      operationId: 'deleteBom', tags, summary: 'Delete a bill of materials',
      description: '204; 409 while a production order that is neither done nor cancelled uses the BOM.',
      params: IdParams, response: responses({ 204: NoContent }, [404, 409]),
    },
  }, async (req, reply) => {
    await mfg.deleteBom(org(req), req.params.id)
    return reply.status(204).send()
  })

  app.get('/manufacturing/boms/:id/cost', {
    schema: {
      operationId: 'getBomCost', tags, summary: 'Roll up the cost of a bill of materials',
      description: "Component cost x quantity: each component line is round(quantity x the component product's cost) in cents, total is their sum for one run of the BOM (quantity units), unitCost is round(total / quantity) per unit of the BOM's product. Components without a cost count 0 and are listed in missingCosts; phantom components are costed at their own product cost.",
      params: IdParams, response: responses({ 200: S.BomCost }, [404]),
    },
  }, async (req) => mfg.bomCost(org(req), req.params.id))

  // ---------------------------------------------------------- production orders
  const TERMINAL = 'An order that is done or cancelled gives 409 (STATE_CONFLICT).'

  app.get('/manufacturing/orders', {
    schema: {
      operationId: 'listProductionOrders', tags, summary: 'List production orders',
      description: 'Filters: status, productId, from/to (scheduled date). search matches the reference. Default sort: createdAt.',
      querystring: S.ProductionOrderListQuery, response: responses({ 200: S.ProductionOrderList }, [422]),
    },
  }, async (req) => production.list(org(req), req.query))

  app.post('/manufacturing/orders', {
    schema: {
      operationId: 'createProductionOrder', tags, summary: 'Create a production order',
      description: "Created in draft with producedQty 0, numbered MO/<year>/<seq>. bomId defaults to the product's first BOM and must make that product (422). The BOM's components, phantom kits exploded (a cycle is 422), become the order's components (need = component quantity x quantity / BOM quantity, 6 decimals), and its operations the work orders (wo_<n>). The product and every component must be storable (422).",
      body: S.CreateProductionOrderBody, response: responses({ 201: S.ProductionOrder }, [422]),
    },
  }, async (req, reply) => reply.status(201).send(await production.create(org(req), req.body)))

  app.get('/manufacturing/orders/:id', {
    schema: {
      operationId: 'getProductionOrder', tags, summary: 'Get a production order',
      description: "A production order of the caller's organization; any other id gives 404.",
      params: IdParams, response: responses({ 200: S.ProductionOrder }, [404]),
    },
  }, async (req) => production.get(org(req), req.params.id))

  app.post('/manufacturing/orders/:id/confirm', {
    schema: {
      operationId: 'confirmProductionOrder', tags, summary: 'Confirm a production order',
      description: `Draft to confirmed: reserves every component need at LOC-STOCK through a ready transfer LOC-STOCK -> LOC-PRODUCTION. Short stock gives 400 (INSUFFICIENT_STOCK) naming every short product, and nothing is reserved. An order that is not a draft gives 409. ${TERMINAL}`,
      params: IdParams, response: responses({ 200: S.ProductionOrder }, [404, 409, 422]),
    },
  }, async (req) => production.confirm(org(req), req.params.id))

  app.post('/manufacturing/orders/:id/produce', {
    schema: {
      operationId: 'produceProductionOrder', tags, summary: 'Produce a quantity of a production order',
      description: `Confirmed or in_progress (a draft gives 409), repeatable: consumes the components of qty from LOC-STOCK to LOC-PRODUCTION (out of the reservation) and puts qty of the product on hand in LOC-STOCK, through validated transfers. producedQty above quantity gives 422. The order is in_progress until producedQty reaches quantity, then done. ${TERMINAL}`,
      params: IdParams, body: S.ProduceBody, response: responses({ 200: S.ProductionOrder }, [404, 409, 422]),
    },
  }, async (req) => production.produce(org(req), req.params.id, req.body))

  app.post('/manufacturing/orders/:id/close', {
    schema: {
      operationId: 'closeProductionOrder', tags, summary: 'Close a production order',
      description: `No body. A non-terminal order becomes done when something was produced, else cancelled; what is still reserved for it is released. ${TERMINAL}`,
      params: IdParams, response: responses({ 200: S.ProductionOrder }, [404, 409]),
    },
  }, async (req) => production.close(org(req), req.params.id))

  app.get('/manufacturing/orders/:id/work-orders', {
    schema: {
      operationId: 'listWorkOrders', tags, summary: "List a production order's work orders",
      description: 'One work order per BOM operation, in the order of the operations; envelope, page and limit. Unknown order: 404.',
      params: IdParams, querystring: S.WorkOrderListQuery, response: responses({ 200: S.WorkOrderList }, [404]),
    },
  }, async (req) => production.listWorkOrders(org(req), req.params.id, req.query))

  app.post('/manufacturing/orders/:id/work-orders/:woId/start', {
    schema: {
      operationId: 'startWorkOrder', tags, summary: 'Start a work order',
      description: `pending to in_progress, recording startedAt; any other status gives 409, and so does a draft order. The first start moves a confirmed order to in_progress. ${TERMINAL}`,
      params: S.WorkOrderParams, response: responses({ 200: S.WorkOrder }, [404, 409]),
    },
  }, async (req) => production.startWorkOrder(org(req), req.params.id, req.params.woId))

  app.post('/manufacturing/orders/:id/work-orders/:woId/done', {
    schema: {
      operationId: 'finishWorkOrder', tags, summary: 'Finish a work order',
      description: `in_progress to done, recording finishedAt, durationMinutes (default: the minutes since the start, two decimals) and notes; any other status gives 409. ${TERMINAL}`,
      params: S.WorkOrderParams, body: S.WorkOrderDoneBody, response: responses({ 200: S.WorkOrder }, [404, 409, 422]),
    },
    ...optionalBody,
  }, async (req) => production.finishWorkOrder(org(req), req.params.id, req.params.woId, req.body))
}
