import { randomInt } from 'node:crypto'

/** License keys: a prefix and four groups of four upper-case letters (26^16, about 75 bits). */
export const KEY_PREFIX = 'BPL'
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const GROUPS = 4
export const LICENSE_KEY_PATTERN = /^[A-Z0-9]+(-[A-Z]{4}){3,4}$/

/** A new key from the operating system's cryptographic random source (randomInt is unbiased). */
export function generateLicenseKey(): string {
  const groups: string[] = []
  for (let g = 0; g < GROUPS; g++) {
    let group = ''
    for (let i = 0; i < 4; i++) group += LETTERS[randomInt(LETTERS.length)]
    groups.push(group)
  }
  return `${KEY_PREFIX}-${groups.join('-')}`
}

/** Clients upper-case keys before sending; we accept any case and surrounding blanks too. */
export function normalizeKey(key: string): string {
  return key.trim().toUpperCase()
}

export function looksLikeLicenseKey(value: string): boolean {
  return LICENSE_KEY_PATTERN.test(value)
}

/**
 * docs/licenses.md "Domains": compared lower-cased, without scheme, port, path or
 * trailing dot. `https://Shop.Example.com.:8069/web` -> `shop.example.com`.
 * Returns '' when nothing of a host is left.
 */
export function normalizeDomain(input: string): string {
  let d = input.trim().toLowerCase()
  d = d.replace(/^[a-z][a-z0-9+.-]*:\/\//, '') // scheme
  d = d.replace(/^[^@/]*@/, '') // user info
  d = d.split(/[/?#]/, 1)[0] // path, query, fragment
  if (d.startsWith('[')) d = d.slice(0, d.indexOf(']') + 1) // IPv6 literal with port
  else d = d.replace(/:\d*$/, '') // port
  return d.replace(/\.+$/, '')
}

/** The ERP major version of `19.0`, `19`, `saas~19.1`: 19; undefined when none. */
export function erpMajor(version: string): number | undefined {
  const m = /(\d+)/.exec(version)
  return m ? Number(m[1]) : undefined
}
