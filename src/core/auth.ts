import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, ForbiddenError, UnauthorizedError } from './errors.ts'

export const ROLES = ['admin', 'support', 'agent', 'member', 'customer'] as const
export type Role = (typeof ROLES)[number]

/** Who is calling. `id` names the credential (rate limits are counted per credential). */
export interface Principal {
  kind: 'user' | 'apiKey' | 'license'
  id: string
  organizationId: string
  userId: string | null
  role: Role
  /** Set for `Authorization: Bearer <license key>`: the one license this caller may use. */
  licenseKey?: string
  /** Set for an access token: its session (the refresh-token family it was issued with). */
  sessionId?: string
}

/**
 * Turns a bearer value into a principal. Returns null when the value is not of
 * its kind (so the next resolver may try), throws AppError when it is of its
 * kind but refused (expired, revoked, wrong environment).
 */
export type CredentialResolver = (token: string, request: FastifyRequest) => Promise<Principal | null>

/** Who may call a route; the default is every role of the business modules. */
export interface AccessConfig {
  /** No credential needed. */
  public?: boolean
  roles?: readonly Role[]
  /** Also accepts `Bearer <license key>` (license client endpoints). */
  licenseKey?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: AccessConfig
  }
  interface FastifyRequest {
    principal?: Principal
    authError?: AppError
  }
}

// The role sets of the routes and services: every module names its roles from
// here, so one name means one set (test/module-shape.test.ts refuses a role
// list declared in a module). ROLES is every role.

/** Roles of the business modules (contacts, sales, inventory, ...), and the readers of reports. */
export const STAFF: readonly Role[] = ['admin', 'member']
export const ADMIN: readonly Role[] = ['admin']
/** Every role but customer: who reads helpdesk teams and SLA policies. */
export const INTERNAL: readonly Role[] = ['admin', 'support', 'agent', 'member']
/** The helpdesk's agents (docs/helpdesk.md "Roles"): agent-only routes refuse the others (403); only they join teams or take tickets. */
export const AGENTS: readonly Role[] = ['admin', 'support', 'agent']
/** Who manages licenses: admins and support use the admin license routes (docs/platform.md "Roles"). */
export const SUPPORT: readonly Role[] = ['admin', 'support']
/** The staff and support: who reads the catalogue of module builds. */
export const STAFF_AND_SUPPORT: readonly Role[] = ['admin', 'support', 'member']
/** Who may call the license client routes with a normal credential (or else `Bearer <license key>`, for that license only). */
export const LICENSE_CLIENTS: readonly Role[] = ['admin', 'support', 'customer']
/** Customer accounts buy, manage their own billing and use the license portal (docs/platform.md "Roles"); admins may use everything of their organization. */
export const BUYERS: readonly Role[] = ['customer', 'admin']

/**
 * `resolvers` is read on every request, so modules may add theirs after this call.
 * Identification runs first (onRequest, before rate limiting, which counts per
 * credential); enforcement runs at preParsing, so a refused request's body is
 * never read.
 */
export function installAuth(app: FastifyInstance, resolvers: readonly CredentialResolver[]) {
  app.decorateRequest('principal', undefined)
  app.decorateRequest('authError', undefined)

  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization
    if (!header) return
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (!match) {
      request.authError = new UnauthorizedError('Authorization header must be "Bearer <token>"')
      return
    }
    try {
      for (const resolve of resolvers) {
        const principal = await resolve(match[1], request)
        if (principal) {
          request.principal = principal
          return
        }
      }
      request.authError = new UnauthorizedError('Invalid or expired credential')
    } catch (err) {
      if (err instanceof AppError) request.authError = err
      else throw err
    }
  })

  app.addHook('preParsing', async (request) => {
    if (request.is404) return
    const access = request.routeOptions.config.access ?? {}
    if (access.public) return
    if (request.authError) throw request.authError
    const p = request.principal
    if (!p) throw new UnauthorizedError('Missing bearer credential')
    if (p.kind === 'license') {
      if (!access.licenseKey) throw new ForbiddenError('A license key may only call the license client endpoints')
      return
    }
    const roles = access.roles ?? STAFF
    if (!roles.includes(p.role)) throw new ForbiddenError(`Role ${p.role} may not use this route`)
  })
}

/** The principal of an authenticated route; routes without one are public. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError('Missing bearer credential')
  return request.principal
}
