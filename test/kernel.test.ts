import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../src/app.ts'
import { DomainEvents, type DomainEvent } from '../src/core/events.ts'
import { Jobs, type Job } from '../src/core/jobs.ts'
import { defineModule, orderModules } from '../src/core/module.ts'
import { modules } from '../src/modules/index.ts'
import { systemModule } from '../src/modules/system/index.ts'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from './helpers/app.ts'
import { filesUnder } from './helpers/files.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const mod = (name: string, needs: string[] = []) => ({ name, needs })
const names = (list: Array<{ name: string }>) => list.map((m) => m.name).join(',')

describe('modules are ordered by their declared needs', () => {
  test('each module comes after what it needs, whatever the order given; ties keep the order given', () => {
    assert.equal(names(orderModules([mod('sales', ['orders', 'contacts']), mod('orders', ['invoices']), mod('contacts'), mod('invoices', ['contacts']), mod('crm')])), 'contacts,invoices,orders,sales,crm')
  })

  test('a need that names no module stops the start with a message naming both', () => {
    assert.throws(() => orderModules([mod('orders', ['invoices'])]), /Module "orders" needs module "invoices", which is not loaded/)
  })

  test('a cycle stops the start with the cycle spelled out', () => {
    assert.throws(() => orderModules([mod('a', ['b']), mod('b', ['c']), mod('c', ['a'])]), /Module dependency cycle: a -> b -> c -> a/)
    assert.throws(() => orderModules([mod('a'), mod('a')]), /declared twice/)
  })

  test('buildApp refuses a module list with a missing need, before listening', async () => {
    const orders = modules.find((m) => m.name === 'orders')!
    await assert.rejects(buildApp(t.config, { db: t.app.ctx.db, logger: false, modules: [systemModule, orders] }), /Module "orders" needs module "invoices", which is not loaded/)
  })

  test('a module sees the services of its needs and nothing else', async () => {
    let seen: string[] = []
    const probe = defineModule({
      name: 'probe',
      needs: ['contacts'],
      async register(_app, ctx) {
        seen = Object.keys(ctx.services)
        assert.equal((ctx.services as Record<string, unknown>).invoices, undefined)
      },
    })
    const contacts = modules.find((m) => m.name === 'contacts')!
    const app = await buildApp(t.config, { db: t.app.ctx.db, logger: false, modules: [probe, contacts, systemModule] })
    await app.close()
    assert.deepEqual(seen, ['contacts'])
  })

  test("every module's needs cover the modules its code imports", () => {
    const root = 'src/modules'
    const files = (dir: string) => filesUnder(dir).filter((f) => f.endsWith('.ts') && !/\.(test|fixtures)\.ts$/.test(f))
    const problems: string[] = []
    for (const m of modules) {
      for (const file of files(join(root, m.name))) {
        for (const [, other] of readFileSync(file, 'utf8').matchAll(/from '(?:\.\.\/)+(\w+)\/index\.ts'/g)) {
          if (other !== m.name && other !== 'core' && !m.needs.includes(other as never)) problems.push(`${file} imports module "${other}" but ${m.name} does not declare it in needs`)
        }
      }
    }
    assert.deepEqual(problems, [])
  })
})

