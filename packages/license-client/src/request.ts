import { createHash } from 'node:crypto'
import type { ClientRequest } from './types.ts'

/**
 * The host of an instance's public URL, compared the way the service compares
 * domains: lower-cased, without scheme, port, path or trailing dot. A bare host
 * ("shop.example.com") is accepted too. Empty when no host can be found.
 */
export function domainOf(publicUrl: string): string {
  const text = publicUrl.trim()
  if (!text) return ''
  let host: string
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`).hostname
  } catch {
    return ''
  }
  return host.toLowerCase().replace(/\.+$/, '')
}

/** SHA-256 (hex) of the installation's identity: the identity itself never leaves the machine. */
export function fingerprintOf(installationId: string): string {
  return createHash('sha256').update(installationId, 'utf8').digest('hex')
}

/** "19.0", "19.0+e", "saas~19.2" -> "19.0": the service matches licenses on the major version. */
export function erpMajorVersion(erpVersion: string): string {
  const major = /(\d+)(?:\.\d+)*/.exec(erpVersion.trim())
  return major ? `${Number(major[1])}.0` : erpVersion.trim()
}

export const normalizeKey = (key: string) => key.trim().toUpperCase()

export interface Installation {
  key: string
  moduleName: string
  publicUrl: string
  installationId: string
  erpVersion: string
}

/** The five-field request of docs/licenses.md "Client request". */
export function clientRequest(i: Installation): ClientRequest {
  return {
    key: normalizeKey(i.key),
    module_name: i.moduleName,
    domain: domainOf(i.publicUrl),
    hw_fingerprint: fingerprintOf(i.installationId),
    erp_version: erpMajorVersion(i.erpVersion),
  }
}
