import { createPublicKey, verify } from 'node:crypto'
import type { Jwk, Jwks, OfflineTokenClaims } from './types.ts'

export interface DecodedToken {
  header: { alg?: string; kid?: string; typ?: string }
  claims: OfflineTokenClaims
  signingInput: string
  signature: Buffer
}

const b64json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))

/** Splits a compact JWS without trusting it; null when it is not one. */
export function decodeToken(token: string): DecodedToken | null {
  const parts = token.split('.')
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return null
  try {
    const header = b64json(parts[0]!)
    const claims = b64json(parts[1]!)
    if (typeof header !== 'object' || header === null || typeof claims !== 'object' || claims === null) return null
    return { header, claims, signingInput: `${parts[0]}.${parts[1]}`, signature: Buffer.from(parts[2]!, 'base64url') }
  } catch {
    return null
  }
}

/** The Ed25519 key of the token's `kid`, or undefined when the set has none that fits. */
export function findKey(jwks: Jwks | undefined, kid: string | undefined): Jwk | undefined {
  const candidates = (jwks?.keys ?? []).filter((k) => k.kty === 'OKP' && k.crv === 'Ed25519' && typeof k.x === 'string')
  return kid === undefined ? (candidates.length === 1 ? candidates[0] : undefined) : candidates.find((k) => k.kid === kid)
}

/** Checks the EdDSA signature with the published key of the token's kid; the claims when it holds. */
export function verifyTokenSignature(token: string, jwks: Jwks | undefined): OfflineTokenClaims | null {
  const decoded = decodeToken(token)
  if (!decoded || decoded.header.alg !== 'EdDSA') return null
  const jwk = findKey(jwks, decoded.header.kid)
  if (!jwk) return null
  try {
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x! }, format: 'jwk' })
    return verify(null, Buffer.from(decoded.signingInput), key, decoded.signature) ? decoded.claims : null
  } catch {
    return null
  }
}

export interface Expectation {
  key: string
  module: string
  domain: string
  erpVersion: string
  fingerprint: string
  /** Now, in ms. */
  now: number
}

/**
 * Why the (signature-checked) claims do not cover this installation, or null
 * when they do: same license, module, domain, ERP major version and
 * installation, an active license, and not expired.
 */
export function claimsProblem(c: OfflineTokenClaims, e: Expectation): string | null {
  if (typeof c.exp !== 'number' || c.exp * 1000 <= e.now) return 'The offline token has expired'
  if (String(c.key).toUpperCase() !== e.key) return 'The offline token belongs to another license'
  if (c.module !== e.module) return 'The offline token belongs to another module'
  if (String(c.domain).toLowerCase() !== e.domain) return 'The offline token belongs to another domain'
  if (majorOf(c.erp_version) !== majorOf(e.erpVersion)) return 'The offline token belongs to another ERP version'
  if (c.hw_fingerprint !== e.fingerprint) return 'The offline token belongs to another installation'
  if (c.status !== 'active') return 'The offline token does not show an active license'
  return null
}

const majorOf = (version: unknown) => String(version).split('.')[0]
