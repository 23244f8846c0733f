import { ADMIN, STAFF, principalOf } from '../../core/auth.ts'
import type { App } from '../../core/module.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { AccountsService } from './accounts.service.ts'
import * as S from './accounts.schemas.ts'

const tags = ['accounting']

export function accountsRoutes(app: App, accounts: AccountsService) {
  app.get('/accounting/accounts', {
    schema: {
      operationId: 'listAccounts', tags, summary: 'List the chart of accounts',
      description: 'The chart of accounts: the 13 system accounts every organization is made with and its own. Filters: type; search matches code and name. Default sort: code ascending (sortBy code or name).',
      querystring: S.AccountListQuery, response: responses({ 200: S.AccountList }),
    },
    config: { access: { roles: STAFF } },
  }, async (req) => accounts.list(principalOf(req).organizationId, req.query))

  app.post('/accounting/accounts', {
    schema: {
      operationId: 'createAccount', tags, summary: 'Create an account',
      description: 'Admin only. code is 3 to 10 digits, unique in the organization (409 ALREADY_EXISTS); type is asset, liability, equity, income or expense.',
      body: S.CreateAccountBody, response: responses({ 201: S.Account }, [409, 422]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => reply.status(201).send(await accounts.create(principalOf(req).organizationId, req.body)))

  app.patch('/accounting/accounts/:id', {
    schema: {
      operationId: 'updateAccount', tags, summary: 'Rename an account',
      description: 'Admin only. Only the name changes; code and type stay as they are (the lines already posted name the account).',
      params: IdParams, body: S.UpdateAccountBody, response: responses({ 200: S.Account }, [404, 422]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req) => accounts.update(principalOf(req).organizationId, req.params.id, req.body))

  app.delete('/accounting/accounts/:id', {
    schema: {
      operationId: 'deleteAccount', tags, summary: 'Delete an account',
      description: 'Admin only. A system account, or an account with journal lines, gives 409 CONFLICT.',
      params: IdParams, response: responses({ 204: NoContent }, [404, 409]),
    },
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => {
    await accounts.delete(principalOf(req).organizationId, req.params.id)
    return reply.status(204).send()
  })
}
