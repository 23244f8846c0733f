import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { DatabaseInUseError, openDb } from '../src/core/db.ts'
import type { App } from '../src/core/module.ts'
import { createDatabase } from './helpers/app.ts'

// `npm start` then `npm run seed` on the embedded database: the seed must not
// write behind the server's back (two PGlite instances on one folder split or
// corrupt it). It refuses at once, saying what to do; once the server is
// stopped it seeds, and a second run still works. Then every module holds a
// small, living company, reachable with the credentials the seed printed.

const seed = (env: { DATA_DIR?: string; DATABASE_URL?: string }) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/seed.ts'], {
    env: { ...process.env, DATABASE_URL: '', ...env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 240_000,
  })

/** Seeds twice (the second run only makes a key) and checks the company through the API with the printed credentials. */
async function seedTwiceAndCheck(env: { DATA_DIR?: string; DATABASE_URL?: string }) {
  const started = Date.now()
  const first = seed(env)
  assert.equal(first.status, 0, first.stdout + first.stderr)
  assert.match(first.stdout, /Seeding organization Northwind Trading/)
  const seconds = (Date.now() - started) / 1000
  const again = seed(env)
  assert.equal(again.status, 0, again.stdout + again.stderr)
  assert.match(again.stdout, /exists already/)

  const app = await buildApp(loadConfig({ DATABASE_URL: '', ...env, JOBS: 'off', RATE_LIMIT: 'off', LOG_LEVEL: 'silent' }), { logger: false })
  try {
    await checkSeeded(app, again.stdout)
  } finally {
    await app.close()
  }
  return seconds
}

