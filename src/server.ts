import cluster from 'node:cluster'
import { buildApp } from './app.ts'
import { runPrimary } from './cluster.ts'
import { loadConfig, type Config } from './config.ts'
import { DatabaseInUseError } from './core/db.ts'
import { SecretKeyError } from './core/secrets.ts'

// `npm start -- --workers N` is WEB_CONCURRENCY=N (docs/scale-out.md "Many processes").
const flag = process.argv.indexOf('--workers')
if (flag !== -1) process.env.WEB_CONCURRENCY = process.argv[flag + 1] ?? ''

let config
try {
  config = loadConfig()
} catch (err) {
  console.error((err as Error).message)
  process.exit(1)
}

// With more than one process, this one (the primary) only forks and watches the API processes (src/cluster.ts).
if (config.workers > 1 && cluster.isPrimary) runPrimary(config.workers)
else await serve(config)

/** One API process: the app on the port, until SIGTERM or SIGINT ends it gracefully. */
async function serve(config: Config) {
  let app
  try {
    app = await buildApp(config)
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    // A refusal we can explain (embedded database in use, port taken, a key that does not open the secrets) is one line, not a stack.
    if (err instanceof DatabaseInUseError || err instanceof SecretKeyError || (err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error((err as Error).message)
      process.exit(1)
    }
    throw err
  }

  // On SIGTERM the server stops taking connections, finishes the requests in
  // flight, stops the jobs and closes the database.
  let closing = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, async () => {
      if (closing) return
      closing = true
      app.log.info({ signal }, 'shutting down')
      const timer = setTimeout(() => process.exit(1), 30_000)
      timer.unref()
      try {
        await app.close()
        process.exit(0)
      } catch (err) {
        app.log.error({ err }, 'shutdown failed')
        process.exit(1)
      }
    })
  }
}
