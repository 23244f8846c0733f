import type { Config } from '../config.ts'
import type { CredentialResolver } from '../core/auth.ts'
import type { Db, Queryable } from '../core/db.ts'
import type { Jobs } from '../core/jobs.ts'

/**
 * Services of the loaded modules, by name. Each module adds its own entry by
 * augmenting this interface, and other modules call it instead of its SQL.
 */
export interface Services {}

export interface ModuleContext {
  db: Db
  config: Config
  jobs: Jobs
  /** Credential resolvers tried in order on every request; modules may add theirs. */
  resolvers: CredentialResolver[]
  services: Services
  /** Run inside the transaction that creates an organization (default records of each module). */
  onOrganizationCreated: Array<(q: Queryable, organizationId: string) => Promise<void>>
}
