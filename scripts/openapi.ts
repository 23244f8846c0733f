// Writes openapi.json (the committed OpenAPI document) from the route schemas.
import { writeFileSync } from 'node:fs'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'

export async function generateOpenApi(): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: 'memory://', JOBS: 'off', LOG_LEVEL: 'silent' }
  delete env.DATABASE_URL
  const app = await buildApp(loadConfig(env), { logger: false })
  try {
    return JSON.stringify(app.swagger(), null, 2) + '\n'
  } finally {
    await app.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('../openapi.json', import.meta.url), await generateOpenApi())
  console.log('openapi.json written')
}