describe('domain events', () => {
  const log = () => t.app.log
  const event = (id: string, type = 'widget.changed') => ({ organizationId: org.id, type, resource: { type: 'widget', id }, object: { id, n: 1 } })
  const deliveries = async (subscriber: string) =>
    (await t.app.ctx.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM domain_event_deliveries WHERE subscriber = $1', [subscriber])).rows

  test('an event exists if and only if its transaction commits; a durable subscriber gets it once after commit', async () => {
    const got: DomainEvent[] = []
    const bus = new DomainEvents(t.app.ctx.db, log())
    bus.subscribe('kernel-test-commit', ['widget.changed'], async (e) => void got.push(e))
    await assert.rejects(t.app.ctx.db.tx(async (q) => {
      await bus.append(q, event('w-rolled-back'))
      throw new Error('rolled back')
    }))
    const appended = await t.app.ctx.db.tx((q) => bus.append(q, event('w-1')))
    assert.equal(got.length, 0, 'nothing is delivered inside the transaction')
    assert.match(appended.id, /^evt_[0-9a-f]{32}$/)
    assert.deepEqual(await bus.drain(), { delivered: 1, failed: 0 })
    assert.deepEqual(await bus.drain(), { delivered: 0, failed: 0 })
    assert.equal(got.length, 1)
    assert.deepEqual({ ...got[0], createdAt: undefined }, {
      id: appended.id, organizationId: org.id, type: 'widget.changed', resourceType: 'widget', resourceId: 'w-1', data: { object: { id: 'w-1', n: 1 } }, createdAt: undefined,
    })
    const { rows } = await t.app.ctx.db.query(`SELECT count(*)::int AS n FROM domain_events WHERE resource_id = 'w-rolled-back'`)
    assert.equal(rows[0].n, 0)
    assert.deepEqual(await deliveries('kernel-test-commit'), [{ status: 'done', attempts: 1 }])
  })

  test('a failing subscriber is retried with backoff and gives up after maxAttempts; others are not held up', async () => {
    let calls = 0
    const bus = new DomainEvents(t.app.ctx.db, log(), { maxAttempts: 3 })
    bus.subscribe('kernel-test-failing', ['widget.failing'], async () => {
      calls++
      throw new Error('receiver down')
    })
    await t.app.ctx.db.tx((q) => bus.append(q, event('w-fail', 'widget.failing')))
    assert.deepEqual(await bus.drain(), { delivered: 0, failed: 1 })
    assert.deepEqual(await bus.drain(), { delivered: 0, failed: 0 }, 'not due again before its backoff')
    const [row] = (await t.app.ctx.db.query(`SELECT attempts, status, last_error, next_attempt_at > now() AS later FROM domain_event_deliveries WHERE subscriber = 'kernel-test-failing'`)).rows
    assert.deepEqual(row, { attempts: 1, status: 'pending', last_error: 'receiver down', later: true })
    for (let i = 0; i < 2; i++) {
      await t.app.ctx.db.query(`UPDATE domain_event_deliveries SET next_attempt_at = now() WHERE subscriber = 'kernel-test-failing'`)
      await bus.drain()
    }
    assert.equal(calls, 3)
    assert.deepEqual(await deliveries('kernel-test-failing'), [{ status: 'dead', attempts: 3 }])
  })

  test('an in-transaction subscriber that fails rolls the change back with its event', async () => {
    const bus = new DomainEvents(t.app.ctx.db, log())
    bus.within(['widget.guarded'], async () => {
      throw new Error('invariant broken')
    })
    await assert.rejects(t.app.ctx.db.tx((q) => bus.append(q, event('w-guarded', 'widget.guarded'))), /invariant broken/)
    const { rows } = await t.app.ctx.db.query(`SELECT count(*)::int AS n FROM domain_events WHERE resource_id = 'w-guarded'`)
    assert.equal(rows[0].n, 0)
  })

  test('two dispatchers (two processes) share the queue: every delivery handled once, each resource in order', async () => {
    const seen = new Map<string, number[]>()
    let handled = 0
    const handler = async (e: DomainEvent) => {
      handled++
      const list = seen.get(e.resourceId) ?? []
      list.push((e.data.object as { n: number }).n)
      seen.set(e.resourceId, list)
      await new Promise((r) => setTimeout(r, Math.random() * 3))
    }
    const a = new DomainEvents(t.app.ctx.db, log())
    const b = new DomainEvents(t.app.ctx.db, log())
    a.subscribe('kernel-test-shared', ['widget.seq'], handler)
    b.subscribe('kernel-test-shared', ['widget.seq'], handler)
    const resources = ['r1', 'r2', 'r3', 'r4']
    for (let n = 1; n <= 10; n++) {
      await t.app.ctx.db.tx(async (q) => {
        for (const id of resources) await a.append(q, { organizationId: org.id, type: 'widget.seq', resource: { type: 'widget', id }, object: { n } })
      })
    }
    await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()])
    assert.equal(handled, 40)
    for (const id of resources) assert.deepEqual(seen.get(id), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], `events of ${id} in order`)
    const { rows } = await t.app.ctx.db.query(`SELECT count(*)::int AS n FROM domain_event_deliveries WHERE subscriber = 'kernel-test-shared' AND status = 'done' AND attempts = 1`)
    assert.equal(rows[0].n, 40)
  })

  test('services append events in the transaction of the change, embedding the resource as GET answers it', async () => {
    const contact = (await org.post('/contacts', { name: 'Evented', email: 'evented@example.com' })).body
    const { rows } = await t.app.ctx.db.query<{ id: string; type: string; organization_id: string; data: { object: unknown } }>(
      `SELECT id, type, organization_id, data FROM domain_events WHERE resource_type = 'contact' AND resource_id = $1 ORDER BY seq`, [contact.id])
    assert.deepEqual(rows.map((r) => [r.type, r.organization_id]), [['contact.created', org.id]])
    assert.deepEqual(rows[0].data.object, (await org.get(`/contacts/${contact.id}`)).body)
    await org.del(`/contacts/${contact.id}`)
    const types = (await t.app.ctx.db.query<{ type: string }>(`SELECT type FROM domain_events WHERE resource_id = $1 ORDER BY seq`, [contact.id])).rows.map((r) => r.type)
    assert.deepEqual(types, ['contact.created', 'contact.deleted'])
  })
})

describe('scheduled jobs', () => {
  test('two processes ticking the same job run it once per interval', async () => {
    let runs = 0
    const job: Job = { name: `kernel-test-${Date.now()}`, description: 'counts', intervalMs: 60_000, run: async () => ({ runs: ++runs }) }
    const a = new Jobs(t.app.ctx.db, t.app.log)
    const b = new Jobs(t.app.ctx.db, t.app.log)
    a.register(job)
    b.register(job)
    const results = await Promise.all([a.tick(job), b.tick(job), a.tick(job), b.tick(job)])
    assert.equal(runs, 1)
    assert.equal(results.filter(Boolean).length, 1)
    assert.equal(await b.tick(job), null, 'the interval is taken')
    await t.app.ctx.db.query(`UPDATE scheduled_jobs SET last_started_at = now() - interval '61 seconds' WHERE name = $1`, [job.name])
    assert.deepEqual(await b.tick(job), { runs: 2 }, 'the next interval runs again')
  })
})
