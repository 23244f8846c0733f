import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import type { DomainEvents } from '../../core/events.ts'
import { NotFoundError, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { contactsRepository as repo } from './contacts.repository.ts'
import type { Contact, ContactListQuery, CreateContact, UpdateContact } from './contacts.schemas.ts'

registerUniqueMessage('contacts_org_email_key', 'A contact with this email already exists')

export type ContactEvent = 'contact.created' | 'contact.updated' | 'contact.deleted'

export class ContactsService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
  ) {}

  private async emit(q: Queryable, type: ContactEvent, contact: Contact) {
    await this.events.append(q, { organizationId: contact.organizationId, type, resource: { type: 'contact', id: contact.id }, object: contact })
    return contact
  }

  create(organizationId: string, input: CreateContact) {
    return this.db.tx(async (q) => this.emit(q, 'contact.created', await repo.insert(q, organizationId, randomUUID(), input)))
  }

  list(organizationId: string, query: ContactListQuery & PageParams) {
    return repo.list(this.db, organizationId, query)
  }

  /** The contact, or 404 when it does not exist in this organization. Other modules use it to check references. */
  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const contact = await repo.find(q, organizationId, id)
    if (!contact) throw new NotFoundError('Contact')
    return contact
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
