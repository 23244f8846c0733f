import { defineModule } from '../../core/module.ts'
import { identityRoutes } from './identity.routes.ts'
import { IdentityService } from './identity.service.ts'
import { organizationRoutes } from './organization.routes.ts'

export type { IdentityService }

declare module '../../core/module.ts' {
  interface Services {
    identity: IdentityService
  }
}

/** Organizations and their profiles, users, log-in tokens and API keys. */
export const identityModule = defineModule({
  name: 'identity',
  needs: ['mail'],
  async register(app, ctx) {
    const identity = new IdentityService(ctx.db, ctx.config, ctx.onOrganizationCreated, ctx.services.mail)
    await identity.init(ctx.secrets)
    ctx.resolvers.push(identity.resolveBearer)
    // The reset link of the e-mail opens the dashboard's page; from the configured address, never from a request's Host.
    identityRoutes(app, identity, `${(ctx.config.publicUrl ?? `http://localhost:${ctx.config.port}`).replace(/\/+$/, '')}/reset-password`)
    organizationRoutes(app, identity.organizations)
    return identity
  },
})
