import dns from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Server-side request forgery (CONTRACT "Webhooks out"): an endpoint may not
 * point the service at itself or its network. Outside API_ENV=test a URL must
 * be https and every address its host resolves to must be public; the check
 * runs at creation and again at every delivery, where the connection is made
 * to the address that was checked (a `lookup` of the socket), so a DNS answer
 * that changes in between (rebinding) cannot slip through.
 */
const forbidden = new BlockList()
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 reaches the local host
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata at 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) forbidden.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 of IPv4 (may map to a private IPv4)
  ['2002::', 16], // 6to4 (embeds an IPv4)
] as const) forbidden.addSubnet(net, prefix, 'ipv6')

/** Whether the address is loopback, private, link-local, unique-local or otherwise not a public unicast address. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return forbidden.check(address, 'ipv4')
  if (family === 6) {
    // IPv4-mapped (::ffff:10.0.0.1) and IPv4-compatible forms are judged as the IPv4 address.
    const mapped = /^::(ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
    if (mapped) return forbidden.check(mapped[2], 'ipv4')
    return forbidden.check(address, 'ipv6')
  }
  return true
}

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
  if (bad) return { problem: `url host ${host} resolves to ${bad.address}, a loopback, private, link-local or unique-local address` }
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
