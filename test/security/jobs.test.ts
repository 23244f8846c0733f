import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import { SMTPServer } from 'smtp-server'
import { buildTestApp, call, createOrg, type Res, type TestApp, type TestOrg } from '../helpers/app.ts'
import { createContact } from '../helpers/sales-fixtures.ts'
import { createCustomer, createLicensedProduct, issueLicense } from '../helpers/licenses.ts'
import { buyThroughLocalCheckout } from '../helpers/billing.ts'
import { createSla, createTicket } from '../helpers/helpdesk.ts'

// Finding 10 (issue 24): an admin of any self-registered organization ran
// POST /admin/jobs/invoices-overdue/run and moved another tenant's invoice (and
// the answer counted it). docs/platform.md "Jobs": a run asked by an admin touches,
// and reports, only the admin's own organization; the scheduled runs still cover
// every organization. One case per registered job: organizations A and B each
// have something due; A's admin runs the job: only A's records change and the
// answer counts only A's; then the scheduler's run (Jobs.tick, as the timer
// calls it) handles B.

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, _session, callback) {
    stream.on('data', () => {})
    stream.on('end', () => callback())
  },
})

let t: TestApp
let a: TestOrg
let b: TestOrg
const db = () => t.app.ctx.db

before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  t = await buildTestApp({ SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}` })
  a = await createOrg(t.app)
  b = await createOrg(t.app)
})
after(async () => {
  await t.close()
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
})

const ok = (res: Res, status = 200) => {
  assert.equal(res.status, status, JSON.stringify(res.body))
  return res.body
}
/** POST /admin/jobs/:name/run as the organization's admin: what the job reports. */
const adminRun = async (o: TestOrg, name: string) => ok(await o.post(`/admin/jobs/${name}/run`)).result
/** The scheduler's run: the tick a process's timer makes (every organization), its interval over. */
async function scheduledRun(name: string) {
  const jobs = t.app.ctx.jobs
  await db().query(`UPDATE scheduled_jobs SET last_started_at = now() - interval '1 day' WHERE name = $1`, [name])
  const result = await jobs.tick(jobs.get(name)!)
  assert.ok(result, `the scheduler's tick of ${name} ran`)
  return result
}

const covered = new Set<string>()
function jobCase(name: string, fn: () => Promise<void>) {
  covered.add(name)
  test(`${name}: an admin's run changes and counts only the admin's organization; the scheduled run does the rest`, fn)
}

jobCase('invoices-overdue', async () => {
  const due = async (o: TestOrg) => {
    const inv = ok(await o.post('/invoices', { contactId: (await createContact(o)).id, invoiceDate: '2026-01-01', dueDate: '2026-01-15', lineItems: [{ description: 'Work', quantity: 1, unitPrice: 1000 }] }), 201)
    ok(await o.post(`/invoices/${inv.id}/send`, {}))
    return inv.id as string
  }
  const [ia, ib] = [await due(a), await due(b)]
  const status = async (o: TestOrg, id: string) => ok(await o.get(`/invoices/${id}`)).status
  assert.deepEqual(await adminRun(a, 'invoices-overdue'), { overdue: 1 })
  assert.equal(await status(a, ia), 'overdue')
  assert.equal(await status(b, ib), 'sent')
  // B's admin's run is B's alone too; here the scheduler's run picks it up.
  assert.deepEqual(await scheduledRun('invoices-overdue'), { overdue: 1 })
  assert.equal(await status(b, ib), 'overdue')
})

jobCase('license-expiry', async () => {
  const due = async (o: TestOrg) => {
    const product = await createLicensedProduct(o)
    const customer = await createCustomer(t.app, o)
    const license = await issueLicense(o, { productId: product.id, userId: customer.id, expiresAt: new Date(Date.now() + 3600_000).toISOString() })
    await db().query(`UPDATE licenses SET expires_at = now() - interval '1 second' WHERE id = $1`, [license.id])
    return license.id
  }
  const [la, lb] = [await due(a), await due(b)]
  // The stored status (a reader already sees a license past its expiry as expired).
  const status = async (id: string) => (await db().query<{ status: string }>('SELECT status FROM licenses WHERE id = $1', [id])).rows[0].status
  assert.deepEqual(await adminRun(a, 'license-expiry'), { expired: 1 })
  assert.deepEqual([await status(la), await status(lb)], ['expired', 'active'])
  assert.deepEqual(await scheduledRun('license-expiry'), { expired: 1 })
  assert.equal(await status(lb), 'expired')
})

