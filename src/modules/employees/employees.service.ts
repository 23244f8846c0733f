import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, ValidationError, registerUniqueMessage, uniqueMessage } from '../../core/errors.ts'
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

  /** The ids of the employees with these e-mails (any case; the oldest of several), by lower-cased e-mail: the key of imports. */
  idsByEmail(q: Queryable, organizationId: string, emails: string[]) {
    return repo.idsByEmail(q, organizationId, emails.map((e) => e.toLowerCase()))
  }

  /**
   * The rules of create and update beyond the schema for the rows of an
   * import (docs/imports.md "Checks"): userId names a user of the
   * organization, linked to no other employee (nor to another row).
   * Answers the problems of each row by its index.
   */
  async importProblems(q: Queryable, organizationId: string, rows: ReadonlyArray<{ id?: string; userId?: string | null }>) {
    const userIds = [...new Set(rows.flatMap((r) => (r.userId ? [r.userId] : [])))]
    const problems = new Map<number, string>()
    if (!userIds.length) return problems
    const known = new Set<string>()
    for (const id of userIds) if (await this.identity.findUser(organizationId, id)) known.add(id)
    const linked = await repo.byUser(q, organizationId, userIds)
    const taken = new Set<string>()
    rows.forEach((r, i) => {
      if (!r.userId) return
      if (!known.has(r.userId)) problems.set(i, 'userId does not name a user of this organization')
      else if ((linked.has(r.userId) && linked.get(r.userId) !== r.id) || taken.has(r.userId)) problems.set(i, uniqueMessage('employees_user_key'))
      taken.add(r.userId)
    })
    return problems
  }

  /** Bulk write of an import, in the caller's transaction: new employees and patches (PATCH semantics), one statement each. */
  async writeMany(q: Queryable, organizationId: string, inserts: CreateEmployee[], updates: ReadonlyArray<{ id: string; patch: UpdateEmployee }>) {
    const created = await repo.insertMany(q, organizationId, inserts.map((input) => ({ id: randomUUID(), input })))
    const updated = await repo.updateMany(q, organizationId, updates)
    return { created: created.length, updated: updated.length }
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
