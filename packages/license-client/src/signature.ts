import { createHmac, timingSafeEqual } from 'node:crypto'

export const SIGNATURE_HEADER = 'x-service-signature'

/** `sha256=<hex HMAC-SHA256 of the raw body>` keyed with the product's signing secret. */
export function signBody(rawBody: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`
}

/** Constant-time check of a signature header against the raw body. */
export function verifyBody(rawBody: string | Buffer, secret: string, header: string | null | undefined): boolean {
  if (!header) return false
  const expected = Buffer.from(signBody(rawBody, secret))
  const given = Buffer.from(header.trim())
  return given.length === expected.length && timingSafeEqual(given, expected)
}
