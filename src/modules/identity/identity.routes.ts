import type { App } from '../../core/module.ts'
import { ADMIN, ROLES, principalOf } from '../../core/auth.ts'
import { IdParams, NoContent, responses } from '../../core/schemas.ts'
import type { IdentityService } from './identity.service.ts'
import * as S from './identity.schemas.ts'

const EVERYONE = { roles: ROLES }

export function identityRoutes(app: App, identity: IdentityService, resetUrl: string) {
  app.post('/auth/register', {
    schema: { operationId: 'register', tags: ['auth'], summary: 'Create an organization and its first (admin) user', description: "Public. Creates the organization and its first user, with role admin, and answers with that user's tokens. 403 when sign-up is turned off (ALLOW_SIGNUP=false); an e-mail already registered gives 409.", body: S.RegisterBody, response: responses({ 201: S.RegisterResult }, [403, 409, 422], { public: true }) },
    config: { access: { public: true }, limit: 'register', idempotency: false },
  }, async (req, reply) => reply.status(201).send(await identity.register(req.body)))

  app.post('/auth/login', {
    schema: { operationId: 'login', tags: ['auth'], summary: 'Exchange e-mail and password for tokens', description: 'Public. Answers a JWT access token and a refresh token. A wrong e-mail or password gives 401, with the same message for both.', body: S.LoginBody, response: responses({ 200: S.TokenPair }, [401, 422], { public: true }) },
    // No dry run: its attempt would go uncounted (docs/platform.md "Dry runs"), a password guess free of the per-e-mail limit.
    config: { access: { public: true }, limit: 'login', idempotency: false, dryRun: false },
  }, async (req) => identity.login(req.body.email, req.body.password))

  app.post('/auth/refresh', {
    schema: { operationId: 'refreshToken', tags: ['auth'], summary: 'Rotate a refresh token', description: 'The presented refresh token stops working. Presenting a spent one revokes every token of its family.', body: S.RefreshBody, response: responses({ 200: S.TokenPair }, [401, 422], { public: true }) },
    // No dry run: it would answer a working access token without spending the refresh token (docs/platform.md "Dry runs").
    config: { access: { public: true }, limit: 'login', idempotency: false, dryRun: false },
  }, async (req) => identity.refresh(req.body.refreshToken))

  app.post('/auth/logout', {
    schema: { operationId: 'logout', tags: ['auth'], summary: 'Revoke a refresh token and its family', description: 'Public: the refresh token is the credential. Answers 204 whether or not the token was known.', body: S.RefreshBody, response: responses({ 204: NoContent }, [422], { public: true }) },
    config: { access: { public: true }, limit: 'login' },
  }, async (req, reply) => {
    await identity.logout(req.body.refreshToken)
    return reply.status(204).send()
  })

  app.post('/auth/password', {
    schema: { operationId: 'changePassword', tags: ['auth'], summary: 'Change your own password', description: "Any signed-in user (an API key acts for its user). A wrong current password gives 401. Every other session of the user ends (their access and refresh tokens stop at once); the caller's own session stays. API keys stay.", body: S.ChangePasswordBody, response: responses({ 204: NoContent }, [401, 422]) },
    config: { access: EVERYONE, limit: 'login' },
  }, async (req, reply) => {
    await identity.changePassword(principalOf(req), req.body.currentPassword, req.body.newPassword)
    return reply.status(204).send()
  })

  app.post('/auth/password-reset', {
    schema: { operationId: 'requestPasswordReset', tags: ['auth'], summary: 'E-mail a password reset link', description: 'Public, limited per client IP like POST /support. Always answers 202, whether or not a user has the e-mail; when one has, a mail with a single-use link valid one hour is queued (the link opens the dashboard at PUBLIC_URL/reset-password).', body: S.PasswordResetBody, response: responses({ 202: S.PasswordResetAccepted }, [422], { public: true }) },
    config: { access: { public: true }, limit: 'support', idempotency: false },
  }, async (req, reply) => {
    await identity.requestPasswordReset(req.body.email, resetUrl)
    return reply.status(202).send({ message: 'If a user has this e-mail, a reset link is on its way' })
  })

  app.post('/auth/password-reset/confirm', {
    schema: { operationId: 'confirmPasswordReset', tags: ['auth'], summary: 'Set a new password with a reset link', description: "Public: the link's token is the credential. Sets the password and ends every session of the user. A used, expired or unknown token gives 400.", body: S.PasswordResetConfirmBody, response: responses({ 204: NoContent }, [400, 422], { public: true }) },
    config: { access: { public: true }, limit: 'login', idempotency: false },
  }, async (req, reply) => {
    await identity.confirmPasswordReset(req.body.token, req.body.password)
    return reply.status(204).send()
  })

  app.get('/auth/me', {
    schema: { operationId: 'getCurrentUser', tags: ['auth'], summary: 'The caller and its organization', description: 'The user behind the credential (an API key acts as the user who created it) and its organization.', response: responses({ 200: S.Me }) },
    config: { access: EVERYONE },
  }, async (req) => identity.me(principalOf(req)))

  app.get('/users', {
    schema: { operationId: 'listUsers', tags: ['users'], summary: 'List users', description: 'Filter: role. search matches name and e-mail.', querystring: S.UserListQuery, response: responses({ 200: S.UserList }) },
    config: { access: { roles: ADMIN } },
  }, async (req) => identity.listUsers(principalOf(req), req.query))

  app.post('/users', {
    schema: { operationId: 'createUser', tags: ['users'], summary: 'Create a user', description: 'An e-mail already used by a user gives 409.', body: S.CreateUserBody, response: responses({ 201: S.User }, [409, 422]) },
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => reply.status(201).send(await identity.createUser(principalOf(req), req.body)))

  app.get('/users/:id', {
    schema: { operationId: 'getUser', tags: ['users'], summary: 'Get a user', description: "A user of the caller's organization; any other id gives 404.", params: IdParams, response: responses({ 200: S.User }, [404]) },
    config: { access: { roles: ADMIN } },
  }, async (req) => identity.getUser(principalOf(req), req.params.id))

  app.patch('/users/:id', {
    schema: { operationId: 'updateUser', tags: ['users'], summary: 'Update a user', description: 'Changes only the fields sent (at least one); a new password is stored hashed. A new role or a password set here ends every session of the user at once (its access and refresh tokens stop: 401); a user demoted from admin loses its API keys of other roles. A name or e-mail change ends nothing.', params: IdParams, body: S.UpdateUserBody, response: responses({ 200: S.User }, [404, 409, 422]) },
    config: { access: { roles: ADMIN } },
  }, async (req) => identity.updateUser(principalOf(req), req.params.id, req.body))

  app.delete('/users/:id', {
    schema: { operationId: 'deleteUser', tags: ['users'], summary: 'Delete a user', description: "The user's API keys, sessions and access tokens stop working with it, at once. Deleting yourself is refused.", params: IdParams, response: responses({ 204: NoContent }, [404]) },
    config: { access: { roles: ADMIN } },
  }, async (req, reply) => {
    await identity.deleteUser(principalOf(req), req.params.id)
    return reply.status(204).send()
  })

  app.get('/api-keys', {
    schema: { operationId: 'listApiKeys', tags: ['api-keys'], summary: 'List API keys', description: 'Admins see every key of the organization, others their own. The secret is never shown again.', querystring: S.ApiKeyListQuery, response: responses({ 200: S.ApiKeyList }) },
    config: { access: EVERYONE },
  }, async (req) => identity.listApiKeys(principalOf(req), req.query))

  app.post('/api-keys', {
    schema: { operationId: 'createApiKey', tags: ['api-keys'], summary: 'Create an API key', description: 'The response shows `key` once. The role defaults to the caller\'s; only admins may give another role.', body: S.CreateApiKeyBody, response: responses({ 201: S.CreatedApiKey }, [422]) },
    config: { access: EVERYONE },
  }, async (req, reply) => reply.status(201).send(await identity.createApiKey(principalOf(req), req.body)))

  app.delete('/api-keys/:id', {
    schema: { operationId: 'revokeApiKey', tags: ['api-keys'], summary: 'Revoke an API key', description: 'The key stops working at once.', params: IdParams, response: responses({ 204: NoContent }, [404]) },
    config: { access: EVERYONE },
  }, async (req, reply) => {
    await identity.revokeApiKey(principalOf(req), req.params.id)
    return reply.status(204).send()
  })
}

