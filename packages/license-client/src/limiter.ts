import type { LicenseState } from './types.ts'

export const ACTIVATION_FAILURE_LIMIT = 10
export const ACTIVATION_WINDOW_MS = 60 * 60_000

/**
 * The client-side activation limiter (docs/license-client.md "Activation limiter"): after 10 failed
 * activation attempts within one hour, further attempts wait until the oldest
 * of those failures is an hour old (so never longer than 60 minutes).
 * The failures live in the stored state, so restarting the host or the CLI
 * does not reset the window.
 */
export const activationLimiter = {
  /** ms to wait before another attempt is allowed; 0 when one is allowed now. */
  waitMs(state: LicenseState, now: number): number {
    const recent = recentFailures(state, now)
    if (recent.length < ACTIVATION_FAILURE_LIMIT) return 0
    return recent[recent.length - ACTIVATION_FAILURE_LIMIT]! + ACTIVATION_WINDOW_MS - now
  },
  recordFailure(state: LicenseState, now: number): void {
    state.activationFailures = [...recentFailures(state, now), now]
  },
  reset(state: LicenseState): void {
    delete state.activationFailures
  },
}

function recentFailures(state: LicenseState, now: number): number[] {
  return (state.activationFailures ?? []).filter((t) => t > now - ACTIVATION_WINDOW_MS && t <= now).sort((a, b) => a - b)
}

export function throttledMessage(waitMs: number): string {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000))
  return `Too many failed activation attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`
}