async function checkSeeded(app: App, stdout: string) {
  // Where to sign in: the dashboard, one user per role, a key and a curl line.
  assert.match(stdout, /Dashboard: http:\/\/localhost:\d+\/ /)
  const password = /password (\S+)\)/.exec(stdout)![1]
  const tokens: Record<string, string> = {}
  for (const role of ['admin', 'member', 'support', 'agent', 'customer']) {
    const email = new RegExp(`^ +${role} +(\\S+@\\S+)`, 'm').exec(stdout)?.[1]
    assert.ok(email, `the seed prints the ${role}'s e-mail`)
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } })
    assert.equal(login.statusCode, 200, `${role}: ${login.body}`)
    tokens[role] = login.json().accessToken
    const me = await app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${tokens[role]}` } })
    assert.equal(me.json().user.role, role)
  }
  const key = /API key: +(\S+)/.exec(stdout)![1]
  assert.match(stdout, new RegExp(`curl -H "Authorization: Bearer ${key}" http://localhost:\\d+/api/contacts`))
  const get = async (url: string, token = key) => {
    const res = await app.inject({ method: 'GET', url: `/api${url}`, headers: { authorization: `Bearer ${token}` } })
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    return res.json()
  }
  const total = async (url: string, token = key) => (await get(url, token)).meta.total as number
  const everyState = async (url: string, states: string[]) => {
    for (const status of states) assert.ok((await total(`${url}${url.includes('?') ? '&' : '?'}status=${status}&limit=1`)) >= 1, `${url}: none ${status}`)
  }

  // Nothing was seeded twice: 40 contacts, the customer's own, 3 vendors, a converted lead and a POST /support requester.
  assert.equal(await total('/contacts'), 46)
  assert.equal(await total('/employees'), 6)
  assert.equal(await total('/users'), 5)

  // The connectors of README.md "Run it": 499 and 249 USD one-time, each with a build for ERP 17.0, 18.0 and 19.0.
  const connectors = (await get('/products?search=Connector&limit=100')).data.filter((p: any) => p.moduleName)
  const builds: Record<string, string[]> = {}
  for (const p of connectors) {
    assert.equal(p.billing, 'one_time')
    assert.equal(p.price, p.moduleName === 'marketplace_connector' ? 49900 : 24900)
    for (const b of (await get(`/products/${p.id}/builds`)).data) (builds[p.moduleName] ??= []).push(b.version)
  }
  for (const versions of Object.values(builds)) versions.sort()
  assert.deepEqual(builds, {
    marketplace_connector: ['17.0.2.0.0', '18.0.2.0.0', '19.0.2.0.0'],
    multi_country_connector: ['17.0.1.0.2', '18.0.1.0.2', '19.0.1.0.2'],
  })

  // Sales and invoicing: every state.
  await everyState('/sales/quotations', ['draft', 'sent', 'confirmed', 'cancelled'])
  await everyState('/invoices', ['draft', 'sent', 'partial_paid', 'paid', 'overdue', 'cancelled'])
  assert.ok((await total('/credit-notes')) >= 1)
  await everyState('/orders', ['confirmed', 'invoiced'])
  assert.ok((await total('/orders?source=checkout')) >= 1)

  // Stock: on hand, some below the reorder point, a transfer waiting to be validated.
  const stock = (await get('/inventory/products?limit=100')).data
  assert.ok(stock.filter((p: any) => p.onHand > 0).length >= 6, JSON.stringify(stock))
  assert.ok((await total('/inventory/products?belowReorder=true')) >= 1)
  await everyState('/inventory/transfers', ['ready', 'done', 'draft'])
  assert.ok((await total('/inventory/adjustments')) >= 1)

  // Purchase: received, partly received and billed orders, RFQs.
  await everyState('/purchase/rfqs', ['draft', 'sent', 'confirmed', 'cancelled'])
  assert.ok((await total('/purchase/orders?receiptStatus=received')) >= 1)
  assert.ok((await total('/purchase/orders?receiptStatus=partial')) >= 1)
  assert.ok((await total('/purchase/bills')) >= 1)

  // Manufacturing: a BOM and production orders, one done.
  assert.ok((await total('/manufacturing/boms')) >= 1)
  await everyState('/manufacturing/orders', ['draft', 'confirmed', 'in_progress', 'done'])

  // Projects: tasks, milestones and timesheets.
  const projects = (await get('/projects')).data
  assert.equal(projects.length, 3)
  const rollout = projects.find((p: any) => p.name === 'Marketplace rollout for Acme Corp')
  assert.ok(rollout.tasksTotal > rollout.tasksDone && rollout.tasksDone > 0 && rollout.hoursLogged > 0, JSON.stringify(rollout))
  assert.ok((await get(`/projects/${rollout.id}/timesheets`)).totalHours > 0)
  assert.ok((await total(`/projects/${rollout.id}/milestones?reached=true`)) >= 1)
  assert.ok((await total(`/projects/${rollout.id}/milestones?reached=false`)) >= 1)

  // Helpdesk: teams, SLA policies, tickets in every state with replies and an internal note; the customer sees its own.
  assert.ok((await total('/helpdesk/teams')) >= 1)
  assert.ok((await get('/helpdesk/sla')).length >= 1)
  await everyState('/helpdesk/tickets', ['new', 'in_progress', 'pending_customer', 'resolved', 'closed'])
  const mine = (await get('/helpdesk/tickets', tokens.customer)).data
  assert.ok(mine.length >= 1)
  const notes = await Promise.all((await get('/helpdesk/tickets?limit=100')).data.map(async (t: any) => (await get(`/helpdesk/tickets/${t.id}/messages?limit=100`)).data))
  assert.ok(notes.flat().some((m: any) => m.internal), 'an internal note')
  assert.ok(notes.flat().filter((m: any) => !m.internal).length >= 5, 'public replies')

  // CRM leads, new and converted.
  assert.ok((await total('/crm/leads?status=new')) >= 1)
  assert.ok((await total('/crm/leads?status=converted')) >= 1)

  // Licenses: the customer holds two (one bought through checkout), each active on a domain, and may download their builds.
  const licenses = await get('/licenses', tokens.customer)
  assert.equal(licenses.length, 2)
  for (const l of licenses) assert.deepEqual([l.status, l.domains.length], ['active', 1])
  assert.equal((await get('/portal/downloads', tokens.customer)).meta.total, 2)
  assert.ok((await get('/portal/billing', tokens.customer)).orders.length >= 1)

  // A finished report run.
  assert.ok((await total('/reports?status=succeeded')) >= 1)
}

test('the embedded database belongs to one process; the seed refuses while a server holds it, then seeds every module', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bp-seed-'))
  try {
    const server = await openDb({ dataDir: dir })
    await assert.rejects(openDb({ dataDir: dir }), (err: Error) => err instanceof DatabaseInUseError && err.message.includes(`in use by process ${process.pid}`))
    const started = Date.now()
    const refused = seed({ DATA_DIR: dir })
    assert.equal(refused.status, 1, refused.stdout + refused.stderr)
    assert.match(refused.stderr, new RegExp(`in use by process ${process.pid}`))
    assert.match(refused.stderr, /stop the server, run `npm run seed`/)
    assert.ok(Date.now() - started < 60_000)
    await server.close()

    const seconds = await seedTwiceAndCheck({ DATA_DIR: dir })
    t.diagnostic(`seed on PGlite: ${seconds.toFixed(1)} s`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the seed fills a fresh PostgreSQL database the same way', { skip: !process.env.DATABASE_URL && 'DATABASE_URL not set', timeout: 600_000 }, async (t) => {
  const db = await createDatabase(process.env.DATABASE_URL!, 'bp_seed')
  try {
    const seconds = await seedTwiceAndCheck({ DATABASE_URL: db.url })
    t.diagnostic(`seed on PostgreSQL: ${seconds.toFixed(1)} s`)
  } finally {
    await db.drop()
  }
})
