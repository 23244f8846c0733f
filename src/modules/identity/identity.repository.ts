import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Role } from '../../core/auth.ts'
import type { ApiKey, Organization, User } from './identity.schemas.ts'

interface UserRow {
  id: string
  organization_id: string
  name: string
  email: string
  role: Role
  password_hash: string
  created_at: Date
  updated_at: Date
}

const toUser = (r: UserRow): User => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  email: r.email,
  role: r.role,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

const toOrganization = (r: { id: string; name: string; created_at: Date }): Organization => ({
  id: r.id,
  name: r.name,
  createdAt: iso(r.created_at),
})

interface ApiKeyRow {
  id: string
  organization_id: string
  user_id: string
  name: string
  environment: 'live' | 'test'
  role: Role
  prefix: string
  last4: string
  created_at: Date
}

const toApiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  name: r.name,
  environment: r.environment,
  role: r.role,
  prefix: r.prefix,
  last4: r.last4,
  userId: r.user_id,
  createdAt: iso(r.created_at),
})

export const identityRepository = {
  async getSetting(q: Queryable, key: string) {
    const { rows } = await q.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])
    return rows[0]?.value
  },

  /** Stores value unless the key exists; returns the value that won. */
  async initSetting(q: Queryable, key: string, value: string) {
    await q.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value])
    return (await this.getSetting(q, key)) as string
  },

  async insertOrganization(q: Queryable, id: string, name: string) {
    const { rows } = await q.query('INSERT INTO organizations (id, name) VALUES ($1, $2) RETURNING id, name, created_at', [id, name])
    return toOrganization(rows[0] as any)
  },

  async findOrganization(q: Queryable, id: string) {
    const { rows } = await q.query('SELECT id, name, created_at FROM organizations WHERE id = $1', [id])
    return rows[0] ? toOrganization(rows[0] as any) : undefined
  },

  async insertUser(q: Queryable, u: { id: string; organizationId: string; name: string; email: string; passwordHash: string; role: Role }) {
    const { rows } = await q.query<UserRow>(
      // user_emails keeps an email unique across organizations (migration 0133): its key is users_email_key.
      `WITH e AS (INSERT INTO user_emails (email, user_id) VALUES (lower($4), $1) RETURNING 1)
       INSERT INTO users (id, organization_id, name, email, password_hash, role) SELECT $1, $2, $3, $4, $5, $6 FROM e RETURNING *`,
      [u.id, u.organizationId, u.name, u.email, u.passwordHash, u.role],
    )
    return toUser(rows[0])
  },

  async findUserByEmail(q: Queryable, email: string) {
    const { rows } = await q.query<UserRow>('SELECT /* across organizations: a log-in names its user by e-mail before its organization is known */ * FROM users WHERE lower(email) = lower($1)', [email])
    return rows[0] ? { user: toUser(rows[0]), passwordHash: rows[0].password_hash } : undefined
  },

  async findUser(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<UserRow>('SELECT * FROM users WHERE organization_id = $1 AND id = $2', [organizationId, id])
    return rows[0] ? toUser(rows[0]) : undefined
  },

  listUsers(q: Queryable, organizationId: string, page: PageParams & { role?: Role }) {
    const where = new Where().scope('organization_id', organizationId).counted('role', page.role).search(page.search, ['name', 'email'])
    return paginate(q, page, {
      from: 'users',
      select: '*',
      where,
      sortColumns: { name: 'name', email: 'email', role: 'role', createdAt: 'created_at', updatedAt: 'updated_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toUser,
      counter: 'users',
    })
  },

  /** Replaces a password hash by a stronger one, unless it changed since it was read. */
  async replacePasswordHash(q: Queryable, organizationId: string, userId: string, previous: string, next: string) {
    await q.query('UPDATE users SET password_hash = $3 WHERE organization_id = $4 AND id = $1 AND password_hash = $2', [userId, previous, next, organizationId])
  },

  /** Updates the user and answers it with the role it had before (undefined: no such user). */
  async updateUser(q: Queryable, organizationId: string, id: string, patch: { name?: string; email?: string; passwordHash?: string; role?: Role }) {
    if (patch.email !== undefined) {
      // First, so that an email another user has fails here (users_email_key) before the user changes.
      await q.query('UPDATE user_emails SET email = lower($3) WHERE user_id = (SELECT id FROM users WHERE organization_id = $1 AND id = $2)', [organizationId, id, patch.email])
    }
    const { rows } = await q.query<UserRow & { previous_role: Role }>(
      `UPDATE users u SET name = coalesce($3, u.name), email = coalesce($4, u.email), password_hash = coalesce($5, u.password_hash),
         role = coalesce($6, u.role), updated_at = now()
       FROM (SELECT id, role FROM users WHERE organization_id = $1 AND id = $2 FOR UPDATE) previous
       WHERE u.organization_id = $1 AND u.id = previous.id RETURNING u.*, previous.role AS previous_role`,
      [organizationId, id, patch.name ?? null, patch.email ?? null, patch.passwordHash ?? null, patch.role ?? null],
    )
    return rows[0] ? { user: toUser(rows[0]), previousRole: rows[0].previous_role } : undefined
  },

  async emailOf(q: Queryable, organizationId: string, userId: string) {
    const { rows } = await q.query<{ email: string }>('SELECT email FROM users WHERE organization_id = $2 AND id = $1', [userId, organizationId])
    return rows[0]?.email
  },

  async passwordHashOf(q: Queryable, organizationId: string, userId: string) {
    const { rows } = await q.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE organization_id = $2 AND id = $1', [userId, organizationId])
    return rows[0]?.password_hash
  },

  /** The user's organization and role as they are now (undefined: no such user in the organization). */
  async roleOf(q: Queryable, organizationId: string, userId: string) {
    const { rows } = await q.query<{ organization_id: string; role: Role }>('SELECT organization_id, role FROM users WHERE organization_id = $2 AND id = $1', [userId, organizationId])
    return rows[0]
  },

  async setPasswordHash(q: Queryable, organizationId: string, userId: string, hash: string) {
    await q.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE organization_id = $3 AND id = $1', [userId, hash, organizationId])
  },

  async deleteUser(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<{ n: number }>(
      `WITH d AS (DELETE FROM users WHERE organization_id = $1 AND id = $2 RETURNING id),
       e AS (DELETE FROM user_emails WHERE user_id IN (SELECT id FROM d))
       SELECT count(*)::int AS n FROM d`,
      [organizationId, id],
    )
    return rows[0].n > 0
  },

  async insertRefreshToken(q: Queryable, t: { id: string; organizationId: string; userId: string; familyId: string; tokenHash: string; ttlSeconds: number }) {
    await q.query(
      `INSERT INTO refresh_tokens (id, organization_id, user_id, family_id, token_hash, expires_at)
       SELECT $1, u.organization_id, u.id, $3, $4, now() + make_interval(secs => $5) FROM users u WHERE u.organization_id = $6 AND u.id = $2`,
      [t.id, t.userId, t.familyId, t.tokenHash, t.ttlSeconds, t.organizationId],
    )
  },

  /** Spends a refresh token: succeeds once, only while it is unused, unrevoked and unexpired. */
  async spendRefreshToken(q: Queryable, tokenHash: string) {
    const { rows } = await q.query<{ organization_id: string; user_id: string; family_id: string }>(
      `UPDATE /* across organizations: a refresh token names its session before its organization is known */ refresh_tokens SET used_at = now()
       WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
       RETURNING organization_id, user_id, family_id`,
      [tokenHash],
    )
    return rows[0]
  },

  async findRefreshToken(q: Queryable, tokenHash: string) {
    const { rows } = await q.query<{ organization_id: string; family_id: string; used_at: Date | null }>(
      'SELECT /* across organizations: a refresh token names its session before its organization is known */ organization_id, family_id, used_at FROM refresh_tokens WHERE token_hash = $1',
      [tokenHash],
    )
    return rows[0]
  },

  async revokeFamily(q: Queryable, organizationId: string, familyId: string) {
    await q.query('UPDATE refresh_tokens SET revoked_at = now() WHERE organization_id = $2 AND family_id = $1 AND revoked_at IS NULL', [familyId, organizationId])
  },

  /** Ends every session of the user, but `keep` (a family id) when given. */
  async revokeUserSessions(q: Queryable, organizationId: string, userId: string, keep?: string) {
    await q.query(
      'UPDATE refresh_tokens SET revoked_at = now() WHERE organization_id = $3 AND user_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR family_id <> $2)',
      [userId, keep ?? null, organizationId],
    )
  },

  /** A session that has not ended (its family still has an unrevoked token), with its user as it is now. */
  async findSession(q: Queryable, organizationId: string, familyId: string) {
    const { rows } = await q.query<{ user_id: string; organization_id: string; role: Role }>(
      `SELECT u.id AS user_id, u.organization_id, u.role FROM refresh_tokens r JOIN users u ON u.organization_id = r.organization_id AND u.id = r.user_id
       WHERE r.organization_id = $2 AND r.family_id = $1 AND r.revoked_at IS NULL LIMIT 1`,
      [familyId, organizationId],
    )
    return rows[0] && { userId: rows[0].user_id, organizationId: rows[0].organization_id, role: rows[0].role }
  },

  /**
   * Counts a log-in attempt for the e-mail before its password is checked, in
   * a 15-minute window that starts at the first attempt; answers the attempts
   * of the window so far and the seconds until it ends. A successful log-in
   * clears the count (clearLoginFailures), so it counts failures. Stale rows
   * of other e-mails are trimmed a few at a time.
   */
  async countLoginAttempt(q: Queryable, email: string, windowSeconds: number) {
    await q.query(
      `DELETE FROM login_failures WHERE email IN (
         SELECT email FROM login_failures WHERE window_started_at < now() - make_interval(secs => $1) LIMIT 20)`,
      [windowSeconds],
    )
    const { rows } = await q.query<{ failures: number; seconds_left: number }>(
      `INSERT INTO login_failures AS f (email, failures, window_started_at) VALUES (lower($1), 1, now())
       ON CONFLICT (email) DO UPDATE SET
         failures = CASE WHEN f.window_started_at < now() - make_interval(secs => $2) THEN 1 ELSE f.failures + 1 END,
         window_started_at = CASE WHEN f.window_started_at < now() - make_interval(secs => $2) THEN now() ELSE f.window_started_at END
       RETURNING failures, extract(epoch FROM f.window_started_at + make_interval(secs => $2) - now())::float8 AS seconds_left`,
      [email, windowSeconds],
    )
    return { attempts: rows[0].failures, secondsLeft: rows[0].seconds_left }
  },

  async clearLoginFailures(q: Queryable, email: string) {
    await q.query('DELETE FROM login_failures WHERE email = lower($1)', [email])
  },

  /** A new reset link of the user; the user's earlier unused links stop working. */
  async insertPasswordReset(q: Queryable, r: { id: string; organizationId: string; userId: string; tokenHash: string; ttlSeconds: number }) {
    await q.query('DELETE FROM password_resets WHERE organization_id = $2 AND user_id = $1', [r.userId, r.organizationId])
    await q.query(
      `INSERT INTO password_resets (id, organization_id, user_id, token_hash, expires_at)
       SELECT $1, u.organization_id, u.id, $3, now() + make_interval(secs => $4) FROM users u WHERE u.organization_id = $5 AND u.id = $2`,
      [r.id, r.userId, r.tokenHash, r.ttlSeconds, r.organizationId],
    )
  },

  /** Spends a reset link: once, while unexpired. Answers its user and organization, or undefined. */
  async spendPasswordReset(q: Queryable, tokenHash: string) {
    const { rows } = await q.query<{ organization_id: string; user_id: string }>(
      'UPDATE /* across organizations: a reset link names its user before its organization is known */ password_resets SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING organization_id, user_id',
      [tokenHash],
    )
    return rows[0] && { organizationId: rows[0].organization_id, userId: rows[0].user_id }
  },

  /**
   * Inserts the key only while its user is an admin or has the key's role, read
   * under a share lock of the user row, so a key made with a stale access token
   * never outlives a demotion (see revokeKeysOutsideRole). Undefined otherwise.
   */
  async insertApiKey(q: Queryable, k: { id: string; organizationId: string; userId: string; name: string; environment: string; role: Role; prefix: string; last4: string; keyHash: string }) {
    const { rows } = await q.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, organization_id, user_id, name, environment, role, prefix, last4, key_hash)
       SELECT $1, $2, u.id, $4, $5, $6, $7, $8, $9 FROM users u
       WHERE u.id = $3 AND u.organization_id = $2 AND (u.role = 'admin' OR u.role = $6)
       FOR SHARE OF u
       RETURNING *`,
      [k.id, k.organizationId, k.userId, k.name, k.environment, k.role, k.prefix, k.last4, k.keyHash],
    )
    return rows[0] ? toApiKey(rows[0]) : undefined
  },

  /** Revokes the user's keys of any role but `role` (the user was demoted from admin). */
  async revokeKeysOutsideRole(q: Queryable, organizationId: string, userId: string, role: Role) {
    await q.query('UPDATE api_keys SET revoked_at = now() WHERE organization_id = $3 AND user_id = $1 AND role <> $2 AND revoked_at IS NULL', [userId, role, organizationId])
  },

  async findApiKeyByHash(q: Queryable, keyHash: string) {
    const { rows } = await q.query<ApiKeyRow>('SELECT /* across organizations: an API key names its organization, found by its hash */ * FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [keyHash])
    return rows[0] ? { ...toApiKey(rows[0]), organizationId: rows[0].organization_id } : undefined
  },

  /** owner: only the keys of this user and role (what a non-admin may manage). */
  listApiKeys(q: Queryable, organizationId: string, owner: { userId: string; role: Role } | undefined, page: PageParams & { environment?: string }) {
    const where = new Where()
      .add('organization_id = ?', organizationId)
      .add('revoked_at IS NULL')
      .maybe(owner?.userId, 'user_id = ?')
      .maybe(owner?.role, 'role = ?')
      .maybe(page.environment, 'environment = ?')
      .search(page.search, ['name'])
    return paginate(q, page, {
      from: 'api_keys',
      select: '*',
      where,
      sortColumns: { name: 'name', createdAt: 'created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'id',
      map: toApiKey,
    })
  },

  async revokeApiKey(q: Queryable, organizationId: string, id: string, owner: { userId: string; role: Role } | undefined) {
    const r = await q.query(
      `UPDATE api_keys SET revoked_at = now()
       WHERE organization_id = $1 AND id = $2 AND revoked_at IS NULL AND ($3::uuid IS NULL OR (user_id = $3 AND role = $4))
       RETURNING key_hash`,
      [organizationId, id, owner?.userId ?? null, owner?.role ?? null],
    )
    return (r.rows[0] as { key_hash: string } | undefined)?.key_hash
  },

  async adminEmails(q: Queryable, organizationId: string): Promise<string[]> {
    const { rows } = await q.query<{ email: string }>(`SELECT email FROM users WHERE organization_id = $1 AND role = 'admin' ORDER BY created_at, id`, [organizationId])
    return rows.map((r) => r.email)
  },
}
