import type { Queryable } from '../../core/db.ts'
import { inDays, type DayRange } from '../../core/dates.ts'

export interface StatsRow {
  created: number
  low: number
  medium: number
  high: number
  urgent: number
  avg_first_response_minutes: string | null
  avg_resolution_hours: string | null
  with_sla: number
  breached: number
}

/** The figures of GET /helpdesk/stats. */
export const statsRepository = {
  /** Figures over the tickets created in the period (whole UTC days), optionally of one team. */
  async createdStats(q: Queryable, organizationId: string, range: DayRange, teamId: string | undefined) {
    const { rows } = await q.query<StatsRow>(
      `SELECT count(*)::int AS created,
              count(*) FILTER (WHERE priority = 'low')::int AS low,
              count(*) FILTER (WHERE priority = 'medium')::int AS medium,
              count(*) FILTER (WHERE priority = 'high')::int AS high,
              count(*) FILTER (WHERE priority = 'urgent')::int AS urgent,
              round(avg(extract(epoch FROM first_response_at - created_at)::numeric / 60), 2)::text AS avg_first_response_minutes,
              round(avg(extract(epoch FROM closed_at - created_at)::numeric / 3600), 2)::text AS avg_resolution_hours,
              count(*) FILTER (WHERE resolution_deadline IS NOT NULL)::int AS with_sla,
              count(*) FILTER (WHERE (done_at IS NULL AND resolution_deadline < now()) OR done_at > resolution_deadline)::int AS breached
       FROM helpdesk_tickets
       WHERE organization_id = $1 AND ${inDays('created_at', '$2', '$3')} AND ($4::uuid IS NULL OR team_id = $4)`,
      [organizationId, range.from, range.to, teamId ?? null],
    )
    return rows[0]
  },

  async closedCount(q: Queryable, organizationId: string, range: DayRange, teamId: string | undefined) {
    const { rows } = await q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM helpdesk_tickets
       WHERE organization_id = $1 AND status = 'closed' AND ${inDays('closed_at', '$2', '$3')} AND ($4::uuid IS NULL OR team_id = $4)`,
      [organizationId, range.from, range.to, teamId ?? null],
    )
    return rows[0].n
  },

  async ratings(q: Queryable, organizationId: string, range: DayRange, teamId: string | undefined) {
    const { rows } = await q.query<{ n: number; total: number }>(
      `SELECT count(*)::int AS n, coalesce(sum(r.rating), 0)::int AS total
       FROM helpdesk_ratings r JOIN helpdesk_tickets t ON t.organization_id = r.organization_id AND t.id = r.ticket_id
       WHERE r.organization_id = $1 AND ${inDays('r.created_at', '$2', '$3')} AND ($4::uuid IS NULL OR t.team_id = $4)`,
      [organizationId, range.from, range.to, teamId ?? null],
    )
    return rows[0]
  },
}
