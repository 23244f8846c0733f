import type { App } from '../../core/module.ts'
import { ADMIN, ROLES, principalOf } from '../../core/auth.ts'
import { responses } from '../../core/schemas.ts'
import type { OrganizationService } from './organization.service.ts'
import * as S from './organization.schemas.ts'

const tags = ['organization']

export function organizationRoutes(app: App, organizations: OrganizationService) {
  app.get('/organization', {
    schema: {
      operationId: 'getOrganization', tags, summary: "The caller's organization profile",
      description: 'The profile printed as the seller on invoices, quotations and other documents: name, legal name, address, tax id, e-mail, phone, logo (its bytes at logo.url) and payment instructions. Every role of the organization may read it.',
      response: responses({ 200: S.OrganizationProfile }),
    },
    config: { access: { roles: ROLES } },
  }, async (req) => organizations.get(principalOf(req).organizationId))

  app.patch('/organization', {
    schema: {
      operationId: 'updateOrganization', tags, summary: 'Update the organization profile',
      description: 'Changes only the fields sent (at least one); null clears a field, and an address is replaced whole. The logo is a PNG or JPEG sent as base64 (or a data: URL), checked by its first bytes and by decoding it: anything else, or more than 256 KiB, gives 422. Documents printed afterwards show the new profile. lockDate (YYYY-MM-DD or null) closes the books up to that day: nothing may be posted dated on or before it (docs/accounting.md "Lock date").',
      body: S.UpdateOrganizationBody, response: responses({ 200: S.OrganizationProfile }, [422]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req) => organizations.update(principalOf(req).organizationId, req.body))

  app.get('/organization/logo', {
    schema: {
      operationId: 'getOrganizationLogo', tags, summary: "The organization's logo image",
      description: 'The logo as stored, with its media type (image/png or image/jpeg); 404 when the organization has none.',
      response: responses({ 200: S.LogoResponse }, [404]),
    },
    config: { access: { roles: ROLES } },
  }, async (req, reply) => {
    const logo = await organizations.logo(principalOf(req).organizationId)
    return reply.type(logo.contentType).header('cache-control', 'private, no-cache').send(logo.data)
  })
}
