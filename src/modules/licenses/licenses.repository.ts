import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Role } from '../../core/auth.ts'
import type { AdminLicense, AdminLicenseListQuery, License, LicenseStatus } from './licenses.schemas.ts'

interface LicenseRow {
  id: string
  organization_id: string
  product_id: string
  product_name: string
  user_id: string | null
  key: string
  module_name: string
  erp_version: string
  status: LicenseStatus
  activations_count: number
  activations_limit: number
  domains: string[] | null
  expires_at: Date | null
  subscription_id: string | null
  created_at: Date
  updated_at: Date
}

/** The status a caller sees: an active license past its expiry is expired even before the job has run. */
export function effectiveStatus(status: LicenseStatus, expiresAt: Date | null, now = Date.now()): LicenseStatus {
  return status === 'active' && expiresAt !== null && expiresAt.getTime() <= now ? 'expired' : status
}

function toLicense(r: LicenseRow): License {
  return {
    id: r.id,
    key: r.key,
    productId: r.product_id,
    product: { id: r.product_id, name: r.product_name },
    moduleName: r.module_name,
    erpVersion: r.erp_version,
    status: effectiveStatus(r.status, r.expires_at),
    activationsCount: r.activations_count,
    activationsLimit: r.activations_limit,
    domains: r.domains ?? [],
    expiresAt: iso(r.expires_at),
    userId: r.user_id,
    subscriptionId: r.subscription_id,
    organizationId: r.organization_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }
}

const FROM = 'licenses l JOIN products p ON p.organization_id = l.organization_id AND p.id = l.product_id'
const SELECT = `l.*, p.name AS product_name,
  ARRAY(SELECT a.domain FROM license_activations a WHERE a.organization_id = l.organization_id AND a.license_id = l.id ORDER BY a.created_at, a.domain) AS domains`

interface AdminLicenseRow extends LicenseRow {
  holder_name: string | null
  holder_email: string | null
  holder_role: Role | null
}

/** A license of the admin routes, with its holder's account and the account's role (the service decides who sees the holder). */
export type HeldLicense = AdminLicense & { holderRole: Role | null }

function toHeldLicense(r: AdminLicenseRow): HeldLicense {
  const holder = r.user_id && r.holder_name !== null && r.holder_email !== null ? { id: r.user_id, name: r.holder_name, email: r.holder_email } : null
  return { ...toLicense(r), holder, holderRole: holder ? r.holder_role : null }
}

// The holder's account is read from the identity module's users table, read-only and of the
// license's own organization only (as billing reads a customer's name and e-mail).
const ADMIN_FROM = `${FROM} LEFT JOIN users u ON u.id = l.user_id AND u.organization_id = l.organization_id`
const ADMIN_SELECT = `${SELECT}, u.name AS holder_name, u.email AS holder_email, u.role AS holder_role`

/** What the license client endpoints need, in one indexed look-up by key. */
export interface ClientLicenseRow {
  id: string
  organization_id: string
  user_id: string | null
  key: string
  status: LicenseStatus
  expires_at: Date | null
  module_name: string
  erp_version: string
  activations_count: number
  activations_limit: number
  product_id: string
  /** Sealed (products module, docs/secrets.md). */
  signing_secret: string
  bound: boolean
}

export interface NewLicense {
  id: string
  organizationId: string
  productId: string
  userId: string | null
  key: string
  moduleName: string
  erpVersion: string
  status: LicenseStatus
  activationsLimit: number
  expiresAt: Date | null
  subscriptionId?: string | null
  orderId?: string | null
}

