import type { Db, Queryable } from '../../core/db.ts'
import { normalizeAddress, readLogo, type DocumentSeller } from '../../core/documents/index.ts'
import { MAX_YEAR, MIN_YEAR } from '../../core/dates.ts'
import { NotFoundError, ValidationError } from '../../core/errors.ts'
import { organizationRepository as repo, toProfile, type ProfileChanges } from './organization.repository.ts'
import type { UpdateOrganization } from './organization.schemas.ts'

/** An optional text as stored: trimmed, and an empty one is no value. */
const text = (v: string | null | undefined) => (v === undefined ? undefined : v?.trim() || null)

/** A lock date as stored: a real day of the years 1900 to 9999 (422 otherwise; docs/accounting.md "Lock date"). */
function lockDateOf(value: string): string {
  const [y, m, d] = value.split('-').map(Number)
  const day = new Date(Date.UTC(y, m - 1, d))
  if (!(y >= MIN_YEAR && y <= MAX_YEAR) || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) throw new ValidationError('lockDate must be a date (YYYY-MM-DD) between 1900 and 9999')
  return value
}

/** The organization's profile: what its documents print as the seller. */
export class OrganizationService {
  constructor(private readonly db: Db) {}

  async get(organizationId: string) {
    const row = await repo.find(this.db, organizationId)
    if (!row) throw new NotFoundError('Organization')
    return toProfile(row)
  }

  async update(organizationId: string, input: UpdateOrganization) {
    if (input.name !== undefined && !input.name.trim()) throw new ValidationError('name must not be blank')
    const changes: ProfileChanges = {
      name: input.name?.trim(),
      legalName: text(input.legalName),
      address: input.address === undefined ? undefined : normalizeAddress(input.address),
      taxId: text(input.taxId),
      email: text(input.email),
      phone: text(input.phone),
      paymentInstructions: input.paymentInstructions === undefined ? undefined : input.paymentInstructions?.replace(/\s+$/u, '') || null,
      lockDate: input.lockDate === undefined || input.lockDate === null ? input.lockDate : lockDateOf(input.lockDate),
      logo: input.logo === undefined ? undefined : input.logo === null ? null : await readLogo(input.logo),
    }
    const row = await repo.update(this.db, organizationId, changes)
    if (!row) throw new NotFoundError('Organization')
    return toProfile(row)
  }

  async logo(organizationId: string) {
    const logo = await repo.logo(this.db, organizationId)
    if (!logo) throw new NotFoundError('Logo')
    return logo
  }

  /** The seller block of a document. `q` is the caller's transaction, if it has one. */
  async documentSeller(organizationId: string, q: Queryable = this.db): Promise<DocumentSeller> {
    const row = await repo.find(q, organizationId)
    if (!row) throw new NotFoundError('Organization')
    const logo = row.logo_type ? await repo.logo(q, organizationId) : undefined
    return {
      name: row.name,
      legalName: row.legal_name,
      address: row.address,
      taxId: row.tax_id,
      email: row.email,
      phone: row.phone,
      logo: logo?.data ?? null,
      paymentInstructions: row.payment_instructions,
    }
  }
}
