import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { EmployeesService } from './employees.service.ts'
import * as S from './employees.schemas.ts'

const tags = ['employees']

export function employeesRoutes(app: App, employees: EmployeesService) {
  app.get('/employees', {
    schema: { tags, summary: 'List employees', querystring: S.EmployeeListQuery, response: responses({ 200: S.EmployeeList }) },
  }, async (req) => employees.list(principalOf(req).organizationId, req.query))

  app.post('/employees', {
    schema: { tags, summary: 'Create an employee', body: S.CreateEmployeeBody, response: responses({ 201: S.Employee }, [409, 422]) },
  }, async (req, reply) => reply.status(201).send(await employees.create(principalOf(req).organizationId, req.body)))

  app.get('/employees/:id', {
    schema: { tags, summary: 'Get an employee', params: IdParams, response: responses({ 200: S.Employee }, [404]) },
  }, async (req) => employees.get(principalOf(req).organizationId, req.params.id))

  app.patch('/employees/:id', {
    schema: { tags, summary: 'Update an employee', params: IdParams, body: S.UpdateEmployeeBody, response: responses({ 200: S.Employee }, [404, 409, 422]) },
  }, async (req) => employees.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/employees/:id', {
    schema: { tags, summary: 'Delete an employee', params: IdParams, response: responses({ 204: NoContent }, [404, 409]) },
  }, async (req, reply) => {
    await employees.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })
}
