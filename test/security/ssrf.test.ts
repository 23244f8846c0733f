// Security review, issue 24, finding 9: outside API_ENV=test the SSRF filter
// for webhook URLs accepted https://[::127.0.0.1]/, https://[::ffff:0:127.0.0.1]/
// and https://[64:ff9b:1::a9fe:a9fe]/. docs/webhooks.md "Endpoint addresses": a url whose host
// resolves to an address that is not public is refused (422) at creation and at
// PATCH, and the address is checked again at each delivery.
//
// Names are resolved by a stand-in for dns.lookup (no DNS needed): the module
// calls dns.lookup at each resolution, so the test decides what a name resolves to.
import assert from 'node:assert/strict'
import dns from 'node:dns'
import { randomUUID } from 'node:crypto'
import { after, before, mock, test } from 'node:test'
import { buildTestApp, createOrg, type Res, type TestApp, type TestOrg } from '../helpers/app.ts'
import { expectStatus } from '../helpers/assert.ts'

/** What the stand-in resolves each name to; other names go to the system resolver. */
const names = new Map<string, string[]>()
const lookups: string[] = []
const systemLookup = dns.lookup
mock.method(dns, 'lookup', (hostname: string, options: unknown, callback: (...a: unknown[]) => void) => {
  const addresses = names.get(hostname)
  if (!addresses) return (systemLookup as any)(hostname, options, callback)
  lookups.push(hostname)
  const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  if (typeof options === 'object' && options !== null && (options as { all?: boolean }).all) return process.nextTick(callback, null, all)
  process.nextTick(callback, null, all[0].address, all[0].family)
})

let live: TestApp
let o: TestOrg
before(async () => {
  live = await buildTestApp({ API_ENV: 'live', JOBS: 'on', WEBHOOK_RETRY_DELAYS: '0.1' })
  o = await createOrg(live.app)
})
after(async () => {
  await live?.close()
  mock.restoreAll()
})

/** Addresses that are not global unicast, as URL hosts, by the range they belong to. */
const FORBIDDEN: Record<string, string[]> = {
  'IPv4 loopback': ['127.0.0.1', '127.255.255.254'],
  'IPv4 private': ['10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
  'IPv4 link-local (cloud metadata)': ['169.254.169.254', '169.254.0.1'],
  'IPv4 carrier-grade NAT 100.64/10': ['100.64.0.1', '100.127.255.254'],
  'IPv4 this network 0/8': ['0.0.0.0', '0.1.2.3'],
  'IPv4 broadcast': ['255.255.255.255'],
  'IPv4 multicast': ['224.0.0.1', '239.255.255.250'],
  'IPv4 reserved 240/4': ['240.0.0.1', '250.1.2.3'],
  'IPv4 IETF protocol assignments': ['192.0.0.8'],
  'IPv4 documentation': ['192.0.2.1', '198.51.100.7', '203.0.113.9'],
  'IPv4 benchmarking': ['198.18.0.1', '198.19.255.254'],
  'IPv6 loopback': ['[::1]'],
  'IPv6 unspecified': ['[::]'],
  'IPv6 link-local': ['[fe80::1]', '[febf::1]'],
  'IPv6 unique-local': ['[fc00::1]', '[fd12:3456:789a::1]'],
  'IPv6 site-local fec0::/10': ['[fec0::1]'],
  'IPv6 multicast': ['[ff02::1]', '[ff0e::1]'],
  'IPv4-mapped ::ffff:a.b.c.d': ['[::ffff:127.0.0.1]', '[::ffff:10.0.0.1]', '[::ffff:169.254.169.254]', '[::ffff:7f00:1]'],
  'IPv4-translated ::ffff:0:a.b.c.d': ['[::ffff:0:127.0.0.1]', '[::ffff:0:a9fe:a9fe]'],
  'IPv4-compatible ::a.b.c.d': ['[::127.0.0.1]', '[::10.0.0.1]', '[::169.254.169.254]'],
  'NAT64 64:ff9b::/96': ['[64:ff9b::127.0.0.1]', '[64:ff9b::a9fe:a9fe]'],
  'NAT64 64:ff9b:1::/48': ['[64:ff9b:1::a9fe:a9fe]', '[64:ff9b:1::a00:1]'],
  '6to4 2002::/16 with a private IPv4': ['[2002:a00:1::1]', '[2002:7f00:1::1]', '[2002:a9fe:a9fe::]'],
  'Teredo 2001::/32': ['[2001::1]', '[2001:0:4136:e378:8000:63bf:3fff:fdd2]'],
  'IPv6 documentation 2001:db8::/32': ['[2001:db8::1]'],
  'IPv4 loopback in hex, decimal and short spellings': ['0x7f000001', '2130706433', '127.1', '0177.0.0.1', '0x7f.1'],
  'IPv4 private in hex and decimal spellings': ['0x0a000001', '167772161', '10.1', '0xa9.0xfe.0xa9.0xfe'],
}
const forbiddenUrls = Object.values(FORBIDDEN).flat().map((host) => `https://${host}/hooks`)
/** The host as the URL parser normalizes it, brackets removed: the message names it. */
const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '')

