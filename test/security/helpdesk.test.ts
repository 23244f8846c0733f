// Issue 24, findings 6 and 12 (helpdesk):
// - 6: a ticket's messages list their attachments as metadata; the bytes come one
//   attachment at a time from their own route, which hides what the caller may not
//   see; a ticket holds at most 50 MiB of attachments.
// - 12: a ticket sent through the public POST /support with someone's e-mail stays out
//   of that customer's portal until an agent answers it publicly or the address
//   confirms it from the mailed link (a page whose button posts; single use).
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { openDb } from '../../src/core/db.ts'
import type { App } from '../../src/core/module.ts'
import { buildTestApp, call, createDatabase, createOrg, mailTexts, type Res, type TestApp, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'
import { captureToken, createTicket, userWithToken } from '../helpers/helpdesk.ts'
import { expectPage } from '../helpers/lists.ts'
import { createContact } from '../helpers/sales-fixtures.ts'

const PUBLIC_URL = 'https://help.example.com'
const UNKNOWN = '00000000-0000-4000-8000-000000000000'
const MiB = 1024 * 1024

let t: TestApp
before(async () => {
  t = await buildTestApp({ PUBLIC_URL })
})
after(() => t.close())

/** The body of an error (docs/errors.md "The error body"), exactly. */
function expectError(res: Res, statusCode: number, code: string, message: string) {
  const error = { 400: 'Bad Request', 404: 'Not Found', 413: 'Payload Too Large', 429: 'Too Many Requests' }[statusCode]
  assert.deepEqual({ status: res.status, body: res.body }, { status: statusCode, body: { statusCode, message, error, code } })
}

const file = (filename: string, content: Buffer, contentType = 'application/octet-stream') => ({ filename, contentType, contentBase64: content.toString('base64') })

/** GET of an attachment's content: the raw answer (bytes in rawPayload). */
async function attachment(app: App, ticketId: string, attachmentId: string, token?: string) {
  const res = await call(app, 'GET', `/helpdesk/tickets/${ticketId}/attachments/${attachmentId}`, { token })
  return res
}

/** A customer user with a contact of its e-mail: a signed-in customer of the portal. */
async function portalCustomer(app: App, o: TestOrg) {
  const user = await userWithToken(app, o, 'customer')
  const contact = await createContact(o, { name: 'Carla Customer', email: user.email })
  return { ...user, contactId: contact.id as string }
}

/** POST /support as anyone on the Internet; the ticket's id as agents see it. */
async function supportRequest(app: App, o: TestOrg, email: string, subject = 'Your account is locked: sign in again at https://evil.example/login') {
  const sent = expectStatus(await call(app, 'POST', '/support', { body: { captureToken: await captureToken(o), name: 'Support', email, subject, description: 'Urgent' } }), 201)
  const [ticket] = expectPage(await o.get(`/helpdesk/tickets?search=${sent.ticketNumber}`), { total: 1, page: 1, limit: 20 })
  return { id: ticket.id as string, ticketNumber: sent.ticketNumber as string }
}

/** The confirmation link of the acknowledgement mailed for a ticket number (the outbox keeps the text). */
async function confirmationLink(app: App, o: TestOrg, ticketNumber: string) {
  const texts = (await mailTexts(app, 'organization_id = $1 AND subject LIKE $2', [o.id, `[${ticketNumber}]%`]))
  assert.equal(texts.length, 1, `one acknowledgement for ${ticketNumber}`)
  const match = /https?:\/\/\S+\/api\/support\/confirmations\/([A-Za-z0-9_-]+)/.exec(texts[0])
  assert.ok(match, `no confirmation link in ${JSON.stringify(texts[0])}`)
  return { url: match[0], token: match[1] }
}

// ---------------------------------------------------------------------------- finding 6

describe('finding 6: attachments are metadata in lists, bytes on their own route', () => {
  test('the reply answer and the messages list give each attachment as {id, filename, contentType, size}; the content route answers the exact bytes, as a download, nosniff', async () => {
    const o = await createOrg(t.app)
    const agent = await userWithToken(t.app, o, 'agent')
    const ticket = await createTicket(o)
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(3000)])
    const html = Buffer.from('<script>alert(document.cookie)</script>')
    const reply = expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, {
      body: 'See the screenshot',
      attachments: [file('steps.png', png, 'image/png'), file('Résumé "final"\r\n(v2).html', html, 'text/html')],
    }, agent.token), 201)
    assert.equal(reply.attachments.length, 2)
    for (const a of reply.attachments) assert.match(a.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    // The reply's own answer echoes the content it was sent with (docs/helpdesk.md "Attachments"); lists never carry content.
    assert.deepEqual(reply.attachments, [
      { id: reply.attachments[0].id, filename: 'steps.png', contentType: 'image/png', size: png.length, contentBase64: png.toString('base64') },
      { id: reply.attachments[1].id, filename: 'Résumé "final"\r\n(v2).html', contentType: 'text/html', size: html.length, contentBase64: html.toString('base64') },
    ])
    const [listed] = expectPage(await o.get(`/helpdesk/tickets/${ticket.id}/messages`), { total: 1, page: 1, limit: 20 })
    assert.deepEqual(listed, { ...reply, attachments: reply.attachments.map(({ contentBase64: _, ...meta }: { contentBase64: string }) => meta) })

    const got = await attachment(t.app, ticket.id, reply.attachments[0].id, agent.token)
    assert.equal(got.status, 200)
    assert.ok(got.raw.rawPayload.equals(png), 'the exact bytes')
    assert.equal(got.headers['content-type'], 'application/octet-stream')
    assert.equal(got.headers['content-length'], String(png.length))
    assert.equal(got.headers['content-disposition'], `attachment; filename="steps.png"; filename*=UTF-8''steps.png`)
    assert.equal(got.headers['x-content-type-options'], 'nosniff')

    // An uploaded page is never given to a browser to render, and its name cannot break the header.
    const page = await attachment(t.app, ticket.id, reply.attachments[1].id)
    assert.equal(page.status, 401)
    const odd = await attachment(t.app, ticket.id, reply.attachments[1].id, o.token)
    assert.equal(odd.status, 200)
    assert.ok(odd.raw.rawPayload.equals(html))
    assert.equal(odd.headers['content-type'], 'application/octet-stream')
    assert.equal(odd.headers['content-disposition'], `attachment; filename="R_sum_ _final___(v2).html"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22%0D%0A%28v2%29.html`)
    assert.equal(odd.headers['x-content-type-options'], 'nosniff')
  })

  test('404 for an attachment the caller may not see: an internal note\'s for members and customers, another customer\'s ticket, another organization, another ticket', async () => {
    const o = await createOrg(t.app)
    const agent = await userWithToken(t.app, o, 'agent')
    const cust = await portalCustomer(t.app, o)
    const otherCustomer = await portalCustomer(t.app, o)
    const member = await o.as('member')
    const support = await o.as('support')
    const ticket = await createTicket(o, { contactId: cust.contactId })
    const publicBytes = Buffer.from('public file')
    const noteBytes = Buffer.from('internal file')
    const pub = expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'Here', attachments: [file('public.txt', publicBytes, 'text/plain')] }, agent.token), 201).attachments[0]
    const note = expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'Between us', internal: true, attachments: [file('note.txt', noteBytes, 'text/plain')] }, agent.token), 201).attachments[0]
    const notFound = (what: string) => [404, 'NOT_FOUND', `${what} not found`] as const

    for (const token of [o.token, agent.token, support]) {
      assert.ok((await attachment(t.app, ticket.id, pub.id, token)).raw.rawPayload.equals(publicBytes))
      assert.ok((await attachment(t.app, ticket.id, note.id, token)).raw.rawPayload.equals(noteBytes))
    }
    for (const token of [member, cust.token]) {
      const res = await attachment(t.app, ticket.id, pub.id, token)
      assert.equal(res.status, 200, res.body)
      assert.ok(res.raw.rawPayload.equals(publicBytes))
      expectError(await attachment(t.app, ticket.id, note.id, token), ...notFound('Attachment'))
    }
    // The customers' messages list hides the note and its attachment alike.
    const forCustomer = expectPage(await o.get(`/helpdesk/tickets/${ticket.id}/messages`, cust.token), { total: 1, page: 1, limit: 20 })
    const { contentBase64: _, ...listed } = pub
    assert.deepEqual(forCustomer[0].attachments, [listed])
    // Another customer of the organization, another organization, another ticket, an unknown id.
    expectError(await attachment(t.app, ticket.id, pub.id, otherCustomer.token), ...notFound('Ticket'))
    const stranger = await createOrg(t.app)
    expectError(await attachment(t.app, ticket.id, pub.id, stranger.token), ...notFound('Ticket'))
    const another = await createTicket(o)
    expectError(await attachment(t.app, another.id, pub.id, o.token), ...notFound('Attachment'))
    expectError(await attachment(t.app, ticket.id, UNKNOWN, o.token), ...notFound('Attachment'))
    const bad = await attachment(t.app, ticket.id, 'nope', o.token)
    assert.equal(bad.status, 400)
    assert.equal(bad.body.code, 'INVALID_PARAMETER')
  })

  test('a ticket holds at most 50 MiB of attachments: the reply that would pass it is 413 and keeps nothing; the messages list stays small', async () => {
    const o = await createOrg(t.app)
    const ticket = await createTicket(o)
    const five = file('part.bin', Buffer.alloc(5 * MiB, 7))
    // Ten replies of 5 MiB (the most one reply takes), one of them an internal note: 50 MiB, the cap exactly.
    for (let i = 0; i < 10; i++) {
      expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: `Part ${i}`, internal: i === 9, attachments: [five] }), 201)
    }
    const over = await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'One byte more', attachments: [file('byte.bin', Buffer.from([1]))] })
    expectError(over, 413, 'PAYLOAD_TOO_LARGE', 'Ticket attachments are limited to 52428800 bytes (50 MiB) in all; the ticket holds 52428800 and this reply adds 1')
    // Nothing of the refused reply was kept; a reply without attachments still goes through.
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'Text only' }), 201)
    const list = await o.get(`/helpdesk/tickets/${ticket.id}/messages?limit=100`)
    const messages = expectPage(list, { total: 11, page: 1, limit: 100 })
    assert.deepEqual(messages.map((m) => m.body), [...Array.from({ length: 10 }, (_, i) => `Part ${i}`), 'Text only'])
    assert.equal(messages.flatMap((m) => m.attachments).reduce((s: number, a: any) => s + a.size, 0), 50 * MiB)
    // 50 MiB of attachments, and the list answer is a few kilobytes (it was 70 MB of base64).
    assert.ok(list.raw.rawPayload.length < 16_000, `the list answered ${list.raw.rawPayload.length} bytes`)
  })
})

