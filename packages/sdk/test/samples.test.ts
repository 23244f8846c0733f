// The SDK samples of openapi.json (x-codeSamples, shown at /api/docs) compile against this SDK:
// each is written as a module of its own and the lot is type-checked with the project's tsc.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const root = fileURLToPath(new URL('../../../', import.meta.url))

test('every SDK sample of openapi.json type-checks against the SDK', () => {
  const doc = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8'))
  const samples: Array<{ where: string; source: string }> = []
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const sdk = op['x-codeSamples']?.find((s: { label: string }) => s.label === 'TypeScript SDK')
      assert.ok(sdk, `${method.toUpperCase()} ${path} has no SDK sample`)
      samples.push({ where: `${method.toUpperCase()} ${path}`, source: sdk.source })
    }
  }
  assert.ok(samples.length > 90)

  const dir = mkdtempSync(join(tmpdir(), 'sdk-samples-'))
  try {
    const files = samples.map((s, i) => {
      const file = join(dir, `sample${i}.ts`)
      writeFileSync(file, `// ${s.where}\n${s.source}\n`)
      return file
    })
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true,
        allowImportingTsExtensions: true, types: ['node'], typeRoots: [join(root, 'node_modules/@types')],
        // The package name the samples import, as a consumer of the SDK writes it.
        paths: { '@business-platform/sdk': [join(root, 'packages/sdk/src/index.ts')] },
      },
      files,
    }))
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' })
    const report = (tsc.stdout + tsc.stderr).replace(/sample(\d+)\.ts/g, (m, i) => `${m} (${samples[Number(i)].where})`)
    assert.equal(tsc.status, 0, `SDK samples that do not compile:\n${report.slice(0, 4000)}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
