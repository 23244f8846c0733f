import { randomBytes, randomUUID } from 'node:crypto'
import type { Db } from '../../core/db.ts'
import { NotFoundError, StateConflictError } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import type { ContactsService } from '../contacts/index.ts'
import { crmRepository as repo } from './crm.repository.ts'
import type { CaptureInput, LeadListQuery } from './crm.schemas.ts'
import { parseRange } from '../../core/dates.ts'

const newToken = () => `cap_${randomBytes(18).toString('base64url')}`

/**
 * Public lead capture: a web form posts to POST /crm/capture with the
 * organization's capture token; staff list the leads and convert them into
 * contacts. The token is public by design (it sits in web pages), so an admin
 * can rotate it when it is abused.
 */
export class CrmService {
  constructor(
    private readonly db: Db,
    private readonly contacts: ContactsService,
    private readonly endpoint: string,
  ) {}

  private settings(row: { token: string; rotated_at: Date }) {
    return { captureToken: row.token, endpoint: this.endpoint, rotatedAt: row.rotated_at.toISOString() }
  }

  async captureSettings(organizationId: string) {
    return this.settings(await repo.captureToken(this.db, organizationId, newToken()))
  }

  async rotateCaptureToken(organizationId: string) {
    return this.settings(await repo.rotateToken(this.db, organizationId, newToken()))
  }

  async capture(input: CaptureInput, ip: string) {
    const { captureToken, ...lead } = input
    const organizationId = await this.organizationOfCaptureToken(captureToken)
    if (!organizationId) throw new NotFoundError('Capture token')
    const id = randomUUID()
    const receivedAt = await repo.insertLead(this.db, organizationId, id, lead, ip)
    return { id, receivedAt: receivedAt.toISOString() }
  }

  /** The organization whose public capture token this is (POST /crm/capture, POST /support), or undefined. */
  organizationOfCaptureToken(token: string): Promise<string | undefined> {
    return repo.organizationOfToken(this.db, token)
  }

  list(organizationId: string, query: LeadListQuery & PageParams) {
    return repo.list(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  async get(organizationId: string, id: string) {
    const lead = await repo.find(this.db, organizationId, id)
    if (!lead) throw new NotFoundError('Lead')
    return lead
  }

  /** new becomes converted: linked to the contact of its e-mail (made when missing). A converted lead gives 409. */
  async convert(organizationId: string, id: string) {
    const lead = await this.get(organizationId, id)
    if (lead.status !== 'new') throw new StateConflictError('Lead already converted')
    const contact = await this.contacts.findOrCreateByEmail(organizationId, lead)
    const converted = await repo.markConverted(this.db, organizationId, id, contact.id)
    if (!converted) throw new StateConflictError('Lead already converted')
    return converted
  }

  async delete(organizationId: string, id: string) {
    if (!(await repo.delete(this.db, organizationId, id))) throw new NotFoundError('Lead')
  }
}
