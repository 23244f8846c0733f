import { Type } from 'typebox'
import type { App } from '../../core/module.ts'
import { ROLES, SUPPORT, principalOf } from '../../core/auth.ts'
import { IdParams, responses } from '../../core/schemas.ts'
import type { LicensesService } from './licenses.service.ts'
import * as S from './licenses.schemas.ts'

const tags = ['licenses']

export function licensesRoutes(app: App, licenses: LicensesService) {
  app.get('/licenses', {
    schema: { operationId: 'listMyLicenses', tags, summary: "The caller's own licenses", description: 'A bare array (not the list envelope), newest first.', response: responses({ 200: Type.Array(S.License) }) },
    config: { access: { roles: ROLES } },
  }, async (req) => licenses.mine(principalOf(req)))

  app.get('/admin/licenses', {
    schema: { operationId: 'listLicenses', tags, summary: 'List the organization\'s licenses', description: 'Filters: status (as callers see it: an active license past expiry is expired), productId, key (exact, any case), userId.', querystring: S.AdminLicenseListQuery, response: responses({ 200: S.LicenseList }) },
    config: { access: { roles: SUPPORT } },
  }, async (req) => licenses.list(principalOf(req), req.query))

  app.post('/admin/licenses', {
    schema: {
      operationId: 'issueLicense', tags, summary: 'Issue a license by hand', body: S.IssueLicenseBody, response: responses({ 201: S.AdminLicense }, [422]),
      description: 'For a licensed product and a user of the organization. activationsLimit defaults to the product\'s; expiresAt to one billing interval for recurring products and none (perpetual) for one-time ones.',
    },
    config: { access: { roles: SUPPORT } },
  }, async (req, reply) => reply.status(201).send(await licenses.issue(principalOf(req), req.body)))

  app.get('/admin/licenses/:id', {
    schema: { operationId: 'getLicense', tags, summary: 'Get a license', description: "A license of the caller's organization, with its domains and its holder; any other id gives 404.", params: IdParams, response: responses({ 200: S.AdminLicense }, [404]) },
    config: { access: { roles: SUPPORT } },
  }, async (req) => licenses.held(principalOf(req), req.params.id))

  app.get('/admin/license-holders', {
    schema: {
      operationId: 'listLicenseHolders', tags, summary: 'Find customer accounts to issue a license to', querystring: S.LicenseHolderQuery, response: responses({ 200: S.LicenseHolderList }),
      description: "The organization's users of role customer whose name or e-mail matches search, A to Z, at most 20 a page, as {id, name, email} only (docs/licenses.md \"Holders by name\"). For support, who may not list users.",
    },
    config: { access: { roles: SUPPORT } },
  }, async (req) => licenses.holders(principalOf(req), req.query))

  const actions = [
    ['suspend', 'Suspend a license', 'active to suspended'],
    ['reinstate', 'Reinstate a suspended license', 'suspended to active'],
    ['revoke', 'Revoke a license', 'any state but revoked to revoked'],
  ] as const
  for (const [action, summary, move] of actions) {
    app.post(`/admin/licenses/:id/${action}`, {
      schema: { operationId: `${action}License`, tags, summary, description: `From ${move}; from any other state 409 (docs/licenses.md "States and transitions").`, params: IdParams, response: responses({ 200: S.AdminLicense }, [404, 409]) },
      config: { access: { roles: SUPPORT } },
    }, async (req) => licenses.transition(principalOf(req), req.params.id, action))
  }
}
