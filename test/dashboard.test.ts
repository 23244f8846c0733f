// The web dashboard served at `/` by the API's process (src/core/dashboard.ts):
// its files, its index.html for page addresses, the API's JSON 404 for
// everything else, and a clear 503 when it is not built.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { after, before, test } from 'node:test'
import Fastify from 'fastify'
import { DASHBOARD_DIR, installDashboard } from '../src/core/dashboard.ts'
import { notFoundHandler } from '../src/core/error-handler.ts'
import { buildTestApp, type TestApp } from './helpers/app.ts'

let t: TestApp
before(async () => {
  if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) assert.equal(build().status, 0)
  t = await buildTestApp()
})
after(async () => await t.close())

// Without NODE_TEST_CONTEXT, which would make the child report to this test runner instead of printing.
const { NODE_TEST_CONTEXT: _, ...env } = process.env
const build = () => spawnSync(process.execPath, ['scripts/build-dashboard.mjs'], { encoding: 'utf8', env })

const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

test('page addresses answer the dashboard under the strict CSP; its scripts and styles are files of ours', async () => {
  for (const url of ['/', '/sign-in', '/invoices/0b5a1c1e-0000-4000-8000-000000000000', '/settings/api-keys?page=2', '/helpdesk?status=new&sort=ticketNumber', '/licenses?checkout=success', '/licences']) {
    const res = await t.app.inject({ method: 'GET', url, headers: html })
    assert.equal(res.statusCode, 200, url)
    assert.match(res.headers['content-type'] as string, /^text\/html/)
    assert.equal(res.headers['cache-control'], 'no-cache')
    assert.match(res.headers['content-security-policy'] as string, /script-src 'self';/)
    assert.match(res.body, /<div id="root"><\/div>/)
  }
  const page = (await t.app.inject({ method: 'GET', url: '/', headers: html })).body
  // No inline script (the CSP would refuse it) and nothing from another origin.
  const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
  assert.ok(scripts.length >= 1)
  for (const [, attrs, body] of scripts) {
    assert.match(attrs, /src="\/assets\/[^"]+\.js"/)
    assert.equal(body.trim(), '')
  }
  const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
  for (const url of assets) {
    assert.ok(url.startsWith('/') && !url.startsWith('//'), url)
    const res = await t.app.inject({ method: 'GET', url })
    assert.equal(res.statusCode, 200, url)
    if (url.startsWith('/assets/')) assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable')
  }
  const js = readdirSync(join(DASHBOARD_DIR, 'assets')).find((f) => f.endsWith('.js'))!
  assert.match((await t.app.inject({ method: 'GET', url: `/assets/${js}` })).headers['content-type'] as string, /javascript/)
})

test('everything that is not a page address keeps the API\'s JSON 404', async () => {
  for (const [method, url, headers] of [
    ['GET', '/api/nope', html],
    ['GET', '/.well-known/nope', html],
    ['GET', '/nope', { accept: 'application/json' }],
    ['GET', '/nope', {}],
    ['POST', '/', html],
    ['DELETE', '/settings', html],
  ] as const) {
    const res = await t.app.inject({ method, url, headers })
    assert.equal(res.statusCode, 404, `${method} ${url}`)
    assert.equal(res.json().code, 'ROUTE_NOT_FOUND', `${method} ${url}`)
  }
  // The dashboard's files need no credentials; the API still does.
  assert.equal((await t.app.inject({ method: 'GET', url: '/favicon.svg' })).statusCode, 200)
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/contacts', headers: html })).statusCode, 401)
})

test('without a build, page addresses say what to run (503), and the API is unchanged', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bp-dash-'))
  const app = Fastify()
  try {
    app.setNotFoundHandler(await installDashboard(app, notFoundHandler, dir))
    const page = await app.inject({ method: 'GET', url: '/overview', headers: html })
    assert.equal(page.statusCode, 503)
    assert.match(page.body, /npm run build:dashboard/)
    const api = await app.inject({ method: 'GET', url: '/api/x', headers: html })
    assert.equal(api.statusCode, 404)
    assert.equal(api.json().code, 'ROUTE_NOT_FOUND')
  } finally {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the build script builds only when the sources changed', () => {
  const run = build()
  assert.equal(run.status, 0, run.stderr)
  assert.match(run.stdout, /dashboard: up to date/)
  assert.ok(readFileSync(join(DASHBOARD_DIR, '.sources'), 'utf8').length === 64)
})

test('assets are served precompressed: brotli or gzip as the browser accepts, the same bytes once decompressed', async () => {
  const assets = readdirSync(join(DASHBOARD_DIR, 'assets'))
  for (const name of assets.filter((f) => /\.(js|css)$/.test(f))) {
    const raw = readFileSync(join(DASHBOARD_DIR, 'assets', name))
    const url = `/assets/${name}`
    const br = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } })
    assert.equal(br.statusCode, 200, url)
    // Under 1 KiB (a chunk two page groups share, of a few lines) the build keeps no compressed copy (scripts/build-dashboard.mjs MIN_BYTES): served as it is.
    if (raw.length < 1024) {
      assert.equal(br.headers['content-encoding'], undefined, url)
      assert.deepEqual(br.rawPayload, raw, url)
      continue
    }
    assert.equal(br.headers['content-encoding'], 'br', url)
    assert.match(br.headers.vary as string, /accept-encoding/i)
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.match(br.headers['content-type'] as string, name.endsWith('.js') ? /javascript/ : /text\/css/)
    // A script of a few kB (a small chunk of the code split per page group) has less to share: half.
    assert.ok(br.rawPayload.length < raw.length / (raw.length > 20_000 ? 3 : 2), `${url}: ${br.rawPayload.length} of ${raw.length} bytes`)
    assert.deepEqual(brotliDecompressSync(br.rawPayload), raw)

    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } })
    assert.equal(gz.headers['content-encoding'], 'gzip', url)
    assert.deepEqual(gunzipSync(gz.rawPayload), raw)

    for (const headers of [{}, { 'accept-encoding': 'identity' }]) {
      const plain = await t.app.inject({ method: 'GET', url, headers })
      assert.equal(plain.statusCode, 200, url)
      assert.equal(plain.headers['content-encoding'], undefined, url)
      assert.deepEqual(plain.rawPayload, raw)
    }
  }
  // Every compressible file of the build from 1 KiB up has its two twins; smaller ones (the favicon, a chunk of a few lines) are served as they are.
  for (const name of assets.filter((f) => /\.(js|css)$/.test(f) && statSync(join(DASHBOARD_DIR, 'assets', f)).size >= 1024)) {
    assert.ok(assets.includes(`${name}.br`) && assets.includes(`${name}.gz`), name)
  }
  const icon = await t.app.inject({ method: 'GET', url: '/favicon.svg', headers: { 'accept-encoding': 'br' } })
  assert.equal(icon.statusCode, 200)
  assert.equal(icon.headers['content-encoding'], undefined)
})
