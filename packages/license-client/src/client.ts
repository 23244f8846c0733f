import { isHardRejection, isServiceCode, isSuccess, messageOf, refusal, trustedBody } from './answers.ts'
import { DOMAIN_UNDETERMINED_MESSAGE, LicenseError } from './errors.ts'
import { TransientFailure, Transport, type ServiceAnswer } from './http.ts'
import { activationLimiter, throttledMessage } from './limiter.ts'
import { clientRequest, domainOf } from './request.ts'
import { FileStorage, defaultStatePath } from './storage.ts'
import { graceResult, refusedResult } from './grace.ts'
import { claimsProblem, decodeToken, findKey, verifyTokenSignature, type Expectation } from './token.ts'
import type {
  ActivationResult, ClientRequest, DeactivationResult, Jwks, LicenseClientOptions, LicenseCode, LicenseState, LicenseStorage,
  OfflineToken, VerificationResult,
} from './types.ts'

/** The service's base address (docs/license-client.md "Default base address"); override with the `baseUrl` option. */
export const DEFAULT_BASE_URL = 'http://localhost:3000/api'
export const CACHE_TTL_MS = 5 * 60_000
export const REVERIFY_INTERVAL_MS = 24 * 60 * 60_000

export interface ReverificationResult {
  /** True when the service confirmed the license and a fresh offline token is stored. */
  refreshed: boolean
  result: VerificationResult
  offlineToken: OfflineToken | null
  /** Why the offline token could not be refreshed, when the license was valid but the token failed. */
  tokenError?: string
  nextReverificationAt: number
}

/**
 * A connector module's client of the license endpoints (docs/license-client.md "What a connector module does").
 * One instance per installation; it is cheap to call validate() on every use,
 * answers are cached for five minutes.
 */
export class LicenseClient {
  readonly request: ClientRequest
  readonly baseUrl: string
  private readonly transport: Transport
  private readonly storage: LicenseStorage
  private readonly now: () => number
  private cached?: VerificationResult
  /** Changes of the stored state, one at a time (read, change, write). */
  private updates: Promise<unknown> = Promise.resolve()

