import type { TSchema } from 'typebox'
import type { Queryable } from '../../core/db.ts'
import { uniqueMessage } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import { CreateContactBody, UpdateContactBody } from '../contacts/index.ts'
import { CreateEmployeeBody, UpdateEmployeeBody } from '../employees/index.ts'
import { StockImportRow } from '../inventory/index.ts'
import { CreateProductBody, UpdateProductBody } from '../products/index.ts'
import type { ImportError, ImportResource } from './imports.schemas.ts'

/** A checked row bound for a write: a new record, or a patch of the record `id`. */
export interface Planned {
  row: number
  input: Record<string, unknown>
  id?: string
}

/**
 * A resource an import writes, shaped from its module's public face: the
 * schemas of its POST and PATCH, the key of upsert, the lookup of existing
 * keys, the service rules of the single routes beyond the schema, and the
 * set-based write (docs/imports.md "Resources").
 */
export interface ImportTarget {
  create: TSchema
  update: TSchema
  /** The field that identifies a record (upsert), and the message of insert when it is taken (the POST's). */
  keyField: string
  /** The key as the message of two rows of one key names it (default keyField). */
  keyLabel?: string
  takenMessage: string
  /** The key of a row as matched (e-mails lower-cased), or undefined when the row has none. */
  keyOf(input: Record<string, unknown>): string | undefined
  /** The ids of the existing records with these keys. */
  existing(q: Queryable, organizationId: string, keys: string[]): Promise<Map<string, string>>
  /** The service rules of the single POST or PATCH beyond the schema: errors of rows. */
  check?(q: Queryable, organizationId: string, rows: Planned[]): Promise<ImportError[]>
  /** Writes the rows, in the caller's transaction; answers the counts. */
  write(q: Queryable, organizationId: string, inserts: Planned[], updates: Planned[]): Promise<{ created: number; updated: number }>
}

type WriteMany = (q: Queryable, organizationId: string, inserts: never[], updates: Array<{ id: string; patch: never }>) => Promise<{ created: number; updated: number }>

/** A module's writeMany (new records' inputs, then patches by id) as the write of a target. */
const byKind = (writeMany: WriteMany): ImportTarget['write'] => (q, organizationId, inserts, updates) =>
  writeMany(q, organizationId, inserts.map((p) => p.input as never), updates.map((p) => ({ id: p.id!, patch: p.input as never })))

const lowerString = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : undefined)

export function importTargets(s: Pick<Services, 'contacts' | 'products' | 'employees' | 'inventory'>): Record<ImportResource, ImportTarget> {
  return {
    contacts: {
      create: CreateContactBody,
      update: UpdateContactBody,
      keyField: 'email',
      takenMessage: uniqueMessage('contacts_org_email_key'),
      keyOf: (input) => lowerString(input.email),
      existing: (q, organizationId, keys) => s.contacts.idsByEmail(q, organizationId, keys),
      write: byKind(s.contacts.writeMany.bind(s.contacts)),
    },
    products: {
      create: CreateProductBody,
      update: UpdateProductBody,
      keyField: 'sku',
      takenMessage: uniqueMessage('products_org_sku_key'),
      keyOf: (input) => (typeof input.sku === 'string' ? input.sku : undefined),
      existing: (q, organizationId, keys) => s.products.idsBySku(q, organizationId, keys),
      check: async (q, organizationId, rows) => {
        const problems = await s.products.importProblems(q, organizationId, rows.map((r) => ({ id: r.id, input: r.input as never })))
        return [...problems].flatMap(([i, messages]) => messages.map((message) => ({ row: rows[i].row, field: fieldOf(message), message })))
      },
      write: byKind(s.products.writeMany.bind(s.products)),
    },
    employees: {
      create: CreateEmployeeBody,
      update: UpdateEmployeeBody,
      keyField: 'email',
      takenMessage: 'An employee with this email already exists (mode upsert updates it)',
      keyOf: (input) => lowerString(input.email),
      existing: (q, organizationId, keys) => s.employees.idsByEmail(q, organizationId, keys),
      check: async (q, organizationId, rows) => {
        const problems = await s.employees.importProblems(q, organizationId, rows.map((r) => ({ id: r.id, userId: r.input.userId as string | null | undefined })))
        return [...problems].map(([i, message]) => ({ row: rows[i].row, field: 'userId', message }))
      },
      write: byKind(s.employees.writeMany.bind(s.employees)),
    },
    stock: {
      create: StockImportRow,
      update: StockImportRow,
      keyField: 'locationId',
      keyLabel: 'sku and locationId',
      takenMessage: 'This location already holds stock of this product (mode upsert sets it)',
      keyOf: (input) => (typeof input.sku === 'string' && typeof input.locationId === 'string' ? JSON.stringify([input.sku, input.locationId]) : undefined),
      // A key "exists" where the location holds a quantity of the product (not zero).
      existing: async (q, organizationId, keys) => {
        const rows = keys.map((k) => JSON.parse(k) as [string, string]).map(([sku, locationId]) => ({ sku, locationId, quantity: 0 }))
        const { held } = await s.inventory.stockRowProblems(q, organizationId, rows)
        return new Map(keys.flatMap((k, i) => (held[i].quantity !== 0 ? [[k, k] as [string, string]] : [])))
      },
      check: async (q, organizationId, rows) => {
        const { problems } = await s.inventory.stockRowProblems(q, organizationId, rows.map((r) => r.input as StockRow))
        return [...problems].map(([i, p]) => ({ row: rows[i].row, ...p }))
      },
      write: async (q, organizationId, inserts, updates) => {
        const rows = [...inserts, ...updates].map((r) => r.input as StockRow)
        const ids = await s.products.idsBySku(q, organizationId, [...new Set(rows.map((r) => r.sku))])
        await s.inventory.setStock(q, organizationId, rows.map((r) => ({ productId: ids.get(r.sku)!, locationId: r.locationId, quantity: r.quantity })))
        return { created: inserts.length, updated: updates.length }
      },
    },
  }
}

type StockRow = { sku: string; locationId: string; quantity: number }

/** The field a service rule's message names first ("erpVersion is required ..."). */
const fieldOf = (message: string) => /^[a-zA-Z]+/.exec(message)?.[0] ?? ''
