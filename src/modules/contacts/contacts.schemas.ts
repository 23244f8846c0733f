import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import { PostalAddress, PostalAddressInput } from '../../core/documents/index.ts'
import type { PublicEventType } from '../../core/events.ts'

const ContactType = StringEnum(['company', 'individual'] as const)
const Currency = Type.String({ pattern: '^[a-z]{3}$', maxLength: 3, description: 'Lower-case ISO 4217 code, e.g. eur' })

export const Contact = Named('Contact', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  type: ContactType,
  vendor: Type.Boolean(),
  paymentTerms: Type.Optional(Nullable(Type.String())),
  currency: Type.Optional(Nullable(Type.String())),
  leadTimeDays: Type.Optional(Nullable(Type.Integer())),
  minOrderQty: Type.Optional(Nullable(Type.Number())),
  address: Nullable(PostalAddress),
  taxId: Nullable(Type.String({ description: 'VAT number or other tax identification number' })),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}))
export type Contact = Static<typeof Contact>

const writable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Nullable(Type.String({ format: 'email', maxLength: 254 })),
  phone: Nullable(Type.String({ maxLength: 50 })),
  type: ContactType,
  vendor: Type.Boolean(),
  paymentTerms: Nullable(Type.String({ maxLength: 100 })),
  currency: Nullable(Currency),
  // The integer column's bound: beyond it the database refused with 500.
  leadTimeDays: Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  minOrderQty: Nullable(Type.Number({ minimum: 0, maximum: 1_000_000_000 })),
  // Printed in the buyer block of the contact's documents.
  address: Nullable(PostalAddressInput),
  taxId: Nullable(Type.String({ maxLength: 50 })),
}

export const CreateContactBody = Type.Object(
  {
    name: writable.name,
    email: Type.Optional(writable.email),
    phone: Type.Optional(writable.phone),
    type: Type.Optional(writable.type),
    vendor: Type.Optional(writable.vendor),
    paymentTerms: Type.Optional(writable.paymentTerms),
    currency: Type.Optional(writable.currency),
    leadTimeDays: Type.Optional(writable.leadTimeDays),
    minOrderQty: Type.Optional(writable.minOrderQty),
    address: Type.Optional(writable.address),
    taxId: Type.Optional(writable.taxId),
  },
  { additionalProperties: false },
)
export type CreateContact = Static<typeof CreateContactBody>

export const UpdateContactBody = Type.Partial(Type.Object(writable), { additionalProperties: false, minProperties: 1 })
export type UpdateContact = Static<typeof UpdateContactBody>

export const CONTACT_SORTABLE = ['name', 'email', 'createdAt', 'updatedAt'] as const
export const ContactListQuery = listQuery(CONTACT_SORTABLE, {
  email: Type.Optional(Type.String({ maxLength: 254, description: 'Exact e-mail, case-insensitive' })),
  type: Type.Optional(ContactType),
  vendor: Type.Optional(Type.Boolean()),
})
export type ContactListQuery = Static<typeof ContactListQuery>
export const ContactList = Named('ContactList', listOf(Contact))

/** The event types this module appends for integrators (webhooks, GET /events): data.object is the Contact. */
export const contactEventTypes: PublicEventType[] = [
  { type: 'contact.created', version: 1, object: Contact, description: 'A contact was created.' },
  { type: 'contact.updated', version: 1, object: Contact, description: 'A contact was changed (PATCH).' },
  { type: 'contact.deleted', version: 1, object: Contact, description: 'A contact was deleted; data.object is the contact as it was.' },
]
