import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { SignJWT, calculateJwkThumbprint, type JWK } from 'jose'
import type { Db, Queryable } from '../../core/db.ts'
import { sealColumns, type SecretBox } from '../../core/secrets.ts'

/** Offline tokens live 14 days at most (never past the license's own expiry). */
export const TOKEN_TTL_SECONDS = 14 * 24 * 3600
/** How long a process keeps using the current key it read before looking again (rotation by another process). */
const CURRENT_KEY_CACHE_MS = 60_000

interface SigningKey {
  kid: string
  privateKey: KeyObject
}

export interface PublicJwk {
  kty: string
  crv: string
  x: string
  kid: string
  alg: string
  use: string
}

export interface OfflineClaims {
  key: string
  module: string
  domain: string
  erp_version: string
  hw_fingerprint: string
  status: string
}

/** The context a private key is sealed with: its column and its kid (a key cannot be swapped into another row). */
const privateContext = (kid: string) => `license_signing_keys.private_jwk:${kid}`

/**
 * Ed25519 keys of the offline tokens, kept in the database so that every API
 * process signs with the same key and clients can verify with the public keys
 * at GET /.well-known/jwks.json. Rotation makes a new key current and keeps the
 * previous ones published until the tokens they signed have expired. The
 * private keys are kept sealed with SECRET_KEY (docs/secrets.md).
 */
export class OfflineTokenSigner {
  private cached?: { key: SigningKey; readAt: number }

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  private async newKey() {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK
    const kid = await calculateJwkThumbprint(publicJwk)
    return {
      kid,
      publicJwk: JSON.stringify({ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }),
      privateJwk: this.secrets.seal(JSON.stringify(privateKey.export({ format: 'jwk' })), privateContext(kid)),
    }
  }

  private async insertCurrent(q: Queryable) {
    const k = await this.newKey()
    // Another process may create the first key at the same moment: the unique index keeps one.
    await q.query('INSERT INTO license_signing_keys (kid, public_jwk, private_jwk) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [k.kid, k.publicJwk, k.privateJwk])
  }

  /** Seals keys of an earlier version or of the previous SECRET_KEY, and makes sure a current key exists (first start). */
  async init() {
    await sealColumns(this.db, this.secrets, { table: 'license_signing_keys', id: 'kid', columns: [{ name: 'private_jwk', context: privateContext }] })
    const { rows } = await this.db.query('SELECT kid FROM license_signing_keys WHERE current')
    if (!rows[0]) await this.insertCurrent(this.db)
  }

  /** A new current key; earlier keys stay published for TOKEN_TTL_SECONDS, older ones are deleted. */
  async rotate(): Promise<string> {
    const kid = await this.db.tx(async (q) => {
      await q.query('UPDATE license_signing_keys SET current = false, superseded_at = now() WHERE current')
      await q.query(`DELETE FROM license_signing_keys WHERE superseded_at < now() - make_interval(secs => $1)`, [TOKEN_TTL_SECONDS])
      await this.insertCurrent(q)
      const { rows } = await q.query<{ kid: string }>('SELECT kid FROM license_signing_keys WHERE current')
      return rows[0].kid
    })
    this.cached = undefined
    return kid
  }

  private async current(): Promise<SigningKey> {
    if (this.cached && Date.now() - this.cached.readAt < CURRENT_KEY_CACHE_MS) return this.cached.key
    const { rows } = await this.db.query<{ kid: string; private_jwk: string }>('SELECT kid, private_jwk FROM license_signing_keys WHERE current')
    if (!rows[0]) throw new Error('No current license signing key (init() not run)')
    const jwk = JSON.parse(this.secrets.unseal(rows[0].private_jwk, privateContext(rows[0].kid)))
    const key = { kid: rows[0].kid, privateKey: createPrivateKey({ key: jwk, format: 'jwk' }) }
    this.cached = { key, readAt: Date.now() }
    return key
  }

  async jwks(): Promise<{ keys: PublicJwk[] }> {
    const { rows } = await this.db.query<{ public_jwk: string }>(
      'SELECT public_jwk FROM license_signing_keys WHERE current OR superseded_at > now() - make_interval(secs => $1) ORDER BY created_at DESC',
      [TOKEN_TTL_SECONDS],
    )
    return { keys: rows.map((r) => JSON.parse(r.public_jwk)) }
  }

  /** A compact JWS (EdDSA) of the claims, valid until `expiresAt`. */
  async sign(claims: OfflineClaims, expiresAt: Date): Promise<{ token: string; kid: string }> {
    const key = await this.current()
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(key.privateKey)
    return { token, kid: key.kid }
  }
}
