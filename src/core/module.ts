import type { Config } from '../config.ts'
import type { CredentialResolver } from './auth.ts'
import type { CpuPool } from './cpu-pool.ts'
import type { Db, Queryable } from './db.ts'
import type { DomainEvents } from './events.ts'
import type { App } from './http.ts'
import type { Jobs } from './jobs.ts'
import type { SecretBox } from './secrets.ts'
import type { Replicas } from './replicas.ts'
import type { Worker } from './worker.ts'

export type { App, RouteInfo } from './http.ts'

declare module 'fastify' {
  interface FastifyInstance {
    ctx: KernelContext
    /** Every module's service, for tests and scripts; modules get only their needs. */
    services: Partial<Services>
  }
}

/**
 * The services of the modules, by module name. Each module adds its own entry
 * by augmenting this interface in its index.ts:
 *
 *   declare module '../../core/module.ts' { interface Services { contacts: ContactsService } }
 */
export interface Services {}
export type ModuleName = keyof Services

/** What the kernel gives every module. */
export interface KernelContext {
  db: Db
  /** The read replicas (DATABASE_REPLICA_URL), when there are: db already routes to them (core/replicas.ts). */
  replicas?: Replicas
  config: Config
  jobs: Jobs
  /** The queue worker: a module declares its queue here (core/worker.ts); the app starts them all with the jobs. */
  worker: Worker
  events: DomainEvents
  /** Worker threads for CPU-heavy steps (PDF rendering), off the event loop; bounded, closed with the app (core/cpu-pool.ts). */
  cpu: CpuPool
  /** Seals the secrets a module keeps in the database (seal on write, unseal on read; sealColumns at start). */
  secrets: SecretBox
  /** Credential resolvers tried in order on every request; modules may add theirs. */
  resolvers: CredentialResolver[]
  /** Run inside the transaction that creates an organization (default records of each module). */
  onOrganizationCreated: Array<(q: Queryable, organizationId: string) => Promise<void>>
}

/** A module's context: the kernel, plus the services of exactly the modules it declared it needs. */
export interface ModuleContext<Needs extends ModuleName = never> extends KernelContext {
  services: Pick<Services, Needs>
}

type Provided<Name extends string> = Name extends ModuleName ? Services[Name] : void

export interface ModuleDefinition<Name extends string = string, Needs extends ModuleName = ModuleName> {
  name: Name
  /** Modules whose services this one calls; they are loaded first. */
  needs: readonly Needs[]
  /** Registers routes, jobs, subscribers; returns the module's service, which others may need. */
  register(app: App, ctx: ModuleContext<Needs>): Promise<Provided<Name>>
}

/** Declares a module; the types make `ctx.services` hold only what `needs` names. */
export function defineModule<const Name extends string, const Needs extends ModuleName = never>(def: ModuleDefinition<Name, Needs>): ModuleDefinition<Name, Needs> {
  return def
}

/**
 * The modules in an order where each comes after the modules it needs: a
 * topological sort, ties broken by the order given. A need that names no
 * module, a duplicate name, or a cycle stops the start with a message that
 * says which.
 */
export function orderModules<M extends { name: string; needs: readonly string[] }>(modules: readonly M[]): M[] {
  const byName = new Map<string, M>()
  for (const m of modules) {
    if (byName.has(m.name)) throw new Error(`Module "${m.name}" is declared twice`)
    byName.set(m.name, m)
  }
  for (const m of modules) {
    for (const need of m.needs) {
      if (!byName.has(need)) throw new Error(`Module "${m.name}" needs module "${need}", which is not loaded (known: ${[...byName.keys()].join(', ')})`)
    }
  }
  const ordered: M[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (m: M, path: string[]) => {
    if (state.get(m.name) === 'done') return
    if (state.get(m.name) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(m.name)), m.name]
      throw new Error(`Module dependency cycle: ${cycle.join(' -> ')}`)
    }
    state.set(m.name, 'visiting')
    for (const need of m.needs) visit(byName.get(need)!, [...path, m.name])
    state.set(m.name, 'done')
    ordered.push(m)
  }
  for (const m of modules) visit(m, [])
  return ordered
}

/**
 * Registers the modules in dependency order. Each gets a context whose
 * `services` holds only the services of its declared needs, so an undeclared
 * dependency is undefined at run time as well as a type error.
 */
export async function registerModules(app: App, kernel: KernelContext, modules: readonly ModuleDefinition<string, ModuleName>[]): Promise<Partial<Services>> {
  const services = new Map<string, unknown>()
  for (const mod of orderModules(modules)) {
    for (const need of mod.needs) {
      if (!services.has(need)) throw new Error(`Module "${mod.name}" needs module "${need}", which provides no service`)
    }
    const own = Object.freeze(Object.fromEntries(mod.needs.map((n) => [n, services.get(n)]))) as Pick<Services, ModuleName>
    const first = app.routeList?.length ?? 0
    const provided = await mod.register(app, { ...kernel, services: own })
    // Routes are recorded as they are declared (onRoute), so the new ones are this module's.
    for (const route of app.routeList?.slice(first) ?? []) route.module = mod.name
    if (provided !== undefined) services.set(mod.name, provided)
  }
  return Object.fromEntries(services) as Partial<Services>
}
