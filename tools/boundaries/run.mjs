// `npm run lint:deps`: the module boundaries of docs/architecture.md, checked by
// dependency-cruiser (rules in .dependency-cruiser.cjs). dependency-cruiser reads
// TypeScript through the compiler's JavaScript API, which TypeScript 7 (the
// project's compiler) does not have, so it runs from this folder with its own
// TypeScript 5, installed here from its lockfile on first use.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const run = (cmd, args, cwd) => {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
if (!existsSync(join(here, 'node_modules', '.bin', 'depcruise'))) run('npm', ['ci', '--no-audit', '--no-fund'], here)
run(join(here, 'node_modules', '.bin', 'depcruise'), ['src', 'test', 'bench', 'scripts', 'packages/license-client/src', 'packages/sdk/src', '--config', '.dependency-cruiser.cjs'], join(here, '..', '..'))
