import { iso, type Queryable } from '../../core/db.ts'
import type { CreateSla, Priority, SlaPolicy, UpdateSla } from './helpdesk.schemas.ts'

interface SlaRow {
  id: string
  name: string
  first_response_hours: string
  resolution_hours: string
  applies: Priority[]
  created_at: Date
  updated_at: Date
}
const toSla = (r: SlaRow): SlaPolicy => ({
  id: r.id,
  name: r.name,
  firstResponseHours: Number(r.first_response_hours),
  resolutionHours: Number(r.resolution_hours),
  applies: r.applies,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

/** SLA policies, and the breaches of their deadlines that the breach job records. */
export const slaRepository = {
  async listSla(q: Queryable, organizationId: string) {
    const { rows } = await q.query<SlaRow>(`SELECT * FROM helpdesk_sla_policies WHERE organization_id = $1 ORDER BY created_at, id`, [organizationId])
    return rows.map(toSla)
  },

  async insertSla(q: Queryable, organizationId: string, id: string, p: CreateSla) {
    const { rows } = await q.query<SlaRow>(
      `INSERT INTO helpdesk_sla_policies (id, organization_id, name, first_response_hours, resolution_hours, applies)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [id, organizationId, p.name, p.firstResponseHours, p.resolutionHours, p.applies],
    )
    return toSla(rows[0])
  },

  async updateSla(q: Queryable, organizationId: string, id: string, p: UpdateSla) {
    const { rows } = await q.query<SlaRow>(
      `UPDATE helpdesk_sla_policies SET name = coalesce($3, name), first_response_hours = coalesce($4, first_response_hours),
              resolution_hours = coalesce($5, resolution_hours), applies = coalesce($6, applies), updated_at = now()
       WHERE organization_id = $1 AND id = $2 RETURNING *`,
      [organizationId, id, p.name ?? null, p.firstResponseHours ?? null, p.resolutionHours ?? null, p.applies ?? null],
    )
    return rows[0] ? toSla(rows[0]) : undefined
  },

  async deleteSla(q: Queryable, organizationId: string, id: string) {
    return (await q.query(`DELETE FROM helpdesk_sla_policies WHERE organization_id = $1 AND id = $2`, [organizationId, id])).rowCount > 0
  },

  // ------------------------------------------------------------ SLA breaches
  /** Deadlines passed on open tickets (first response: with no agent reply yet) that no breach row records, oldest first. */
  /** Passed deadlines not yet recorded, of one organization or (organizationId undefined) of every one. */
  async dueBreaches(q: Queryable, limit: number, organizationId?: string) {
    // One organization's run pins its tickets; the scheduled run reads every organization's.
    const across = organizationId === undefined ? '/* across organizations: the scheduled SLA breach job reads every organization\'s due deadlines */ ' : ''
    const org = organizationId === undefined ? '' : 't.organization_id = $2 AND '
    const { rows } = await q.query<{ ticket_id: string; organization_id: string; kind: 'first_response' | 'resolution'; deadline: string; assignee_id: string | null; team_id: string | null }>(
      // The deadline travels as text: a JavaScript Date would drop its microseconds, and the
      // breach row must name the very deadline it records.
      `SELECT ${across}ticket_id, organization_id, kind, deadline::text AS deadline, assignee_id, team_id FROM (
         SELECT t.id AS ticket_id, t.organization_id, 'first_response' AS kind, t.first_response_deadline AS deadline, t.assignee_id, t.team_id
         FROM helpdesk_tickets t
         WHERE ${org}t.done_at IS NULL AND t.first_response_at IS NULL AND t.first_response_deadline < now()
           AND NOT EXISTS (SELECT 1 FROM helpdesk_sla_breaches b
                           WHERE b.organization_id = t.organization_id AND b.ticket_id = t.id AND b.kind = 'first_response' AND b.deadline = t.first_response_deadline)
         UNION ALL
         SELECT t.id, t.organization_id, 'resolution', t.resolution_deadline, t.assignee_id, t.team_id
         FROM helpdesk_tickets t
         WHERE ${org}t.done_at IS NULL AND t.resolution_deadline < now()
           AND NOT EXISTS (SELECT 1 FROM helpdesk_sla_breaches b
                           WHERE b.organization_id = t.organization_id AND b.ticket_id = t.id AND b.kind = 'resolution' AND b.deadline = t.resolution_deadline)
       ) d ORDER BY d.deadline LIMIT $1`,
      organizationId === undefined ? [limit] : [limit, organizationId],
    )
    return rows
  },

  /** Records the breach; false when another run recorded it first. */
  async recordBreach(q: Queryable, b: { ticketId: string; organizationId: string; kind: string; deadline: string; notified: number }) {
    const { rowCount } = await q.query(
      `INSERT INTO helpdesk_sla_breaches (ticket_id, kind, deadline, organization_id, notified) VALUES ($1, $2, $3::timestamptz, $4, $5) ON CONFLICT DO NOTHING`,
      [b.ticketId, b.kind, b.deadline, b.organizationId, b.notified],
    )
    return rowCount > 0
  },
}
