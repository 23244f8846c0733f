import { Type } from 'typebox'
import type { App } from '../../core/module.ts'
import { LICENSE_CLIENTS, principalOf } from '../../core/auth.ts'
import { responses } from '../../core/schemas.ts'
import type { LicenseClientService } from './license-client.service.ts'
import { signingContextOf } from './license-client.signature.ts'
import type { OfflineTokenSigner } from './license-tokens.signature.ts'
import * as S from './licenses.schemas.ts'

const tags = ['licenses']
const access = { roles: LICENSE_CLIENTS, licenseKey: true }
const headers = Type.Object({
  'x-service-signature': Type.Optional(Type.String({ maxLength: 200, description: "sha256=<hex HMAC-SHA256 of the raw body> keyed with the product's signingSecret; a wrong one gives 401 INVALID_SIGNATURE" })),
})
const note =
  'Accepts a normal credential (admin, support, or a customer for their own licenses) or `Authorization: Bearer <license key>`. ' +
  'Responses about a found license carry X-Service-Signature signed with the product\'s signing secret. Error bodies carry `code`.'

export function licenseClientRoutes(app: App, client: LicenseClientService, tokens: OfflineTokenSigner) {
  app.post('/licenses/validate', {
    schema: {
      operationId: 'validateLicense', tags, summary: 'Validate a license for a domain', headers, body: S.ClientRequest, response: responses({ 200: S.ValidateResult }, [422]),
      description: `${note} Always 200 for a license decision: code is VALID or one of LICENSE_NOT_FOUND, LICENSE_INACTIVE, LICENSE_EXPIRED, MODULE_MISMATCH, VERSION_MISMATCH, NOT_ACTIVATED_ON_DOMAIN. 30 requests per minute.`,
    },
    config: { access, limit: 'validate' },
  }, async (req) => client.validate(principalOf(req), req.body, signingContextOf(req)))

  app.post('/licenses/activate', {
    schema: {
      operationId: 'activateLicense', tags, summary: 'Activate a license on a domain', headers, body: S.ClientRequest, response: responses({ 200: S.ActivateResult }, [404, 409, 422]),
      description: `${note} Re-activating a bound domain is a no-op that takes no slot; with every slot used: 409 ACTIVATION_LIMIT_REACHED. 10 requests per minute.`,
    },
    config: { access, limit: 'activate' },
  }, async (req) => client.activate(principalOf(req), req.body, signingContextOf(req)))

  app.post('/licenses/deactivate', {
    schema: { operationId: 'deactivateLicense', tags, summary: 'Release a domain of a license', description: `${note} Works whatever the license's state; an unbound domain gives 403 NOT_ACTIVATED_ON_DOMAIN.`, headers, body: S.ClientRequest, response: responses({ 200: S.DeactivateResult }, [404, 422]) },
    config: { access },
  }, async (req) => client.deactivate(principalOf(req), req.body, signingContextOf(req)))

  app.post('/licenses/issue-token', {
    schema: {
      operationId: 'issueLicenseToken', tags, summary: 'Issue a signed offline token', headers, body: S.FullClientRequest, response: responses({ 200: S.TokenResult }, [404, 422]),
      description: `${note} For a valid license activated on the domain: a compact JWS signed with Ed25519 (alg EdDSA), verifiable with GET /.well-known/jwks.json, valid 14 days at most and never past the license's expiry.`,
    },
    config: { access },
  }, async (req) => client.issueToken(principalOf(req), req.body, signingContextOf(req)))

  app.post('/licenses/deactivate-self', {
    schema: { operationId: 'deactivateSelf', tags, summary: 'Release the calling installation\'s domain', description: `${note} The connector's own release (uninstall): the five-field client request.`, headers, body: S.FullClientRequest, response: responses({ 200: S.DeactivateResult }, [404, 422]) },
    config: { access },
  }, async (req) => client.deactivate(principalOf(req), req.body, signingContextOf(req)))

  app.get('/.well-known/jwks.json', {
    schema: { operationId: 'getJsonWebKeySet', tags, summary: 'Public keys of the offline tokens (JWKS)', description: 'Ed25519 keys by kid; earlier keys stay listed after a rotation until their tokens have expired.', security: [], response: { 200: S.Jwks } },
    config: { access: { public: true }, limit: 'public', atOrigin: true },
  }, async (_req, reply) => {
    reply.header('cache-control', 'public, max-age=300')
    return tokens.jwks()
  })
}
