// Fills a demo organization with a small, realistic company through the API
// itself (so every rule applies): users of every role, customers and vendors,
// the two connector products of SPEC 4.11 with their builds, quotations and
// invoices in every state, stock, purchases, manufacturing, projects, a
// helpdesk, licenses and a checkout (what it writes: scripts/seed-data.ts). It
// prints where to sign in and a test API key. Uses the same configuration as
// `npm start` (DATABASE_URL or DATA_DIR). On PostgreSQL it works while the
// server runs. The embedded database belongs to one process at a time: while
// `npm start` holds it, the seed refuses at once and says so.
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { DatabaseInUseError } from '../src/core/db.ts'
import type { App } from '../src/core/module.ts'
import { seed, seedUsers, SEED_EMAIL, SEED_PASSWORD } from './seed-data.ts'

const EMAIL = process.env.SEED_EMAIL ?? SEED_EMAIL
const PASSWORD = process.env.SEED_PASSWORD ?? SEED_PASSWORD

let app: App
try {
  app = await buildApp(loadConfig({ ...process.env, JOBS: 'off', RATE_LIMIT: 'off', LOG_LEVEL: 'warn' }), { logger: false })
} catch (err) {
  if (!(err instanceof DatabaseInUseError)) throw err
  console.error(`${err.message}\nTo seed the embedded database: stop the server, run \`npm run seed\`, then \`npm start\` again.`)
  process.exit(1)
}

try {
  const { seeded, token } = await seed(app, { email: EMAIL, password: PASSWORD })
  if (!seeded) console.log('The demo organization exists already; making a new API key.')

  const res = await app.inject({ method: 'POST', url: '/api/api-keys', headers: { authorization: `Bearer ${token}` }, payload: { name: 'demo key', environment: app.ctx.config.apiEnv } })
  if (res.statusCode >= 400) throw new Error(`POST /api-keys: ${res.statusCode} ${res.body}`)
  const key = res.json()
  const base = app.ctx.config.publicUrl ?? `http://localhost:${app.ctx.config.port}`
  console.log(`
Demo organization ready.
  Dashboard: ${base}/  (sign in with any user below; password ${PASSWORD})
${seedUsers(EMAIL).map(([role, name, email]) => `    ${role.padEnd(9)} ${email.padEnd(30)} ${name}`).join('\n')}
  Log in:   POST /api/auth/login  {"email": "${EMAIL}", "password": "${PASSWORD}"}
  API key:  ${key.key}
  Try:      curl -H "Authorization: Bearer ${key.key}" ${base}/api/contacts
`)
} finally {
  await app.close()
}
