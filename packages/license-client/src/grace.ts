import type { TransientFailure } from './http.ts'
import { claimsProblem, verifyTokenSignature, type Expectation } from './token.ts'
import type { LicenseCode, LicenseState, LicenseSummary, VerificationResult } from './types.ts'

export function refusedResult(code: LicenseCode, message: string, now: number, state: LicenseState, source: VerificationResult['source'] = 'client'): VerificationResult {
  return { valid: false, code, message, license: null, source, checkedAt: now, lastKnownGoodAt: state.lastKnownGoodAt ?? null }
}

/**
 * Grace (docs/license-client.md "Grace"): the service could not answer, so the stored offline token
 * decides, unless the service's last word was a hard rejection.
 */
export function graceResult(state: LicenseState, failure: TransientFailure, expected: Expectation): VerificationResult {
  const now = expected.now
  if (state.hardRejection) {
    const { code, message } = state.hardRejection
    return refusedResult(code, `${message} (no grace after this rejection; ${failure.message})`, now, state)
  }
  const unavailable = (why: string) => refusedResult('SERVICE_UNAVAILABLE', `${failure.message}; no grace: ${why}`, now, state)
  if (!state.offlineToken) return unavailable('no offline token is stored')
  const claims = verifyTokenSignature(state.offlineToken, state.jwks)
  if (!claims) return unavailable('the offline token does not carry a valid signature of the published keys')
  const problem = claimsProblem(claims, expected)
  if (problem) return unavailable(problem)
  const license: LicenseSummary = state.lastLicense ?? { key: claims.key, status: claims.status, expiresAt: null }
  return {
    valid: true, code: 'VALID', message: `Valid by the offline token (${failure.message})`, license, source: 'grace',
    checkedAt: now, lastKnownGoodAt: state.lastKnownGoodAt ?? null, graceUntil: claims.exp * 1000,
  }
}