  constructor(private readonly options: LicenseClientOptions) {
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
   * Is the license valid here? Never throws for a license outcome: a refusal is
   * `valid: false` with its code. Answers from the last five minutes are reused
   * unless `fresh`; when the service cannot be reached the offline token decides.
   */
  async validate(opts: { fresh?: boolean } = {}): Promise<VerificationResult> {
    const now = this.now()
    if (!this.domain) return refusedResult('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE, now, await this.storage.load())
    if (!opts.fresh && this.cached && now - this.cached.checkedAt < CACHE_TTL_MS) return { ...this.cached, source: 'cache' }
    let result: VerificationResult
    try {
      result = await this.validateOnline(await this.transport.post('/licenses/validate', this.request, this.request.key), now)
    } catch (err) {
      if (err instanceof TransientFailure) result = graceResult(await this.storage.load(), err, this.expectation(now))
      else if (err instanceof LicenseError) result = await this.refused(err, now)
      else throw err
    }
    this.cached = result
    return result
  }

  /** Binds the license to this instance's domain; re-activating a bound domain is a no-op on the service. */
  async activate(): Promise<ActivationResult> {
    if (!this.domain) throw new LicenseError('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE)
    const wait = await this.activationWaitMs()
    if (wait > 0) throw new LicenseError('ACTIVATION_THROTTLED', throttledMessage(wait), undefined, wait)
    let body: any
    try {
      body = await this.call('/licenses/activate', this.request)
      if (body.activated !== true) throw new LicenseError('UNEXPECTED_RESPONSE', messageOf(body, 'The license was not activated'))
    } catch (err) {
      // Only refusals count: an unreachable service says nothing about the key.
      if (err instanceof LicenseError && !err.transient) await this.update((state) => activationLimiter.recordFailure(state, this.now()))
      throw err
    }
    this.cached = undefined
    await this.update((state) => {
      activationLimiter.reset(state)
      state.lastKnownGoodAt = this.now()
      delete state.hardRejection
    })
    // The offline token is what grace rests on, so fetch it now rather than at the first daily run.
    await this.issueToken().catch(() => undefined)
    return { activated: true, activationsCount: body.activationsCount, activationsLimit: body.activationsLimit }
  }

  /** Releases a domain of this license (this instance's by default, or another one, e.g. a retired server's). */
  async deactivate(domain: string = this.options.publicUrl): Promise<DeactivationResult> {
    const target = domainOf(domain)
    if (!target) throw new LicenseError('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE)
    const body = await this.call('/licenses/deactivate', { ...this.request, domain: target })
    if (target === this.domain) await this.forgetActivation()
    return { deactivated: body.deactivated === true, activationsCount: body.activationsCount }
  }

  /** Releases this instance's own domain (uninstall, move to another server). */
  async deactivateSelf(): Promise<DeactivationResult> {
    if (!this.domain) throw new LicenseError('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE)
    const body = await this.call('/licenses/deactivate-self', this.request)
    await this.forgetActivation()
    return { deactivated: body.deactivated === true, activationsCount: body.activationsCount }
  }

  /** Asks for a fresh offline token, checks it against the published keys and stores it. */
  async issueToken(): Promise<OfflineToken> {
    if (!this.domain) throw new LicenseError('DOMAIN_UNDETERMINED', DOMAIN_UNDETERMINED_MESSAGE)
    const body = await this.call('/licenses/issue-token', this.request)
    const token = body.token
    if (typeof token !== 'string') throw new LicenseError('UNEXPECTED_RESPONSE', 'The license service answered without a token')
    const jwks = await this.keysFor(token)
    const claims = verifyTokenSignature(token, jwks)
    if (!claims) throw new LicenseError('UNEXPECTED_RESPONSE', 'The offline token does not carry a valid signature of the published keys')
    const problem = claimsProblem(claims, this.expectation())
    if (problem) throw new LicenseError('UNEXPECTED_RESPONSE', problem)
    await this.update((state) => {
      state.offlineToken = token
      state.jwks = jwks
    })
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
        await this.update((state) => (state.lastReverifiedAt = this.now()))
      } catch (err) {
        tokenError = (err as Error).message
      }
    }
    return { refreshed: offlineToken !== null, result, offlineToken, tokenError, nextReverificationAt: await this.nextReverificationAt() }
  }

  /** When the daily re-verification is next due (ms); now when it never succeeded. */
  async nextReverificationAt(): Promise<number> {
    const last = (await this.storage.load()).lastReverifiedAt
    return last === undefined ? this.now() : last + REVERIFY_INTERVAL_MS
  }

  async isReverificationDue(): Promise<boolean> {
    return (await this.nextReverificationAt()) <= this.now()
  }

  /** ms before the activation limiter allows another attempt; 0 when it does. */
  async activationWaitMs(): Promise<number> {
    return activationLimiter.waitMs(await this.storage.load(), this.now())
  }

  /** The stored state as it stands, without asking the service (the CLI's `status`). */
  async localStatus() {
    const state = await this.storage.load()
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

  /** POSTs a license request; the trusted body of a success, a LicenseError otherwise. */
  private async call(path: string, body: ClientRequest): Promise<any> {
    let answer: ServiceAnswer
    try {
      answer = await this.transport.post(path, body, this.request.key)
    } catch (err) {
      if (err instanceof TransientFailure) throw new LicenseError('SERVICE_UNAVAILABLE', err.message, err.status)
      throw err
    }
    if (!isSuccess(answer)) {
      const error = refusal(answer)
      // A refusal about another domain (deactivate of a retired server) says nothing about this one.
      if (isHardRejection(error.code) && body.domain === this.domain) await this.rememberHardRejection(error.code, error.message)
      throw error
    }
    return trustedBody(answer)
  }

  private async validateOnline(answer: ServiceAnswer, now: number): Promise<VerificationResult> {
    if (!isSuccess(answer)) throw refusal(answer)
    const body = answer.body ?? {}
    if (body.valid !== true) {
      const code = isServiceCode(body.code) ? body.code : 'UNEXPECTED_RESPONSE'
      return { ...(await this.refused(new LicenseError(code, messageOf(body, code), answer.status), now)), license: body.license ?? null }
    }
    trustedBody(answer)
    const state = await this.update((s) => {
      s.lastKnownGoodAt = now
      s.lastLicense = body.license ?? undefined
      delete s.hardRejection
    })
    return { valid: true, code: 'VALID', message: messageOf(body, 'Valid'), license: body.license ?? null, source: 'service', checkedAt: now, lastKnownGoodAt: state.lastKnownGoodAt! }
  }

  /** A refusal of validate as its result; a hard one is remembered. */
  private async refused(err: LicenseError, now: number): Promise<VerificationResult> {
    if (isHardRejection(err.code)) await this.rememberHardRejection(err.code, err.message)
    return refusedResult(err.code, err.message, now, await this.storage.load(), 'service')
  }

  private rememberHardRejection(code: LicenseCode, message: string) {
    return this.update((state) => {
      if (!isServiceCode(code)) return
      state.hardRejection = { code, message, at: this.now() }
      // The token must not outlive a rejection: grace is not granted after one.
      delete state.offlineToken
    })
  }

  private async forgetActivation() {
    this.cached = undefined
    await this.update((state) => {
      delete state.offlineToken
      delete state.lastReverifiedAt
    })
  }

  /** The stored keys when they know the token's kid, otherwise freshly fetched ones (keys rotate). */
  private async keysFor(token: string): Promise<Jwks> {
    const stored = (await this.storage.load()).jwks
    if (stored && findKey(stored, decodeToken(token)?.header.kid)) return stored
    const answer = await this.transport.get('/.well-known/jwks.json').catch((err) => {
      throw new LicenseError('SERVICE_UNAVAILABLE', (err as Error).message)
    })
    if (answer.status !== 200 || !Array.isArray(answer.body?.keys)) {
      throw new LicenseError('UNEXPECTED_RESPONSE', `The published keys could not be read (${answer.status})`, answer.status)
    }
    return { keys: answer.body.keys }
  }

  private expectation(now = this.now()): Expectation {
    const r = this.request
    return { key: r.key, module: r.module_name, domain: r.domain, erpVersion: r.erp_version, fingerprint: r.hw_fingerprint, now }
  }

  /**
   * Reads the stored state, changes it and writes it back. The state is read
   * afresh each time, so that a host process and the CLI may share one store.
   */
  private update(change: (state: LicenseState) => void): Promise<LicenseState> {
    const next = this.updates.then(async () => {
      const state = await this.storage.load()
      change(state)
      await this.storage.save(state)
      return state
    })
    this.updates = next.catch(() => undefined)
    return next
  }
}
