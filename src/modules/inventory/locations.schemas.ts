import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'

export const LOCATION_TYPES = ['internal', 'supplier', 'customer', 'production', 'inventory_loss'] as const
const LocationType = StringEnum(LOCATION_TYPES)

export const Location = Named('Location', Type.Object({
  id: Type.String({ description: 'LOC-<code>' }),
  code: Type.String(),
  name: Type.String(),
  type: LocationType,
  warehouseId: Nullable(Type.String({ format: 'uuid', maxLength: 36 })),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}))
export type Location = Static<typeof Location>

export const LocationParams = Type.Object({ id: Type.String({ pattern: '^LOC-[A-Z0-9_-]{1,30}$', maxLength: 34 }) })

export const CreateLocationBody = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Za-z0-9_-]{1,30}$', maxLength: 30, description: 'Upper-cased; the id is LOC-<code>' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    type: Type.Optional(LocationType),
    warehouseId: Type.Optional(Nullable(Type.String({ format: 'uuid', maxLength: 36 }))),
  },
  { additionalProperties: false },
)
export type CreateLocation = Static<typeof CreateLocationBody>
export const UpdateLocationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    type: Type.Optional(LocationType),
    warehouseId: Type.Optional(Nullable(Type.String({ format: 'uuid', maxLength: 36 }))),
  },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateLocation = Static<typeof UpdateLocationBody>

export const LOCATION_SORTABLE = ['code', 'name', 'createdAt'] as const
export const LocationListQuery = listQuery(LOCATION_SORTABLE, {
  type: Type.Optional(LocationType),
  warehouseId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
})
export type LocationListQuery = Static<typeof LocationListQuery>
export const LocationList = Named('LocationList', listOf(Location))
