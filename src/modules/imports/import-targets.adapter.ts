import type { TSchema } from 'typebox'
import type { Queryable } from '../../core/db.ts'
import { uniqueMessage } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import { CreateContactBody, UpdateContactBody } from '../contacts/index.ts'
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

const lowerString = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : undefined)

export function importTargets(s: Pick<Services, 'contacts'>): Partial<Record<ImportResource, ImportTarget>> {
  return {
    contacts: {
      create: CreateContactBody,
      update: UpdateContactBody,
      keyField: 'email',
      takenMessage: uniqueMessage('contacts_org_email_key'),
      keyOf: (input) => lowerString(input.email),
      existing: (q, organizationId, keys) => s.contacts.idsByEmail(q, organizationId, keys),
      write: (q, organizationId, inserts, updates) =>
        s.contacts.writeMany(q, organizationId, inserts.map((p) => p.input as never), updates.map((p) => ({ id: p.id!, patch: p.input as never }))),
    },
  }
}
