import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { NoContent, responses } from '../../core/schemas.ts'
import type { LocationsService } from './locations.service.ts'
import * as S from './locations.schemas.ts'

const tags = ['inventory']

export function locationsRoutes(app: App, locations: LocationsService) {
  app.get('/inventory/locations', {
    schema: { operationId: 'listLocations', tags, summary: 'List stock locations', description: 'Filters: type, warehouseId. search matches name and code.', querystring: S.LocationListQuery, response: responses({ 200: S.LocationList }) },
  }, async (req) => locations.list(principalOf(req).organizationId, req.query))

  app.post('/inventory/locations', {
    schema: { operationId: 'createLocation', tags, summary: 'Create a stock location', description: 'The id is LOC-<code>; a code already used gives 409.', body: S.CreateLocationBody, response: responses({ 201: S.Location }, [409, 422]) },
  }, async (req, reply) => reply.status(201).send(await locations.create(principalOf(req).organizationId, req.body)))

  app.get('/inventory/locations/:id', {
    schema: { operationId: 'getLocation', tags, summary: 'Get a stock location', description: "A location of the caller's organization, by its LOC-<code> id; any other id gives 404.", params: S.LocationParams, response: responses({ 200: S.Location }, [404]) },
  }, async (req) => locations.get(principalOf(req).organizationId, req.params.id))

  app.patch('/inventory/locations/:id', {
    schema: { operationId: 'updateLocation', tags, summary: 'Update a stock location', description: 'Changes only the fields sent (at least one); the code, and so the id, never changes. The type of a location that holds stock or is named by a transfer cannot change (409).', params: S.LocationParams, body: S.UpdateLocationBody, response: responses({ 200: S.Location }, [404, 409, 422]) },
  }, async (req) => locations.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/inventory/locations/:id', {
    schema: { operationId: 'deleteLocation', tags, summary: 'Delete a stock location', description: 'A location still referenced by other records gives 409.', params: S.LocationParams, response: responses({ 204: NoContent }, [404, 409]) },
  }, async (req, reply) => {
    await locations.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })
}
