import { iso, type Queryable } from '../../core/db.ts'
import type { PostalAddress } from '../../core/documents/index.ts'
import { API_PREFIX } from '../../core/openapi.ts'
import type { OrganizationProfile } from './organization.schemas.ts'

export interface OrganizationRow {
  id: string
  name: string
  legal_name: string | null
  address: PostalAddress | null
  tax_id: string | null
  email: string | null
  phone: string | null
  payment_instructions: string | null
  lock_date: string | null
  logo_type: string | null
  logo_size: number | null
  logo_width: number | null
  logo_height: number | null
  created_at: Date
  updated_at: Date
}

/** Every column but the logo's bytes, which only the logo route and documents read. */
const PROFILE = `id, name, legal_name, address, tax_id, email, phone, payment_instructions,
  logo_type, octet_length(logo) AS logo_size, logo_width, logo_height, to_char(lock_date, 'YYYY-MM-DD') AS lock_date, created_at, updated_at`

export const LOGO_PATH = `${API_PREFIX}/organization/logo`

export const toProfile = (r: OrganizationRow): OrganizationProfile => ({
  id: r.id,
  name: r.name,
  legalName: r.legal_name,
  address: r.address,
  taxId: r.tax_id,
  email: r.email,
  phone: r.phone,
  logo: r.logo_type
    ? { contentType: r.logo_type, size: Number(r.logo_size), width: Number(r.logo_width), height: Number(r.logo_height), url: LOGO_PATH }
    : null,
  paymentInstructions: r.payment_instructions,
  lockDate: r.lock_date,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

/** What an update writes: undefined leaves a column as it is. */
export interface ProfileChanges {
  name?: string
  legalName?: string | null
  address?: PostalAddress | null
  taxId?: string | null
  email?: string | null
  phone?: string | null
  paymentInstructions?: string | null
  lockDate?: string | null
  logo?: { data: Buffer; contentType: string; width: number; height: number } | null
}

export const organizationRepository = {
  async find(q: Queryable, id: string) {
    const { rows } = await q.query<OrganizationRow>(`SELECT ${PROFILE} FROM organizations WHERE id = $1`, [id])
    return rows[0]
  },

  async logo(q: Queryable, id: string) {
    const { rows } = await q.query<{ logo: Uint8Array | null; logo_type: string | null }>('SELECT logo, logo_type FROM organizations WHERE id = $1', [id])
    const r = rows[0]
    return r?.logo && r.logo_type ? { data: Buffer.from(r.logo), contentType: r.logo_type } : undefined
  },

  async update(q: Queryable, id: string, c: ProfileChanges) {
    const sets: string[] = []
    const params: unknown[] = [id]
    const set = (column: string, value: unknown) => {
      params.push(value)
      sets.push(`${column} = $${params.length}`)
    }
    if (c.name !== undefined) set('name', c.name)
    if (c.legalName !== undefined) set('legal_name', c.legalName)
    if (c.address !== undefined) set('address', c.address === null ? null : JSON.stringify(c.address))
    if (c.taxId !== undefined) set('tax_id', c.taxId)
    if (c.email !== undefined) set('email', c.email)
    if (c.phone !== undefined) set('phone', c.phone)
    if (c.paymentInstructions !== undefined) set('payment_instructions', c.paymentInstructions)
    if (c.lockDate !== undefined) set('lock_date', c.lockDate)
    if (c.logo !== undefined) {
      set('logo', c.logo?.data ?? null)
      set('logo_type', c.logo?.contentType ?? null)
      set('logo_width', c.logo?.width ?? null)
      set('logo_height', c.logo?.height ?? null)
    }
    const { rows } = await q.query<OrganizationRow>(
      `UPDATE organizations SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING ${PROFILE}`,
      params,
    )
    return rows[0]
  },
}
