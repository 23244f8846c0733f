import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Config } from '../config.ts'
import type { Queryable } from './db.ts'

/**
 * Secrets at rest (docs/secrets.md). A secret the service keeps in its
 * database (the JWT key, the licence signing key, webhook and product signing
 * secrets, the local processor's webhook secret, ...) is stored sealed:
 * AES-256-GCM under a key that is not in the database (SECRET_KEY), with the
 * place it belongs to bound as additional data. Reading the database alone
 * gives no secret.
 *
 * A sealed value is `enc:v1:<key id>:<base64url of IV (12 bytes), ciphertext, tag (16 bytes)>`.
 * The key id (derived from the key with HKDF) says which key sealed it, so
 * that values sealed with SECRET_KEY_PREVIOUS are still read during a rotation.
 */

const VERSION = 'v1'
const PREFIX = `enc:${VERSION}:`
const ANY_VERSION = /^enc:v\d+:/
const IV_BYTES = 12
const TAG_BYTES = 16
/**
 * How a bearer token the service hands out once (refresh token, API key,
 * password reset, checkout or ticket confirmation link) is kept: only its
 * SHA-256, hex, so that the database holds nothing that works as the token.
 */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

/** The name of the generated key in the data folder (API_ENV=test without SECRET_KEY). */
export const KEY_FILE = 'secret.key'

/** The start cannot go on: the key is missing, or does not open what the database holds. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError'
}

interface Key {
  id: string
  aes: Buffer
}

/** The AES key and the key id of a key text (SECRET_KEY or the file's), by HKDF-SHA256. */
function deriveKey(text: string): Key {
  const ikm = Buffer.from(text, 'utf8')
  const salt = Buffer.from('business-platform secret box')
  const aes = Buffer.from(hkdfSync('sha256', ikm, salt, 'aes-256-gcm v1', 32))
  const id = Buffer.from(hkdfSync('sha256', ikm, salt, 'key id', 6)).toString('base64url')
  return { id, aes }
}

/** One generated key per process for DATA_DIR=memory:// (every app of a test process shares it). */
let processKey: string | undefined

/**
 * The key in DATA_DIR/secret.key, made at the first start (mode 0600). Written
 * to a temporary file and linked into place, so that processes starting
 * together agree on one key and none reads a half-written file.
 */