/** 422 VALIDATION_FAILED with one message naming the host. */
function expectRefused(res: Res, url: string) {
  expectStatus(res, 422)
  assert.deepEqual([res.body.statusCode, res.body.error, res.body.code], [422, 'Unprocessable Entity', 'VALIDATION_FAILED'], url)
  assert.equal(res.body.message.length, 1, url)
  assert.ok(res.body.message[0].startsWith(`url host ${hostOf(url)} `), `${url}: ${res.body.message[0]}`)
}

test('every address that is not global unicast is refused with 422 at POST /webhook-endpoints, in any spelling', async () => {
  const accepted: string[] = []
  for (const url of forbiddenUrls) {
    const res = await o.post('/webhook-endpoints', { url, enabledEvents: ['*'] })
    if (res.status === 201) accepted.push(url)
    else expectRefused(res, url)
  }
  assert.deepEqual(accepted, [])
  assert.equal(expectStatus(await o.get('/webhook-endpoints'), 200).meta.total, 0)
})

test('every address that is not global unicast is refused with 422 at PATCH /webhook-endpoints/:id; the url stays', async () => {
  const created = expectStatus(await o.post('/webhook-endpoints', { url: 'https://93.184.216.34/hooks', enabledEvents: ['*'] }), 201)
  const accepted: string[] = []
  for (const url of forbiddenUrls) {
    const res = await o.patch(`/webhook-endpoints/${created.id}`, { url })
    if (res.status === 200) accepted.push(url)
    else expectRefused(res, url)
  }
  assert.deepEqual(accepted, [])
  assert.equal(expectStatus(await o.get(`/webhook-endpoints/${created.id}`), 200).url, 'https://93.184.216.34/hooks')
  expectStatus(await o.del(`/webhook-endpoints/${created.id}`), 204)
})

