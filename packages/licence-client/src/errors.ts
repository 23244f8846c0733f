import type { LicenceCode } from './types.ts'

/**
 * Every refusal of activate, deactivate, deactivateSelf and issueToken. `code`
 * is the service's machine code or one of the client codes; `status` the HTTP
 * status when the service answered.
 */
export class LicenceError extends Error {
  override readonly name = 'LicenceError'
  constructor(
    readonly code: LicenceCode,
    message: string,
    readonly status?: number,
    /** For ACTIVATION_THROTTLED: how long to wait before the next attempt (ms). */
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }

  /** True when the failure is the network's or the service's, not a decision about the licence. */
  get transient(): boolean {
    return this.code === 'SERVICE_UNAVAILABLE'
  }
}

export const DOMAIN_UNDETERMINED_MESSAGE = 'Could not determine the instance domain'
