import type { Role } from '../../core/auth.ts'
import type { Queryable } from '../../core/db.ts'

/** NOTIFY channel on which credential changes reach every process of the service. */
export const CREDENTIALS_CHANNEL = 'bp_credentials'

export interface CachedKey {
  id: string
  organizationId: string
  userId: string
  role: Role
  environment: 'live' | 'test'
}

/** A live session (refresh-token family) and its user as they are now. */
export interface CachedSession {
  userId: string
  organizationId: string
  role: Role
}

/**
 * Credentials already resolved (API keys by hash, sessions by id), so that an
 * authenticated request needs no query for its credential. Revocation stays
 * immediate: the revoking transaction announces it with NOTIFY, every process
 * evicts on the message, and the revoking process evicts at once without
 * waiting for it. A lookup that raced with an eviction is not stored
 * (generation check), and entries expire anyway after ttlMs as a last safety
 * net.
 */
export class CredentialCache<T extends { userId: string }> {
  private readonly entries = new Map<string, { value: T; expires: number }>()
  private generation = 0

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  get(id: string): T | undefined {
    const entry = this.entries.get(id)
    if (!entry) return undefined
    if (entry.expires <= Date.now()) {
      this.entries.delete(id)
      return undefined
    }
    return entry.value
  }

  /** The generation to pass to set() for a lookup that starts now. */
  snapshot() {
    return this.generation
  }

  set(id: string, value: T, generation: number) {
    if (generation !== this.generation) return
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(id, { value, expires: Date.now() + this.ttlMs })
  }

  /**
   * Applies a change message: `user:<id>` forgets every entry of that user;
   * `key:<hash>` and `session:<id>` forget that entry; anything else, all.
   */
  evict = (message: string) => {
    this.generation++
    const colon = message.indexOf(':')
    const [kind, value] = [message.slice(0, colon), message.slice(colon + 1)]
    if (kind === 'user') {
      for (const [id, e] of this.entries) if (e.value.userId === value) this.entries.delete(id)
    } else if (kind === 'key' || kind === 'session') {
      this.entries.delete(value)
    } else {
      this.entries.clear()
    }
  }

  clear = () => {
    this.generation++
    this.entries.clear()
  }

  /** Tells every process, when q's transaction commits, that credentials changed. */
  static async announce(q: Queryable, message: string) {
    await q.query('SELECT pg_notify($1, $2)', [CREDENTIALS_CHANNEL, message])
  }
}