// ---------------------------------------------------------------------------- finding 12

describe('finding 12: a ticket from the public form stays out of the customer portal until answered or confirmed', () => {
  test('a ticket planted through POST /support with a customer\'s e-mail is not in its list, nor readable, answerable or its messages; agents and members see it', async () => {
    const o = await createOrg(t.app)
    const cust = await portalCustomer(t.app, o)
    const own = await createTicket(o, { contactId: cust.contactId, subject: 'My real question' })
    const planted = await supportRequest(t.app, o, cust.email.toUpperCase())

    const mine = expectPage(await o.get('/helpdesk/tickets', cust.token), { total: 1, page: 1, limit: 20 })
    assert.deepEqual(mine.map((x) => x.id), [own.id])
    expectPage(await o.get(`/helpdesk/tickets?search=${planted.ticketNumber}`, cust.token), { total: 0, page: 1, limit: 20 })
    expectPage(await o.get(`/helpdesk/tickets?contactId=${cust.contactId}&status=new`, cust.token), { total: 1, page: 1, limit: 20 })
    expectError(await o.get(`/helpdesk/tickets/${planted.id}`, cust.token), 404, 'NOT_FOUND', 'Ticket not found')
    expectError(await o.get(`/helpdesk/tickets/${planted.id}/messages`, cust.token), 404, 'NOT_FOUND', 'Ticket not found')
    expectError(await o.post(`/helpdesk/tickets/${planted.id}/reply`, { body: 'Is this real?' }, cust.token), 404, 'NOT_FOUND', 'Ticket not found')

    // Agents and members see it as before; it is the contact's ticket.
    const agent = await userWithToken(t.app, o, 'agent')
    for (const token of [o.token, agent.token, await o.as('support'), await o.as('member')]) {
      const seen = expectStatus(await o.get(`/helpdesk/tickets/${planted.id}`, token), 200)
      assert.equal(seen.contact.id, cust.contactId)
    }
    expectPage(await o.get(`/helpdesk/tickets?contactId=${cust.contactId}`), { total: 2, page: 1, limit: 20 })
    // An internal note does not show it; an agent's public answer does.
    expectStatus(await o.post(`/helpdesk/tickets/${planted.id}/reply`, { body: 'Spam?', internal: true }, agent.token), 201)
    expectPage(await o.get('/helpdesk/tickets', cust.token), { total: 1, page: 1, limit: 20 })
    expectStatus(await o.post(`/helpdesk/tickets/${planted.id}/reply`, { body: 'We are looking into it' }, agent.token), 201)
    assert.deepEqual(expectPage(await o.get('/helpdesk/tickets?sortOrder=asc', cust.token), { total: 2, page: 1, limit: 20 }).map((x) => x.id), [own.id, planted.id])
    expectStatus(await o.get(`/helpdesk/tickets/${planted.id}`, cust.token), 200)
    assert.deepEqual(expectPage(await o.get(`/helpdesk/tickets/${planted.id}/messages`, cust.token), { total: 1, page: 1, limit: 20 }).map((m) => m.body), ['We are looking into it'])
    expectStatus(await o.post(`/helpdesk/tickets/${planted.id}/reply`, { body: 'Thanks' }, cust.token), 201)
  })

  test('the acknowledgement carries a confirmation link; its page changes nothing; its button (a POST) shows the ticket in the portal, once', async () => {
    const o = await createOrg(t.app)
    const cust = await portalCustomer(t.app, o)
    const sent = await supportRequest(t.app, o, cust.email, 'Printer jammed')
    const { url, token } = await confirmationLink(t.app, o, sent.ticketNumber)
    assert.equal(url, `${PUBLIC_URL}/api/support/confirmations/${token}`)
    assert.ok(Buffer.from(token, 'base64url').length >= 32, 'at least 256 random bits')
    // Stored only as a hash: the token itself is nowhere in the tickets.
    const { rows } = await t.app.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM helpdesk_tickets t WHERE t::text LIKE $1`, [`%${token}%`])
    assert.equal(rows[0].n, 0)

    // The link's page (what a mail scanner prefetches) only shows a button.
    for (let i = 0; i < 2; i++) {
      const page = await call(t.app, 'GET', `/support/confirmations/${token}`)
      assert.equal(page.status, 200)
      assert.match(String(page.headers['content-type']), /^text\/html/)
      assert.match(page.body, /<form method="post">/)
      assert.match(page.body, /<button type="submit">/)
      assert.match(page.body, new RegExp(sent.ticketNumber))
      assert.doesNotMatch(page.body, /Printer jammed/, 'the page does not repeat what a stranger may have written')
    }
    expectPage(await o.get('/helpdesk/tickets', cust.token), { total: 0, page: 1, limit: 20 })

    // The button: no credential, no body (a browser form posts an empty urlencoded one).
    const confirmed = await t.app.inject({ method: 'POST', url: `/api/support/confirmations/${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' } })
    assert.equal(confirmed.statusCode, 200, confirmed.body)
    assert.match(String(confirmed.headers['content-type']), /^text\/html/)
    assert.match(confirmed.body, new RegExp(`${sent.ticketNumber}`))
    const [shown] = expectPage(await o.get('/helpdesk/tickets', cust.token), { total: 1, page: 1, limit: 20 })
    assert.equal(shown.id, sent.id)
    expectStatus(await o.get(`/helpdesk/tickets/${sent.id}`, cust.token), 200)

    // Single use: the link is spent, on the page and the button alike.
    expectError(await call(t.app, 'POST', `/support/confirmations/${token}`), 404, 'NOT_FOUND', 'Confirmation not found')
    expectError(await call(t.app, 'GET', `/support/confirmations/${token}`), 404, 'NOT_FOUND', 'Confirmation not found')
  })

  test('an unknown, expired or malformed confirmation shows nothing; a ticket an agent made is in the portal at once', async () => {
    const o = await createOrg(t.app)
    const cust = await portalCustomer(t.app, o)
    const sent = await supportRequest(t.app, o, cust.email)
    const { token } = await confirmationLink(t.app, o, sent.ticketNumber)
    const unknown = randomBytes(32).toString('base64url')
    expectError(await call(t.app, 'GET', `/support/confirmations/${unknown}`), 404, 'NOT_FOUND', 'Confirmation not found')
    expectError(await call(t.app, 'POST', `/support/confirmations/${unknown}`), 404, 'NOT_FOUND', 'Confirmation not found')
    // The hash of the token, used as a token, is not the token.
    const hash = createHash('sha256').update(token).digest('base64url')
    expectError(await call(t.app, 'POST', `/support/confirmations/${hash}`), 404, 'NOT_FOUND', 'Confirmation not found')
    for (const bad of ['short', `${'a'.repeat(42)}%2F`, 'a'.repeat(101)]) {
      const res = await call(t.app, 'POST', `/support/confirmations/${bad}`)
      assert.equal(res.status, 400, `${bad}: ${JSON.stringify(res.body)}`)
      assert.equal(res.body.code, 'INVALID_PARAMETER')
    }
    // Seven days later the link has expired.
    await t.app.ctx.db.query(`UPDATE helpdesk_tickets SET confirmation_expires_at = now() - interval '1 second' WHERE id = $1`, [sent.id])
    expectError(await call(t.app, 'GET', `/support/confirmations/${token}`), 404, 'NOT_FOUND', 'Confirmation not found')
    expectError(await call(t.app, 'POST', `/support/confirmations/${token}`), 404, 'NOT_FOUND', 'Confirmation not found')
    expectPage(await o.get('/helpdesk/tickets', cust.token), { total: 0, page: 1, limit: 20 })
    // Tickets made through the API, by the customer itself or by an agent, show at once.
    const byCustomer = expectStatus(await o.post('/helpdesk/tickets', { subject: 'Mine', contactId: cust.contactId }, cust.token), 201)
    const byAgent = await createTicket(o, { contactId: cust.contactId })
    assert.deepEqual(expectPage(await o.get('/helpdesk/tickets?sortOrder=asc', cust.token), { total: 2, page: 1, limit: 20 }).map((x) => x.id), [byCustomer.id, byAgent.id])
  })

  test('the confirmation is public and limited like /support: 5 per minute per IP, then 429', async () => {
    const limited = await buildTestApp({ RATE_LIMIT: 'on' })
    try {
      const post = (ip: string) => limited.app.inject({ method: 'POST', url: `/api/support/confirmations/${randomBytes(32).toString('base64url')}`, remoteAddress: ip })
      for (let n = 0; n < 5; n++) {
        const res = await post('203.0.113.7')
        assert.equal(res.statusCode, 404, res.body)
        assert.equal(res.headers['x-ratelimit-limit'], '5')
      }
      const refused = await post('203.0.113.7')
      assert.equal(refused.statusCode, 429)
      assert.equal(JSON.parse(refused.body).message, 'ThrottlerException: Too Many Requests')
      assert.equal((await post('198.51.100.4')).statusCode, 404)
    } finally {
      await limited.close()
    }
  })
})

// ---------------------------------------------------------------------------- migrations

test('migrations 0122 and 0123 move what a database already holds: attachments get ids and sizes and keep their bytes; unanswered public-form tickets leave the portal', async () => {
  // One database across two starts: PGlite under a directory, or a database of the PostgreSQL server.
  const dir = process.env.DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'bp-hd-migrate-'))
  const server = process.env.DATABASE_URL ? await createDatabase(process.env.DATABASE_URL, 'bp_hd_migrate') : undefined
  const config = loadConfig({
    ...(server ? { DATABASE_URL: server.url } : { DATA_DIR: dir }),
    JOBS: 'off', LOG_LEVEL: 'silent', RATE_LIMIT: 'off', PASSWORD_HASH_COST: '14', JWT_SECRET: 'test-secret-that-is-long-enough-0123456789',
  })
  try {
    const first = await buildApp(config, { logger: false })
    const o = await createOrg(first)
    const cust = await portalCustomer(first, o)
    const agent = await userWithToken(first, o, 'agent')
    const ticket = await createTicket(o, { contactId: cust.contactId })
    const bytes = [randomBytes(5000), Buffer.from('tiny')]
    expectStatus(await o.post(`/helpdesk/tickets/${ticket.id}/reply`, { body: 'Files', attachments: [file('a.bin', bytes[0]), file('b.txt', bytes[1], 'text/plain')] }, agent.token), 201)
    const unanswered = await supportRequest(first, o, cust.email)
    const answered = await supportRequest(first, o, cust.email)
    expectStatus(await o.post(`/helpdesk/tickets/${answered.id}/reply`, { body: 'Answer' }, agent.token), 201)
    await first.close()

    // Back to the tables as migration 0090 left them, as if 0122 and 0123 had never run.
    const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir })
    await db.query(`ALTER TABLE helpdesk_attachments DROP CONSTRAINT helpdesk_attachments_pkey`)
    await db.query(`ALTER TABLE helpdesk_attachments DROP CONSTRAINT helpdesk_attachments_message_position_key`)
    await db.query(`ALTER TABLE helpdesk_attachments DROP COLUMN id, DROP COLUMN organization_id, DROP COLUMN ticket_id, DROP COLUMN size`)
    await db.query(`ALTER TABLE helpdesk_attachments ADD PRIMARY KEY (message_id, position)`)
    await db.query(`ALTER TABLE helpdesk_tickets DROP COLUMN portal_hidden, DROP COLUMN confirmation_hash, DROP COLUMN confirmation_expires_at`)
    // 0122's foreign key names a ticket by id alone, a key migration 0133 (Citus) replaced by (organization_id, id).
    await db.query(`ALTER TABLE helpdesk_tickets ADD CONSTRAINT helpdesk_tickets_id_key UNIQUE (id)`)
    await db.query(`DELETE FROM schema_migrations WHERE name LIKE '0122_%' OR name LIKE '0123_%'`)
    await db.close()

    const second = await buildApp(config, { logger: false })
    try {
      const get = (path: string, token = o.token) => call(second, 'GET', path, { token })
      const [message] = expectPage(await get(`/helpdesk/tickets/${ticket.id}/messages`), { total: 1, page: 1, limit: 20 })
      assert.deepEqual(message.attachments.map((a: any) => [a.filename, a.contentType, a.size]), [['a.bin', 'application/octet-stream', 5000], ['b.txt', 'text/plain', 4]])
      for (const [i, a] of message.attachments.entries()) {
        const res = await attachment(second, ticket.id, a.id, cust.token)
        assert.equal(res.status, 200)
        assert.ok(res.raw.rawPayload.equals(bytes[i]), a.filename)
      }
      const seen = expectPage(await get('/helpdesk/tickets?sortOrder=asc', cust.token), { total: 2, page: 1, limit: 20 })
      assert.deepEqual(seen.map((x) => x.id), [ticket.id, answered.id])
      expectStatus(await get(`/helpdesk/tickets/${unanswered.id}`, cust.token), 404)
      expectPage(await get('/helpdesk/tickets'), { total: 3, page: 1, limit: 20 })
    } finally {
      await second.close()
    }
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true })
    await server?.drop()
  }
})
