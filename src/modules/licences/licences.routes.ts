import { Type } from 'typebox'
import type { App } from '../../app.ts'
import { ROLES, principalOf, type Role } from '../../core/auth.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import type { LicencesService } from './licences.service.ts'
import * as S from './licences.schemas.ts'

const tags = ['licences']
/** SPEC 5.4: admin and support use the admin licence routes. */
const LICENCE_ADMINS: readonly Role[] = ['admin', 'support']

export function licencesRoutes(app: App, licences: LicencesService) {
  app.get('/licenses', {
    schema: { tags, summary: "The caller's own licences", description: 'A bare array (SPEC 2.12), newest first.', response: responses({ 200: Type.Array(S.Licence) }) },
    config: { access: { roles: ROLES } },
  }, async (req) => licences.mine(principalOf(req)))

  app.get('/admin/licenses', {
    schema: { tags, summary: 'List the organization\'s licences', description: 'Filters: status (as callers see it: an active licence past expiry is expired), productId, key (exact, any case), userId.', querystring: S.AdminLicenceListQuery, response: responses({ 200: S.LicenceList }) },
    config: { access: { roles: LICENCE_ADMINS } },
  }, async (req) => licences.list(principalOf(req), req.query))

  app.post('/admin/licenses', {
    schema: {
      tags, summary: 'Issue a licence by hand', body: S.IssueLicenceBody, response: responses({ 201: S.Licence }, [422]),
      description: 'For a licensed product and a user of the organization. activationsLimit defaults to the product\'s; expiresAt to one billing interval for recurring products and none (perpetual) for one-time ones.',
    },
    config: { access: { roles: LICENCE_ADMINS } },
  }, async (req, reply) => reply.status(201).send(await licences.issue(principalOf(req), req.body)))

  app.get('/admin/licenses/:id', {
    schema: { tags, summary: 'Get a licence', params: IdParams, response: responses({ 200: S.Licence }, [404]) },
    config: { access: { roles: LICENCE_ADMINS } },
  }, async (req) => licences.get(principalOf(req).organizationId, req.params.id))

  const actions = [
    ['suspend', 'Suspend a licence', 'active to suspended'],
    ['reinstate', 'Reinstate a suspended licence', 'suspended to active'],
    ['revoke', 'Revoke a licence', 'any state but revoked to revoked'],
  ] as const
  for (const [action, summary, move] of actions) {
    app.post(`/admin/licenses/:id/${action}`, {
      schema: { tags, summary, description: `SPEC 3.9: ${move}; from any other state 409.`, params: IdParams, response: responses({ 200: S.Licence }, [404, 409]) },
      config: { access: { roles: LICENCE_ADMINS } },
    }, async (req) => licences.transition(principalOf(req), req.params.id, action))
  }
}