jobCase('helpdesk-sla-breaches', async () => {
  const due = async (o: TestOrg) => {
    await createSla(o, { name: 'Urgent', firstResponseHours: 1, resolutionHours: 2, applies: ['urgent'] })
    const ticket = await createTicket(o, { priority: 'urgent' })
    await db().query(`UPDATE helpdesk_tickets SET first_response_deadline = now() - interval '1 hour', resolution_deadline = now() - interval '1 minute' WHERE id = $1`, [ticket.id])
    return ticket.id as string
  }
  const [ta, tb] = [await due(a), await due(b)]
  const breaches = async (id: string) => (await db().query<{ n: number }>('SELECT count(*)::int AS n FROM helpdesk_sla_breaches WHERE ticket_id = $1', [id])).rows[0].n
  // No assignee and no team: nobody to e-mail.
  assert.deepEqual(await adminRun(a, 'helpdesk-sla-breaches'), { breaches: 2, emails: 0 })
  assert.deepEqual([await breaches(ta), await breaches(tb)], [2, 0])
  assert.deepEqual(await scheduledRun('helpdesk-sla-breaches'), { breaches: 2, emails: 0 })
  assert.equal(await breaches(tb), 2)
})

jobCase('mail-delivery', async () => {
  // Whatever the other cases queued goes first (the scheduler's run, every organization).
  await scheduledRun('mail-delivery')
  const mail = t.app.services.mail!
  const ids: Record<string, string> = {}
  // Every outbox row names its organization (NOT NULL since migration 0133, docs/scale-out.md "Citus").
  for (const [key, organizationId] of [['a', a.id], ['b', b.id]] as const) {
    await mail.enqueue(db(), { organizationId, to: `${key}@example.com`, subject: `Scoped ${key}`, text: 'Hello' })
    ids[key] = (await db().query<{ id: string }>(`SELECT id FROM outbox WHERE subject = $1`, [`Scoped ${key}`])).rows[0].id
  }
  const status = async (key: string) => (await db().query<{ status: string }>('SELECT status FROM outbox WHERE id = $1', [ids[key]])).rows[0].status
  assert.deepEqual(await adminRun(a, 'mail-delivery'), { sent: 1, failed: 0 })
  assert.deepEqual([await status('a'), await status('b')], ['sent', 'queued'])
  assert.deepEqual(await scheduledRun('mail-delivery'), { sent: 1, failed: 0 })
  assert.equal(await status('b'), 'sent')
})

jobCase('local-payment-processor', async () => {
  const due = async (o: TestOrg) => {
    const monthly = await createLicensedProduct(o, { price: 900, billing: 'recurring', interval: 'month' })
    const buyer = await createCustomer(t.app, o)
    await buyThroughLocalCheckout(t.app, buyer.token, [{ productId: monthly.id, quantity: 1 }])
    const [entry] = ok(await call(t.app, 'GET', '/billing/subscriptions', { token: buyer.token }))
    const customer = (await db().query<{ customer_id: string }>('SELECT customer_id FROM billing_customers WHERE organization_id = $1', [o.id])).rows[0].customer_id
    return { subscription: entry.stripeSubscriptionId as string, customer }
  }
  const [sa, sb] = [await due(a), await due(b)]
  await scheduledRun('local-payment-processor') // delivers whatever the checkouts left pending
  for (const s of [sa, sb]) await db().query(`UPDATE local_subscriptions SET current_period_end = now() - interval '1 second' WHERE id = $1`, [s.subscription])
  // An event of B's customer waiting for delivery: an admin of A does not deliver it.
  const pendingB = `evt_local_${randomBytes(8).toString('hex')}`
  const upcoming = { id: pendingB, object: 'event', type: 'invoice.upcoming', created: Math.floor(Date.now() / 1000), data: { object: { id: 'in_upcoming', object: 'invoice', customer: sb.customer } } }
  await db().query('INSERT INTO local_events (id, type, payload) VALUES ($1, $2, $3)', [pendingB, upcoming.type, JSON.stringify(upcoming)])
  const periodEnded = async (s: { subscription: string }) => (await db().query<{ ended: boolean }>('SELECT current_period_end <= now() AS ended FROM local_subscriptions WHERE id = $1', [s.subscription])).rows[0].ended
  const delivered = async (id: string) => (await db().query<{ at: Date | null }>('SELECT delivered_at AS at FROM local_events WHERE id = $1', [id])).rows[0].at !== null

  // A's renewal: its invoice.paid is delivered; B's subscription and event wait.
  assert.deepEqual(await adminRun(a, 'local-payment-processor'), { renewed: 1, ended: 0, pastDue: 0, delivered: 1, failed: 0 })
  assert.deepEqual([await periodEnded(sa), await periodEnded(sb), await delivered(pendingB)], [false, true, false])
  assert.deepEqual(await scheduledRun('local-payment-processor'), { renewed: 1, ended: 0, pastDue: 0, delivered: 2, failed: 0 })
  assert.deepEqual([await periodEnded(sb), await delivered(pendingB)], [false, true])
})

