import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { contactsRepository as repo } from './contacts.repository.ts'
import type { ContactListQuery, CreateContact, UpdateContact } from './contacts.schemas.ts'

registerUniqueMessage('contacts_org_email_key', 'A contact with this email already exists')

export class ContactsService {
  constructor(private readonly db: Db) {}

  create(organizationId: string, input: CreateContact) {
    return repo.insert(this.db, organizationId, randomUUID(), input)
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

  async update(organizationId: string, id: string, patch: UpdateContact) {
    const contact = await repo.update(this.db, organizationId, id, patch)
    if (!contact) throw new NotFoundError('Contact')
    return contact
  }

  async delete(organizationId: string, id: string) {
    if (!(await repo.delete(this.db, organizationId, id))) throw new NotFoundError('Contact')
  }
}
