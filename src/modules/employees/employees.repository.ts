import { bulkInsert, bulkPatch, type BulkColumn } from '../../core/bulk.ts'
import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, setClause, type PageParams } from '../../core/pagination.ts'
import type { CreateEmployee, Employee, EmployeeListQuery, UpdateEmployee } from './employees.schemas.ts'

interface EmployeeRow {
  id: string
  organization_id: string
  name: string
  email: string | null
  department: string | null
  job_title: string | null
  hire_date: string | null
  user_id: string | null
  created_at: Date
  updated_at: Date
}

const toEmployee = (r: EmployeeRow): Employee => ({
  id: r.id,
  name: r.name,
  email: r.email,
  department: r.department,
  jobTitle: r.job_title,
  hireDate: r.hire_date,
  userId: r.user_id,
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

const COLUMNS: Record<string, string> = { name: 'name', email: 'email', department: 'department', jobTitle: 'job_title', hireDate: 'hire_date', userId: 'user_id' }

/** The written columns with their SQL types, for the set-based writes of imports. */
const TYPES: Record<string, string> = { name: 'text', email: 'text', department: 'text', job_title: 'text', hire_date: 'date', user_id: 'uuid' }
const bulkColumns: BulkColumn[] = [{ column: 'id', type: 'uuid' }, { column: 'organization_id', type: 'uuid' }, ...Object.entries(TYPES).map(([column, type]) => ({ column, type }))]
const bulkFields: Record<string, BulkColumn> = Object.fromEntries(Object.entries(COLUMNS).map(([field, column]) => [field, { column, type: TYPES[column] }]))

export const employeesRepository = {
  /** New employees in one statement. */
  async insertMany(q: Queryable, organizationId: string, rows: ReadonlyArray<{ id: string; input: CreateEmployee }>) {
    const stored = rows.map(({ id, input: e }) => ({
      id, organization_id: organizationId, name: e.name, email: e.email ?? null, department: e.department ?? null, job_title: e.jobTitle ?? null,
      hire_date: e.hireDate ?? null, user_id: e.userId ?? null,
    }))
    return (await bulkInsert<EmployeeRow>(q, 'employees', bulkColumns, stored)).map(toEmployee)
  },

  /** Partial updates of many employees in one statement. */
  async updateMany(q: Queryable, organizationId: string, patches: ReadonlyArray<{ id: string; patch: UpdateEmployee }>) {
    return (await bulkPatch<EmployeeRow>(q, 'employees', organizationId, bulkFields, patches)).map(toEmployee)
  },

  /** The oldest employee with each of these e-mails (lower-cased), by lower-cased e-mail. */
  async idsByEmail(q: Queryable, organizationId: string, emails: string[]) {
    const { rows } = await q.query<{ email: string; id: string }>(
      `SELECT DISTINCT ON (lower(email)) lower(email) AS email, id FROM employees WHERE organization_id = $1 AND lower(email) = ANY($2::text[])
        ORDER BY lower(email), created_at, id`, [organizationId, emails])
    return new Map(rows.map((r) => [r.email, r.id]))
  },

  /** The employees linked to these users: user id -> employee id. */
  async byUser(q: Queryable, organizationId: string, userIds: string[]) {
    const { rows } = await q.query<{ user_id: string; id: string }>(
      'SELECT user_id, id FROM employees WHERE organization_id = $1 AND user_id = ANY($2::uuid[])',
      [organizationId, userIds],
    )
    return new Map(rows.map((r) => [r.user_id, r.id]))
  },

  async insert(q: Queryable, organizationId: string, id: string, e: CreateEmployee) {
    const { rows } = await q.query<EmployeeRow>(
      `INSERT INTO employees (id, organization_id, name, email, department, job_title, hire_date, user_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [id, organizationId, e.name, e.email ?? null, e.department ?? null, e.jobTitle ?? null, e.hireDate ?? null, e.userId ?? null],
    )
    return toEmployee(rows[0])
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<EmployeeRow>('SELECT * FROM employees WHERE organization_id = $1 AND id = $2', [organizationId, id])
    return rows[0] ? toEmployee(rows[0]) : undefined
  },

  list(q: Queryable, organizationId: string, query: EmployeeListQuery & PageParams) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .counted('department', query.department)
      .search(query.search, ['name', 'email'])
    return paginate(q, query, {
      from: 'employees',
      select: '*',
      where,
      sortColumns: { name: 'name', department: 'department', hireDate: 'hire_date', createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toEmployee,
      counter: 'employees',
    })
  },

  async update(q: Queryable, organizationId: string, id: string, patch: UpdateEmployee) {
    const set = setClause(patch, COLUMNS, 2)
    const { rows } = await q.query<EmployeeRow>(
      `UPDATE employees SET ${set.sql}, updated_at = now() WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, ...set.params],
    )
    return rows[0] ? toEmployee(rows[0]) : undefined
  },

  async delete(q: Queryable, organizationId: string, id: string) {
    return (await q.query('DELETE FROM employees WHERE organization_id = $1 AND id = $2', [organizationId, id])).rowCount > 0
  },
}