jobCase('webhook-housekeeping', async () => {
  const old = async (o: TestOrg) => {
    const endpoint = ok(await o.post('/webhook-endpoints', { url: 'https://hooks.example.com/in', enabledEvents: ['*'] }), 201)
    const id = randomUUID()
    await db().query(
      `INSERT INTO webhook_deliveries (id, organization_id, endpoint_id, event_id, event_type, payload, resource_key, status, retries_left, created_at)
       VALUES ($1, $2, $3, $4, 'contact.created', '{}', 'contact:x', 'succeeded', 0, now() - interval '31 days')`,
      [id, o.id, endpoint.id, `evt_${randomBytes(16).toString('hex')}`],
    )
    return id
  }
  const [da, dbb] = [await old(a), await old(b)]
  const exists = async (id: string) => (await db().query('SELECT 1 FROM webhook_deliveries WHERE id = $1', [id])).rows.length === 1
  assert.deepEqual(await adminRun(a, 'webhook-housekeeping'), { deleted: 1 })
  assert.deepEqual([await exists(da), await exists(dbb)], [false, true])
  assert.deepEqual(await scheduledRun('webhook-housekeeping'), { deleted: 1 })
  assert.equal(await exists(dbb), false)
})

jobCase('housekeeping', async () => {
  // For each of A, B and an anonymous caller (an IP): an idempotency key past its 24 hours; for
  // A and B a refresh token revoked two days ago, a reset link expired two days ago and a domain event past 30 days.
  for (const scope of [`org:${a.id}:user:${a.id}`, `org:${b.id}:key:${b.id}`, 'ip:203.0.113.7']) {
    await db().query(`INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at) VALUES ($1, 'old-key', 'h', 'done', now() - interval '25 hours')`, [scope])
  }
  const events: Record<string, string> = {}
  for (const o of [a, b]) {
    const pair = ok(await call(t.app, 'POST', '/auth/login', { body: { email: o.adminEmail, password: o.password } }))
    ok(await call(t.app, 'POST', '/auth/logout', { body: { refreshToken: pair.refreshToken } }), 204)
    ok(await call(t.app, 'POST', '/auth/password-reset', { body: { email: o.adminEmail } }), 202)
    events[o.id] = `evt_${randomBytes(16).toString('hex')}`
    await db().query(
      `INSERT INTO domain_events (id, organization_id, type, resource_type, resource_id, data, created_at) VALUES ($1, $2, 'contact.created', 'contact', 'x', '{}', now() - interval '31 days')`,
      [events[o.id], o.id],
    )
  }
  await db().query(`UPDATE refresh_tokens SET revoked_at = now() - interval '2 days' WHERE revoked_at IS NOT NULL`)
  await db().query(`UPDATE password_resets SET expires_at = now() - interval '2 days'`)
  const left = async () => ({
    keys: (await db().query<{ scope: string }>(`SELECT scope FROM idempotency_keys WHERE key = 'old-key' ORDER BY scope`)).rows.map((r) => r.scope),
    tokens: (await db().query<{ org: string }>(`SELECT u.organization_id AS org FROM refresh_tokens r JOIN users u ON u.id = r.user_id WHERE r.revoked_at IS NOT NULL ORDER BY 1`)).rows.map((r) => r.org),
    events: (await db().query<{ id: string }>('SELECT id FROM domain_events WHERE id = ANY($1::text[]) ORDER BY id', [Object.values(events)])).rows.map((r) => r.id),
    resets: (await db().query<{ org: string }>('SELECT organization_id AS org FROM password_resets ORDER BY 1')).rows.map((r) => r.org),
  })
  assert.deepEqual(await adminRun(a, 'housekeeping'), { idempotencyKeys: 1, refreshTokens: 1, passwordResets: 1, domainEvents: 1 })
  assert.deepEqual(await left(), { keys: [`org:${b.id}:key:${b.id}`, 'ip:203.0.113.7'].sort(), tokens: [b.id], events: [events[b.id]], resets: [b.id] })
  assert.deepEqual(await scheduledRun('housekeeping'), { idempotencyKeys: 2, refreshTokens: 1, passwordResets: 1, domainEvents: 1 })
  assert.deepEqual(await left(), { keys: [], tokens: [], events: [], resets: [] })
})

