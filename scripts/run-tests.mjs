// Runs the test files with node's test runner (through tsx). Node 20 does not
// expand globs itself, so the files are found here: every *.test.ts under
// src/, test/ and packages/*/test/, or only the paths given as arguments (a
// folder stands for the test files under it).
// E2E=off leaves out the dashboard's browser tests (test/e2e/): CI's PGlite
// run does, the PostgreSQL run has them (README, "Test it").
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const packages = () => {
  try {
    return readdirSync('packages', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join('packages', d.name, 'test'))
  } catch {
    return []
  }
}
const roots = ['src', 'test', ...packages()]

function find(dir, out = []) {
  let entries
  try {
    entries = readdirSync(dir)
  } catch {
    return out
  }
  for (const name of entries) {
    if (name === 'node_modules') continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) find(path, out)
    else if (name.endsWith('.test.ts')) out.push(path)
  }
  return out
}

const args = process.argv.slice(2)
const isDir = (p) => {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}
const e2e = (p) => p.split(/[\\/]/).includes('e2e')
const found = (args.length ? args : roots).flatMap((p) => (args.length && !isDir(p) ? [p] : find(p).sort()))
const files = process.env.E2E === 'off' ? found.filter((p) => !e2e(p)) : found
if (!files.length) {
  console.log('# no test files to run')
  process.exit(0)
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2'
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' })
process.exit(result.status ?? 1)
