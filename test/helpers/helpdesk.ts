// Factories of the helpdesk tests (src/modules/helpdesk), through the API.
import type { App } from '../../src/core/module.ts'
import { call, unique, type TestOrg } from './app.ts'
import { createContact } from './sales-fixtures.ts'
import { createUser } from './tenancy.ts'

export async function createTicket(o: TestOrg, overrides: Record<string, unknown> = {}, token?: string) {
  const contactId = overrides.contactId ?? (await createContact(o)).id
  const res = await o.post('/helpdesk/tickets', { subject: unique('Printer on fire '), ...overrides, contactId }, token)
  if (res.status !== 201) throw new Error(`ticket: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

export async function createTeam(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await o.post('/helpdesk/teams', { name: unique('Team '), memberIds: [], ...overrides })
  if (res.status !== 201) throw new Error(`team: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string; memberIds: string[] }
}

export async function createSla(o: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await o.post('/helpdesk/sla', { name: unique('SLA '), firstResponseHours: 4, resolutionHours: 24, applies: ['high'], ...overrides })
  if (res.status !== 201) throw new Error(`sla: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { id: string; name: string }
}

/** A user of the role with a logged-in access token (its own user, so its e-mail and name are its own). */
export async function userWithToken(app: App, o: TestOrg, role: string) {
  const user = await createUser(o, role)
  const login = await call(app, 'POST', '/auth/login', { body: { email: user.email, password: 'long enough password' } })
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`)
  return { ...user, token: login.body.accessToken as string }
}

/** The organization's public capture token (the one POST /support takes). */
export async function captureToken(o: TestOrg) {
  return (await o.get('/crm/capture-settings')).body.captureToken as string
}
