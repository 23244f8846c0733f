import { defineModule } from '../../core/module.ts'
import { API_PREFIX } from '../../core/openapi.ts'
import { helpdeskEventTypes } from './helpdesk.schemas.ts'
import { helpdeskRoutes } from './helpdesk.routes.ts'
import { SlaService } from './sla.service.ts'
import { TeamsService } from './teams.service.ts'
import { TicketsService } from './tickets.service.ts'

export type { TicketsService }
export { Ticket } from './helpdesk.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    helpdesk: TicketsService
  }
}

/**
 * Helpdesk (docs/helpdesk.md "Tickets"): tickets with SLA deadlines, replies and
 * internal notes, teams, SLA policies, ratings and statistics, the public
 * POST /support form, and the job that records SLA breaches. docs/helpdesk.md.
 */
export const helpdeskModule = defineModule({
  name: 'helpdesk',
  needs: ['contacts', 'identity', 'mail', 'crm'],
  async register(app, ctx) {
    ctx.events.declare(helpdeskEventTypes)
    const { contacts, identity, mail, crm } = ctx.services
    const teams = new TeamsService(ctx.db, identity)
    // Links in mails are absolute only with PUBLIC_URL: a request's Host header is the sender's to choose.
    const linkBase = `${ctx.config.publicUrl?.replace(/\/+$/, '') ?? ''}${API_PREFIX}`
    const helpdesk = new TicketsService(ctx.db, ctx.events, teams, { contacts, identity, mail, crm }, linkBase)
    ctx.jobs.register({
      name: 'helpdesk-sla-breaches',
      description: 'Records each passed SLA deadline of an open ticket once (ticket.sla_breached) and e-mails the assignee, or the members of its team',
      intervalMs: 5 * 60_000,
      run: (scope) => helpdesk.recordSlaBreaches(scope.organizationId),
    })
    helpdeskRoutes(app, helpdesk, teams, new SlaService(ctx.db))
    return helpdesk
  },
})
