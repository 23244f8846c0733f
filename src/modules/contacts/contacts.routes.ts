import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { ContactsService } from './contacts.service.ts'
import * as S from './contacts.schemas.ts'

const tags = ['contacts']

export function contactsRoutes(app: App, contacts: ContactsService) {
  app.get('/contacts', {
    schema: { operationId: 'listContacts', tags, summary: 'List contacts', description: 'Filters: email (exact, any case), type, vendor. search matches name and e-mail.', querystring: S.ContactListQuery, response: responses({ 200: S.ContactList }) },
  }, async (req) => contacts.list(principalOf(req).organizationId, req.query))

  app.post('/contacts', {
    schema: { operationId: 'createContact', tags, summary: 'Create a contact', description: 'E-mail is unique in the organization (409).', body: S.CreateContactBody, response: responses({ 201: S.Contact }, [409, 422]) },
  }, async (req, reply) => reply.status(201).send(await contacts.create(principalOf(req).organizationId, req.body)))

  app.get('/contacts/:id', {
    schema: { operationId: 'getContact', tags, summary: 'Get a contact', description: "A contact of the caller's organization; any other id gives 404.", params: IdParams, response: responses({ 200: S.Contact }, [404]) },
  }, async (req) => contacts.get(principalOf(req).organizationId, req.params.id))

  app.patch('/contacts/:id', {
    schema: { operationId: 'updateContact', tags, summary: 'Update a contact', description: 'Changes only the fields sent (at least one). E-mail is unique in the organization (409).', params: IdParams, body: S.UpdateContactBody, response: responses({ 200: S.Contact }, [404, 409, 422]) },
  }, async (req) => contacts.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/contacts/:id', {
    schema: { operationId: 'deleteContact', tags, summary: 'Delete a contact', description: 'A contact still referenced by other records gives 409.', params: IdParams, response: responses({ 204: NoContent }, [404, 409]) },
  }, async (req, reply) => {
    await contacts.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })
}
