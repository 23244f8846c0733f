import { randomBytes, randomUUID } from 'node:crypto'
import { SignJWT, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose'
import type { Config } from '../../config.ts'
import type { Principal, Role } from '../../core/auth.ts'
import type { Db, Queryable } from '../../core/db.ts'
import { AlreadyExistsError, AppError, ForbiddenError, NotFoundError, TooManyRequestsError, UnauthorizedError, isUniqueViolation } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { hashToken, sealColumns, type SecretBox } from '../../core/secrets.ts'
import { CREDENTIALS_CHANNEL, CredentialCache, type CachedKey, type CachedSession } from './credential-cache.lib.ts'
import { identityRepository as repo } from './identity.repository.ts'
import { OrganizationService } from './organization.service.ts'
import { dummyHash, hashPassword, verifyPassword, type ScryptParams } from './passwords.lib.ts'
import type { TokenPair } from './identity.schemas.ts'
import type { MailService } from '../mail/index.ts'



/** docs/platform.md "Log-in limit per e-mail": 10 failed log-ins of one e-mail in 15 minutes lock it for the rest of the window. */
const LOGIN_WINDOW_SECONDS = 15 * 60
const LOGIN_MAX_FAILURES = 10
/** A password reset link is valid one hour, once. */
const RESET_TTL_SECONDS = 3600

const ROLE_RANK: Record<Role, number> = { customer: 0, member: 1, agent: 1, support: 2, admin: 3 }

export class IdentityService {
  private jwtKey!: Uint8Array
  private readonly keys = new CredentialCache<CachedKey>()
  /** Access tokens whose signature was verified, until they expire (verifiedClaims). */
  private readonly verified = new Map<string, JWTPayload>()
  /** Sessions of access tokens, checked on every request (a token stops when its session or user changes). */
  private readonly sessions = new CredentialCache<CachedSession>()
  /** The organization's profile (GET/PATCH /organization), printed as the seller on documents. */
  readonly organizations: OrganizationService
  private get scrypt(): ScryptParams {
    return { ln: this.config.passwordHashCost, r: 8, p: 1 }
  }

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly onOrganizationCreated: ReadonlyArray<(q: Queryable, organizationId: string) => Promise<void>>,
    private readonly mail: MailService,
  ) {
    this.organizations = new OrganizationService(db)
  }

  /** The seller block of the organization's documents (the kernel's SellerLookup). */
  documentSeller(organizationId: string, q?: Queryable) {
    return this.organizations.documentSeller(organizationId, q)
  }

  /**
   * The JWT key: JWT_SECRET (never written to the database), or one generated
   * at first start and kept in the database sealed with SECRET_KEY (docs/secrets.md).
   */
  async init(secrets: SecretBox) {
    const context = 'settings.jwt_secret'
    // A row of an earlier version (plaintext) or of the previous key is sealed with the current key.
    await sealColumns(this.db, secrets, { table: 'settings', id: 'key', columns: [{ name: 'value', context: () => context }], where: "key = 'jwt_secret'" })
    const secret = this.config.jwtSecret ?? secrets.unseal(await repo.initSetting(this.db, 'jwt_secret', secrets.seal(randomBytes(48).toString('base64url'), context)), context)
    this.jwtKey = new TextEncoder().encode(secret)
    await this.db.listen(
      CREDENTIALS_CHANNEL,
      (message) => this.forget(message),
      () => {
        this.keys.clear()
        this.sessions.clear()
      },
    )
  }

  private forget(message: string) {
    this.keys.evict(message)
    this.sessions.evict(message)
  }

  /**
   * Runs a change that revokes credentials: `message` (key:<hash>,
   * session:<id> or user:<id>) is announced to every process when it commits,
   * and this process forgets them at once.
   */
  private async revoking<T>(fn: (q: Queryable) => Promise<{ result: T; message?: string }>): Promise<T> {
    const { result, message } = await this.db.tx(async (q) => {
      const out = await fn(q)
      if (out.message) await CredentialCache.announce(q, out.message)
      return out
    })
    if (message) this.forget(message)
    return result
  }

  async register(input: { organizationName: string; name: string; email: string; password: string }) {
    if (!this.config.allowSignup) throw new ForbiddenError('Sign-up is turned off on this service')
    const passwordHash = await hashPassword(input.password, this.scrypt)
    const { user, organization } = await this.db.tx(async (q) => {
      const organization = await repo.insertOrganization(q, randomUUID(), input.organizationName)
      const user = await this.insertUser(q, { organizationId: organization.id, name: input.name, email: input.email, passwordHash, role: 'admin' })
      for (const hook of this.onOrganizationCreated) await hook(q, organization.id)
      return { user, organization }
    })
    return { user, organization, ...(await this.issueTokens(user.id, organization.id, user.role)) }
  }

  async login(email: string, password: string): Promise<TokenPair> {
    // Counted before the password is checked, so parallel guesses cannot pass the limit (off with RATE_LIMIT=off).
    const attempt = this.config.rateLimits.enabled ? await repo.countLoginAttempt(this.db, email, LOGIN_WINDOW_SECONDS) : undefined
    if (attempt && attempt.attempts > LOGIN_MAX_FAILURES) {
      throw new TooManyRequestsError('Too many failed log-ins for this e-mail; try again later or reset the password', attempt.secondsLeft)
    }
    const found = await repo.findUserByEmail(this.db, email)
    const { ok, rehash } = await verifyPassword(password, found?.passwordHash ?? dummyHash(this.scrypt), this.scrypt)
    if (!found || !ok) throw new UnauthorizedError('Invalid e-mail or password')
    if (attempt) await repo.clearLoginFailures(this.db, email)
    // A hash made with weaker parameters is replaced now that the password is known (only if it did not change meanwhile).
    if (rehash) await repo.replacePasswordHash(this.db, found.user.organizationId, found.user.id, found.passwordHash, await hashPassword(password, this.scrypt))
    return this.issueTokens(found.user.id, found.user.organizationId, found.user.role)
  }

  /** Rotates a refresh token. Presenting a spent one revokes its whole family. */
  async refresh(refreshToken: string): Promise<TokenPair> {
    const hash = hashToken(refreshToken)
    const spent = await repo.spendRefreshToken(this.db, hash)
    if (!spent) {
      const known = await repo.findRefreshToken(this.db, hash)
      if (known?.used_at) await this.endSession(known.organization_id, known.family_id)
      throw new UnauthorizedError('Invalid or expired refresh token')
    }
    const user = await repo.roleOf(this.db, spent.organization_id, spent.user_id)
    if (!user) throw new UnauthorizedError('Invalid or expired refresh token')
    return this.issueTokens(spent.user_id, user.organization_id, user.role, spent.family_id)
  }

  /** Ends the session of the refresh token: its refresh tokens and its access tokens stop at once. */
  async logout(refreshToken: string) {
    const known = await repo.findRefreshToken(this.db, hashToken(refreshToken))
    if (known) await this.endSession(known.organization_id, known.family_id)
  }

  private endSession(organizationId: string, familyId: string) {
    return this.revoking(async (q) => {
      await repo.revokeFamily(q, organizationId, familyId)
      return { result: undefined, message: `session:${familyId}` }
    })
  }

  /** Ends every session of the user but `keep`, and with them their access tokens. */
  private async endSessionsOf(q: Queryable, organizationId: string, userId: string, keep?: string) {
    await repo.revokeUserSessions(q, organizationId, userId, keep)
    return `user:${userId}`
  }

  /** POST /auth/password: the caller's own password; every other session of the user ends, the caller's stays. */
  async changePassword(p: Principal, currentPassword: string, newPassword: string) {
    if (!p.userId) throw new ForbiddenError('Only users have a password')
    const userId = p.userId
    const current = await repo.passwordHashOf(this.db, p.organizationId, userId)
    const { ok } = await verifyPassword(currentPassword, current ?? dummyHash(this.scrypt), this.scrypt)
    if (!current || !ok) throw new UnauthorizedError('The current password is wrong')
    const hash = await hashPassword(newPassword, this.scrypt)
    await this.revoking(async (q) => {
      await repo.setPasswordHash(q, p.organizationId, userId, hash)
      return { result: undefined, message: await this.endSessionsOf(q, p.organizationId, userId, p.sessionId) }
    })
  }

  /**
   * POST /auth/password-reset: when a user has the e-mail, queues a mail with
   * a single-use link valid one hour (the token is kept only as its hash).
   * Says nothing either way: the caller always gets 202.
   */
  async requestPasswordReset(email: string, resetUrl: string) {
    const found = await repo.findUserByEmail(this.db, email)
    if (!found) return
    const token = randomBytes(32).toString('base64url')
    await this.db.tx(async (q) => {
      await repo.insertPasswordReset(q, { id: randomUUID(), organizationId: found.user.organizationId, userId: found.user.id, tokenHash: hashToken(token), ttlSeconds: RESET_TTL_SECONDS })
      await this.mail.enqueue(q, {
        organizationId: found.user.organizationId,
        to: found.user.email,
        subject: 'Reset your password',
        text: [
          `Hello ${found.user.name},`,
          '',
          'Someone asked to reset the password of your account. To choose a new password, open this link within one hour:',
          '',
          `${resetUrl}?token=${token}`,
          '',
          'The link works once. If you did not ask for it, ignore this e-mail: your password stays as it is.',
        ].join('\n'),
      })
    })
  }

  /** POST /auth/password-reset/confirm: sets the password and ends every session of the user. */
  async confirmPasswordReset(token: string, password: string) {
    const hash = await hashPassword(password, this.scrypt)
    await this.revoking(async (q) => {
      const spent = await repo.spendPasswordReset(q, hashToken(token))
      if (!spent) throw new AppError('INVALID_PARAMETER', 'This password reset link is used, expired or unknown')
      const { organizationId, userId } = spent
      await repo.setPasswordHash(q, organizationId, userId, hash)
      await repo.clearLoginFailures(q, (await repo.emailOf(q, organizationId, userId)) ?? '')
      return { result: undefined, message: await this.endSessionsOf(q, organizationId, userId) }
    })
  }

  async me(p: Principal) {
    const [user, organization] = await Promise.all([
      p.userId ? repo.findUser(this.db, p.organizationId, p.userId) : undefined,
      repo.findOrganization(this.db, p.organizationId),
    ])
    if (!user || !organization) throw new UnauthorizedError('The user of this credential no longer exists')
    return { user, organization }
  }

  private async issueTokens(userId: string, organizationId: string, role: Role, familyId: string = randomUUID()): Promise<TokenPair> {
    const accessToken = await new SignJWT({ org: organizationId, role, sid: familyId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(`${this.config.accessTokenTtl}s`)
      .sign(this.jwtKey)
    const refreshToken = `rt_${randomBytes(32).toString('base64url')}`
    await repo.insertRefreshToken(this.db, { id: randomUUID(), organizationId, userId, familyId, tokenHash: hashToken(refreshToken), ttlSeconds: this.config.refreshTokenTtl })
    return { accessToken, refreshToken, expiresIn: this.config.accessTokenTtl }
  }

  /** Bearer value to principal: API keys by their hash, access tokens by signature. */
  resolveBearer = async (token: string): Promise<Principal | null> => {
    if (token.startsWith('bp_live_') || token.startsWith('bp_test_')) {
      const hash = hashToken(token)
      let key = this.keys.get(hash)
      if (!key) {
        const generation = this.keys.snapshot()
        const found = await repo.findApiKeyByHash(this.db, hash)
        if (!found) throw new UnauthorizedError('Invalid or revoked API key')
        key = { id: found.id, organizationId: found.organizationId, userId: found.userId, role: found.role, environment: found.environment }
        this.keys.set(hash, key, generation)
      }
      if (key.environment !== this.config.apiEnv) {
        throw new ForbiddenError(`A ${key.environment} key cannot be used on the ${this.config.apiEnv} environment`)
      }
      return { kind: 'apiKey', id: `key:${key.id}`, organizationId: key.organizationId, userId: key.userId, role: key.role }
    }
    if (token.split('.').length !== 3) return null
    const { sub, sid, org, role } = await this.verifiedClaims(token)
    if (typeof sid !== 'string' || typeof sub !== 'string') throw new UnauthorizedError('Invalid access token')
    // The token's claims are checked against its user and session as they are now (docs/platform.md "Sessions").
    const session = typeof org === 'string' ? await this.session(org, sid) : undefined
    if (!session || session.userId !== sub || session.organizationId !== org || session.role !== role) {
      throw new UnauthorizedError('This session has ended (signed out, or the user was changed or removed); sign in again')
    }
    return { kind: 'user', id: `user:${sub}`, organizationId: session.organizationId, userId: sub, role: session.role, sessionId: sid }
  }

  /**
   * The claims of an access token whose signature checked out. The same token
   * string is verified once per process (it is sent on every request of its
   * 15 minutes): a verified token is remembered until it expires, so later
   * requests only compare strings. What the claims may do is decided after,
   * against the session and user as they are now.
   */
  private async verifiedClaims(token: string): Promise<JWTPayload> {
    const known = this.verified.get(token)
    if (known && (known.exp ?? 0) * 1000 > Date.now()) return known
    if (known) this.verified.delete(token)
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, this.jwtKey, { algorithms: ['HS256'] }))
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new UnauthorizedError('Access token expired')
      throw new UnauthorizedError('Invalid access token')
    }
    if (this.verified.size >= 10_000) this.verified.delete(this.verified.keys().next().value!)
    this.verified.set(token, payload)
    return payload
  }

  /** The live session, from the cache or the database (undefined once it has ended). */
  private async session(organizationId: string, id: string): Promise<CachedSession | undefined> {
    const cached = this.sessions.get(id)
    if (cached) return cached
    // A malformed id is no session (the columns are uuids).
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
    if (!uuid.test(id) || !uuid.test(organizationId)) return undefined
    const generation = this.sessions.snapshot()
    // The session is read in the organization the token names (signed); a token naming another one finds none.
    const found = await repo.findSession(this.db, organizationId, id)
    if (found) this.sessions.set(id, found, generation)
    return found
  }

  // Users

  private async insertUser(q: Parameters<typeof repo.insertUser>[0], u: Omit<Parameters<typeof repo.insertUser>[1], 'id'>) {
    try {
      return await repo.insertUser(q, { id: randomUUID(), ...u })
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_key')) throw new AlreadyExistsError('A user with this email already exists')
      throw err
    }
  }

  async createUser(p: Principal, input: { name: string; email: string; password: string; role: Role }) {
    return this.insertUser(this.db, { organizationId: p.organizationId, name: input.name, email: input.email, passwordHash: await hashPassword(input.password, this.scrypt), role: input.role })
  }

  listUsers(p: Principal, page: PageParams & { role?: Role }) {
    return repo.listUsers(this.db, p.organizationId, page)
  }

  /** E-mail addresses of the organization's admins (notices to them, e.g. a webhook endpoint disabled). */
  adminEmails(organizationId: string, q: Queryable = this.db) {
    return repo.adminEmails(q, organizationId)
  }

  /** The user of the organization, or undefined (other modules check links with it). */
  findUser(organizationId: string, id: string) {
    return repo.findUser(this.db, organizationId, id)
  }

  async getUser(p: Principal, id: string) {
    const user = await this.findUser(p.organizationId, id)
    if (!user) throw new NotFoundError('User')
    return user
  }

  async updateUser(p: Principal, id: string, patch: { name?: string; email?: string; password?: string; role?: Role }) {
    if (id === p.userId && patch.role && patch.role !== 'admin') throw new AppError('ACTION_NOT_ALLOWED', 'You cannot change your own role')
    const passwordHash = patch.password ? await hashPassword(patch.password, this.scrypt) : undefined
    try {
      return await this.revoking(async (q) => {
        const updated = await repo.updateUser(q, p.organizationId, id, { ...patch, passwordHash })
        if (!updated) throw new NotFoundError('User')
        const { user, previousRole } = updated
        const roleChanged = user.role !== previousRole
        // A role change or a password set by an admin ends every session of the user (its access tokens stop at once).
        if (!roleChanged && !passwordHash) return { result: user }
        // A key never outranks its user: a user who is no longer admin keeps only keys of its new role.
        if (roleChanged && user.role !== 'admin') await repo.revokeKeysOutsideRole(q, p.organizationId, user.id, user.role)
        return { result: user, message: await this.endSessionsOf(q, p.organizationId, user.id) }
      })
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_key')) throw new AlreadyExistsError('A user with this email already exists')
      throw err
    }
  }

  async deleteUser(p: Principal, id: string) {
    if (id === p.userId) throw new AppError('ACTION_NOT_ALLOWED', 'You cannot delete yourself')
    // Its keys go with it (ON DELETE CASCADE).
    await this.revoking(async (q) => {
      if (!(await repo.deleteUser(q, p.organizationId, id))) throw new NotFoundError('User')
      return { result: undefined, message: `user:${id}` }
    })
  }

  // API keys: an admin manages every key of the organization; anyone else the
  // keys of their own user and role (a member-role key made by an admin does
  // not see the admin's keys).
  private keyOwner(p: Principal) {
    return p.role === 'admin' || !p.userId ? undefined : { userId: p.userId, role: p.role }
  }

  async createApiKey(p: Principal, input: { name: string; environment: 'live' | 'test'; role?: Role }) {
    if (!p.userId) throw new ForbiddenError('Only users may create API keys')
    const role = input.role ?? p.role
    if (ROLE_RANK[role] > ROLE_RANK[p.role] || (role !== p.role && p.role !== 'admin')) {
      throw new ForbiddenError(`A ${p.role} cannot create a key with role ${role}`)
    }
    const key = `bp_${input.environment}_${randomBytes(24).toString('base64url')}`
    const record = await repo.insertApiKey(this.db, {
      id: randomUUID(),
      organizationId: p.organizationId,
      userId: p.userId,
      name: input.name,
      environment: input.environment,
      role,
      prefix: key.slice(0, 12),
      last4: key.slice(-4),
      keyHash: hashToken(key),
    })
    // The credential may carry a role its user has lost since (an access token lives 15 minutes).
    if (!record) throw new ForbiddenError(`Your user may no longer create a key with role ${role}`)
    return { ...record, key }
  }

  listApiKeys(p: Principal, page: PageParams & { environment?: string }) {
    return repo.listApiKeys(this.db, p.organizationId, this.keyOwner(p), page)
  }

  async revokeApiKey(p: Principal, id: string) {
    await this.revoking(async (q) => {
      const hash = await repo.revokeApiKey(q, p.organizationId, id, this.keyOwner(p))
      if (!hash) throw new NotFoundError('API key')
      return { result: undefined, message: `key:${hash}` }
    })
  }
}
