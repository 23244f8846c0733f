import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, ValidationError, isUniqueViolation, AlreadyExistsError, StateConflictError } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { inventoryRepository } from './inventory.repository.ts'
import { locationsRepository as repo } from './locations.repository.ts'
import type { CreateLocation, LocationListQuery, UpdateLocation } from './locations.schemas.ts'

/** What every new organization starts with: a main warehouse and its five locations. */
const DEFAULT_LOCATIONS = [
  { code: 'STOCK', name: 'WH/Stock', type: 'internal' },
  { code: 'SUPPLIER', name: 'Partners/Vendors', type: 'supplier' },
  { code: 'CUSTOMER', name: 'Partners/Customers', type: 'customer' },
  { code: 'PRODUCTION', name: 'Virtual/Production', type: 'production' },
  { code: 'LOSS', name: 'Virtual/Inventory loss', type: 'inventory_loss' },
] as const

export class LocationsService {
  constructor(private readonly db: Db) {}

  createDefaults = async (q: Queryable, organizationId: string) => {
    const warehouseId = randomUUID()
    await repo.insertWarehouse(q, organizationId, warehouseId, 'WH', 'Main warehouse')
    for (const l of DEFAULT_LOCATIONS) await repo.insert(q, organizationId, { ...l, warehouseId })
  }

  private async checkWarehouse(organizationId: string, warehouseId: string | null | undefined) {
    if (warehouseId && !(await repo.warehouseExists(this.db, organizationId, warehouseId))) {
      throw new ValidationError('warehouseId does not name a warehouse of this organization')
    }
  }

  async create(organizationId: string, input: CreateLocation) {
    await this.checkWarehouse(organizationId, input.warehouseId)
    const code = input.code.toUpperCase()
    try {
      return await repo.insert(this.db, organizationId, { code, name: input.name ?? code, type: input.type ?? 'internal', warehouseId: input.warehouseId ?? null })
    } catch (err) {
      if (isUniqueViolation(err)) throw new AlreadyExistsError(`Location LOC-${code} already exists`)
      throw err
    }
  }

  list(organizationId: string, query: LocationListQuery & PageParams) {
    return repo.list(this.db, organizationId, query)
  }

  /** The location or 404; the inventory modules use it to check references. */
  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const location = await repo.find(q, organizationId, id)
    if (!location) throw new NotFoundError('Location')
    return location
  }

  /**
   * A location's type is copied into its quants (internal or not), so it may
   * not change once the location holds quants or is named by a transfer (409).
   */
  async update(organizationId: string, id: string, patch: UpdateLocation) {
    await this.checkWarehouse(organizationId, patch.warehouseId)
    return this.db.tx(async (q) => {
      const current = await repo.find(q, organizationId, id, { forUpdate: true })
      if (!current) throw new NotFoundError('Location')
      if (patch.type !== undefined && patch.type !== current.type && (await inventoryRepository.locationUsed(q, organizationId, id))) {
        throw new StateConflictError(`Location ${id} holds stock or is used by transfers: its type cannot change`)
      }
      return (await repo.update(q, organizationId, id, patch))!
    })
  }

  async delete(organizationId: string, id: string) {
    if (!(await repo.delete(this.db, organizationId, id))) throw new NotFoundError('Location')
  }
}
