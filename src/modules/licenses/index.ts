import multipart from '@fastify/multipart'
import { keepRawJsonBody } from '../../core/raw-body.ts'
import { defineModule, type App } from '../../core/module.ts'
import { buildsRoutes } from './builds.routes.ts'
import { BuildsService } from './builds.service.ts'
import { licenseClientRoutes } from './license-client.routes.ts'
import { LicenseClientService } from './license-client.service.ts'
import { signResponses } from './license-client.signature.ts'
import { OfflineTokenSigner } from './license-tokens.signature.ts'
import { licensesRoutes } from './licenses.routes.ts'
import { LicensesService } from './licenses.service.ts'
import { licenseEventTypes } from './licenses.schemas.ts'

export type { LicensesService }
export type { License } from './licenses.schemas.ts'
export { LicenseStatus } from './licenses.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    licenses: LicensesService
  }
}

const MAX_BUILD_BYTES = 50 * 1024 * 1024

/** Licenses, the license client endpoints of connector modules, offline tokens and module downloads. */
export const licensesModule = defineModule({
  name: 'licenses',
  needs: ['products', 'identity'],
  async register(app, ctx) {
    const tokens = new OfflineTokenSigner(ctx.db, ctx.secrets)
    await tokens.init()
    const licenses = new LicensesService(ctx.db, ctx.services.products, ctx.events, ctx.services.identity)
    ctx.events.declare(licenseEventTypes)
    const client = new LicenseClientService(ctx.db, tokens, ctx.events, ctx.secrets)
    const builds = new BuildsService(ctx.db, ctx.services.products)
    ctx.resolvers.push(client.resolveLicenseKey)
    // A paid renewal (billing) extends the subscription's licenses, in the transaction that records the payment.
    ctx.events.within(['subscription.renewed'], async (q, e) => {
      const { currentPeriodEnd } = e.data.object as { currentPeriodEnd: string }
      // A subscription of no known organization has no licenses yet (they are issued with its checkout).
      if (e.organizationId) await licenses.extendForSubscription(q, e.organizationId, e.resourceId, new Date(currentPeriodEnd))
    })
    ctx.jobs.register({
      name: 'license-expiry',
      description: 'Moves active licenses past their expiresAt to expired',
      intervalMs: 60_000,
      run: (scope) => licenses.expireDue(scope.organizationId),
    })

    licensesRoutes(app, licenses)
    // The client endpoints sign over the raw body, and uploads are multipart:
    // both parsers live in their own scope so the rest of the API keeps Fastify's.
    await app.register(async (scope) => {
      keepRawJsonBody(scope)
      signResponses(scope)
      licenseClientRoutes(scope as App, client, tokens)
    })
    await app.register(async (scope) => {
      await scope.register(multipart, { limits: { fileSize: MAX_BUILD_BYTES, files: 2, fields: 10, parts: 20 } })
      buildsRoutes(scope as App, builds)
    })
    return licenses
  },
})
