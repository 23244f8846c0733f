import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Password hashes: scrypt with OWASP's parameters (N=2^17, r=8, p=1, 128 MiB),
 * stored with their parameters: `scrypt$ln=17,r=8,p=1$<salt>$<hash>`. The
 * first format (`scrypt$<salt>$<hash>`) had Node's defaults (N=2^14, r=8, p=1);
 * a hash whose parameters are below the configured ones is replaced at the
 * next good login.
 */

export interface ScryptParams {
  /** log2 of N, the cost. */
  ln: number
  r: number
  p: number
}

const LEGACY: ScryptParams = { ln: 14, r: 8, p: 1 }
const KEY_LENGTH = 32

const derive = (password: string, salt: Buffer, params: ScryptParams) =>
  new Promise<Buffer>((resolve, reject) => {
    const N = 2 ** params.ln
    const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 }
    scrypt(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)))
  })

export async function hashPassword(password: string, params: ScryptParams): Promise<string> {
  const salt = randomBytes(16)
  const hash = await derive(password, salt, params)
  return `scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64')}$${hash.toString('base64')}`
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | undefined {
  const parts = stored.split('$')
  if (parts[0] !== 'scrypt') return undefined
  if (parts.length === 3) return { params: LEGACY, salt: Buffer.from(parts[1], 'base64'), hash: Buffer.from(parts[2], 'base64') }
  const m = /^ln=(\d+),r=(\d+),p=(\d+)$/.exec(parts[1] ?? '')
  if (parts.length !== 4 || !m) return undefined
  return { params: { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) }, salt: Buffer.from(parts[2], 'base64'), hash: Buffer.from(parts[3], 'base64') }
}

/** Whether the password matches, and whether its hash should be replaced by one with `current` parameters. */
export async function verifyPassword(password: string, stored: string, current: ScryptParams): Promise<{ ok: boolean; rehash: boolean }> {
  const parsed = parse(stored)
  if (!parsed) return { ok: false, rehash: false }
  const actual = await derive(password, parsed.salt, parsed.params)
  const ok = actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash)
  const weaker = parsed.params.ln < current.ln || parsed.params.r < current.r || parsed.params.p < current.p
  return { ok, rehash: ok && weaker }
}

/** Compared against when the e-mail is unknown, so both answers take as long. */
export const dummyHash = (params: ScryptParams) => `scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`
