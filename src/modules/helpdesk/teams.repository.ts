import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { Team, TeamListQuery } from './helpdesk.schemas.ts'

interface TeamRow {
  id: string
  name: string
  member_ids: string[]
  created_at: Date
  updated_at: Date
}
const toTeam = (r: TeamRow): Team => ({ id: r.id, name: r.name, memberIds: r.member_ids, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at) })
const TEAM_SELECT = `tm.id, tm.name, tm.created_at, tm.updated_at,
  coalesce((SELECT array_agg(m.user_id ORDER BY m.position) FROM helpdesk_team_members m WHERE m.organization_id = tm.organization_id AND m.team_id = tm.id), '{}') AS member_ids`

/** Teams of agents and their members, in order. */
export const teamsRepository = {
  async insertTeam(q: Queryable, organizationId: string, id: string, name: string) {
    await q.query(`INSERT INTO helpdesk_teams (id, organization_id, name) VALUES ($1, $2, $3)`, [id, organizationId, name])
  },

  async updateTeam(q: Queryable, organizationId: string, id: string, name: string | undefined) {
    const { rowCount } = await q.query(
      `UPDATE helpdesk_teams SET name = coalesce($3, name), updated_at = now() WHERE organization_id = $1 AND id = $2`,
      [organizationId, id, name ?? null],
    )
    return rowCount > 0
  },

  async setMembers(q: Queryable, organizationId: string, teamId: string, userIds: string[]) {
    await q.query(`DELETE FROM helpdesk_team_members WHERE organization_id = $1 AND team_id = $2`, [organizationId, teamId])
    if (userIds.length) {
      await q.query(
        `INSERT INTO helpdesk_team_members (organization_id, team_id, position, user_id)
         SELECT t.organization_id, t.id, u.n - 1, u.id FROM helpdesk_teams t, unnest($2::uuid[]) WITH ORDINALITY AS u(id, n) WHERE t.organization_id = $3 AND t.id = $1`,
        [teamId, userIds, organizationId],
      )
    }
  },

  async findTeam(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<TeamRow>(`SELECT ${TEAM_SELECT} FROM helpdesk_teams tm WHERE tm.organization_id = $1 AND tm.id = $2`, [organizationId, id])
    return rows[0] ? toTeam(rows[0]) : undefined
  },

  listTeams(q: Queryable, organizationId: string, query: TeamListQuery & PageParams) {
    const where = new Where().scope('tm.organization_id', organizationId).search(query.search, ['tm.name'])
    return paginate(q, query, {
      from: 'helpdesk_teams tm',
      select: TEAM_SELECT,
      where,
      sortColumns: { name: 'tm.name', createdAt: 'tm.created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'tm.id',
      map: toTeam,
      counter: 'helpdesk_teams',
    })
  },

  async deleteTeam(q: Queryable, organizationId: string, id: string) {
    return (await q.query(`DELETE FROM helpdesk_teams WHERE organization_id = $1 AND id = $2`, [organizationId, id])).rowCount > 0
  },

  /** The user ids of a team's members. */
  async memberIds(q: Queryable, organizationId: string, teamId: string) {
    const { rows } = await q.query<{ user_id: string }>(
      `SELECT user_id FROM helpdesk_team_members WHERE organization_id = $1 AND team_id = $2 ORDER BY position`,
      [organizationId, teamId],
    )
    return rows.map((r) => r.user_id)
  },
}
