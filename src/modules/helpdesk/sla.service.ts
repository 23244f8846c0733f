import { randomUUID } from 'node:crypto'
import type { Db } from '../../core/db.ts'
import { NotFoundError } from '../../core/errors.ts'
import { slaRepository } from './sla.repository.ts'
import type { CreateSla, UpdateSla } from './helpdesk.schemas.ts'

/**
 * SLA policies (admin manages them). A policy's deadlines are copied onto
 * each ticket when it is created or changes priority, so editing or deleting
 * a policy leaves existing tickets as they are (docs/helpdesk.md).
 */
export class SlaService {
  constructor(private readonly db: Db) {}

  list(organizationId: string) {
    return slaRepository.listSla(this.db, organizationId)
  }

  create(organizationId: string, input: CreateSla) {
    return slaRepository.insertSla(this.db, organizationId, randomUUID(), input)
  }

  async update(organizationId: string, id: string, patch: UpdateSla) {
    const policy = await slaRepository.updateSla(this.db, organizationId, id, patch)
    if (!policy) throw new NotFoundError('SLA policy')
    return policy
  }

  async delete(organizationId: string, id: string) {
    if (!(await slaRepository.deleteSla(this.db, organizationId, id))) throw new NotFoundError('SLA policy')
  }
}
