import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { identityRoutes } from './identity.routes.ts'
import { IdentityService } from './identity.service.ts'

declare module '../services.ts' {
  interface Services {
    identity: IdentityService
  }
}

/** Organizations, users, log-in tokens and API keys. */
export async function identityModule(app: App, ctx: ModuleContext) {
  const identity = new IdentityService(ctx.db, ctx.config, ctx.onOrganizationCreated)
  await identity.init()
  ctx.services.identity = identity
  ctx.resolvers.push(identity.resolveBearer)
  identityRoutes(app, identity)
}
