// Builds the dashboard (packages/dashboard) into packages/dashboard/dist with
// Vite, unless dist/ already holds a build of the same sources (a hash of them
// is kept in dist/.sources). Run by `npm install` (postinstall) and before
// `npm start`; `--force` builds anyway.
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = 'packages/dashboard'
const stamp = join(root, 'dist', '.sources')
const inputs = [join(root, 'src'), join(root, 'public'), join(root, 'index.html'), join(root, 'vite.config.ts'), 'packages/sdk/src', 'package-lock.json']

function files(path, out = []) {
  if (!existsSync(path)) return out
  if (!statSync(path).isDirectory()) return (out.push(path), out)
  for (const name of readdirSync(path).sort()) files(join(path, name), out)
  return out
}

const hash = createHash('sha256')
for (const file of inputs.flatMap((p) => files(p))) hash.update(file).update('\0').update(readFileSync(file)).update('\0')
const digest = hash.digest('hex')

if (!process.argv.includes('--force') && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) {
  console.log('dashboard: up to date')
} else {
  const started = Date.now()
  const { build } = await import('vite')
  await build({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn' })
  writeFileSync(stamp, digest)
  console.log(`dashboard: built into ${root}/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
