import { LicenseError } from './errors.ts'
import type { ServiceAnswer } from './http.ts'
import { HARD_REJECTIONS, type LicenseCode, type ServiceCode } from './types.ts'

const SERVICE_CODES = new Set<string>([...HARD_REJECTIONS, 'VALID', 'ACTIVATION_LIMIT_REACHED', 'INVALID_SIGNATURE'])

export const isServiceCode = (code: unknown): code is ServiceCode => typeof code === 'string' && SERVICE_CODES.has(code)
export const isHardRejection = (code: LicenseCode) => (HARD_REJECTIONS as readonly string[]).includes(code)

/** The error body's message (docs/errors.md "The error body"), which is a string or, for validation failures, a list. */
export function messageOf(body: any, fallback: string): string {
  const m = body?.message
  if (Array.isArray(m)) return m.join('; ')
  return typeof m === 'string' && m ? m : fallback
}

/**
 * A refusal by the service as a LicenseError. Refusals are taken as they come,
 * signed or not: the service cannot sign an answer about a key it does not
 * know, and a forged refusal harms only the one who forges it.
 */
export function refusal(answer: ServiceAnswer): LicenseError {
  const code = isServiceCode(answer.body?.code) ? answer.body.code : 'UNEXPECTED_RESPONSE'
  return new LicenseError(code, messageOf(answer.body, `The license service answered ${answer.status}`), answer.status)
}

/**
 * The body of a favourable answer, which must carry a valid signature of the
 * product secret: otherwise anyone between the client and the service could
 * grant a license.
 */
export function trustedBody(answer: ServiceAnswer): any {
  if (answer.signature !== 'valid') {
    const why = answer.signature === 'absent' ? 'is not signed' : 'carries a wrong signature'
    throw new LicenseError('INVALID_RESPONSE_SIGNATURE', `The license service's answer ${why}; check the signing secret and the base address`, answer.status)
  }
  if (typeof answer.body !== 'object' || answer.body === null) {
    throw new LicenseError('UNEXPECTED_RESPONSE', 'The license service answered with no JSON body', answer.status)
  }
  return answer.body
}

export const isSuccess = (answer: ServiceAnswer) => answer.status >= 200 && answer.status < 300