test('names that resolve to an address that is not public are refused at POST and PATCH, even when one address of several is public', async () => {
  const cases: Record<string, string[]> = {
    'loopback.example.com': ['127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'compat.example.com': ['::127.0.0.1'],
    'translated.example.com': ['::ffff:0:127.0.0.1'],
    'nat64.example.com': ['64:ff9b:1::a9fe:a9fe'],
    'sixtofour.example.com': ['2002:a00:1::1'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
    'mixed6.example.com': ['2606:4700:4700::1111', 'fd00::7'],
  }
  for (const [name, addresses] of Object.entries(cases)) names.set(name, addresses)
  names.set('public.example.com', ['93.184.216.34', '2606:4700:4700::1111'])
  const created = expectStatus(await o.post('/webhook-endpoints', { url: 'https://public.example.com/hooks', enabledEvents: ['*'] }), 201)
  for (const name of Object.keys(cases)) {
    const url = `https://${name}/hooks`
    expectRefused(await o.post('/webhook-endpoints', { url, enabledEvents: ['*'] }), url)
    expectRefused(await o.patch(`/webhook-endpoints/${created.id}`, { url }), url)
  }
  expectStatus(await o.del(`/webhook-endpoints/${created.id}`), 204)
})

test('public addresses are accepted outside the test environment; http and names that do not resolve are not', async () => {
  for (const url of ['https://93.184.216.34/hooks', 'https://8.8.8.8:8443/in', 'https://[2606:4700:4700::1111]/hooks', 'https://[2a00:1450:4001:80b::200e]/x', 'https://1.1.1.1/']) {
    const created = expectStatus(await o.post('/webhook-endpoints', { url, enabledEvents: ['*'] }), 201)
    assert.equal(created.url, url)
    expectStatus(await o.patch(`/webhook-endpoints/${created.id}`, { url }), 200)
    expectStatus(await o.del(`/webhook-endpoints/${created.id}`), 204)
  }
  const http = await o.post('/webhook-endpoints', { url: 'http://93.184.216.34/hooks', enabledEvents: ['*'] })
  expectStatus(http, 422)
  assert.deepEqual(http.body.message, ['url must be https'])
  expectRefused(await o.post('/webhook-endpoints', { url: 'https://name.invalid/hooks', enabledEvents: ['*'] }), 'https://name.invalid/hooks')
})

/** Sends a ping to the endpoint and waits until its delivery has failed; answers it and its last error. */
async function pingFails(endpointId: string) {
  const ping = expectStatus(await o.post(`/webhook-endpoints/${endpointId}/test`), 202)
  for (let i = 0; i < 600; i++) {
    const d = expectStatus(await o.get(`/webhook-endpoints/${endpointId}/deliveries`), 200).data.find((x: any) => x.id === ping.id)
    if (d.status === 'failed') {
      const { rows } = await live.app.ctx.db.query<{ last_error: string }>('SELECT last_error FROM webhook_deliveries WHERE id = $1', [ping.id])
      return { delivery: d, error: rows[0].last_error }
    }
    await new Promise((res) => setTimeout(res, 50))
  }
  throw new Error('the delivery did not fail in time')
}

test('at each delivery the name is resolved again: an address that turned non-public refuses the delivery before any connection', async () => {
  const errors: Record<string, string> = {}
  const expected: Record<string, string> = {}
  for (const address of ['10.0.0.5', '::ffff:0:127.0.0.1', '::127.0.0.1', '64:ff9b:1::a9fe:a9fe', '2002:a00:1::1']) {
    const name = `rebind-${address.replace(/[^0-9a-f]/g, '')}.example.com`
    names.set(name, ['93.184.216.34'])
    const endpoint = expectStatus(await o.post('/webhook-endpoints', { url: `https://${name}/hooks`, enabledEvents: ['*'] }), 201)
    // DNS rebinding: the same name now resolves to an address inside the network.
    names.set(name, [address])
    lookups.length = 0
    const { delivery, error } = await pingFails(endpoint.id)
    assert.deepEqual([delivery.status, delivery.attempts, delivery.lastResponseStatus], ['failed', 2, null], address)
    assert.equal(lookups.filter((n) => n === name).length, 2, `${address}: resolved again at each attempt`)
    errors[address] = error
    expected[address] = `url host ${name} resolves to ${address}, which is not a public address`
    expectStatus(await o.del(`/webhook-endpoints/${endpoint.id}`), 204)
  }
  assert.deepEqual(errors, expected)
})

test('at each delivery an IP literal stored before the check existed is refused before any connection', async () => {
  const errors: Record<string, string> = {}
  const expected: Record<string, string> = {}
  for (const url of ['https://[::7f00:1]/x', 'https://[::ffff:0:7f00:1]/x', 'https://[64:ff9b:1::a9fe:a9fe]/x', 'https://192.0.2.1/x']) {
    // As an endpoint created before this check would be stored (its secret sealed, as every stored secret is).
    const id = randomUUID()
    const secret = live.app.ctx.secrets.seal(`whsec_${Buffer.alloc(24, 7).toString('base64')}`, `webhook_endpoints.secret:${id}`)
    const { rows } = await live.app.ctx.db.query<{ id: string }>(
      `INSERT INTO webhook_endpoints (id, organization_id, url, enabled_events, secret) VALUES ($4, $1, $2, ARRAY['*'], $3) RETURNING id`,
      [o.id, url, secret, id],
    )
    const { delivery, error } = await pingFails(rows[0].id)
    assert.deepEqual([delivery.status, delivery.attempts, delivery.lastResponseStatus], ['failed', 2, null], url)
    errors[url] = error
    expected[url] = `url host ${hostOf(url)} is not a public address`
  }
  assert.deepEqual(errors, expected)
})
