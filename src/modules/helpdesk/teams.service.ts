import { randomUUID } from 'node:crypto'
import { AGENTS } from '../../core/auth.ts'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import type { PageParams } from '../../core/pagination.ts'
import { teamsRepository } from './teams.repository.ts'
import type { CreateTeam, TeamListQuery, UpdateTeam } from './helpdesk.schemas.ts'

/** Teams of agents (admin manages them); a ticket may name one. */
export class TeamsService {
  constructor(
    private readonly db: Db,
    private readonly identity: Services['identity'],
  ) {}

  /** Every member must be a user of the organization with an agent role (422 naming each that is not); repeats are kept once. */
  private async members(organizationId: string, memberIds: string[]) {
    const ids = [...new Set(memberIds)]
    const users = await Promise.all(ids.map((id) => this.identity.findUser(organizationId, id)))
    const problems = ids.flatMap((id, i) => {
      const u = users[i]
      if (!u) return [`memberIds: ${id} does not name a user of this organization`]
      if (!AGENTS.includes(u.role)) return [`memberIds: user ${id} has role ${u.role}; team members must be admin, support or agent users`]
      return []
    })
    if (problems.length) throw new ValidationError(problems)
    return ids
  }

  async create(organizationId: string, input: CreateTeam) {
    const members = await this.members(organizationId, input.memberIds ?? [])
    const id = randomUUID()
    return this.db.tx(async (q) => {
      await teamsRepository.insertTeam(q, organizationId, id, input.name)
      await teamsRepository.setMembers(q, organizationId, id, members)
      return (await teamsRepository.findTeam(q, organizationId, id))!
    })
  }

  list(organizationId: string, query: TeamListQuery & PageParams) {
    return teamsRepository.listTeams(this.db, organizationId, query)
  }

  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const team = await teamsRepository.findTeam(q, organizationId, id)
    if (!team) throw new NotFoundError('Team')
    return team
  }

  /** A teamId in a body: a team of the organization, else 422. */
  async referenced(q: Queryable, organizationId: string, id: string) {
    if (!(await teamsRepository.findTeam(q, organizationId, id))) throw new ValidationError('teamId does not name a team of this organization')
  }

  async update(organizationId: string, id: string, patch: UpdateTeam) {
    const members = patch.memberIds && (await this.members(organizationId, patch.memberIds))
    return this.db.tx(async (q) => {
      if (!(await teamsRepository.updateTeam(q, organizationId, id, patch.name))) throw new NotFoundError('Team')
      if (members) await teamsRepository.setMembers(q, organizationId, id, members)
      return (await teamsRepository.findTeam(q, organizationId, id))!
    })
  }

  /** Its tickets keep no team. */
  async delete(organizationId: string, id: string) {
    if (!(await teamsRepository.deleteTeam(this.db, organizationId, id))) throw new NotFoundError('Team')
  }
}
