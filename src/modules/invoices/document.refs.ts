import type { Principal } from '../../core/auth.ts'
import type { Queryable } from '../../core/db.ts'
import { NotFoundError, ValidationError } from '../../core/errors.ts'
import type { ContactsService } from '../contacts/contacts.service.ts'
import type { EmployeesService } from '../employees/employees.service.ts'
import type { IdentityService } from '../identity/identity.service.ts'
import type { MailService } from '../mail/mail.service.ts'

/** Another module's record named in a body: missing is a bad reference (422), not a missing resource. */
async function referenced<T>(lookup: Promise<T>, message: string): Promise<T> {
  try {
    return await lookup
  } catch (err) {
    if (err instanceof NotFoundError) throw new ValidationError(message)
    throw err
  }
}

/** The contact as a document embeds it (copied onto the document). */
export async function contactRef(contacts: ContactsService, organizationId: string, contactId: string, q: Queryable) {
  const c = await referenced(contacts.get(organizationId, contactId, q), 'contactId does not name a contact of this organization')
  return { id: c.id, name: c.name, email: c.email }
}

export async function employeeRef(employees: EmployeesService, organizationId: string, employeeId: string, q: Queryable) {
  const e = await referenced(employees.get(organizationId, employeeId, q), 'salespersonId does not name an employee of this organization')
  return { id: e.id, name: e.name }
}

/** The caller's organization name, printed on documents and e-mails. */
export async function organizationName(identity: IdentityService, principal: Principal) {
  return (await identity.me(principal)).organization.name
}

/** A document number as a file name: INV/2026/00001 -> INV-2026-00001.pdf */
export const pdfFilename = (number: string) => `${number.replace(/\//g, '-')}.pdf`

/** Queues the document's e-mail with its PDF attached, in the caller's transaction; the recipient is required (422). */
export async function mailDocument(
  mail: MailService,
  q: Queryable,
  m: { organizationId: string; to: string | null | undefined; subject: string; text: string; number: string; pdf: () => Promise<Buffer> },
): Promise<string> {
  if (!m.to) throw new ValidationError('The contact has no e-mail address; give one in `to`')
  await mail.enqueue(q, {
    organizationId: m.organizationId,
    to: m.to,
    subject: m.subject,
    text: m.text,
    attachments: [{ filename: pdfFilename(m.number), contentType: 'application/pdf', content: await m.pdf() }],
  })
  return m.to
}
