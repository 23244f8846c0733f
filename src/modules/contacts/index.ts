import { defineModule } from '../../core/module.ts'
import { contactsRoutes } from './contacts.routes.ts'
import { ContactsService } from './contacts.service.ts'
import { contactEventTypes } from './contacts.schemas.ts'

export type { ContactsService }
export { CreateContactBody, UpdateContactBody } from './contacts.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    contacts: ContactsService
  }
}

/** Contacts: customers and vendors (docs/contacts.md "Fields"). The CRUD example of docs/architecture.md. */
export const contactsModule = defineModule({
  name: 'contacts',
  needs: [],
  async register(app, ctx) {
    const contacts = new ContactsService(ctx.db, ctx.events)
    ctx.events.declare(contactEventTypes)
    contactsRoutes(app, contacts)
    return contacts
  },
})
