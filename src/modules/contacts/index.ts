import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { contactsRoutes } from './contacts.routes.ts'
import { ContactsService } from './contacts.service.ts'

declare module '../services.ts' {
  interface Services {
    contacts: ContactsService
  }
}

export async function contactsModule(app: App, ctx: ModuleContext) {
  const contacts = new ContactsService(ctx.db)
  ctx.services.contacts = contacts
  contactsRoutes(app, contacts)
}
