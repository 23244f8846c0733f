import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { employeesRoutes } from './employees.routes.ts'
import { EmployeesService } from './employees.service.ts'

declare module '../services.ts' {
  interface Services {
    employees: EmployeesService
  }
}

export async function employeesModule(app: App, ctx: ModuleContext) {
  const employees = new EmployeesService(ctx.db, ctx.services.identity)
  ctx.services.employees = employees
  employeesRoutes(app, employees)
}
