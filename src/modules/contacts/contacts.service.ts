import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import type { DomainEvents } from '../../core/events.ts'
import { NotFoundError, isUniqueViolation, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { contactsRepository as repo, newContactRow, toContact, type ContactRow } from './contacts.repository.ts'
import type { Contact, ContactListQuery, CreateContact, UpdateContact } from './contacts.schemas.ts'

registerUniqueMessage('contacts_org_email_key', 'A contact with this email already exists')

export type ContactEvent = 'contact.created' | 'contact.updated' | 'contact.deleted'

/** A new contact without a type is a company, and not a vendor unless it says so. */
export const contactDefaults = (input: CreateContact) => ({ ...input, type: input.type ?? 'company', vendor: input.vendor ?? false })

export class ContactsService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
  ) {}

  private async emit(q: Queryable, type: ContactEvent, contact: Contact) {
    await this.events.append(q, this.event(type, contact))
    return contact
  }

  /**
   * The contact and its contact.created event in one statement (events.insertWith): the
   * service knows the whole row before the insert, so the event's object is the contact
   * as the response gives it.
   */
  async create(organizationId: string, input: CreateContact) {
    const row = newContactRow(organizationId, randomUUID(), contactDefaults(input), new Date())
    const contact = toContact(row)
    const event = { organizationId, type: 'contact.created' satisfies ContactEvent, resource: { type: 'contact', id: row.id }, object: contact }
    return toContact(await this.events.insertWith<ContactRow, Contact>(this.db, repo.insertStatement(row), event))
  }

  list(organizationId: string, query: ContactListQuery & PageParams) {
    return repo.list(this.db, organizationId, query)
  }

  /**
   * Every contact GET /contacts lists with these filters, A to Z, read a page at a time by cursor: the
   * report run `contacts` (docs/analytics.md "Types"), the Contacts page's export.
   */
  async *exportRows(organizationId: string, filters: Pick<ContactListQuery, 'type' | 'vendor'> & { search?: string }): AsyncGenerator<Contact> {
    let cursor: string | undefined
    do {
      const page = await repo.list(this.db, organizationId, { ...filters, page: 1, limit: 100, sortBy: 'name', sortOrder: 'asc', ...(cursor ? { cursor } : {}) })
      yield* page.data
      cursor = page.meta.nextCursor ?? undefined
    } while (cursor)
  }

  /** The contact, or 404 when it does not exist in this organization. Other modules use it to check references. */
  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const contact = await repo.find(q, organizationId, id)
    if (!contact) throw new NotFoundError('Contact')
    return contact
  }

  /**
   * The contact with this e-mail (case-insensitive), created as an individual
   * when there is none. E-mails are unique per organization, so a concurrent
   * creation of the same one is found afterwards instead of failing.
   */
  async findOrCreateByEmail(organizationId: string, input: { name: string; email: string; phone?: string | null }) {
    const byEmail = async () => (await repo.list(this.db, organizationId, { email: input.email, page: 1, limit: 1, sortOrder: 'asc' })).data[0]
    const existing = await byEmail()
    if (existing) return existing
    try {
      return await this.create(organizationId, { name: input.name, email: input.email, phone: input.phone, type: 'individual' })
    } catch (err) {
      if (isUniqueViolation(err)) return (await byEmail())!
      throw err
    }
  }

  /** The ids of the contacts with these e-mails (any case), by lower-cased e-mail: the key of imports. */
  idsByEmail(q: Queryable, organizationId: string, emails: string[]) {
    return repo.idsByEmail(q, organizationId, emails.map((e) => e.toLowerCase()))
  }

  /**
   * Bulk write of an import (docs/imports.md "Writes"), in the caller's
   * transaction: new contacts with the defaults of create, and patches as
   * PATCH applies them, each set in one statement, their contact.created and
   * contact.updated events in one statement per type. The rows were checked
   * by the caller with the schemas of POST and PATCH.
   */
  async writeMany(q: Queryable, organizationId: string, inserts: CreateContact[], updates: ReadonlyArray<{ id: string; patch: UpdateContact }>) {
    const now = new Date()
    const created = await repo.insertMany(q, inserts.map((input) => newContactRow(organizationId, randomUUID(), contactDefaults(input), now)))
    await this.events.appendAll(q, created.map((c) => this.event('contact.created', c)))
    const updated = await repo.updateMany(q, organizationId, updates)
    await this.events.appendAll(q, updated.map((c) => this.event('contact.updated', c)))
    return { created: created.length, updated: updated.length }
  }

  private event(type: ContactEvent, contact: Contact) {
    return { organizationId: contact.organizationId, type, resource: { type: 'contact', id: contact.id }, object: contact }
  }

  update(organizationId: string, id: string, patch: UpdateContact) {
    return this.db.tx(async (q) => {
      const contact = await repo.update(q, organizationId, id, patch)
      if (!contact) throw new NotFoundError('Contact')
      return this.emit(q, 'contact.updated', contact)
    })
  }

  delete(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const contact = await repo.delete(q, organizationId, id)
      if (!contact) throw new NotFoundError('Contact')
      await this.emit(q, 'contact.deleted', contact)
    })
  }
}
