import { Type, type Static } from 'typebox'
import { Named, Nullable } from '../../core/schemas.ts'
import { listOf, listQuery } from '../../core/pagination.ts'


export const Employee = Named('Employee', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String(),
  email: Nullable(Type.String()),
  department: Nullable(Type.String()),
  jobTitle: Nullable(Type.String()),
  hireDate: Nullable(Type.String({ format: 'date' })),
  userId: Nullable(Type.String({ format: 'uuid', maxLength: 36 })),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}))
export type Employee = Static<typeof Employee>

const writable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Nullable(Type.String({ format: 'email', maxLength: 254 })),
  department: Nullable(Type.String({ maxLength: 100 })),
  jobTitle: Nullable(Type.String({ maxLength: 100 })),
  hireDate: Nullable(Type.String({ format: 'date', maxLength: 10 })),
  userId: Nullable(Type.String({ format: 'uuid', maxLength: 36, description: 'Optional link to a user of the organization' })),
}
export const CreateEmployeeBody = Type.Object(
  { ...Type.Partial(Type.Object(writable)).properties, name: writable.name },
  { additionalProperties: false },
)
export type CreateEmployee = Static<typeof CreateEmployeeBody>
export const UpdateEmployeeBody = Type.Partial(Type.Object(writable), { additionalProperties: false, minProperties: 1 })
export type UpdateEmployee = Static<typeof UpdateEmployeeBody>

export const EMPLOYEE_SORTABLE = ['name', 'department', 'hireDate', 'createdAt'] as const
export const EmployeeListQuery = listQuery(EMPLOYEE_SORTABLE, { department: Type.Optional(Type.String({ maxLength: 100 })) })
export type EmployeeListQuery = Static<typeof EmployeeListQuery>
export const EmployeeList = Named('EmployeeList', listOf(Employee))
