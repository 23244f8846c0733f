import { defineModule } from '../../core/module.ts'
import { employeesRoutes } from './employees.routes.ts'
import { EmployeesService } from './employees.service.ts'

export type { EmployeesService }
export { CreateEmployeeBody, UpdateEmployeeBody } from './employees.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    employees: EmployeesService
  }
}

/** Employees, optionally linked to a user of the organization. */
export const employeesModule = defineModule({
  name: 'employees',
  needs: ['identity'],
  async register(app, ctx) {
    const employees = new EmployeesService(ctx.db, ctx.services.identity)
    employeesRoutes(app, employees)
    return employees
  },
})
