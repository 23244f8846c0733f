import multipart from '@fastify/multipart'
import type { App } from '../../app.ts'
import { keepRawJsonBody } from '../../core/raw-body.ts'
import type { ModuleContext } from '../services.ts'
import { buildsRoutes } from './builds.routes.ts'
import { BuildsService } from './builds.service.ts'
import { licenceClientRoutes } from './licence-client.routes.ts'
import { LicenceClientService } from './licence-client.service.ts'
import { signResponses } from './licence-signature.ts'
import { OfflineTokenSigner } from './licence-tokens.ts'
import { licencesRoutes } from './licences.routes.ts'
import { LicencesService } from './licences.service.ts'

declare module '../services.ts' {
  interface Services {
    licences: LicencesService
  }
}

const MAX_BUILD_BYTES = 50 * 1024 * 1024

/** Licences, the licence client endpoints of connector modules, offline tokens and module downloads. */
export async function licencesModule(app: App, ctx: ModuleContext) {
  const tokens = new OfflineTokenSigner(ctx.db)
  await tokens.init()
  const licences = new LicencesService(ctx.db, ctx.services.products)
  const client = new LicenceClientService(ctx.db, tokens)
  const builds = new BuildsService(ctx.db, ctx.services.products)
  ctx.services.licences = licences
  ctx.resolvers.push(client.resolveLicenceKey)
  ctx.jobs.register({
    name: 'licence-expiry',
    description: 'Moves active licences past their expiresAt to expired',
    intervalMs: 60_000,
    run: () => licences.expireDue(),
  })

  licencesRoutes(app, licences)
  // The client endpoints sign over the raw body, and uploads are multipart:
  // both parsers live in their own scope so the rest of the API keeps Fastify's.
  await app.register(async (scope) => {
    keepRawJsonBody(scope)
    signResponses(scope)
    licenceClientRoutes(scope as App, client, tokens)
  })
  await app.register(async (scope) => {
    await scope.register(multipart, { limits: { fileSize: MAX_BUILD_BYTES, files: 2, fields: 10, parts: 20 } })
    buildsRoutes(scope as App, builds)
  })
}
