import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { LicenseState, LicenseStorage } from './types.ts'

/**
 * The default store: one JSON file, written to a temporary file first and
 * renamed, so a crash never leaves half a state. Readable by its owner only.
 */
export class FileStorage implements LicenseStorage {
  constructor(readonly path: string) {}

  async load(): Promise<LicenseState> {
    try {
      const state = JSON.parse(await readFile(this.path, 'utf8'))
      return typeof state === 'object' && state !== null ? state : {}
    } catch (err) {
      // A missing or unreadable file is a fresh installation, not an error.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return {}
      throw err
    }
  }

  async save(state: LicenseState): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
    const temporary = `${this.path}.${process.pid}.${Date.now()}.tmp`
    await writeFile(temporary, JSON.stringify(state, null, 2), { mode: 0o600 })
    await rename(temporary, this.path)
  }
}

/** Keeps the state in memory only (tests, or hosts that persist it elsewhere). */
export class MemoryStorage implements LicenseStorage {
  private state: LicenseState = {}
  async load(): Promise<LicenseState> {
    return structuredClone(this.state)
  }
  async save(state: LicenseState): Promise<void> {
    this.state = structuredClone(state)
  }
}

/** ~/.license-client/<module>@<domain>.json: one state per module and instance domain. */
export function defaultStatePath(moduleName: string, domain: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_') || 'unknown'
  return join(homedir(), '.license-client', `${safe(moduleName)}@${safe(domain)}.json`)
}
