import dns from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Server-side request forgery (docs/webhooks.md "Endpoint addresses"): an endpoint may not
 * point the service at itself or its network. Outside API_ENV=test a URL must
 * be https and every address its host resolves to must be public unicast
 * (isForbiddenAddress, on the ranges of ipaddr.js); the check
 * runs at creation and again at every delivery, where the connection is made
 * to the address that was checked (a `lookup` of the socket), so a DNS answer
 * that changes in between (rebinding) cannot slip through.
 */

/** Global unicast IPv6 (RFC 4291): everything outside it (::/8 with the IPv4-compatible and -translated forms, fc00::/7, fe80::/10, fec0::/10, ff00::/8, 64:ff9b::/96, ...) is refused. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')

/**
 * Whether the address is not a public unicast address. Only addresses that
 * ipaddr.js classifies as `unicast` pass, which leaves out for IPv4
 * 0.0.0.0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24,
 * 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15, 198.51.100/24,
 * 203.0.113/24, 224/4, 240/4 and 255.255.255.255; and for IPv6, inside
 * 2000::/3, Teredo (2001::/32, which embeds an IPv4), 2001::/23, 2001:db8::/32
 * (documentation), benchmarking, ORCHID and 6to4 (2002::/16, which embeds an
 * IPv4). An IPv4-mapped address (::ffff:a.b.c.d) is judged as its IPv4 address.
 */
export function isForbiddenAddress(address: string): boolean {
  if (!isIP(address)) return true
  let ip: ipaddr.IPv4 | ipaddr.IPv6
  try {
    ip = ipaddr.process(address)
  } catch {
    return true
  }
  if (ip.kind() === 'ipv6' && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return true
  return ip.range() !== 'unicast'
}

/** The 422 message (and the delivery's error) for a host that is, or resolves to, an address that is not public. */
export const notPublic = (host: string, address = host) =>
  address === host ? `url host ${host} is not a public address` : `url host ${host} resolves to ${address}, which is not a public address`

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])
export const isLoopbackHost = (hostname: string) => LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(hostname)

/** Why the URL may not be an endpoint (scheme, credentials, host), or undefined when its form is acceptable. */
export function urlProblem(raw: string, testEnv: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'url is not a valid URL'
  }
  if (url.username || url.password) return 'url may not carry credentials'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:' && testEnv && isLoopbackHost(url.hostname)) return undefined
  return testEnv ? 'url must be https (http only to a loopback host in the test environment)' : 'url must be https'
}

export class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDENADDRESS'
}

/** Every address of the host, or the reason it may not be called. */
export async function resolvePublic(hostname: string): Promise<{ addresses: { address: string; family: number }[] } | { problem: string }> {
  const host = hostname.replace(/^\[|\]$/g, '')
  // dns.lookup is read at each call (not bound at import), so tests can resolve names without DNS.
  let addresses: { address: string; family: number }[]
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await new Promise((resolve, reject) => dns.lookup(host, { all: true }, (err, a) => (err ? reject(err) : resolve(a))))
  } catch {
    return { problem: `url host ${host} does not resolve` }
  }
  if (!addresses.length) return { problem: `url host ${host} does not resolve` }
  const bad = addresses.find((a) => isForbiddenAddress(a.address))
  if (bad) return { problem: notPublic(host, bad.address) }
  return { addresses }
}

/**
 * A socket `lookup` that resolves the host and refuses it when any address is
 * not public, so the connection goes to an address that was checked.
 */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  resolvePublic(hostname).then((r) => {
    if ('problem' in r) return callback(new ForbiddenAddressError(r.problem), '', 4)
    const wantsAll = typeof options === 'object' && options !== null && (options as { all?: boolean }).all
    if (wantsAll) return (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, r.addresses)
    callback(null, r.addresses[0].address, r.addresses[0].family)
  }, (err: Error) => callback(err as NodeJS.ErrnoException, '', 4))
}
