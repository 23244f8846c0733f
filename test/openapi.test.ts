import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { generateOpenApi } from '../scripts/openapi.ts'

test('the committed openapi.json matches the code (run `npm run openapi` after changing routes)', async () => {
  const committed = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')
  assert.equal(committed, await generateOpenApi())
})

test('every documented operation declares its responses, and the document is OpenAPI 3.1', async () => {
  const doc = JSON.parse(await generateOpenApi())
  assert.equal(doc.openapi, '3.1.0')
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      assert.ok(op.responses && Object.keys(op.responses).length > 0, `${method} ${path} has no responses`)
    }
  }
})
