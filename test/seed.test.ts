import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { DatabaseInUseError, openDb } from '../src/core/db.ts'

// `npm start` then `npm run seed` on the embedded database: the seed must not
// write behind the server's back (two PGlite instances on one folder split or
// corrupt it). It refuses at once, saying what to do; once the server is
// stopped it seeds, and a second run still works.

const seed = (dataDir: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/seed.ts'], {
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 240_000,
  })

test('the embedded database belongs to one process; the seed refuses while a server holds it, then seeds', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bp-seed-'))
  try {
    const server = await openDb({ dataDir: dir })
    await assert.rejects(openDb({ dataDir: dir }), (err: Error) => err instanceof DatabaseInUseError && err.message.includes(`in use by process ${process.pid}`))
    const started = Date.now()
    const refused = seed(dir)
    assert.equal(refused.status, 1, refused.stdout + refused.stderr)
    assert.match(refused.stderr, new RegExp(`in use by process ${process.pid}`))
    assert.match(refused.stderr, /stop the server, run `npm run seed`/)
    assert.ok(Date.now() - started < 60_000)
    await server.close()

    const first = seed(dir)
    assert.equal(first.status, 0, first.stdout + first.stderr)
    const again = seed(dir)
    assert.equal(again.status, 0, again.stdout + again.stderr)
    assert.match(again.stdout, /exists already/)
    const key = /API key: +(\S+)/.exec(again.stdout)![1]

    const app = await buildApp(loadConfig({ DATA_DIR: dir, JOBS: 'off', LOG_LEVEL: 'silent' }), { logger: false })
    try {
      const res = await app.inject({ method: 'GET', url: '/api/contacts', headers: { authorization: `Bearer ${key}` } })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().meta.total, 40)
    } finally {
      await app.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
