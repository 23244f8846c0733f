import type { App } from '../../core/module.ts'
import { principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { EmployeesService } from './employees.service.ts'
import * as S from './employees.schemas.ts'

const tags = ['employees']

export function employeesRoutes(app: App, employees: EmployeesService) {
  app.get('/employees', {
    schema: { operationId: 'listEmployees', tags, summary: 'List employees', description: 'Filter: department. search matches name and e-mail.', querystring: S.EmployeeListQuery, response: responses({ 200: S.EmployeeList }) },
  }, async (req) => employees.list(principalOf(req).organizationId, req.query))

  app.post('/employees', {
    schema: { operationId: 'createEmployee', tags, summary: 'Create an employee', description: 'userId optionally links the employee to a user of the organization; a user already linked to another employee gives 409.', body: S.CreateEmployeeBody, response: responses({ 201: S.Employee }, [409, 422]) },
  }, async (req, reply) => reply.status(201).send(await employees.create(principalOf(req).organizationId, req.body)))

  app.get('/employees/:id', {
    schema: { operationId: 'getEmployee', tags, summary: 'Get an employee', description: "An employee of the caller's organization; any other id gives 404.", params: IdParams, response: responses({ 200: S.Employee }, [404]) },
  }, async (req) => employees.get(principalOf(req).organizationId, req.params.id))

  app.patch('/employees/:id', {
    schema: { operationId: 'updateEmployee', tags, summary: 'Update an employee', description: 'Changes only the fields sent (at least one). A user already linked to another employee gives 409.', params: IdParams, body: S.UpdateEmployeeBody, response: responses({ 200: S.Employee }, [404, 409, 422]) },
  }, async (req) => employees.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/employees/:id', {
    schema: { operationId: 'deleteEmployee', tags, summary: 'Delete an employee', description: 'An employee still referenced by other records (a salesperson of quotations or orders) gives 409.', params: IdParams, response: responses({ 204: NoContent }, [404, 409]) },
  }, async (req, reply) => {
    await employees.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })
}
