// Writes openapi.json (the committed OpenAPI document) from the route schemas,
// and the SDK's types (packages/sdk/src/schema.d.ts) from that document.
import { writeFileSync } from 'node:fs'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { schemaTypes } from '../tools/openapi-types/run.mjs'

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

/** The SDK's schema.d.ts for an OpenAPI document (openapi-typescript, run from tools/openapi-types). */
export const generateSdkTypes = (document: string): Promise<string> => schemaTypes(document)

if (import.meta.url === `file://${process.argv[1]}`) {
  const document = await generateOpenApi()
  writeFileSync(new URL('../openapi.json', import.meta.url), document)
  writeFileSync(new URL('../packages/sdk/src/schema.d.ts', import.meta.url), await generateSdkTypes(document))
  console.log('openapi.json and packages/sdk/src/schema.d.ts written')
}
