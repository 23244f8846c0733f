import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import type { IdentityService } from '../identity/index.ts'
import { employeesRepository as repo } from './employees.repository.ts'
import type { CreateEmployee, EmployeeListQuery, UpdateEmployee } from './employees.schemas.ts'

registerUniqueMessage('employees_user_key', 'Another employee is already linked to this user')

export class EmployeesService {
  constructor(
    private readonly db: Db,
    private readonly identity: IdentityService,
  ) {}

  /** userId must name a user of the same organization. */
  private async checkUser(organizationId: string, userId: string | null | undefined) {
    if (userId && !(await this.identity.findUser(organizationId, userId))) {
      throw new ValidationError('userId does not name a user of this organization')
    }
  }

  async create(organizationId: string, input: CreateEmployee) {
    await this.checkUser(organizationId, input.userId)
    return repo.insert(this.db, organizationId, randomUUID(), input)
  }

  list(organizationId: string, query: EmployeeListQuery & PageParams) {
    return repo.list(this.db, organizationId, query)
  }

  /** The employee or 404; other modules use it to check references (salesperson, assignee). */
  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const employee = await repo.find(q, organizationId, id)
    if (!employee) throw new NotFoundError('Employee')
    return employee
  }

  async update(organizationId: string, id: string, patch: UpdateEmployee) {
    await this.checkUser(organizationId, patch.userId)
    const employee = await repo.update(this.db, organizationId, id, patch)
    if (!employee) throw new NotFoundError('Employee')
    return employee
  }

  async delete(organizationId: string, id: string) {
    if (!(await repo.delete(this.db, organizationId, id))) throw new NotFoundError('Employee')
  }
}
