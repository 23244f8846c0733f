import type { App } from '../../core/module.ts'
import { ADMIN, principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { CrmService } from './crm.service.ts'
import * as S from './crm.schemas.ts'

const tags = ['crm']

export function crmRoutes(app: App, crm: CrmService) {
  app.post('/crm/capture', {
    schema: {
      operationId: 'captureLead', tags, summary: 'Capture a lead (public)', security: [],
      description: "Public, 10 requests per minute per IP. captureToken names the organization (an admin reads it at GET /crm/capture-settings); an unknown token gives 404.",
      body: S.CaptureBody, response: responses({ 201: S.CaptureResult }, [404, 422], { public: true }),
    },
    config: { access: { public: true }, limit: 'capture' },
  }, async (req, reply) => reply.status(201).send(await crm.capture(req.body, req.ip)))

  app.get('/crm/capture-settings', {
    schema: { operationId: 'getLeadCaptureSettings', tags, summary: "The organization's lead capture token", description: 'Admin only. Made on first read.', response: responses({ 200: S.CaptureSettings }) },
    config: { access: { roles: ADMIN } },
  }, async (req) => crm.captureSettings(principalOf(req).organizationId))

  app.post('/crm/capture-settings/rotate', {
    schema: { operationId: 'rotateLeadCaptureToken', tags, summary: 'Replace the capture token', description: 'Admin only. The old token stops working at once.', response: responses({ 200: S.CaptureSettings }) },
    config: { access: { roles: ADMIN } },
  }, async (req) => crm.rotateCaptureToken(principalOf(req).organizationId))

  app.get('/crm/leads', {
    schema: { operationId: 'listLeads', tags, summary: 'List captured leads', description: 'Filters: status, from/to (capture date). search matches name, e-mail and company.', querystring: S.LeadListQuery, response: responses({ 200: S.LeadList }, [422]) },
  }, async (req) => crm.list(principalOf(req).organizationId, req.query))

  app.get('/crm/leads/:id', {
    schema: { operationId: 'getLead', tags, summary: 'Get a lead', description: "A lead of the caller's organization; any other id gives 404.", params: IdParams, response: responses({ 200: S.Lead }, [404]) },
  }, async (req) => crm.get(principalOf(req).organizationId, req.params.id))

  app.post('/crm/leads/:id/convert', {
    schema: {
      operationId: 'convertLead', tags, summary: 'Convert a lead into a contact',
      description: 'Links the lead to the contact with its e-mail, creating it when there is none. Already converted: 409.',
      params: IdParams, response: responses({ 200: S.Lead }, [404, 409]),
    },
  }, async (req) => crm.convert(principalOf(req).organizationId, req.params.id))

  app.delete('/crm/leads/:id', {
    schema: { operationId: 'deleteLead', tags, summary: 'Delete a lead', description: 'Deletes the lead, converted or not; a contact made from it stays.', params: IdParams, response: responses({ 204: NoContent }, [404]) },
  }, async (req, reply) => {
    await crm.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })
}
