import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.ts'
import { openDb, type Db } from '../../src/core/db.ts'
import { migrate } from '../../src/core/migrate.ts'
import type { App } from '../../src/core/module.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import type { Role } from '../../src/core/auth.ts'

/** A new, empty database on the PostgreSQL server of `base`, and how to drop it. */
/**
 * `template`: copied from that database; `fastCommit`: commits do not wait for
 * the disk (a test database needs no durability across a server crash; a
 * benchmark's does, so its figures stay those of a real server).
 */
export async function createDatabase(base: string, prefix = 'bp_test', opts: { template?: string; fastCommit?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const { template, fastCommit } = opts
  // CI sets TEST_DB_TAG so that it can check afterwards that the run dropped every database it made.
  const name = `${prefix}_${process.env.TEST_DB_TAG ?? ''}${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`)
        break
      } catch (err) {
        // A template is copied only while nobody is connected to it; the connection that migrated it may take a moment to go.
        if ((err as { code?: string }).code !== '55006' || attempt >= 50) throw err
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    if (fastCommit) await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`)
  } finally {
    await admin.end()
  }
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url))

/**
 * Names the migrated schema: a hash of every migration file (and of PGlite's
 * version, whose data directory format may change), so a changed or added
 * migration makes a new image.
 */
const schemaKey = (() => {
  let key: string | undefined
  return () => {
    if (!key) {
      const h = createHash('sha256')
      for (const f of readdirSync(MIGRATIONS).filter((n) => n.endsWith('.sql')).sort()) h.update(f).update(readFileSync(join(MIGRATIONS, f)))
      h.update(readFileSync(fileURLToPath(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url))))
      key = h.digest('hex').slice(0, 12)
    }
    return key
  }
})()

/**
 * Every test file starts from a migrated database instead of running ~125
 * migrations again (and, on PGlite, initdb): the suite's largest fixed cost.
 * On PGlite, a tarball of a migrated data directory in the temp folder,
 * written once by whichever test process needs it first (a write then a
 * rename, so no process reads half a file). On PostgreSQL, a template
 * database (bp_tpl_..., made once under an advisory lock) that each test's
 * database is copied from. CI drops its templates with its test databases.
 */
let pgliteImage: Promise<Blob> | undefined
function migratedPgliteImage(): Promise<Blob> {
  pgliteImage ??= (async () => {
    const file = join(tmpdir(), `bp-test-pglite-${schemaKey()}.tar`)
    try {
      return new Blob([readFileSync(file)])
    } catch {
      const db = await openDb({ dataDir: 'memory://' })
      try {
        await migrate(db)
        const image = await db.dumpImage!()
        const part = `${file}.${process.pid}.part`
        writeFileSync(part, Buffer.from(await image.arrayBuffer()))
        renameSync(part, file)
        // Images of older schemas are of no further use.
        for (const f of readdirSync(tmpdir())) if (/^bp-test-pglite-[0-9a-f]{12}\.tar$/.test(f) && join(tmpdir(), f) !== file) rmSync(join(tmpdir(), f), { force: true })
        return image
      } finally {
        await db.close()
      }
    }
  })()
  return pgliteImage
}

async function migratedTemplate(base: string): Promise<string> {
  const name = `bp_tpl_${process.env.TEST_DB_TAG ?? ''}${schemaKey()}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try {
    // One process builds it; the others wait here, then find it made.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name])
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (!rowCount) {
      // Built under another name and renamed when complete: a process killed midway leaves no half template.
      const building = `${name}_part`
      await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`)
      await admin.query(`CREATE DATABASE ${building}`)
      const url = new URL(base)
      url.pathname = `/${building}`
      const db = await openDb({ databaseUrl: url.toString(), dataDir: '', pgPoolSize: 1 })
      try {
        await migrate(db)
      } finally {
        await db.close()
      }
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`)
    }
    return name
  } finally {
    await admin.end()
  }
}

/**
 * A fresh database for each test file: in-memory PGlite by default, or a new
 * database on the server of DATABASE_URL, dropped at the end; both already
 * migrated.
 */
async function freshDatabase(): Promise<{ url?: string; db?: Db; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL
  if (!base) {
    const db = await openDb({ dataDir: 'memory://', image: await migratedPgliteImage() })
    let closed: Promise<void> | undefined
    return { db, drop: () => (closed ??= db.close()) }
  }
  return createDatabase(base, 'bp_test', { template: await migratedTemplate(base), fastCommit: true })
}

export interface TestApp {
  app: App
  config: Config
  close(): Promise<void>
}

/**
 * The production app with test settings: rate limits lifted (their own tests
 * turn them on), jobs not scheduled (tests run them through the admin route),
 * quiet logs. `env` overrides any variable.
 */
