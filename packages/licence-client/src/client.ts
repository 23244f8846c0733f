import { isHardRejection, isServiceCode, isSuccess, messageOf, refusal, trustedBody } from './answers.ts'
import { DOMAIN_UNDETERMINED_MESSAGE, LicenceError } from './errors.ts'
import { TransientFailure, Transport, type ServiceAnswer } from './http.ts'
import { activationLimiter, throttledMessage } from './limiter.ts'
import { clientRequest, domainOf } from './request.ts'
import { FileStorage, defaultStatePath } from './storage.ts'
import { claimsProblem, decodeToken, findKey, verifyTokenSignature } from './token.ts'
import type {
  ActivationResult, ClientRequest, DeactivationResult, Jwks, LicenceClientOptions, LicenceCode, LicenceState, LicenceStorage,
  LicenceSummary, OfflineToken, VerificationResult, VerificationSource,
} from './types.ts'

/** The service's base address (CONTRACT.md "Running it"); override with the `baseUrl` option. */
export const DEFAULT_BASE_URL = 'http://localhost:3000/api'
export const CACHE_TTL_MS = 5 * 60_000
export const REVERIFY_INTERVAL_MS = 24 * 60 * 60_000

export interface ReverificationResult {
  /** True when the service confirmed the licence and a fresh offline token is stored. */
  refreshed: boolean
  result: VerificationResult
  offlineToken: OfflineToken | null
  /** Why the offline token could not be refreshed, when the licence was valid but the token failed. */
  tokenError?: string
  nextReverificationAt: number
}

/**
 * A connector module's client of the licence endpoints (SPEC 4.9 and 4.11).
 * One instance per installation; it is cheap to call validate() on every use,
 * answers are cached for five minutes.
 */
export class LicenceClient {
  readonly request: ClientRequest
  readonly baseUrl: string
  private readonly transport: Transport
  private readonly storage: LicenceStorage
  private readonly now: () => number
  private state?: Promise<LicenceState>
  private cached?: VerificationResult