jobCase('report-runs', async () => {
  const request = async (o: TestOrg) => ok(await o.post('/reports', { type: 'invoices', parameters: { from: '2026-01-01', to: '2026-01-31' } }), 201).id as string
  const [ra, rb] = [await request(a), await request(b)]
  const status = async (o: TestOrg, id: string) => ok(await o.get(`/reports/${id}`)).status
  assert.deepEqual(await adminRun(a, 'report-runs'), { succeeded: 1, failed: 0 })
  assert.deepEqual([await status(a, ra), await status(b, rb)], ['succeeded', 'pending'])
  assert.deepEqual(await scheduledRun('report-runs'), { succeeded: 1, failed: 0 })
  assert.equal(await status(b, rb), 'succeeded')
})

jobCase('report-files-cleanup', async () => {
  const request = async (o: TestOrg) => ok(await o.post('/reports', { type: 'invoices', parameters: { from: '2026-02-01', to: '2026-02-28' } }), 201).id as string
  const [ra, rb] = [await request(a), await request(b)]
  await scheduledRun('report-runs')
  await db().query(`UPDATE report_runs SET expires_at = now() - interval '1 second' WHERE id IN ($1, $2)`, [ra, rb])
  const chunks = async (id: string) => (await db().query<{ n: number }>('SELECT count(*)::int AS n FROM report_file_chunks WHERE run_id = $1', [id])).rows[0].n
  assert.deepEqual([await chunks(ra), await chunks(rb)], [1, 1])
  assert.deepEqual(await adminRun(a, 'report-files-cleanup'), { deleted: 1 })
  assert.deepEqual([await chunks(ra), await chunks(rb)], [0, 1])
  assert.deepEqual(await scheduledRun('report-files-cleanup'), { deleted: 1 })
  assert.equal(await chunks(rb), 0)
})

jobCase('imports', async () => {
  const request = async (o: TestOrg) => ok(await o.post('/imports', { resource: 'contacts', rows: [{ name: 'Job Import', email: `${randomUUID()}@example.com` }] }), 202).id as string
  const [ia, ib] = [await request(a), await request(b)]
  const status = async (o: TestOrg, id: string) => ok(await o.get(`/imports/${id}`)).status
  const byAdmin = await adminRun(a, 'imports')
  assert.deepEqual([await status(a, ia), await status(b, ib)], ['succeeded', 'pending'])
  assert.deepEqual(await scheduledRun('imports'), byAdmin, 'each run handled the one import it could see')
  assert.equal(await status(b, ib), 'succeeded')
})

jobCase('import-rows-cleanup', async () => {
  // Rows staged two hours ago for an upload whose process died before it queued its import.
  const orphan = async (o: TestOrg) => {
    const id = randomUUID()
    await db().query(`INSERT INTO import_rows (import_id, row, organization_id, staged_at, data) VALUES ($1, 1, $2, now() - interval '2 hours', '{}')`, [id, o.id])
    return id
  }
  const [oa, ob] = [await orphan(a), await orphan(b)]
  const staged = async (id: string) => (await db().query<{ n: number }>('SELECT count(*)::int AS n FROM import_rows WHERE import_id = $1', [id])).rows[0].n
  assert.deepEqual(await adminRun(a, 'import-rows-cleanup'), { deleted: 1 })
  assert.deepEqual([await staged(oa), await staged(ob)], [0, 1])
  assert.deepEqual(await scheduledRun('import-rows-cleanup'), { deleted: 1 })
  assert.equal(await staged(ob), 0)
})

test('every registered job has its case above (a new job must honour the scope and be added here)', async () => {
  const listed = ok(await a.get('/admin/jobs')).map((j: { name: string }) => j.name).sort()
  assert.deepEqual(listed, [...covered].sort())
})