function fileKey(dataDir: string): { text: string; path: string } {
  const path = resolve(join(dataDir, KEY_FILE))
  try {
    return { text: readFileSync(path, 'utf8').trim(), path }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  mkdirSync(dataDir, { recursive: true })
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`
  writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' })
  try {
    linkSync(tmp, path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  } finally {
    unlinkSync(tmp)
  }
  return { text: readFileSync(path, 'utf8').trim(), path }
}

/** Internal to this file: where each box's key came from, for the messages of sealColumns. */
const origins = new WeakMap<SecretBox, { current: Key; origin: string }>()

export class SecretBox {
  private constructor(
    private readonly current: Key,
    private readonly previous: Key | undefined,
  ) {}

  /** Loads the key(s) from config (SECRET_KEY, SECRET_KEY_PREVIOUS) or the data folder. */
  static async open(config: Config): Promise<SecretBox> {
    let text: string
    let origin: string
    if (config.secretKey) {
      text = config.secretKey
      origin = 'SECRET_KEY'
    } else if (config.apiEnv === 'live') {
      // loadConfig refuses this already; a Config built by hand is refused here too.
      throw new SecretKeyError('SECRET_KEY is required when API_ENV=live (the key that seals the secrets kept in the database)')
    } else if (config.dataDir === 'memory://' || config.dataDir === '') {
      processKey ??= randomBytes(32).toString('base64url')
      text = processKey
      origin = 'the key generated for this process (DATA_DIR=memory://, no SECRET_KEY)'
    } else {
      const file = fileKey(config.dataDir)
      if (file.text.length < 32) throw new SecretKeyError(`${file.path} does not hold a key (32+ characters); restore it, or set SECRET_KEY`)
      text = file.text
      origin = `the key in ${file.path} (no SECRET_KEY)`
    }
    const current = deriveKey(text)
    const previous = config.secretKeyPrevious ? deriveKey(config.secretKeyPrevious) : undefined
    const box = new SecretBox(current, previous && previous.id !== current.id ? previous : undefined)
    origins.set(box, { current, origin })
    return box
  }

  /** AES-256-GCM; `context` is bound as additional data (e.g. 'settings.jwt_secret', 'webhook_endpoints.secret'), so a value cannot be moved to another column. Output is a text starting with a version prefix. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.current.aes, iv)
    cipher.setAAD(Buffer.from(context, 'utf8'))
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return `${PREFIX}${this.current.id}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`
  }

  /** Throws on a wrong key, context or tampering. Accepts values sealed with the previous key. */
  unseal(sealed: string, context: string): string {
    if (!sealed.startsWith(PREFIX)) {
      throw new SecretKeyError(ANY_VERSION.test(sealed) ? 'The value was sealed by a newer version of the service' : 'The value is not sealed')
    }
    const parts = sealed.slice(PREFIX.length).split(':')
    if (parts.length !== 2) throw new SecretKeyError('The sealed value is malformed')
    const [kid, data] = parts
    const key = [this.current, this.previous].find((k) => k?.id === kid)
    if (!key) throw new SecretKeyError(`The value was sealed with another key (key id ${kid}), neither SECRET_KEY nor SECRET_KEY_PREVIOUS`)
    const raw = Buffer.from(data, 'base64url')
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretKeyError('The sealed value is truncated')
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.aes, raw.subarray(0, IV_BYTES))
      decipher.setAAD(Buffer.from(context, 'utf8'))
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8')
    } catch {
      throw new SecretKeyError(`The sealed value does not open with key ${kid} for ${context} (altered, or moved from elsewhere)`)
    }
  }

  isSealed(value: string): boolean {
    return ANY_VERSION.test(value)
  }
}

export interface SealedColumns {
  table: string
  /** The table's primary key column. */
  id: string
  /** Each secret column of the table and the context its values are sealed with (given the row's id). */
  columns: ReadonlyArray<{ name: string; context: (id: string) => string }>
  /** Only the rows of this SQL condition (a constant of the caller's, never input), e.g. `key = 'jwt_secret'`. */
  where?: string
}

const BATCH = 500

/**
 * Brings a table's secret columns under the current key, at start: a value
 * in plaintext (written by an earlier version) is sealed, and a value sealed
 * with SECRET_KEY_PREVIOUS is sealed again with SECRET_KEY. Each row is
 * changed only if it still holds what was read (`WHERE column = old`), so
 * several processes starting together are safe, and a second run changes
 * nothing. A value that neither key opens stops the start (SecretKeyError,
 * naming SECRET_KEY): the data is never replaced by a new secret. Returns the
 * number of values changed.
 */
export async function sealColumns(q: Queryable, box: SecretBox, spec: SealedColumns): Promise<number> {
  const own = origins.get(box)!
  // Values already sealed with the current key are skipped by SQL (LIKE, its wildcards escaped).
  const current = `${PREFIX}${own.current.id}:`.replace(/[\\%_]/g, '\\$&')
  // A table of organizations' rows (Citus distributes it by organization_id): the sweep reads every
  // organization's, and each row found is then written in its own organization.
  const { rows: columns } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'organization_id'`,
    [spec.table],
  )
  const tenant = columns[0].n > 0
  let changed = 0
  // Passes until one finds nothing: a value moved by a concurrent write (a webhook
  // secret rotation copies secret to previous_secret) is caught by the next pass.
  for (let pass = 0; pass < 5; pass++) {
    let found = 0
    for (const column of spec.columns) {
      let after: string | undefined
      for (;;) {
        const conditions = [`${column.name} IS NOT NULL`, `${column.name} NOT LIKE $1`, ...(spec.where ? [`(${spec.where})`] : []), ...(after === undefined ? [] : [`${spec.id} > $2`])]
        const { rows } = await q.query<{ id: string; key: string; value: string; organization_id?: string | null }>(
          `SELECT /* across organizations: the boot-time sweep that seals secrets */ ${spec.id}::text AS id, ${spec.id} AS key, ${column.name} AS value${tenant ? ', organization_id' : ''} FROM ${spec.table} WHERE ${conditions.join(' AND ')} ORDER BY ${spec.id} LIMIT ${BATCH}`,
          after === undefined ? [`${current}%`] : [`${current}%`, after],
        )
        for (const row of rows) {
          found++
          const context = column.context(row.id)
          let plaintext: string
          if (box.isSealed(row.value)) {
            try {
              plaintext = box.unseal(row.value, context)
            } catch (err) {
              throw new SecretKeyError(
                `Cannot start: ${spec.table}.${column.name} (${spec.id} ${row.id}) does not open with ${own.origin}: ${(err as Error).message}. ` +
                  'Set SECRET_KEY to the key the database was sealed with (to rotate, the new key as SECRET_KEY and the old one as SECRET_KEY_PREVIOUS); see docs/secrets.md.',
              )
            }
          } else {
            plaintext = row.value
          }
          const sealed = box.seal(plaintext, context)
          const { rowCount } = row.organization_id
            ? await q.query(`UPDATE ${spec.table} SET ${column.name} = $1 WHERE organization_id = $4 AND ${spec.id} = $2 AND ${column.name} = $3`, [sealed, row.key, row.value, row.organization_id])
            : await q.query(`UPDATE ${spec.table} SET ${column.name} = $1 WHERE ${spec.id} = $2 AND ${column.name} = $3`, [sealed, row.key, row.value])
          changed += rowCount
        }
        if (rows.length < BATCH) break
        after = rows[rows.length - 1].key
      }
    }
    if (found === 0) break
  }
  return changed
}
