import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { ManufacturingService } from './manufacturing.service.ts'
import * as S from './manufacturing.schemas.ts'

const tags = ['manufacturing']
const org = (req: Parameters<typeof principalOf>[0]) => principalOf(req).organizationId

export function manufacturingRoutes(app: App, mfg: ManufacturingService) {
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
      description: "productId and every component productId must name products of the organization (422); a component may not be the BOM's product nor appear twice (422). type defaults to manufacture, quantity to 1, uom (of the BOM and of each component) to the product's. A phantom BOM cycle (a product reached again through phantom BOMs) is 422.",
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
}
