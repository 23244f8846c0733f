// Builds the dashboard (packages/dashboard) into packages/dashboard/dist with
// Vite, unless dist/ already holds a build of the same sources (a hash of them
// is kept in dist/.sources). Run by `npm install` (postinstall) and before
// `npm start`; `--force` builds anyway. Each text file of the build gets a
// brotli (.br) and a gzip (.gz) twin, served by @fastify/static's preCompressed
// (docs/dashboard.md "Precompressed assets").
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const root = 'packages/dashboard'
const stamp = join(root, 'dist', '.sources')
const inputs = [join(root, 'src'), join(root, 'public'), join(root, 'index.html'), join(root, 'vite.config.ts'), 'packages/sdk/src', 'package-lock.json', 'scripts/build-dashboard.mjs']

/** Files worth compressing: text, and big enough that the saving outweighs a second request's cost. */
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|webmanifest)$/
const MIN_BYTES = 1024

/** Writes file.br (brotli, best quality) and file.gz (gzip level 9) next to each compressible file of `dir`; answers the sizes of the biggest script. */
function precompress(dir) {
  let script
  for (const file of files(dir)) {
    if (!COMPRESSIBLE.test(file)) continue
    const raw = readFileSync(file)
    if (raw.length < MIN_BYTES) continue
    const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
    const gz = gzipSync(raw, { level: 9 })
    writeFileSync(`${file}.br`, br)
    writeFileSync(`${file}.gz`, gz)
    if (file.endsWith('.js') && (!script || raw.length > script.raw)) script = { file, raw: raw.length, gzip: gz.length, brotli: br.length }
  }
  return script
}
const kb = (n) => `${(n / 1024).toFixed(0)} KB`

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
  const script = precompress(join(root, 'dist'))
  writeFileSync(stamp, digest)
  console.log(`dashboard: built into ${root}/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  if (script) console.log(`dashboard: ${script.file.slice(root.length + 1)} ${kb(script.raw)}, gzip ${kb(script.gzip)}, brotli ${kb(script.brotli)}`)
}
