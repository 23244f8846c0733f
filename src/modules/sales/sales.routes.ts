import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { OrdersService } from '../orders/index.ts'
import { Order, OrderList, SalesOrderListQuery } from '../orders/index.ts'
import type { QuotationsService } from './quotations.service.ts'
import * as S from './quotations.schemas.ts'
import * as R from './sales-reports.schemas.ts'
import type { SalesReportsService } from './sales-reports.service.ts'
import { PdfResponse, SendBody, SendResult } from '../../core/documents/index.ts'
import { optionalBody } from '../../core/optional-body.ts'

const tags = ['sales']

export function salesRoutes(app: App, quotations: QuotationsService, reports: SalesReportsService, orders: OrdersService) {
  app.get('/sales/quotations', {
    schema: {
      operationId: 'listQuotations', tags, summary: 'List quotations',
      description: 'Filters: status, contactId, salesperson (employee id), from/to (creation date). search matches reference, contact name and e-mail.',
      querystring: S.QuotationListQuery, response: responses({ 200: S.QuotationList }, [422]),
    },
  }, async (req) => quotations.list(principalOf(req).organizationId, req.query))

  app.post('/sales/quotations', {
    schema: { operationId: 'createQuotation', tags, summary: 'Create a draft quotation', description: 'Numbered QO/<year>/<sequence>.', body: S.CreateQuotationBody, response: responses({ 201: S.Quotation }, [422]) },
  }, async (req, reply) => reply.status(201).send(await quotations.create(principalOf(req).organizationId, req.body)))

  app.get('/sales/quotations/:id', {
    schema: { operationId: 'getQuotation', tags, summary: 'Get a quotation', description: "A quotation of the caller's organization, with its lines and totals; any other id gives 404.", params: IdParams, response: responses({ 200: S.Quotation }, [404]) },
  }, async (req) => quotations.get(principalOf(req).organizationId, req.params.id))

  app.patch('/sales/quotations/:id', {
    schema: {
      operationId: 'updateQuotation', tags, summary: 'Update a draft quotation', description: 'Sent: 400; confirmed or cancelled: 409. lineItems replaces every line.',
      params: IdParams, body: S.UpdateQuotationBody, response: responses({ 200: S.Quotation }, [404, 409, 422]),
    },
  }, async (req) => quotations.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/sales/quotations/:id', {
    schema: { operationId: 'deleteQuotation', tags, summary: 'Delete a draft quotation', description: 'Sent: 400; confirmed or cancelled: 409.', params: IdParams, response: responses({ 204: NoContent }, [404, 409]) },
  }, async (req, reply) => {
    await quotations.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })

  app.post('/sales/quotations/:id/send', {
    schema: {
      operationId: 'sendQuotation', tags, summary: 'E-mail the quotation PDF to the customer', description: 'draft becomes sent; a sent one is e-mailed again. Confirmed or cancelled: 409.',
      params: IdParams, body: SendBody, response: responses({ 200: SendResult }, [404, 409, 422]),
    },
    ...optionalBody,
  }, async (req) => quotations.send(principalOf(req), req.params.id, req.body))

  app.post('/sales/quotations/:id/confirm', {
    schema: {
      operationId: 'confirmQuotation', tags, summary: 'Confirm a quotation into an order', description: 'Draft or sent becomes confirmed and a confirmed Order is created (the answer). Already confirmed or cancelled: 409.',
      params: IdParams, response: responses({ 201: Order }, [404, 409]),
    },
  }, async (req, reply) => reply.status(201).send(await quotations.confirm(principalOf(req).organizationId, req.params.id)))

  app.post('/sales/quotations/:id/cancel', {
    schema: { operationId: 'cancelQuotation', tags, summary: 'Cancel a quotation', description: 'Draft or sent becomes cancelled. Already confirmed or cancelled: 409.', params: IdParams, response: responses({ 200: S.Quotation }, [404, 409]) },
  }, async (req) => quotations.cancel(principalOf(req).organizationId, req.params.id))

  app.get('/sales/quotations/:id/pdf', {
    schema: { operationId: 'getQuotationPdf', tags, summary: 'Download the quotation as PDF', description: 'The quotation rendered as a PDF, the same document that send attaches.', params: IdParams, response: responses({ 200: PdfResponse }, [404]) },
  }, async (req, reply) => {
    const pdf = await quotations.pdf(principalOf(req), req.params.id)
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${pdf.filename}"`).send(pdf.content)
  })

  app.get('/sales/orders', {
    schema: { operationId: 'listSalesOrders', tags, summary: 'List sales orders', description: 'Orders confirmed from quotations. Filters: status, contactId, salesperson, from/to (confirmation date).', querystring: SalesOrderListQuery, response: responses({ 200: OrderList }, [422]) },
  }, async (req) => orders.listSalesOrders(principalOf(req).organizationId, req.query))

  app.get('/sales/pipeline', {
    schema: { operationId: 'getSalesPipeline', tags, summary: 'Sales pipeline', description: 'Quotations created in the period, by status, in cents.', querystring: R.PipelineQuery, response: responses({ 200: R.Pipeline }, [422]) },
  }, async (req) => reports.pipeline(principalOf(req).organizationId, req.query))

  app.get('/sales/revenue', {
    schema: { operationId: 'getRevenueReport', tags, summary: 'Revenue report', description: 'Orders confirmed in the period per day, week or month, in cents.', querystring: R.RevenueQuery, response: responses({ 200: R.Revenue }, [422]) },
  }, async (req) => reports.revenue(principalOf(req).organizationId, req.query))

  app.get('/sales/team', {
    schema: { operationId: 'getSalesTeamReport', tags, summary: 'Sales team figures', description: 'Each salesperson with quotations or orders in the period.', querystring: R.TeamQuery, response: responses({ 200: R.Team }, [422]) },
  }, async (req) => reports.team(principalOf(req).organizationId, req.query))
}
