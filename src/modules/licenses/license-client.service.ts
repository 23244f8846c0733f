import type { FastifyRequest } from 'fastify'
import type { Principal } from '../../core/auth.ts'
import { iso, type Db, type Queryable } from '../../core/db.ts'
import { AppError, ForbiddenError, ValidationError } from '../../core/errors.ts'
import type { DomainEvents } from '../../core/events.ts'
import type { SecretBox } from '../../core/secrets.ts'
import { signingSecretContext } from '../products/index.ts'
import { erpMajor, looksLikeLicenseKey, normalizeDomain, normalizeKey } from './license-keys.lib.ts'
import { requestSignatureValid, type SigningContext } from './license-client.signature.ts'
import { TOKEN_TTL_SECONDS, type OfflineTokenSigner } from './license-tokens.signature.ts'
import { effectiveStatus, licensesRepository as repo, type ClientLicenseRow } from './licenses.repository.ts'
import { emitLicenseEvents } from './licenses.service.ts'
import type { ClientRequest, LicenseStatus, ValidateResult, ValidationCode } from './licenses.schemas.ts'

type Refusal = Exclude<ValidationCode, 'VALID'>

const INACTIVE_MESSAGE: Partial<Record<LicenseStatus, string>> = {
  revoked: 'License revoked',
  suspended: 'License suspended',
  inactive: 'License inactive',
}

interface Check {
  code: Refusal
  message: string
}

const NOT_FOUND: Check = { code: 'LICENSE_NOT_FOUND', message: 'License not found' }

/** Principal id of a bearer value shaped like a license key that names no license. */
const UNKNOWN_ORG = '00000000-0000-0000-0000-000000000000'
const OWNER_CACHE_MS = 60_000
const OWNER_CACHE_SIZE = 10_000

function refuse(check: Check): never {
  throw new AppError(check.code, check.message)
}

/** The checks in order (docs/licenses.md "Checks"): state, module, ERP major version, then the domain where asked. */
function refusal(row: ClientLicenseRow, req: ClientRequest, opts: { state: boolean; bound: boolean }): Check | undefined {
  if (opts.state) {
    const status = effectiveStatus(row.status, row.expires_at)
    if (status === 'expired') return { code: 'LICENSE_EXPIRED', message: 'License expired' }
    if (status !== 'active') return { code: 'LICENSE_INACTIVE', message: INACTIVE_MESSAGE[status] ?? 'License inactive' }
  }
  if (req.module_name !== undefined && req.module_name.trim().toLowerCase() !== row.module_name.toLowerCase()) {
    return { code: 'MODULE_MISMATCH', message: `License belongs to another module (${row.module_name})` }
  }
  if (req.erp_version !== undefined && erpMajor(req.erp_version) !== erpMajor(row.erp_version)) {
    return { code: 'VERSION_MISMATCH', message: `License is for ERP version ${row.erp_version}, not ${req.erp_version}` }
  }
  if (opts.bound && !row.bound) return { code: 'NOT_ACTIVATED_ON_DOMAIN', message: 'License is not activated on this domain' }
  return undefined
}

/**
 * The license client endpoints used by connector modules. Each request finds
 * its license by key in one indexed query; the caller must be allowed to see
 * it (its organization; a customer only their own; a license-key credential
 * only that license), and a request signature, when sent, must match.
 */