  constructor(private readonly options: LicenceClientOptions) {
    this.request = clientRequest(options)
    this.baseUrl = options.baseUrl ?? DEFAULT_BASE_URL
    this.now = options.now ?? Date.now
    this.storage = options.storage ?? new FileStorage(defaultStatePath(options.moduleName, this.request.domain))
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      signingSecret: options.signingSecret,
      now: this.now,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: options.timeoutMs ?? 10_000,
      retries: options.retries ?? 3,
    })
  }

  get domain(): string {
    return this.request.domain
  }

  /**
   * Is the licence valid here? Never throws for a licence outcome: a refusal is
   * `valid: false` with its code. Answers from the last five minutes are reused
   * unless `fresh`; when the service cannot be reached the offline token decides.
   */
  async validate(opts: { fresh?: boolean } = {}): Promise<VerificationResult> {
    const now = this.now()
    if (!this.domain) return this.refused('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE, now)
    if (!opts.fresh && this.cached && now - this.cached.checkedAt < CACHE_TTL_MS) return { ...this.cached, source: 'cache' }
    let result: VerificationResult
    try {
      result = await this.validateOnline(await this.transport.post('/licenses/validate', this.request, this.request.key), now)
    } catch (err) {
      if (err instanceof TransientFailure) result = await this.grace(err, now)
      else if (err instanceof LicenceError) result = await this.refusedAnswer(err, now)
      else throw err
    }
    this.cached = result
    return result
  }

  /** Binds the licence to this instance's domain; re-activating a bound domain is a no-op on the service. */
  async activate(): Promise<ActivationResult> {
    if (!this.domain) throw new LicenceError('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE)
    const state = await this.loadState()
    const wait = activationLimiter.waitMs(state, this.now())
    if (wait > 0) throw new LicenceError('ACTIVATION_THROTTLED', throttledMessage(wait), undefined, wait)
    let body: any
    try {
      body = await this.call('/licenses/activate', this.request)
      if (body.activated !== true) throw new LicenceError('UNEXPECTED_RESPONSE', messageOf(body, 'The licence was not activated'))
    } catch (err) {
      // Only refusals count: an unreachable service says nothing about the key.
      if (err instanceof LicenceError && !err.transient) {
        activationLimiter.recordFailure(state, this.now())
        await this.saveState()
      }
      throw err
    }
    activationLimiter.reset(state)
    state.lastKnownGoodAt = this.now()
    delete state.hardRejection
    this.cached = undefined
    await this.saveState()
    // The offline token is what grace rests on, so fetch it now rather than at the first daily run.
    await this.issueToken().catch(() => undefined)
    return { activated: true, activationsCount: body.activationsCount, activationsLimit: body.activationsLimit }
  }

  /** Releases a domain of this licence (this instance's by default, or another one, e.g. a retired server's). */
  async deactivate(domain: string = this.options.publicUrl): Promise<DeactivationResult> {
    const target = domainOf(domain)
    if (!target) throw new LicenceError('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE)
    const body = await this.call('/licenses/deactivate', { ...this.request, domain: target })
    if (target === this.domain) await this.forgetActivation()
    return { deactivated: body.deactivated === true, activationsCount: body.activationsCount }
  }

  /** Releases this instance's own domain (uninstall, move to another server). */
  async deactivateSelf(): Promise<DeactivationResult> {
    if (!this.domain) throw new LicenceError('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE)
    const body = await this.call('/licenses/deactivate-self', this.request)
    await this.forgetActivation()
    return { deactivated: body.deactivated !== false, activationsCount: body.activationsCount }
  }

  /** Asks for a fresh offline token, checks it against the published keys and stores it. */
  async issueToken(): Promise<OfflineToken> {
    if (!this.domain) throw new LicenceError('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE)
    const body = await this.call('/licenses/issue-token', this.request)
    const token = body.token
    if (typeof token !== 'string') throw new LicenceError('UNEXPECTED_RESPONSE', 'The licence service answered without a token')
    const state = await this.loadState()
    const jwks = await this.keysFor(token, state)
    const claims = verifyTokenSignature(token, jwks)
    if (!claims) throw new LicenceError('UNEXPECTED_RESPONSE', 'The offline token does not carry a valid signature of the published keys')
    const problem = claimsProblem(claims, this.expectation())
    if (problem) throw new LicenceError('UNEXPECTED_RESPONSE', problem)
    state.offlineToken = token
    await this.saveState()
    return { token, claims }
  }

  /**
   * The once-a-day re-verification the host schedules: asks the service,
   * then refreshes the offline token and the last-known-good timestamp.
   */
  async reverify(): Promise<ReverificationResult> {
    const result = await this.validate({ fresh: true })
    let offlineToken: OfflineToken | null = null
    let tokenError: string | undefined
    if (result.source === 'service' && result.valid) {
      try {
        offlineToken = await this.issueToken()
        ;(await this.loadState()).lastReverifiedAt = this.now()
        await this.saveState()
      } catch (err) {
        tokenError = (err as Error).message
      }
    }
    return { refreshed: offlineToken !== null, result, offlineToken, tokenError, nextReverificationAt: await this.nextReverificationAt() }
  }

  /** When the daily re-verification is next due (ms); now when it never succeeded. */
  async nextReverificationAt(): Promise<number> {
    const last = (await this.loadState()).lastReverifiedAt
    return last === undefined ? this.now() : last + REVERIFY_INTERVAL_MS
  }

  async isReverificationDue(): Promise<boolean> {
    return (await this.nextReverificationAt()) <= this.now()
  }

  /** ms before the activation limiter allows another attempt; 0 when it does. */
  async activationWaitMs(): Promise<number> {
    return activationLimiter.waitMs(await this.loadState(), this.now())
  }

  /** The stored state as it stands, without asking the service (the CLI's `status`). */
  async localStatus() {
    const state = await this.loadState()
    const claims = state.offlineToken ? verifyTokenSignature(state.offlineToken, state.jwks) : null
    return {
      request: this.request,
      baseUrl: this.baseUrl,
      offlineToken: state.offlineToken
        ? { claims: claims ?? decodeToken(state.offlineToken)?.claims ?? null, signatureValid: claims !== null, problem: claims ? claimsProblem(claims, this.expectation()) : 'signature not verified' }
        : null,
      lastKnownGoodAt: state.lastKnownGoodAt ?? null,
      lastReverifiedAt: state.lastReverifiedAt ?? null,
      nextReverificationAt: await this.nextReverificationAt(),
      hardRejection: state.hardRejection ?? null,
      activationWaitMs: activationLimiter.waitMs(state, this.now()),
    }
  }

  /** POSTs a licence request; the trusted body of a success, a LicenceError otherwise. */
  private async call(path: string, body: ClientRequest): Promise<any> {
    let answer: ServiceAnswer
    try {
      answer = await this.transport.post(path, body, this.request.key)
    } catch (err) {
      if (err instanceof TransientFailure) throw new LicenceError('SERVICE_UNAVAILABLE', err.message, err.status)
      throw err
    }
    if (!isSuccess(answer)) {
      const error = refusal(answer)
      if (isHardRejection(error.code)) await this.rememberHardRejection(error.code, error.message)
      throw error
    }
    return trustedBody(answer)
  }

  private async validateOnline(answer: ServiceAnswer, now: number): Promise<VerificationResult> {
    if (!isSuccess(answer)) throw refusal(answer)
    const body = answer.body ?? {}
    if (body.valid === true) {
      trustedBody(answer)
      const state = await this.loadState()
      state.lastKnownGoodAt = now
      state.lastLicense = body.license ?? undefined
      delete state.hardRejection
      await this.saveState()
      return { valid: true, code: 'VALID', message: messageOf(body, 'Valid'), license: body.license ?? null, source: 'service', checkedAt: now, lastKnownGoodAt: now }
    }
    const code = isServiceCode(body.code) ? body.code : 'UNEXPECTED_RESPONSE'
    if (isHardRejection(code)) await this.rememberHardRejection(code, messageOf(body, code))
    return { ...(await this.refused(code, messageOf(body, code), now, 'service')), license: body.license ?? null }
  }

  private async refusedAnswer(err: LicenceError, now: number): Promise<VerificationResult> {
    if (isHardRejection(err.code)) await this.rememberHardRejection(err.code, err.message)
    return this.refused(err.code, err.message, now, 'service')
  }

  /** Grace (SPEC 4.11): the service is unreachable, so the stored offline token decides. */
  private async grace(failure: TransientFailure, now: number): Promise<VerificationResult> {
    const state = await this.loadState()
    if (state.hardRejection) {
      const { code, message } = state.hardRejection
      return this.refused(code, `${message} (no grace after this rejection; ${failure.message})`, now)
    }
    const unavailable = (why: string) => this.refused('SERVICE_UNAVAILABLE', `${failure.message}; no grace: ${why}`, now)
    if (!state.offlineToken) return unavailable('no offline token is stored')
    const claims = verifyTokenSignature(state.offlineToken, state.jwks)
    if (!claims) return unavailable('the offline token does not carry a valid signature of the published keys')
    const problem = claimsProblem(claims, this.expectation(now))
    if (problem) return unavailable(problem)
    const license: LicenceSummary = state.lastLicense ?? { key: claims.key, status: claims.status, expiresAt: null }
    return {
      valid: true, code: 'VALID', message: `Valid by the offline token (${failure.message})`, license, source: 'grace',
      checkedAt: now, lastKnownGoodAt: state.lastKnownGoodAt ?? null, graceUntil: claims.exp * 1000,
    }
  }

  private async refused(code: LicenceCode, message: string, now: number, source: VerificationSource = 'client'): Promise<VerificationResult> {
    const lastKnownGoodAt = (await this.loadState()).lastKnownGoodAt ?? null
    return { valid: false, code, message, license: null, source, checkedAt: now, lastKnownGoodAt }
  }

  private async rememberHardRejection(code: LicenceCode, message: string) {
    if (!isServiceCode(code)) return
    const state = await this.loadState()
    state.hardRejection = { code, message, at: this.now() }
    // The token must not outlive a rejection: grace is not granted after one.
    delete state.offlineToken
    await this.saveState()
  }

  private async forgetActivation() {
    const state = await this.loadState()
    delete state.offlineToken
    delete state.lastReverifiedAt
    this.cached = undefined
    await this.saveState()
  }

  /** The stored keys when they know the token's kid, otherwise freshly fetched ones (keys rotate). */
  private async keysFor(token: string, state: LicenceState): Promise<Jwks | undefined> {
    if (findKey(state.jwks, decodeToken(token)?.header.kid)) return state.jwks
    const answer = await this.transport.get('/.well-known/jwks.json').catch((err) => {
      throw new LicenceError('SERVICE_UNAVAILABLE', (err as Error).message)
    })
    if (answer.status !== 200 || !Array.isArray(answer.body?.keys)) {
      throw new LicenceError('UNEXPECTED_RESPONSE', `The published keys could not be read (${answer.status})`, answer.status)
    }
    state.jwks = { keys: answer.body.keys }
    return state.jwks
  }

  private expectation(now = this.now()) {
    const r = this.request
    return { key: r.key, module: r.module_name, domain: r.domain, erpVersion: r.erp_version, fingerprint: r.hw_fingerprint, now }
  }

  /** Loaded once per instance; every change is written through. */
  private loadState(): Promise<LicenceState> {
    this.state ??= this.storage.load()
    return this.state
  }

  private async saveState() {
    await this.storage.save(await this.loadState())
  }
}
