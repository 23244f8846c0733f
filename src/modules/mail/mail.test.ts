import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { SMTPServer } from 'smtp-server'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'

// A real SMTP server in-process; `failNext` makes it refuse messages.
const received: Buffer[] = []
let failNext = 0
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, _session, callback) {
    const chunks: Buffer[] = []
    stream.on('data', (c: Buffer) => chunks.push(c))
    stream.on('end', () => {
      if (failNext > 0) {
        failNext--
        const err = new Error('Mailbox unavailable') as Error & { responseCode: number }
        err.responseCode = 451
        return callback(err)
      }
      received.push(Buffer.concat(chunks))
      callback()
    })
  },
})

let t: TestApp
let org: TestOrg
before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const port = (smtp.server.address() as { port: number }).port
  t = await buildTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}` })
  org = await createOrg(t.app)
})
after(async () => {
  await t.close()
  await new Promise<void>((resolve) => smtp.close(() => resolve()))
})

const enqueue = (to: string, withPdf = true) =>
  t.app.services.mail!.enqueue(t.app.ctx.db, {
    organizationId: org.id,
    to,
    subject: `Invoice for ${to}`,
    text: 'Please find the invoice attached.',
    attachments: withPdf ? [{ filename: 'INV-2026-00001.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4 test') }] : [],
  })
const runDelivery = () => org.post('/admin/jobs/mail-delivery/run', {})

test('a queued message is listed, then delivered over SMTP with its attachment', async () => {
  await enqueue('buyer@example.com')
  const queued = await org.get('/admin/outbox?status=queued')
  expectStatus(queued, 200)
  assert.equal(queued.body.meta.total, 1)
  assert.deepEqual(queued.body.data[0].attachments, [{ filename: 'INV-2026-00001.pdf', contentType: 'application/pdf', size: 13 }])
  assert.equal(queued.body.data[0].sentAt, null)

  const run = expectStatus(await runDelivery(), 200)
  assert.deepEqual(run.result, { sent: 1, failed: 0 })
  assert.equal(received.length, 1)
  // The raw MIME message: headers, and the attachment as a base64 part.
  const raw = received[0].toString()
  assert.match(raw, /^Subject: Invoice for buyer@example\.com\r?$/m)
  assert.match(raw, /^To: buyer@example\.com\r?$/m)
  assert.match(raw, /Content-Type: application\/pdf; name=INV-2026-00001\.pdf/)
  assert.ok(raw.includes(Buffer.from('%PDF-1.4 test').toString('base64')))

  const sent = await org.get('/admin/outbox?to=buyer@example.com')
  assert.equal(sent.body.data[0].status, 'sent')
  assert.ok(sent.body.data[0].sentAt)
})

test('a failing SMTP server does not lose the message: it is retried with backoff', async () => {
  received.length = 0
  failNext = 1
  await enqueue('retry@example.com', false)
  assert.deepEqual(expectStatus(await runDelivery(), 200).result, { sent: 0, failed: 1 })
  let listed = (await org.get('/admin/outbox?to=retry@example.com')).body.data[0]
  assert.equal(listed.status, 'queued')
  assert.equal(listed.attempts, 1)
  assert.match(listed.lastError, /Mailbox unavailable/)

  // Not due again until its backoff has passed.
  assert.deepEqual(expectStatus(await runDelivery(), 200).result, { sent: 0, failed: 0 })
  await t.app.ctx.db.query(`UPDATE outbox SET next_attempt_at = now() WHERE to_address = 'retry@example.com'`)
  assert.deepEqual(expectStatus(await runDelivery(), 200).result, { sent: 1, failed: 0 })
  listed = (await org.get('/admin/outbox?to=retry@example.com')).body.data[0]
  assert.equal(listed.status, 'sent')
  assert.equal(received.length, 1)
})

test('concurrent delivery runs send each message once', async () => {
  received.length = 0
  for (let i = 0; i < 10; i++) await enqueue(`many${i}@example.com`, false)
  await Promise.all([runDelivery(), runDelivery(), runDelivery()])
  assert.equal(received.length, 10)
})

test('the outbox is for admins of the organization only', async () => {
  expectStatus(await org.get('/admin/outbox', await org.as('member')), 403)
  const other = await createOrg(t.app)
  const list = expectStatus(await other.get('/admin/outbox'), 200)
  assert.equal(list.meta.total, 0)
  expectStatus(await org.get('/admin/outbox?status=bogus'), 400)
})
