import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import { Invoice } from '../invoices/index.ts'
import type { OrdersService } from './orders.service.ts'
import { optionalBody } from '../../core/optional-body.ts'
import * as S from './orders.schemas.ts'

const tags = ['orders']

export function ordersRoutes(app: App, orders: OrdersService) {
  app.get('/orders', {
    schema: {
      operationId: 'listOrders', tags, summary: 'List orders',
      description: 'Every order of the organization (sales and checkout). Filters: status, contactId, source, from/to (confirmation date). search matches reference, contact name and e-mail.',
      querystring: S.OrderListQuery, response: responses({ 200: S.OrderList }, [422]),
    },
  }, async (req) => orders.list(principalOf(req).organizationId, req.query))

  app.get('/orders/:id', {
    schema: { operationId: 'getOrder', tags, summary: 'Get an order', description: "An order of the caller's organization, from sales or checkout; any other id gives 404.", params: IdParams, response: responses({ 200: S.Order }, [404]) },
  }, async (req) => orders.get(principalOf(req).organizationId, req.params.id))

  app.post('/orders/:id/invoice', {
    schema: {
      operationId: 'invoiceOrder', tags, summary: 'Invoice an order',
      description: "Creates a draft invoice with the order's lines and orderId. An order already invoiced (or cancelled) gives 409; deleting the draft invoice frees the order again.",
      params: IdParams, body: S.InvoiceOrderBody, response: responses({ 201: Invoice }, [404, 409, 422]),
    },
    ...optionalBody,
  }, async (req, reply) => reply.status(201).send(await orders.invoice(principalOf(req).organizationId, req.params.id, req.body)))
}
