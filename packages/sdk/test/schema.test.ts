// src/schema.d.ts is generated from the app's OpenAPI document (`npm run openapi`): it must not drift.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { generateOpenApi, generateSdkTypes } from '../../../scripts/openapi.ts'

test('the committed src/schema.d.ts matches the API (run `npm run openapi` after changing routes)', async () => {
  const committed = readFileSync(new URL('../src/schema.d.ts', import.meta.url), 'utf8')
  const generated = await generateSdkTypes(await generateOpenApi())
  assert.ok(generated.includes('"/api/contacts"'), 'the generator wrote the paths')
  assert.ok(committed === generated, 'packages/sdk/src/schema.d.ts differs from the types of the current OpenAPI document: run `npm run openapi`')
})
