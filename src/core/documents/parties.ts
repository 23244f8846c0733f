import { Type, type Static } from 'typebox'
import type { Queryable } from '../db.ts'
import { NotFoundError } from '../errors.ts'
import { Named, Nullable } from '../schemas.ts'

/**
 * The two parties of a commercial document: the seller (the organization's
 * profile) and the buyer (the contact). Their postal address has one shape
 * everywhere: the organization profile and contacts both use PostalAddress.
 */

const Country = Type.String({ pattern: '^[A-Za-z]{2}$', maxLength: 2, description: 'ISO 3166-1 alpha-2 code (e.g. PL); stored upper-case, printed as the country name' })

/** A postal address as clients send it (every field optional). */
export const PostalAddressInput = Type.Object(
  {
    lines: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 4, description: 'Street, building, suite: one to four lines' })),
    city: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    postalCode: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
    country: Type.Optional(Nullable(Country)),
  },
  { additionalProperties: false },
)
export type PostalAddressInput = Static<typeof PostalAddressInput>

/** A postal address as the API shows it: every field present. */
export const PostalAddress = Named('PostalAddress', Type.Object({
  lines: Type.Array(Type.String()),
  city: Nullable(Type.String()),
  postalCode: Nullable(Type.String()),
  country: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2 code' })),
}))
export type PostalAddress = Static<typeof PostalAddress>

/** The stored form of an address input: every field present, the country upper-case; an empty address is null. */
export function normalizeAddress(a: PostalAddressInput | null | undefined): PostalAddress | null {
  if (!a) return null
  const out: PostalAddress = {
    lines: (a.lines ?? []).map((l) => l.trim()).filter(Boolean),
    city: a.city?.trim() || null,
    postalCode: a.postalCode?.trim() || null,
    country: a.country ? a.country.toUpperCase() : null,
  }
  return out.lines.length || out.city || out.postalCode || out.country ? out : null
}

/** A party as a document prints it. */
export interface DocumentParty {
  name: string
  legalName?: string | null
  address?: PostalAddress | null
  taxId?: string | null
  email?: string | null
  phone?: string | null
}

/** The seller: the organization's profile, with its logo and how to pay it. */
export interface DocumentSeller extends DocumentParty {
  logo?: Buffer | null
  paymentInstructions?: string | null
}

/** Who prints the document: the identity module's service satisfies it. */
export interface SellerLookup {
  documentSeller(organizationId: string, q?: Queryable): Promise<DocumentSeller>
}

/** The buyer's current record: the contacts module's service satisfies it. */
export interface BuyerLookup {
  get(organizationId: string, id: string, q: Queryable): Promise<DocumentParty>
}

/**
 * The buyer block of a document: the name and e-mail copied onto the document,
 * with the contact's current address and tax id when the contact still exists.
 */
export async function documentBuyer(
  contacts: BuyerLookup,
  organizationId: string,
  copied: { id: string; name: string; email: string | null },
  q: Queryable,
): Promise<DocumentParty> {
  try {
    const c = await contacts.get(organizationId, copied.id, q)
    return { name: copied.name, email: copied.email, address: c.address ?? null, taxId: c.taxId ?? null, phone: c.phone ?? null }
  } catch (err) {
    if (err instanceof NotFoundError) return { name: copied.name, email: copied.email }
    throw err
  }
}

// Countries that write the postal code after the city ("Springfield IL 62701", "London SW1A 1AA").
const CODE_AFTER_CITY = new Set(['US', 'CA', 'AU', 'GB', 'IE', 'NZ', 'IN', 'SG', 'ZA'])
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' })

/** The address as printed lines: street lines, postal code and city in the country's order, the country's name. */
export function addressLines(a: PostalAddress | null | undefined): string[] {
  if (!a) return []
  const out = [...a.lines]
  const place = a.country && CODE_AFTER_CITY.has(a.country) ? [a.city, a.postalCode] : [a.postalCode, a.city]
  const placeLine = place.filter(Boolean).join(' ')
  if (placeLine) out.push(placeLine)
  if (a.country) {
    let name: string | undefined
    try {
      name = regionNames.of(a.country)
    } catch {
      name = undefined
    }
    out.push(name ?? a.country)
  }
  return out
}