export class LicenseClientService {
  constructor(
    private readonly db: Db,
    private readonly tokens: OfflineTokenSigner,
    private readonly events: DomainEvents,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * Key -> owning license and organization, which never change once issued.
   * Kept a minute per process so that validate costs one query, not two;
   * everything that can change is read fresh by that query.
   */
  private readonly owners = new Map<string, { owner: { id: string; organization_id: string; user_id: string | null }; until: number }>()

  private async ownerOf(key: string) {
    const cached = this.owners.get(key)
    if (cached && cached.until > Date.now()) return cached.owner
    const owner = await repo.findKeyOwner(this.db, key)
    if (!owner) return undefined
    if (this.owners.size >= OWNER_CACHE_SIZE) this.owners.delete(this.owners.keys().next().value!)
    this.owners.set(key, { owner, until: Date.now() + OWNER_CACHE_MS })
    return owner
  }

  /** Bearer credential `<license key>`: may call the license client endpoints for that license only. */
  resolveLicenseKey = async (token: string, request: FastifyRequest): Promise<Principal | null> => {
    if (!looksLikeLicenseKey(token)) return null
    const owner = await this.ownerOf(token)
    if (!owner) return { kind: 'license', id: `license-unknown:${request.ip}`, organizationId: UNKNOWN_ORG, userId: null, role: 'customer', licenseKey: token }
    return { kind: 'license', id: `license:${owner.id}`, organizationId: owner.organization_id, userId: owner.user_id, role: 'customer', licenseKey: token }
  }

  private async locate(q: Queryable, p: Principal, req: ClientRequest, signing: SigningContext, lock = false) {
    const key = normalizeKey(req.key)
    const domain = normalizeDomain(req.domain)
    if (!domain) throw new ValidationError('domain must name a host')
    if (p.kind === 'license' && p.licenseKey !== key) throw new ForbiddenError('A license key credential may only be used for its own license')
    const row = await repo.findForClient(q, key, domain, lock)
    // A license-key credential names its license (checked above); a customer sees only their own.
    const visible = row && row.organization_id === p.organizationId && (p.kind === 'license' || p.role !== 'customer' || row.user_id === p.userId)
    if (!visible) return { row: undefined, domain }
    signing.secret = this.secrets.unseal(row.signing_secret, signingSecretContext(row.product_id))
    if (!requestSignatureValid(signing, signing.secret)) throw new AppError('INVALID_SIGNATURE', 'Invalid signature')
    return { row, domain }
  }

  async validate(p: Principal, req: ClientRequest, signing: SigningContext): Promise<ValidateResult> {
    const { row } = await this.locate(this.db, p, req, signing)
    if (!row) return { valid: false, code: NOT_FOUND.code, message: NOT_FOUND.message, license: null }
    const license = { key: row.key, status: effectiveStatus(row.status, row.expires_at), expiresAt: iso(row.expires_at) }
    const check = refusal(row, req, { state: true, bound: true })
    if (check) return { valid: false, code: check.code, message: check.message, license }
    return { valid: true, code: 'VALID', message: 'License is valid', license }
  }

  /** Binds the domain. The license row is locked, so slots are counted one request at a time. */
  activate(p: Principal, req: ClientRequest, signing: SigningContext) {
    return this.db.tx(async (q) => {
      const { row, domain } = await this.locate(q, p, req, signing, true)
      if (!row) refuse(NOT_FOUND)
      const check = refusal(row, req, { state: true, bound: false })
      if (check) refuse(check)
      const result = { activated: true, activationsCount: row.activations_count, activationsLimit: row.activations_limit }
      if (!(await repo.bind(q, row.organization_id, row.id, domain, req.hw_fingerprint ?? null))) return result
      const count = await repo.takeSlot(q, row.organization_id, row.id)
      if (count === undefined) throw new AppError('ACTIVATION_LIMIT_REACHED', 'Activation limit reached')
      await emitLicenseEvents(this.events, q, 'license.activated', row.organization_id, [row.id])
      return { ...result, activationsCount: count }
    })
  }

  /** Releases the domain whatever the license's state, so that a slot can always be freed. */
  deactivate(p: Principal, req: ClientRequest, signing: SigningContext) {
    return this.db.tx(async (q) => {
      const { row, domain } = await this.locate(q, p, req, signing, true)
      if (!row) refuse(NOT_FOUND)
      const check = refusal(row, req, { state: false, bound: false })
      if (check) refuse(check)
      const count = await repo.unbind(q, row.organization_id, row.id, domain)
      if (count === undefined) refuse({ code: 'NOT_ACTIVATED_ON_DOMAIN', message: 'License is not activated on this domain' })
      await emitLicenseEvents(this.events, q, 'license.deactivated', row.organization_id, [row.id])
      return { deactivated: true, activationsCount: count }
    })
  }

  /** An offline token for a valid license activated on the domain; it never outlives the license. */
  async issueToken(p: Principal, req: Required<ClientRequest>, signing: SigningContext) {
    const { row, domain } = await this.locate(this.db, p, req, signing)
    if (!row) refuse(NOT_FOUND)
    const check = refusal(row, req, { state: true, bound: true })
    if (check) refuse(check)
    const maxExpiry = Date.now() + TOKEN_TTL_SECONDS * 1000
    const expiresAt = new Date(row.expires_at ? Math.min(row.expires_at.getTime(), maxExpiry) : maxExpiry)
    const claims = { key: row.key, module: row.module_name, domain, erp_version: req.erp_version, hw_fingerprint: req.hw_fingerprint, status: 'active' }
    const { token, kid } = await this.tokens.sign(claims, expiresAt)
    return { token, kid, expiresAt: iso(new Date(Math.floor(expiresAt.getTime() / 1000) * 1000)) }
  }
}