export const licensesRepository = {
  async insert(q: Queryable, l: NewLicense) {
    await q.query(
      `INSERT INTO licenses (id, organization_id, product_id, user_id, key, module_name, erp_version, status, activations_limit, expires_at, subscription_id, order_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [l.id, l.organizationId, l.productId, l.userId, l.key, l.moduleName, l.erpVersion, l.status, l.activationsLimit, l.expiresAt, l.subscriptionId ?? null, l.orderId ?? null],
    )
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<LicenseRow>(`SELECT ${SELECT} FROM ${FROM} WHERE l.organization_id = $1 AND l.id = $2`, [organizationId, id])
    return rows[0] ? toLicense(rows[0]) : undefined
  },

  /** The license with its holder (admin routes). */
  async findHeld(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<AdminLicenseRow>(`SELECT ${ADMIN_SELECT} FROM ${ADMIN_FROM} WHERE l.organization_id = $1 AND l.id = $2`, [organizationId, id])
    return rows[0] ? toHeldLicense(rows[0]) : undefined
  },

  async findByIds(q: Queryable, organizationId: string, ids: string[]) {
    const { rows } = await q.query<LicenseRow>(`SELECT ${SELECT} FROM ${FROM} WHERE l.organization_id = $2 AND l.id = ANY($1::uuid[]) ORDER BY l.created_at, l.key`, [ids, organizationId])
    return rows.map(toLicense)
  },

  async findBySubscriptions(q: Queryable, organizationId: string, subscriptionIds: string[]) {
    const { rows } = await q.query<LicenseRow>(
      `SELECT ${SELECT} FROM ${FROM} WHERE l.organization_id = $2 AND l.subscription_id = ANY($1::text[]) ORDER BY l.created_at, l.key`,
      [subscriptionIds, organizationId],
    )
    return rows.map(toLicense)
  },

  async listOfUser(q: Queryable, organizationId: string, userId: string) {
    const { rows } = await q.query<LicenseRow>(
      `SELECT ${SELECT} FROM ${FROM} WHERE l.organization_id = $1 AND l.user_id = $2 ORDER BY l.created_at DESC, l.id DESC`,
      [organizationId, userId],
    )
    return rows.map(toLicense)
  },

  list(q: Queryable, organizationId: string, query: AdminLicenseListQuery & PageParams) {
    const where = new Where()
      .scope('l.organization_id', organizationId)
      .counted('l.product_id', query.productId)
      .maybe(query.userId, 'l.user_id = ?')
      .maybe(query.key?.trim().toUpperCase(), 'l.key = ?')
    // The filter matches what callers see, so an active license past its expiry counts as expired.
    if (query.status === 'active') where.add("l.status = 'active' AND (l.expires_at IS NULL OR l.expires_at > now())")
    else if (query.status === 'expired') where.add("(l.status = 'expired' OR (l.status = 'active' AND l.expires_at <= now()))")
    else where.maybe(query.status, 'l.status = ?')
    return paginate(q, query, {
      from: ADMIN_FROM,
      select: ADMIN_SELECT,
      where,
      sortColumns: { createdAt: 'l.created_at', updatedAt: 'l.updated_at', expiresAt: 'l.expires_at', status: 'l.status', key: 'l.key' },
      defaultSort: 'createdAt',
      tieBreaker: 'l.id',
      map: toHeldLicense,
      counter: 'licenses',
    })
  },

  /** Moves a license between states only from the states allowed; undefined when it was in none of them. */
  async transition(q: Queryable, organizationId: string, id: string, from: readonly LicenseStatus[], to: LicenseStatus) {
    const { rows } = await q.query<{ id: string }>(
      'UPDATE licenses SET status = $4, updated_at = now() WHERE organization_id = $1 AND id = $2 AND status = ANY($3::text[]) RETURNING id',
      [organizationId, id, from, to],
    )
    return rows[0]?.id
  },

  async findForClient(q: Queryable, key: string, domain: string, lock = false) {
    const { rows } = await q.query<ClientLicenseRow>(
      `SELECT /* across organizations: a license key names its license before its organization is known */ l.id, l.organization_id, l.user_id, l.key, l.status, l.expires_at, l.module_name, l.erp_version,
              l.activations_count, l.activations_limit, l.product_id, p.signing_secret,
              EXISTS (SELECT 1 FROM license_activations a WHERE a.organization_id = l.organization_id AND a.license_id = l.id AND a.domain = $2) AS bound
       FROM licenses l JOIN products p ON p.organization_id = l.organization_id AND p.id = l.product_id WHERE l.key = $1${lock ? ' FOR UPDATE OF l' : ''}`,
      [key, domain],
    )
    return rows[0]
  },

  async findKeyOwner(q: Queryable, key: string) {
    const { rows } = await q.query<{ id: string; organization_id: string; user_id: string | null }>(
      'SELECT /* across organizations: a license key credential names its license before its organization is known */ id, organization_id, user_id FROM licenses WHERE key = $1',
      [key],
    )
    return rows[0]
  },

  /** Binds a domain; false when it was bound already (a no-op that takes no slot). The caller holds the row lock. */
  async bind(q: Queryable, organizationId: string, licenseId: string, domain: string, hwFingerprint: string | null) {
    const { rowCount } = await q.query(
      `INSERT INTO license_activations (organization_id, license_id, domain, hw_fingerprint)
       SELECT l.organization_id, l.id, $2, $3 FROM licenses l WHERE l.organization_id = $4 AND l.id = $1 ON CONFLICT DO NOTHING`,
      [licenseId, domain, hwFingerprint, organizationId],
    )
    return rowCount === 1
  },

  /** Takes a slot; undefined when none is free (the CHECK on the table is the last line of defence). */
  async takeSlot(q: Queryable, organizationId: string, licenseId: string) {
    const { rows } = await q.query<{ activations_count: number }>(
      `UPDATE licenses SET activations_count = activations_count + 1, updated_at = now()
       WHERE organization_id = $2 AND id = $1 AND activations_count < activations_limit RETURNING activations_count`,
      [licenseId, organizationId],
    )
    return rows[0]?.activations_count
  },

  /** Releases a domain; undefined when it was not bound. */
  async unbind(q: Queryable, organizationId: string, licenseId: string, domain: string) {
    const removed = await q.query('DELETE FROM license_activations WHERE organization_id = $3 AND license_id = $1 AND domain = $2', [licenseId, domain, organizationId])
    if (removed.rowCount === 0) return undefined
    const { rows } = await q.query<{ activations_count: number }>(
      'UPDATE licenses SET activations_count = activations_count - 1, updated_at = now() WHERE organization_id = $2 AND id = $1 RETURNING activations_count',
      [licenseId, organizationId],
    )
    return rows[0].activations_count
  },

  /** Licenses in status `from` whose expiry has come take status `to`: of one organization, or of every one (organizationId undefined). */
  async moveExpired(q: Queryable, r: { from: LicenseStatus; to: LicenseStatus; organizationId?: string }) {
    const { rowCount } = r.organizationId
      ? await q.query('UPDATE licenses SET status = $3, updated_at = now() WHERE organization_id = $1 AND status = $2 AND expires_at <= now()', [r.organizationId, r.from, r.to])
      : await q.query(
          'UPDATE /* across organizations: the license-expiry job over every organization */ licenses SET status = $2, updated_at = now() WHERE status = $1 AND expires_at <= now()',
          [r.from, r.to],
        )
    return rowCount
  },

  // Used by the billing module through the service.

  async setStatusForSubscription(q: Queryable, organizationId: string, subscriptionId: string, from: readonly LicenseStatus[], to: LicenseStatus) {
    const { rows } = await q.query<{ id: string }>(
      'UPDATE licenses SET status = $3, updated_at = now() WHERE organization_id = $4 AND subscription_id = $1 AND status = ANY($2::text[]) RETURNING id',
      [subscriptionId, from, to, organizationId],
    )
    return rows.map((r) => r.id)
  },

  async setStatusForOrder(q: Queryable, organizationId: string, orderId: string, from: readonly LicenseStatus[], to: LicenseStatus) {
    const { rows } = await q.query<{ id: string }>(
      'UPDATE licenses SET status = $3, updated_at = now() WHERE organization_id = $4 AND order_id = $1 AND status = ANY($2::text[]) RETURNING id',
      [orderId, from, to, organizationId],
    )
    return rows.map((r) => r.id)
  },

  /** The subscription's licenses as stored (status, expires_at), locked until the transaction ends, in id order. */
  async lockForSubscription(q: Queryable, organizationId: string, subscriptionId: string) {
    const { rows } = await q.query<{ id: string; status: LicenseStatus; expires_at: Date | null }>(
      'SELECT id, status, expires_at FROM licenses WHERE organization_id = $2 AND subscription_id = $1 ORDER BY id FOR UPDATE',
      [subscriptionId, organizationId],
    )
    return rows
  },

  async setExpiry(q: Queryable, organizationId: string, id: string, expiresAt: Date, status: LicenseStatus) {
    await q.query('UPDATE licenses SET expires_at = $2, status = $3, updated_at = now() WHERE organization_id = $4 AND id = $1', [id, expiresAt, status, organizationId])
  },
}
