import { randomBytes } from 'node:crypto'
import Stripe from 'stripe'
import type { Config } from '../../config.ts'
import type { Db } from '../../core/db.ts'
import { AppError } from '../../core/errors.ts'
import { sealColumns, type SecretBox } from '../../core/secrets.ts'

/** Signatures older than this are refused (replay protection), as Stripe's libraries do; so are those dated further ahead. */
export const SIGNATURE_TOLERANCE_SECONDS = 300
const SETTING = 'billing_webhook_secret'
/** The context the generated secret is sealed with in settings (docs/secrets.md). */
const CONTEXT = `settings.${SETTING}`

/** An event as the receiver reads it: Stripe's envelope, the object as the processor sent it. */
export interface ProcessorEvent {
  id: string
  type: string
  created: number
  data: { object: Record<string, any> }
}

/** The `t` of a Stripe-Signature header as Stripe's code reads it (the last one), NaN when absent. */
function signedAt(header: string) {
  let t = Number.NaN
  for (const item of header.split(',')) {
    const [key, value] = item.split('=')
    if (key === 't') t = Number.parseInt(value, 10)
  }
  return t
}

/**
 * Verifies `Stripe-Signature: t=...,v1=...` (HMAC-SHA256 of `${t}.${body}`)
 * over the raw body with Stripe's own code, for both adapters. Any failure
 * (no header, wrong secret, altered body, older than 300 s, or dated over
 * 300 s ahead, which Stripe's code lets through) is 401 and nothing else.
 */
export function verifyEvent(raw: Buffer | undefined, header: string | string[] | undefined, secret: string): ProcessorEvent {
  if (!raw || typeof header !== 'string' || !header) throw new AppError('INVALID_SIGNATURE', 'Invalid signature')
  let event: ProcessorEvent
  try {
    event = Stripe.webhooks.constructEvent(raw, header, secret, SIGNATURE_TOLERANCE_SECONDS) as unknown as ProcessorEvent
  } catch {
    throw new AppError('INVALID_SIGNATURE', 'Invalid signature')
  }
  // A signature from the future would outlive the tolerance: with a clock or secret gone wrong, a replay window of any length.
  if (!(signedAt(header) <= Math.floor(Date.now() / 1000) + SIGNATURE_TOLERANCE_SECONDS)) throw new AppError('INVALID_SIGNATURE', 'Invalid signature')
  if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.data?.object !== 'object' || event.data.object === null) {
    throw new AppError('INVALID_SIGNATURE', 'Invalid signature')
  }
  return event
}

/** The Stripe-Signature header for a payload, as Stripe computes it (the local processor signs with it). */
export function signEvent(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp })
}

/**
 * STRIPE_WEBHOOK_SECRET, or for the local processor one generated at first
 * start and kept in the database, sealed with SECRET_KEY (a row of an earlier
 * version, in plaintext, or of the previous key is sealed again first).
 */
export async function webhookSecret(db: Db, config: Config, secrets: SecretBox): Promise<string> {
  await sealColumns(db, secrets, { table: 'settings', id: 'key', columns: [{ name: 'value', context: () => CONTEXT }], where: `key = '${SETTING}'` })
  if (config.stripeWebhookSecret) return config.stripeWebhookSecret
  await db.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [SETTING, secrets.seal(`whsec_${randomBytes(32).toString('base64url')}`, CONTEXT)])
  const { rows } = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [SETTING])
  return secrets.unseal(rows[0].value, CONTEXT)
}
