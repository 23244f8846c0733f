// Issue 24, finding 3: public routes are limited per client IP whatever
// credential the request carries, and /auth/login also per e-mail (10 failed
// attempts in 15 minutes lock that e-mail's log-in for the rest of the
// window: 429). docs/platform.md "Rate limits" and
// docs/platform.md "Log-in limit per e-mail".
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, unique, type TestApp, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp({ RATE_LIMIT: 'on' })
  org = await createOrg(t.app)
})
after(() => t.close())

let next = 0
const freshIp = () => `10.24.${Math.floor(++next / 250)}.${next % 250}`
const FAKE_LICENSE_KEY = 'LIC-AAAA-BBBB-CCCC-DDDD'

async function post(url: string, payload: unknown, remoteAddress: string, bearer?: string) {
  const res = await t.app.inject({ method: 'POST', url: `/api${url}`, payload: payload as object, remoteAddress, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} })
  return { status: res.statusCode, body: res.json(), headers: res.headers }
}

/** Bearers an attacker can make at will: its own organization's token and keys, and made-up licence keys. */
async function bearers(n: number) {
  const out: Array<string | undefined> = [undefined, org.token, await org.as('member'), await org.as('customer'), FAKE_LICENSE_KEY]
  for (let i = 0; out.length < n; i++) out.push(`LIC-${unique('k').slice(0, 4).toUpperCase()}-${i}AAA-BBBB-CCCC`)
  return out.slice(0, n)
}

test('login: 10 a minute per IP, whatever bearer each guess carries', async () => {
  const ip = freshIp()
  const all = await bearers(11)
  const statuses = []
  for (const bearer of all) statuses.push((await post('/auth/login', { email: `${unique('victim')}@example.com`, password: 'guess guess' }, ip, bearer)).status)
  assert.deepEqual(statuses, [...Array(10).fill(401), 429])
})

test('register, /support and /crm/capture: the per-IP budget is one, whatever the bearer', async () => {
  const settings = expectStatus(await org.get('/crm/capture-settings'), 200)
  const token = settings.captureToken ?? settings.token
  assert.ok(token, `capture token in ${JSON.stringify(settings)}`)
  const cases: Array<[string, number, () => unknown]> = [
    ['/auth/register', 5, () => ({ organizationName: 'R', name: 'R', email: `${unique('rl')}@example.com`, password: 'long enough pw' })],
    ['/support', 5, () => ({ captureToken: token, name: 'S', email: `${unique('s')}@example.com`, subject: 'Help', description: 'x' })],
    ['/crm/capture', 10, () => ({ captureToken: token, name: 'L', email: `${unique('l')}@example.com` })],
  ]
  for (const [url, max, body] of cases) {
    const ip = freshIp()
    const all = await bearers(max + 1)
    const statuses = []
    for (const bearer of all) statuses.push((await post(url, body(), ip, bearer)).status)
    assert.equal(statuses.filter((s) => s === 429).length, 1, `${url}: ${statuses}`)
    assert.equal(statuses.at(-1), 429, `${url}: ${statuses}`)
  }
})

test('login per e-mail: 10 failures in the window lock that e-mail from every IP, even with the right password; others are not locked', async () => {
  const email = `${unique('locked')}@example.com`
  expectStatus(await org.post('/users', { name: 'Lock', email, password: 'the right password', role: 'member' }), 201)
  for (let i = 0; i < 10; i++) {
    const res = await post('/auth/login', { email, password: `wrong ${i} password` }, freshIp())
    assert.equal(res.status, 401, JSON.stringify(res.body))
  }
  const locked = await post('/auth/login', { email: email.toUpperCase(), password: 'the right password' }, freshIp())
  assert.equal(locked.status, 429)
  assert.equal(locked.body.code, 'RATE_LIMITED')
  assert.match(locked.body.message, /failed log-ins for this e-mail/)
  const retryAfter = Number(locked.headers['retry-after'])
  assert.ok(retryAfter > 800 && retryAfter <= 900, `Retry-After ${retryAfter} is the rest of the 15-minute window`)
  // Another e-mail from the same IP logs in.
  const other = await post('/auth/login', { email: org.adminEmail, password: org.password }, freshIp())
  assert.equal(other.status, 200)
  // Once the window has passed, the right password works again (and clears the count).
  await t.app.ctx.db.query(`UPDATE login_failures SET window_started_at = now() - interval '16 minutes' WHERE email = lower($1)`, [email])
  assert.equal((await post('/auth/login', { email, password: 'the right password' }, freshIp())).status, 200)
})

test('login per e-mail under concurrency: of 25 parallel wrong guesses, exactly 10 are checked', async () => {
  const email = `${unique('race')}@example.com`
  expectStatus(await org.post('/users', { name: 'Race', email, password: 'the right password', role: 'member' }), 201)
  const results = await Promise.all(Array.from({ length: 25 }, (_, i) => post('/auth/login', { email, password: `wrong ${i} password` }, freshIp())))
  const counts = results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {})
  assert.deepEqual(counts, { 401: 10, 429: 15 })
})

test('a successful log-in clears the failures of its e-mail', async () => {
  const email = `${unique('clear')}@example.com`
  expectStatus(await org.post('/users', { name: 'Clear', email, password: 'the right password', role: 'member' }), 201)
  for (let i = 0; i < 9; i++) assert.equal((await post('/auth/login', { email, password: 'wrong password' }, freshIp())).status, 401)
  assert.equal((await post('/auth/login', { email, password: 'the right password' }, freshIp())).status, 200)
  for (let i = 0; i < 9; i++) assert.equal((await post('/auth/login', { email, password: 'wrong password' }, freshIp())).status, 401)
  assert.equal((await post('/auth/login', { email, password: 'the right password' }, freshIp())).status, 200)
})
