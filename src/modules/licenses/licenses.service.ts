import { addInterval } from '../../core/dates.ts'
import { randomUUID } from 'node:crypto'
import type { Principal } from '../../core/auth.ts'
import type { Db, Queryable } from '../../core/db.ts'
import type { DomainEvents } from '../../core/events.ts'
import { NotFoundError, StateConflictError, ValidationError, isUniqueViolation } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import type { Product } from '../products/index.ts'
import type { ProductsService } from '../products/index.ts'
import type { IdentityService } from '../identity/index.ts'
import { generateLicenseKey } from './license-keys.lib.ts'
import { licensesRepository as repo, type HeldLicense, type NewLicense } from './licenses.repository.ts'
import type { AdminLicense, AdminLicenseListQuery, IssueLicense, LicenseHolder, LicenseHolderQuery, LicenseStatus } from './licenses.schemas.ts'

export type LicenseEvent = 'license.created' | 'license.activated' | 'license.deactivated' | 'license.suspended' | 'license.reinstated' | 'license.revoked'

/** Manual transitions for admins and support (docs/licenses.md "States and transitions"): the states each one may start from. */
const MANUAL: Record<'suspend' | 'reinstate' | 'revoke', { from: readonly LicenseStatus[]; to: LicenseStatus; done: string; event: LicenseEvent }> = {
  suspend: { from: ['active'], to: 'suspended', done: 'suspended', event: 'license.suspended' },
  reinstate: { from: ['suspended'], to: 'active', done: 'reinstated', event: 'license.reinstated' },
  revoke: { from: ['active', 'expired', 'inactive', 'suspended'], to: 'revoked', done: 'revoked', event: 'license.revoked' },
}

/**
 * Appends `type` for each license, with the license as GET /licenses lists it
 * (docs/webhooks.md "The event object"). Used by the admin routes, billing's effects and
 * the license client (activation on a domain).
 */
export async function emitLicenseEvents(events: DomainEvents, q: Queryable, type: LicenseEvent, organizationId: string, ids: string[]) {
  for (const license of ids.length ? await repo.findByIds(q, organizationId, ids) : []) {
    await events.append(q, { organizationId: license.organizationId, type, resource: { type: 'license', id: license.id }, object: license })
  }
  return ids.length
}

/**
 * What a caller of the admin routes sees of a license's holder (docs/licenses.md "Holders by name"):
 * admins every holder; support the holders that are customer accounts, as GET /admin/license-holders
 * shows them, and no staff account's name or e-mail.
 */
export function shownTo(p: Principal, l: HeldLicense): AdminLicense {
  const { holderRole, ...license } = l
  return p.role === 'admin' || holderRole === 'customer' ? license : { ...license, holder: null }
}

/** The states a license is revoked from (by an admin, a cancelled subscription or a refunded order): all but revoked. */
const REVOKABLE = MANUAL.revoke.from

/** An active license whose expiry has come becomes expired (the license-expiry job). */
const EXPIRY = { from: 'active', to: 'expired' } as const satisfies { from: LicenseStatus; to: LicenseStatus }

/**
 * What a paid period ending `until` does to a license: its expiry moves to
 * `until`, never back, in any state but revoked (a suspended license
 * reinstated later has its paid period), and an expired one is active again
 * when `until` is still ahead. Undefined: the license is left as it is.
 */
export function extension(license: { status: LicenseStatus; expires_at: Date | null }, until: Date, now = new Date()) {
  if (license.status === 'revoked') return undefined
  const expiresAt = license.expires_at !== null && license.expires_at > until ? license.expires_at : until
  const status: LicenseStatus = license.status === 'expired' && until > now ? 'active' : license.status
  return { expiresAt, status }
}

export interface LicenseGrant {
  organizationId: string
  product: Product
  userId: string | null
  status?: LicenseStatus
  activationsLimit?: number
  expiresAt?: Date | null
  subscriptionId?: string | null
  orderId?: string | null
}

export class LicensesService {
  constructor(
    private readonly db: Db,
    private readonly products: ProductsService,
    private readonly events: DomainEvents,
    private readonly identity: IdentityService,
  ) {}

  private emit(q: Queryable, type: LicenseEvent, organizationId: string, ids: string[]) {
    return emitLicenseEvents(this.events, q, type, organizationId, ids)
  }

  /**
   * Creates a license with a fresh key for a licensed product. Callers pass
   * their transaction; billing issues licenses inside the event that paid.
   */
  async grant(q: Queryable, g: LicenseGrant): Promise<string> {
    const p = g.product
    if (!p.moduleName || !p.erpVersion) throw new ValidationError(`Product ${p.id} is not a licensed product`)
    const defaultExpiry = p.billing === 'recurring' && p.interval ? addInterval(new Date(), p.interval) : null
    const license: NewLicense = {
      id: randomUUID(),
      organizationId: g.organizationId,
      productId: p.id,
      userId: g.userId,
      key: generateLicenseKey(),
      moduleName: p.moduleName,
      erpVersion: p.erpVersion,
      status: g.status ?? 'active',
      activationsLimit: g.activationsLimit ?? p.activationsLimit ?? 1,
      expiresAt: g.expiresAt === undefined ? defaultExpiry : g.expiresAt,
      subscriptionId: g.subscriptionId,
      orderId: g.orderId,
    }
    // 26^16 keys: a collision is astronomically unlikely, but cheap to retry.
    for (let attempt = 0; ; attempt++) {
      try {
        await repo.insert(q, license)
        await this.emit(q, 'license.created', license.organizationId, [license.id])
        return license.id
      } catch (err) {
        if (!isUniqueViolation(err, 'licenses_key_key') || attempt >= 3) throw err
        license.key = generateLicenseKey()
      }
    }
  }