export async function buildTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const db = await freshDatabase()
  const config = loadConfig({
    DATA_DIR: 'memory://',
    RATE_LIMIT: 'off',
    JOBS: 'off',
    LOG_LEVEL: 'silent',
    JWT_SECRET: 'test-secret-that-is-long-enough-0123456789',
    // Hundreds of users are registered per run; the production cost (17) is tested in test/auth.test.ts.
    PASSWORD_HASH_COST: '14',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
    // API_ENV=live refuses the local payment processor (docs/billing.md): a live app gets Stripe,
    // configured but never called unless a test points it somewhere.
    ...(env.API_ENV === 'live' ? { PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_unused', STRIPE_WEBHOOK_SECRET: 'whsec_unused' } : {}),
    // API_ENV=live needs a SECRET_KEY (docs/secrets.md).
    ...(env.API_ENV === 'live' ? { SECRET_KEY: randomBytes(32).toString('base64') } : {}),
    ...env,
  })
  // The migrated PGlite opened above, unless the test names its own database.
  const given = db.db && !env.DATABASE_URL && !env.DATA_DIR ? db.db : undefined
  if (db.db && !given) await db.drop()
  const app = await buildApp(config, { logger: env.LOG_LEVEL ? undefined : false, db: given })
  return {
    app,
    config,
    close: async () => {
      // The database is dropped even when closing the app fails (a test that closed the pool itself).
      try {
        await app.close()
      } finally {
        await db.drop()
      }
    },
  }
}

export interface Res<T = any> {
  status: number
  body: T
  headers: LightMyRequestResponse['headers']
  raw: LightMyRequestResponse
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'

/** One HTTP call through app.inject, JSON in and out. Paths are relative to /api. */
export async function call<T = any>(app: App, method: Method, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  const res = await app.inject({
    method,
    url: `/api${path}`,
    headers,
    ...(opts.body !== undefined ? { payload: opts.body as any } : {}),
  })
  let body: any = res.body
  if (String(res.headers['content-type'] ?? '').includes('json') && res.body) body = JSON.parse(res.body)
  return { status: res.statusCode, body, headers: res.headers, raw: res }
}

let counter = 0
export const unique = (label = 'x') => `${label}${Date.now().toString(36)}${(counter++).toString(36)}${randomBytes(2).toString('hex')}`

export interface TestOrg {
  id: string
  name: string
  /** Access token of the organization's first user (admin). */
  token: string
  adminEmail: string
  password: string
  /** A bearer credential of the given role (an API key of this environment), made once per role. */
  as(role: Role): Promise<string>
  get<T = any>(path: string, token?: string): Promise<Res<T>>
  post<T = any>(path: string, body?: unknown, token?: string, headers?: Record<string, string>): Promise<Res<T>>
  patch<T = any>(path: string, body: unknown, token?: string): Promise<Res<T>>
  del<T = any>(path: string, token?: string): Promise<Res<T>>
}

/** Registers a new organization through the API and returns a client for it. */
export async function createOrg(app: App, name = unique('Org ')): Promise<TestOrg> {
  const password = 'correct horse battery'
  const adminEmail = `${unique('admin')}@example.com`
  const res = await call(app, 'POST', '/auth/register', { body: { organizationName: name, name: 'Ada Admin', email: adminEmail, password } })
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`)
  const token: string = res.body.accessToken
  const env = app.ctx.config.apiEnv
  const keys = new Map<Role, string>([['admin', token]])
  const org: TestOrg = {
    id: res.body.organization.id,
    name,
    token,
    adminEmail,
    password,
    async as(role) {
      if (!keys.has(role)) {
        const k = await call(app, 'POST', '/api-keys', { token, body: { name: `${role} key`, environment: env, role } })
        if (k.status !== 201) throw new Error(`api key failed: ${k.status} ${JSON.stringify(k.body)}`)
        keys.set(role, k.body.key)
      }
      return keys.get(role)!
    },
    get: (path, t = token) => call(app, 'GET', path, { token: t }),
    post: (path, body, t = token, headers) => call(app, 'POST', path, { token: t, body: body ?? {}, headers }),
    patch: (path, body, t = token) => call(app, 'PATCH', path, { token: t, body }),
    del: (path, t = token) => call(app, 'DELETE', path, { token: t }),
  }
  return org
}

/**
 * The text of each e-mail the outbox holds for `where` (an SQL condition on
 * outbox, $1... its parameters), newest first, unsealed as the mail worker does:
 * bodies are kept sealed with SECRET_KEY (docs/secrets.md).
 */
export async function mailTexts(app: App, where: string, params: unknown[]): Promise<string[]> {
  const { rows } = await app.ctx.db.query<{ id: string; text_body: string }>(`SELECT id, text_body FROM outbox WHERE ${where} ORDER BY created_at DESC, id`, params)
  return rows.map((r) => app.ctx.secrets.unseal(r.text_body, `outbox.text_body:${r.id}`))
}
