import type { LicenseCode } from './types.ts'

/**
 * Every refusal of activate, deactivate, deactivateSelf and issueToken. `code`
 * is the service's machine code or one of the client codes; `status` the HTTP
 * status when the service answered.
 */
export class LicenseError extends Error {
  override readonly name = 'LicenseError'
  constructor(
    readonly code: LicenseCode,
    message: string,
    readonly status?: number,
    /** For ACTIVATION_THROTTLED: how long to wait before the next attempt (ms). */
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }

  /** True when the failure is the network's or the service's, not a decision about the license. */
  get transient(): boolean {
    return this.code === 'SERVICE_UNAVAILABLE'
  }
}

export const DOMAIN_UNDETERMINED_MESSAGE = 'Could not determine the instance domain'