  /** POST /admin/licenses. */
  async issue(p: Principal, input: IssueLicense): Promise<AdminLicense> {
    const problems: string[] = []
    const [product] = await this.products.findMany(p.organizationId, [input.productId])
    if (!product) problems.push('productId does not name a product of this organization')
    else if (!product.moduleName) problems.push('productId does not name a licensed product (one with moduleName)')
    if (!(await this.identity.findUser(p.organizationId, input.userId))) problems.push('userId does not name a user of this organization')
    const expiresAt = input.expiresAt == null ? input.expiresAt : new Date(input.expiresAt)
    if (expiresAt && expiresAt.getTime() <= Date.now()) problems.push('expiresAt must be in the future')
    if (problems.length) throw new ValidationError(problems)
    return this.db.tx(async (q) => {
      const id = await this.grant(q, { organizationId: p.organizationId, product: product!, userId: input.userId, activationsLimit: input.activationsLimit, expiresAt })
      return this.held(p, id, q)
    })
  }

  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const license = await repo.find(q, organizationId, id)
    if (!license) throw new NotFoundError('License')
    return license
  }

  /** A license of the admin routes: with its holder, as `p` may see it. */
  async held(p: Principal, id: string, q: Queryable = this.db): Promise<AdminLicense> {
    const license = await repo.findHeld(q, p.organizationId, id)
    if (!license) throw new NotFoundError('License')
    return shownTo(p, license)
  }

  async list(p: Principal, query: AdminLicenseListQuery & PageParams) {
    const page = await repo.list(this.db, p.organizationId, query)
    return { ...page, data: page.data.map((l) => shownTo(p, l)) }
  }

  /**
   * GET /admin/license-holders: the organization's customer accounts by name or e-mail, A to Z,
   * as {id, name, email} only (no role, no staff account, nothing of another organization).
   */
  async holders(p: Principal, query: LicenseHolderQuery): Promise<{ data: LicenseHolder[]; meta: Awaited<ReturnType<IdentityService['listUsers']>>['meta'] }> {
    const found = await this.identity.listUsers(p, { page: query.page, limit: query.limit, sortBy: 'name', sortOrder: 'asc', role: 'customer', ...(query.search?.trim() ? { search: query.search.trim() } : {}) })
    return { ...found, data: found.data.map((u) => ({ id: u.id, name: u.name, email: u.email })) }
  }

  /** GET /licenses: the caller's own licenses. */
  mine(p: Principal) {
    return p.userId ? repo.listOfUser(this.db, p.organizationId, p.userId) : Promise.resolve([])
  }

  async transition(p: Principal, id: string, action: keyof typeof MANUAL): Promise<AdminLicense> {
    const rule = MANUAL[action]
    return this.db.tx(async (q) => {
      const current = await this.get(p.organizationId, id, q)
      // current.status is what callers see (an active license past its expiry is expired);
      // the conditional update closes the race with any concurrent change.
      if (!rule.from.includes(current.status) || !(await repo.transition(q, p.organizationId, id, rule.from, rule.to))) {
        throw new StateConflictError(`License is ${current.status} and cannot be ${rule.done}`)
      }
      await this.emit(q, rule.event, p.organizationId, [id])
      return this.held(p, id, q)
    })
  }

  /** The license-expiry job (EXPIRY: active licenses past expiresAt become expired). Safe in several processes at once. */
  /** The license-expiry job: of one organization (an admin's run), or of every one (organizationId undefined). */
  async expireDue(organizationId?: string) {
    return { expired: await repo.moveExpired(this.db, { ...EXPIRY, organizationId }) }
  }

  // Effects of payment-processor events (docs/licenses.md "States and transitions"), run inside the event's transaction.

  findByIds(q: Queryable, organizationId: string, ids: string[]) {
    return ids.length ? repo.findByIds(q, organizationId, ids) : Promise.resolve([])
  }

  forSubscriptions(organizationId: string, subscriptionIds: string[], q: Queryable = this.db) {
    return subscriptionIds.length ? repo.findBySubscriptions(q, organizationId, subscriptionIds) : Promise.resolve([])
  }

  /** The number of licenses revoked. */
  async revokeForSubscription(q: Queryable, organizationId: string, subscriptionId: string) {
    return this.emit(q, 'license.revoked', organizationId, await repo.setStatusForSubscription(q, organizationId, subscriptionId, REVOKABLE, 'revoked'))
  }

  async suspendForSubscription(q: Queryable, organizationId: string, subscriptionId: string) {
    return this.emit(q, 'license.suspended', organizationId, await repo.setStatusForSubscription(q, organizationId, subscriptionId, ['active'], 'suspended'))
  }

  async reactivateForSubscription(q: Queryable, organizationId: string, subscriptionId: string) {
    return this.emit(q, 'license.reinstated', organizationId, await repo.setStatusForSubscription(q, organizationId, subscriptionId, ['suspended'], 'active'))
  }

  /** A paid renewal: each of the subscription's licenses takes its extension (above); the number extended. */
  async extendForSubscription(q: Queryable, organizationId: string, subscriptionId: string, until: Date) {
    let extended = 0
    for (const license of await repo.lockForSubscription(q, organizationId, subscriptionId)) {
      const next = extension(license, until)
      if (!next) continue
      await repo.setExpiry(q, organizationId, license.id, next.expiresAt, next.status)
      extended++
    }
    return extended
  }

  async revokeForOrder(q: Queryable, organizationId: string, orderId: string) {
    return this.emit(q, 'license.revoked', organizationId, await repo.setStatusForOrder(q, organizationId, orderId, REVOKABLE, 'revoked'))
  }
}
