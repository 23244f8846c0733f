import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { API_PREFIX } from './openapi.ts'

/** Where `npm run build:dashboard` (run by `npm install` and `npm start`) puts the web dashboard. */
export const DASHBOARD_DIR = join(import.meta.dirname, '..', '..', 'packages', 'dashboard', 'dist')

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A file of the dashboard (not an API operation: not in openapi.json). */
    dashboard?: boolean
  }
}

type NotFound = (request: FastifyRequest, reply: FastifyReply) => void

/**
 * Serves the web dashboard (packages/dashboard) at `/`: its files as they are,
 * or their brotli or gzip twin when the browser accepts it (hashed assets cached for a year), and its index.html for any other page
 * address a browser asks for (GET or HEAD, outside /api and /.well-known,
 * accepting text/html), so that links into the app work on reload. Everything
 * else keeps the API's JSON 404. Without a build, those addresses answer 503
 * with what to run. Returns the not-found handler to install.
 */
export async function installDashboard(app: FastifyInstance, notFound: NotFound, dir = DASHBOARD_DIR): Promise<NotFound> {
  const index = join(dir, 'index.html')
  const built = existsSync(index)
  if (built) {
    await app.register(async (files) => {
      // A cache must keep the encodings apart: the same address answers brotli, gzip or the file as it is.
      files.addHook('onSend', async (_request, reply) => {
        const vary = String(reply.getHeader('vary') ?? '')
        if (!/accept-encoding/i.test(vary)) reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding')
      })
      await files.register(fastifyStatic, {
        root: dir,
        wildcard: false,
        index: false,
        cacheControl: false,
        // The .br and .gz twins scripts/build-dashboard.mjs writes, chosen by Accept-Encoding (docs/dashboard.md "Precompressed assets").
        preCompressed: true,
        setHeaders: (res, path) => res.setHeader('cache-control', path.startsWith(join(dir, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache'),
      })
    })
  }
  const html = built ? readFileSync(index) : undefined
  return (request, reply) => {
    const path = request.url.split('?')[0]
    const page =
      (request.method === 'GET' || request.method === 'HEAD') &&
      path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`) && !path.startsWith('/.well-known/') &&
      (request.headers.accept ?? '').includes('text/html')
    if (!page) return notFound(request, reply)
    if (!html) {
      return reply.status(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run `npm run build:dashboard` (npm install and npm start do it), then reload.\n')
    }
    return reply.status(200).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html)
  }
}
