import { buildApp } from './app.ts'
import { loadConfig } from './config.ts'
import { DatabaseInUseError } from './core/db.ts'
import { SecretKeyError } from './core/secrets.ts'

let config
try {
  config = loadConfig()
} catch (err) {
  console.error((err as Error).message)
  process.exit(1)
}

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
