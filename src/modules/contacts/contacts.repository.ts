import { bulkInsert, bulkPatch, type BulkColumn } from '../../core/bulk.ts'
import { iso, type Queryable } from '../../core/db.ts'
import { normalizeAddress, type PostalAddress } from '../../core/documents/index.ts'
import { Where, paginate, setClause, type PageParams } from '../../core/pagination.ts'
import type { Contact, ContactListQuery, CreateContact, UpdateContact } from './contacts.schemas.ts'

export interface ContactRow {
  id: string
  organization_id: string
  name: string
  email: string | null
  phone: string | null
  type: 'company' | 'individual'
  vendor: boolean
  payment_terms: string | null
  currency: string | null
  lead_time_days: number | null
  min_order_qty: number | null
  address: PostalAddress | null
  tax_id: string | null
  created_at: Date
  updated_at: Date
}

export function toContact(r: ContactRow): Contact {
  const c: Contact = {
    id: r.id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    type: r.type,
    vendor: r.vendor,
    address: r.address,
    taxId: r.tax_id,
    organizationId: r.organization_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }
  // Vendor terms belong to vendors only (docs/contacts.md "Vendor terms").
  if (r.vendor) Object.assign(c, { paymentTerms: r.payment_terms, currency: r.currency, leadTimeDays: r.lead_time_days, minOrderQty: r.min_order_qty })
  return c
}

const COLUMNS: Record<string, string> = {
  name: 'name',
  email: 'email',
  phone: 'phone',
  type: 'type',
  vendor: 'vendor',
  paymentTerms: 'payment_terms',
  currency: 'currency',
  leadTimeDays: 'lead_time_days',
  minOrderQty: 'min_order_qty',
  address: 'address',
  taxId: 'tax_id',
}

/** The address as stored (jsonb text, or null for none or an empty one). */
const storedAddress = (a: CreateContact['address']) => {
  const n = normalizeAddress(a)
  return n ? JSON.stringify(n) : null
}
/** The tax id as stored: trimmed, null for none. */
const storedTaxId = (t: string | null | undefined) => t?.trim() || null

type NewContact = CreateContact & Required<Pick<CreateContact, 'type' | 'vendor'>>

/**
 * The row a create stores, whole before the insert: the service chose the id
 * and the time, every other column comes from the input (the address
 * normalized, null for none or an empty one; the tax id trimmed).
 */
export function newContactRow(organizationId: string, id: string, c: NewContact, now: Date): ContactRow {
  return {
    id, organization_id: organizationId, name: c.name, email: c.email ?? null, phone: c.phone ?? null, type: c.type, vendor: c.vendor,
    payment_terms: c.paymentTerms ?? null, currency: c.currency ?? null, lead_time_days: c.leadTimeDays ?? null, min_order_qty: c.minOrderQty ?? null,
    address: normalizeAddress(c.address), tax_id: storedTaxId(c.taxId), created_at: now, updated_at: now,
  }
}

/** The columns of a contact with their SQL types, for the set-based writes of imports. */
const BULK_COLUMNS: Record<keyof ContactRow, string> = {
  id: 'uuid', organization_id: 'uuid', name: 'text', email: 'text', phone: 'text', type: 'text', vendor: 'boolean', payment_terms: 'text',
  currency: 'text', lead_time_days: 'integer', min_order_qty: 'numeric', address: 'jsonb', tax_id: 'text', created_at: 'timestamptz', updated_at: 'timestamptz',
}
const bulkColumns: BulkColumn[] = Object.entries(BULK_COLUMNS).map(([column, type]) => ({ column, type }))
const bulkFields: Record<string, BulkColumn> = Object.fromEntries(Object.entries(COLUMNS).map(([field, column]) => [field, { column, type: BULK_COLUMNS[column as keyof ContactRow] }]))

export const contactsRepository = {
  /** New rows, whole (newContactRow), in one statement. */
  async insertMany(q: Queryable, rows: ContactRow[]) {
    return (await bulkInsert<ContactRow>(q, 'contacts', bulkColumns, rows as unknown as Record<string, unknown>[])).map(toContact)
  },

  /** Partial updates of many contacts in one statement: each patch changes only its fields (the address normalized, the tax id trimmed, as update does). */
  async updateMany(q: Queryable, organizationId: string, patches: ReadonlyArray<{ id: string; patch: UpdateContact }>) {
    const stored = patches.map(({ id, patch }) => ({
      id,
      patch: {
        ...patch,
        ...(patch.address !== undefined ? { address: normalizeAddress(patch.address) } : {}),
        ...(patch.taxId !== undefined ? { taxId: storedTaxId(patch.taxId) } : {}),
      },
    }))
    return (await bulkPatch<ContactRow>(q, 'contacts', organizationId, bulkFields, stored)).map(toContact)
  },

  /** The ids of the contacts with these e-mails (lower-cased), by lower-cased e-mail. */
  async idsByEmail(q: Queryable, organizationId: string, emails: string[]) {
    const { rows } = await q.query<{ email: string; id: string }>(
      'SELECT lower(email) AS email, id FROM contacts WHERE organization_id = $1 AND lower(email) = ANY($2::text[])', [organizationId, emails])
    return new Map(rows.map((r) => [r.email, r.id]))
  },

  /** The INSERT of a new row, every column given, answering the stored row (for `events.insertWith`). */
  insertStatement(r: ContactRow) {
    return {
      sql: `INSERT INTO contacts (id, organization_id, name, email, phone, type, vendor, payment_terms, currency, lead_time_days, min_order_qty, address, tax_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING *`,
      params: [r.id, r.organization_id, r.name, r.email, r.phone, r.type, r.vendor, r.payment_terms, r.currency, r.lead_time_days, r.min_order_qty,
        storedAddress(r.address), r.tax_id, r.created_at, r.updated_at],
    }
  },

  async insert(q: Queryable, organizationId: string, id: string, c: NewContact) {
    const { sql, params } = contactsRepository.insertStatement(newContactRow(organizationId, id, c, new Date()))
    const { rows } = await q.query<ContactRow>(sql, params)
    return toContact(rows[0])
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<ContactRow>('SELECT * FROM contacts WHERE organization_id = $1 AND id = $2', [organizationId, id])
    return rows[0] ? toContact(rows[0]) : undefined
  },

  list(q: Queryable, organizationId: string, query: ContactListQuery & PageParams) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .maybe(query.email, 'lower(email) = lower(?)')
      .counted('type', query.type)
      .counted('vendor', query.vendor)
      .search(query.search, ['name', 'email'])
    return paginate(q, query, {
      from: 'contacts',
      select: '*',
      where,
      sortColumns: { name: 'name', email: 'email', createdAt: 'created_at', updatedAt: 'updated_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toContact,
      counter: 'contacts',
    })
  },

  async update(q: Queryable, organizationId: string, id: string, patch: UpdateContact) {
    const stored = {
      ...patch,
      ...(patch.address !== undefined ? { address: storedAddress(patch.address) } : {}),
      ...(patch.taxId !== undefined ? { taxId: storedTaxId(patch.taxId) } : {}),
    }
    const set = setClause(stored, COLUMNS, 2)
    const { rows } = await q.query<ContactRow>(
      `UPDATE contacts SET ${set.sql}, updated_at = now() WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, ...set.params],
    )
    return rows[0] ? toContact(rows[0]) : undefined
  },

  /** Deletes the contact; answers it as it was, or undefined when missing. */
  async delete(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<ContactRow>('DELETE FROM contacts WHERE organization_id = $1 AND id = $2 RETURNING *', [organizationId, id])
    return rows[0] ? toContact(rows[0]) : undefined
  },
}
