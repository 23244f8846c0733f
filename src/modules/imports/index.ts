import multipart from '@fastify/multipart'
import { defineModule, type App } from '../../core/module.ts'
import { importTargets } from './import-targets.adapter.ts'
import { MAX_CSV_BYTES } from './imports.lib.ts'
import { importsRoutes } from './imports.routes.ts'
import { ImportsService } from './imports.service.ts'

export type { ImportsService }
export { Import } from './imports.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    imports: ImportsService
  }
}

/**
 * Imports (issue 28, docs/imports.md): POST /imports stages the rows of a CSV
 * file or of a JSON body and queues the import; the queue worker of any
 * process checks every row as the single routes do and writes them all in one
 * transaction, or none.
 */
export const importsModule = defineModule({
  name: 'imports',
  needs: ['contacts', 'products', 'employees', 'inventory'],
  async register(app, ctx) {
    const imports = new ImportsService(ctx.db, importTargets(ctx.services), app.log)
    ctx.worker.add(imports.queue)
    ctx.jobs.register({
      name: 'imports',
      description: 'Runs queued imports (and those whose process died, after their lease); the queue worker of every process does it continuously, woken by NOTIFY',
      intervalMs: 5_000,
      run: async (scope) => ({ ...(await imports.runDue(scope.organizationId)) }),
    })
    ctx.jobs.register({
      name: 'import-rows-cleanup',
      description: 'Deletes the staged rows of uploads whose process died before their import was queued (an hour after they were staged)',
      intervalMs: 60 * 60_000,
      run: (scope) => imports.dropAbandoned(scope.organizationId),
    })
    // Uploads are multipart, in their own scope so the rest of the API keeps Fastify's parsers.
    await app.register(async (scope) => {
      await scope.register(multipart, { limits: { fileSize: MAX_CSV_BYTES, files: 2, fields: 10, parts: 20 } })
      importsRoutes(scope as App, imports)
    })
    return imports
  },
})
