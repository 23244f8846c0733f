import type { App } from '../../core/module.ts'
import { ROLES, principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { ProductsService } from './products.service.ts'
import * as S from './products.schemas.ts'

const tags = ['products']
const READERS = { access: { roles: ROLES } }

export function productsRoutes(app: App, products: ProductsService) {
  app.get('/products', {
    schema: { operationId: 'listProducts', tags, summary: 'List products', description: 'Every role may read the catalogue; signingSecret is shown to admins only; customers read the catalogue fields only (no cost nor reorderPoint).', querystring: S.ProductListQuery, response: responses({ 200: S.ProductList }) },
    config: READERS,
  }, async (req) => products.list(principalOf(req), req.query))

  app.post('/products', {
    schema: {
      operationId: 'createProduct', tags, summary: 'Create a product',
      description: 'With moduleName the product is a licensed connector module: erpVersion is required, billing defaults to one_time, activationsLimit to 1, and a signingSecret is generated.',
      body: S.CreateProductBody, response: responses({ 201: S.Product }, [409, 422]),
    },
  }, async (req, reply) => reply.status(201).send(await products.create(principalOf(req), req.body)))

  app.get('/products/:id', {
    schema: { operationId: 'getProduct', tags, summary: 'Get a product', description: "A product of the caller's organization; any other id gives 404. signingSecret is shown to admins only; customers read the catalogue fields only (no cost nor reorderPoint).", params: IdParams, response: responses({ 200: S.Product }, [404]) },
    config: READERS,
  }, async (req) => products.read(principalOf(req), req.params.id))

  app.patch('/products/:id', {
    schema: { operationId: 'updateProduct', tags, summary: 'Update a product', description: 'Changes only the fields sent (at least one). Giving moduleName makes the product a licensed module, as on create.', params: IdParams, body: S.UpdateProductBody, response: responses({ 200: S.Product }, [404, 409, 422]) },
  }, async (req) => products.update(principalOf(req), req.params.id, req.body))

  app.delete('/products/:id', {
    schema: { operationId: 'deleteProduct', tags, summary: 'Delete a product', description: 'A product still referenced by other records gives 409.', params: IdParams, response: responses({ 204: NoContent }, [404, 409]) },
  }, async (req, reply) => {
    await products.delete(principalOf(req), req.params.id)
    return reply.status(204).send()
  })
}
