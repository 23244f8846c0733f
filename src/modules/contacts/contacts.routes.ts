import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { ContactsService } from './contacts.service.ts'
import * as S from './contacts.schemas.ts'

const tags = ['contacts']

export function contactsRoutes(app: App, contacts: ContactsService) {
  app.get('/contacts', {
    schema: { tags, summary: 'List contacts', querystring: S.ContactListQuery, response: responses({ 200: S.ContactList }) },
  }, async (req) => contacts.list(principalOf(req).organizationId, req.query))

  app.post('/contacts', {
    schema: { tags, summary: 'Create a contact', description: 'E-mail is unique in the organization (409).', body: S.CreateContactBody, response: responses({ 201: S.Contact }, [409, 422]) },
  }, async (req, reply) => reply.status(201).send(await contacts.create(principalOf(req).organizationId, req.body)))

  app.get('/contacts/:id', {
    schema: { tags, summary: 'Get a contact', params: IdParams, response: responses({ 200: S.Contact }, [404]) },
  }, async (req) => contacts.get(principalOf(req).organizationId, req.params.id))

  app.patch('/contacts/:id', {
    schema: { tags, summary: 'Update a contact', params: IdParams, body: S.UpdateContactBody, response: responses({ 200: S.Contact }, [404, 409, 422]) },
  }, async (req) => contacts.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/contacts/:id', {
    schema: { tags, summary: 'Delete a contact', description: 'A contact still referenced by other records gives 409.', params: IdParams, response: responses({ 204: NoContent }, [404, 409]) },
  }, async (req, reply) => {
    await contacts.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })
}
