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

export const employeesRepository = {
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
