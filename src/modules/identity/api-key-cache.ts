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

/**
 * API keys already resolved, by hash, so that an authenticated request needs
 * no query for its credential. Revocation stays immediate: the revoking
 * transaction announces it with NOTIFY, every process evicts on the message,
 * and the revoking process evicts at once without waiting for it. A lookup
 * that raced with an eviction is not stored (generation check), and entries
 * expire anyway after ttlMs as a last safety net.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { key: CachedKey; expires: number }>()
  private generation = 0

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string): CachedKey | undefined {
    const entry = this.entries.get(hash)
    if (!entry) return undefined
    if (entry.expires <= Date.now()) {
      this.entries.delete(hash)
      return undefined
    }
    return entry.key
  }

  /** The generation to pass to set() for a lookup that starts now. */
  snapshot() {
    return this.generation
  }

  set(hash: string, key: CachedKey, generation: number) {
    if (generation !== this.generation) return
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(hash, { key, expires: Date.now() + this.ttlMs })
  }

  /** Applies a change message: `key:<hash>` or `user:<id>` (all keys of a user). */
  evict = (message: string) => {
    this.generation++
    const [kind, value] = [message.slice(0, message.indexOf(':')), message.slice(message.indexOf(':') + 1)]
    if (kind === 'key') {
      this.entries.delete(value)
    } else if (kind === 'user') {
      for (const [hash, e] of this.entries) if (e.key.userId === value) this.entries.delete(hash)
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
