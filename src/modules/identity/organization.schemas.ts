import { Type, type Static } from 'typebox'
import { LOGO_MAX_BYTES, PostalAddress, PostalAddressInput } from '../../core/documents/index.ts'
import { Named, Nullable } from '../../core/schemas.ts'

/** The organization's profile: what its documents print as the seller (GET/PATCH /organization). */
export const OrganizationProfile = Named('OrganizationProfile', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String({ description: 'Display name: the header of documents and the sender of e-mails' }),
  legalName: Nullable(Type.String({ description: 'Registered name, printed under the name when it differs' })),
  address: Nullable(PostalAddress),
  taxId: Nullable(Type.String({ description: 'VAT number or other tax identification number' })),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  logo: Nullable(Type.Object({
    contentType: Type.String({ description: 'image/png or image/jpeg' }),
    size: Type.Integer({ description: 'Bytes' }),
    width: Type.Integer({ description: 'Pixels' }),
    height: Type.Integer({ description: 'Pixels' }),
    url: Type.String({ description: 'Where the image is served: GET /organization/logo' }),
  })),
  paymentInstructions: Nullable(Type.String({ description: 'Printed on invoices that are still to be paid (bank account, IBAN, ...)' })),
  lockDate: Nullable(Type.String({ format: 'date', description: 'The books are closed up to this day: nothing may be posted dated on or before it (docs/accounting.md "Lock date")' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}))
export type OrganizationProfile = Static<typeof OrganizationProfile>

/** Base64 of LOGO_MAX_BYTES, plus room for a data: URL prefix. */
const LOGO_MAX_LENGTH = Math.ceil(LOGO_MAX_BYTES / 3) * 4 + 32

export const UpdateOrganizationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    legalName: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    address: Type.Optional(Nullable(PostalAddressInput)),
    taxId: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
    email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    phone: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
    logo: Type.Optional(Nullable(Type.String({
      maxLength: LOGO_MAX_LENGTH,
      description: `A PNG or JPEG of at most ${LOGO_MAX_BYTES / 1024} KiB and 2000 x 2000 pixels, as base64 or a data: URL; null removes the logo. The type is read from the image's first bytes.`,
    }))),
    paymentInstructions: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    lockDate: Type.Optional(Nullable(Type.String({ format: 'date', maxLength: 10, description: 'YYYY-MM-DD: nothing may be posted dated on or before it; null unlocks', examples: ['2026-03-31'] }))),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateOrganization = Static<typeof UpdateOrganizationBody>

/** The logo image: its bytes, with its own media type. */
export const LogoResponse = {
  description: 'The logo image',
  content: { 'image/png': { schema: { type: 'string', format: 'binary' } }, 'image/jpeg': { schema: { type: 'string', format: 'binary' } } },
}
