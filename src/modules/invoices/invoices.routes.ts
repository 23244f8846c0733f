import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { InvoicesService } from './invoices.service.ts'
import * as S from './invoices.schemas.ts'
import { PdfResponse } from '../../core/documents/index.ts'
import { optionalBody } from '../../core/optional-body.ts'

const tags = ['invoices']

export function invoicesRoutes(app: App, invoices: InvoicesService) {
  app.get('/invoices', {
    schema: {
      operationId: 'listInvoices', tags, summary: 'List invoices',
      description: 'Filters: status, contactId, orderId, from/to (invoice date). sortBy=amount orders by total. search matches number, contact name and e-mail.',
      querystring: S.InvoiceListQuery, response: responses({ 200: S.InvoiceList }, [422]),
    },
  }, async (req) => invoices.list(principalOf(req).organizationId, req.query))

  app.post('/invoices', {
    schema: { operationId: 'createInvoice', tags, summary: 'Create a draft invoice', description: 'Numbered INV/<year>/<sequence>.', body: S.CreateInvoiceBody, response: responses({ 201: S.Invoice }, [422]) },
  }, async (req, reply) => reply.status(201).send(await invoices.create(principalOf(req).organizationId, req.body)))

  app.get('/invoices/:id', {
    schema: { operationId: 'getInvoice', tags, summary: 'Get an invoice', description: "An invoice of the caller's organization, with its lines and amounts; any other id gives 404.", params: IdParams, response: responses({ 200: S.Invoice }, [404]) },
  }, async (req) => invoices.get(principalOf(req).organizationId, req.params.id))

  app.patch('/invoices/:id', {
    schema: { operationId: 'updateInvoice', tags, summary: 'Update a draft invoice', description: 'Only drafts (400 otherwise). lineItems replaces every line.', params: IdParams, body: S.UpdateInvoiceBody, response: responses({ 200: S.Invoice }, [404, 422]) },
  }, async (req) => invoices.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/invoices/:id', {
    schema: { operationId: 'deleteInvoice', tags, summary: 'Delete a draft invoice', description: 'Only drafts (400 otherwise).', params: IdParams, response: responses({ 204: NoContent }, [404]) },
  }, async (req, reply) => {
    await invoices.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })

  app.post('/invoices/:id/send', {
    schema: {
      operationId: 'sendInvoice', tags, summary: 'E-mail the invoice PDF to the contact',
      description: 'A draft becomes sent; sending an open or paid invoice again e-mails a copy. A cancelled invoice gives 400.',
      params: IdParams, body: S.SendBody, response: responses({ 200: S.SendResult }, [404, 422]),
    },
    ...optionalBody,
  }, async (req) => invoices.send(principalOf(req), req.params.id, req.body))

  app.post('/invoices/:id/pay', {
    schema: {
      operationId: 'payInvoice', tags, summary: 'Record a payment',
      description: 'Partial payments make the invoice partial_paid, the last one paid. Above the amount due: 422; on a cancelled invoice: 400.',
      params: IdParams, body: S.PayBody, response: responses({ 200: S.PaymentResult }, [404, 422]),
    },
  }, async (req) => invoices.pay(principalOf(req).organizationId, req.params.id, req.body))

  app.get('/invoices/:id/payments', {
    schema: { operationId: 'listInvoicePayments', tags, summary: "List an invoice's payments", description: 'The payments recorded on the invoice, sorted by paymentDate or createdAt.', params: IdParams, querystring: S.PaymentListQuery, response: responses({ 200: S.PaymentList }, [404]) },
  }, async (req) => invoices.listPayments(principalOf(req).organizationId, req.params.id, req.query))

  app.post('/invoices/:id/cancel', {
    schema: {
      operationId: 'cancelInvoice', tags, summary: 'Cancel an invoice',
      description: 'For invoices without payments; one with payments is cancelled by a credit note (400). Already cancelled: 400.',
      params: IdParams, response: responses({ 200: S.Invoice }, [404]),
    },
  }, async (req) => invoices.cancel(principalOf(req).organizationId, req.params.id))

  app.post('/invoices/:id/credit-note', {
    schema: {
      operationId: 'createCreditNote', tags, summary: 'Issue a credit note',
      description: 'Numbered CN/<year>/<sequence>; the invoice becomes cancelled. amount defaults to the invoice total and may not exceed it (422).',
      params: IdParams, body: S.CreditNoteBody, response: responses({ 201: S.CreditNote }, [404, 409, 422]),
    },
    ...optionalBody,
  }, async (req, reply) => reply.status(201).send(await invoices.issueCreditNote(principalOf(req).organizationId, req.params.id, req.body)))

  app.get('/invoices/:id/pdf', {
    schema: { operationId: 'getInvoicePdf', tags, summary: 'Download the invoice as PDF', description: 'The invoice rendered as a PDF, the same document that send attaches.', params: IdParams, response: responses({ 200: PdfResponse }, [404]) },
  }, async (req, reply) => {
    const pdf = await invoices.pdf(principalOf(req), req.params.id)
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${pdf.filename}"`).send(pdf.content)
  })

  app.get('/credit-notes', {
    schema: { operationId: 'listCreditNotes', tags, summary: 'List credit notes', description: 'Filters: invoiceId, contactId, from/to (issue date). search matches the credit note and invoice numbers, contact name and e-mail.', querystring: S.CreditNoteListQuery, response: responses({ 200: S.CreditNoteList }, [422]) },
  }, async (req) => invoices.listCreditNotes(principalOf(req).organizationId, req.query))

  app.get('/credit-notes/:id', {
    schema: { operationId: 'getCreditNote', tags, summary: 'Get a credit note', description: "A credit note of the caller's organization; any other id gives 404.", params: IdParams, response: responses({ 200: S.CreditNote }, [404]) },
  }, async (req) => invoices.getCreditNote(principalOf(req).organizationId, req.params.id))
}
