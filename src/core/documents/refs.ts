import { Type } from 'typebox'
import type { Queryable } from '../db.ts'
import { NotFoundError, ValidationError } from '../errors.ts'
import { Named, Nullable } from '../schemas.ts'

/**
 * References to records of other modules, copied onto a document. The lookups
 * are the shapes the contacts and employees services already have, so the
 * kernel names no module.
 */
export interface ContactLookup {
  get(organizationId: string, id: string, q: Queryable): Promise<{ id: string; name: string; email: string | null }>
}
export interface EmployeeLookup {
  get(organizationId: string, id: string, q: Queryable): Promise<{ id: string; name: string }>
}

export const ContactRef = Named('ContactRef', Type.Object({ id: Type.String({ format: 'uuid', maxLength: 36 }), name: Type.String(), email: Nullable(Type.String()) }))
export const EmployeeRef = Named('EmployeeRef', Type.Object({ id: Type.String({ format: 'uuid', maxLength: 36 }), name: Type.String() }))

/** Another module's record named in a body: missing is a bad reference (422), not a missing resource. */
export async function referenced<T>(lookup: Promise<T>, message: string): Promise<T> {
  try {
    return await lookup
  } catch (err) {
    if (err instanceof NotFoundError) throw new ValidationError(message)
    throw err
  }
}

/** The contact as a document embeds it. */
export async function contactRef(contacts: ContactLookup, organizationId: string, contactId: string, q: Queryable, field = 'contactId') {
  const c = await referenced(contacts.get(organizationId, contactId, q), `${field} does not name a contact of this organization`)
  return { id: c.id, name: c.name, email: c.email }
}

export async function employeeRef(employees: EmployeeLookup, organizationId: string, employeeId: string, q: Queryable, field = 'salespersonId') {
  const e = await referenced(employees.get(organizationId, employeeId, q), `${field} does not name an employee of this organization`)
  return { id: e.id, name: e.name }
}
