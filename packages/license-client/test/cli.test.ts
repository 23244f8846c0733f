import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createLicensedProduct, issueLicense, startService, type License, type Product, type Service } from './service.ts'

const here = dirname(fileURLToPath(import.meta.url))
const cli = join(here, '..', 'src', 'cli.ts')

let s: Service
let product: Product
let license: License
let env: Record<string, string>
before(async () => {
  s = await startService()
  product = await createLicensedProduct(s)
  license = await issueLicense(s, product)
  env = {
    PATH: process.env.PATH ?? '',
    LICENSE_KEY: license.key.toLowerCase(),
    LICENSE_MODULE: product.moduleName,
    LICENSE_PUBLIC_URL: 'https://erp.example.com/web',
    LICENSE_INSTALLATION_ID: 'cli-db-1',
    LICENSE_ERP_VERSION: '19.0',
    LICENSE_SIGNING_SECRET: product.signingSecret,
    LICENSE_BASE_URL: s.baseUrl,
    LICENSE_STATE_FILE: join(await mkdtemp(join(tmpdir(), 'license-cli-')), 'state.json'),
  }
})
after(() => s.stop())

/** Runs the command-line tool as an operator would, through tsx. */
function run(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', cli, ...args], { env: { ...env, ...extraEnv }, cwd: join(here, '..', '..', '..') }, (error, out, err) => {
      resolve({ code: error ? Number(error.code) : 0, out, err })
    })
  })
}

test('activate, validate, status and deactivate from the shell', async () => {
  const activated = await run(['activate'])
  assert.equal(activated.code, 0, activated.err)
  assert.equal(activated.out.trim(), 'Activated on erp.example.com (1 of 1 activations used)')

  const valid = await run(['validate', '--json'])
  assert.equal(valid.code, 0, valid.err)
  const result = JSON.parse(valid.out)
  assert.deepEqual([result.valid, result.code, result.source, result.license.key], [true, 'VALID', 'service', license.key])

  const status = await run(['status'])
  assert.equal(status.code, 0, status.err)
  assert.match(status.out, new RegExp(`License ${license.key}, module ${product.moduleName}, domain erp.example.com, ERP 19.0`))
  assert.match(status.out, /Offline token: valid, expires \d{4}-/)
  assert.match(status.out, /Activation attempts: allowed/)

  const reverified = await run(['reverify'])
  assert.equal(reverified.code, 0, reverified.err)
  assert.match(reverified.out, /^Re-verified; offline token valid until \d{4}-/)
  const elsewhere = await run(['deactivate', '--domain', 'https://other.example.com'])
  assert.equal(elsewhere.code, 1)
  assert.match(elsewhere.out, /^NOT_ACTIVATED_ON_DOMAIN: License is not activated on this domain/)
  const json = JSON.parse((await run(['status', '--json'])).out)
  assert.equal(json.offlineToken.signatureValid, true)
  assert.equal(json.request.domain, 'erp.example.com')

  const released = await run(['deactivate'])
  assert.equal(released.code, 0, released.err)
  assert.equal(released.out.trim(), 'Deactivated erp.example.com (0 activations in use)')
  const refused = await run(['validate'])
  assert.equal(refused.code, 1)
  assert.match(refused.out, /^NOT_ACTIVATED_ON_DOMAIN: /)
})

test('options override the environment; an undeterminable domain is refused', async () => {
  const r = await run(['activate', '--url', 'https://'])
  assert.equal(r.code, 1)
  assert.equal(r.out.trim(), 'DOMAIN_UNDETERMINED: Could not determine the instance domain')
})

test('an unreachable service exits with 3; bad usage with 2', async () => {
  const down = await run(['validate', '--base-url', 'http://127.0.0.1:9/api', '--retries', '0'], { LICENSE_STATE_FILE: join(tmpdir(), `none-${Date.now()}.json`) })
  assert.equal(down.code, 3, down.out + down.err)
  assert.match(down.out, /^SERVICE_UNAVAILABLE: /)
  const missing = await run(['validate'], { LICENSE_KEY: '' })
  assert.equal(missing.code, 2)
  assert.match(missing.err, /Missing --key/)
  const unknown = await run(['frobnicate'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.err, /Unknown command: frobnicate/)
})
