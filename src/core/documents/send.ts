import { Type, type Static } from 'typebox'
import type { Principal } from '../auth.ts'
import type { Queryable } from '../db.ts'
import { ValidationError } from '../errors.ts'
import { Timestamp } from '../dates.ts'
import { Named } from '../schemas.ts'
import { pdfFilename } from './pdf.ts'

/** What mailing a document needs: the mail module's service satisfies it. */
export interface MailQueue {
  enqueue(q: Queryable, m: {
    organizationId: string
    to: string
    subject: string
    text: string
    attachments?: Array<{ filename: string; contentType: string; content: Buffer }>
  }): Promise<unknown>
}

/** Who prints the document: the identity module's service satisfies it. */
export interface OrganizationLookup {
  me(principal: Principal): Promise<{ organization: { name: string } }>
}

/** The caller's organization name, printed on documents and e-mails. */
export async function organizationName(identity: OrganizationLookup, principal: Principal) {
  return (await identity.me(principal)).organization.name
}

/** Body of POST /<document>/:id/send. */
export const SendBody = Type.Object(
  {
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    message: Type.Optional(Type.String({ maxLength: 10_000 })),
    to: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: "Defaults to the contact's e-mail" })),
  },
  { additionalProperties: false },
)
export type SendInput = Static<typeof SendBody>
export const SendResult = Named('SendResult', Type.Object({ sent: Type.Boolean(), to: Type.String(), sentAt: Timestamp }))

/** Queues the document's e-mail with its PDF attached, in the caller's transaction; the recipient is required (422). */
export async function mailDocument(
  mail: MailQueue,
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
