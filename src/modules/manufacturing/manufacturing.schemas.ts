import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import { Timestamp } from '../../core/dates.ts'
import { Quantity } from '../../core/documents/index.ts'

const Uuid = (description?: string) => Type.String({ format: 'uuid', maxLength: 36, ...(description ? { description } : {}) })
const Uom = (description: string) => Type.String({ minLength: 1, maxLength: 20, description })

// ---------------------------------------------------------------- BOMs (SPEC 2.6)

export const BOM_TYPES = ['manufacture', 'phantom', 'subcontract'] as const
export type BomType = (typeof BOM_TYPES)[number]

export const ProductRef = Named('ManufacturingProductRef', Type.Object({ id: Uuid(), name: Type.String() }))

export const BomComponent = Named('BomComponent', Type.Object({
  productId: Uuid(),
  name: Type.String({ description: "The component product's current name" }),
  quantity: Type.Number({ description: 'Per `quantity` units of the BOM' }),
  uom: Type.String(),
}))
export type BomComponent = Static<typeof BomComponent>

export const BomOperation = Named('BomOperation', Type.Object({
  name: Type.String(),
  workcenter: Type.String(),
  durationMinutes: Type.Number(),
}))
export type BomOperation = Static<typeof BomOperation>

export const Bom = Named('Bom', Type.Object({
  id: Uuid(),
  name: Type.String(),
  product: ProductRef,
  quantity: Type.Number({ description: 'How many units of the product one run of the BOM makes' }),
  uom: Type.String(),
  type: StringEnum(BOM_TYPES, { description: 'phantom: a kit, exploded into its components wherever it is consumed or reserved' }),
  components: Type.Array(BomComponent),
  operations: Type.Array(BomOperation),
  organizationId: Uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Bom = Static<typeof Bom>
export const BomList = Named('BomList', listOf(Bom))

const ComponentInput = Type.Object(
  {
    productId: Uuid(),
    quantity: Quantity,
    uom: Type.Optional(Uom("Defaults to the component product's uom")),
  },
  { additionalProperties: false },
)
const OperationInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    workcenter: Type.String({ minLength: 1, maxLength: 200 }),
    durationMinutes: Type.Number({ minimum: 0, maximum: 1_000_000 }),
  },
  { additionalProperties: false },
)
const bomFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  productId: Uuid('The product the BOM makes'),
  quantity: Type.Optional({ ...Quantity, description: 'Defaults to 1' }),
  uom: Type.Optional(Uom("Defaults to the product's uom")),
  type: Type.Optional(StringEnum(BOM_TYPES, { description: 'Defaults to manufacture' })),
  components: Type.Optional(Type.Array(ComponentInput, { maxItems: 500, description: 'Defaults to none' })),
  operations: Type.Optional(Type.Array(OperationInput, { maxItems: 200, description: 'Defaults to none' })),
}
export const CreateBomBody = Type.Object(bomFields, { additionalProperties: false })
export type CreateBom = Static<typeof CreateBomBody>

export const UpdateBomBody = Type.Object(
  {
    name: Type.Optional(bomFields.name),
    productId: Type.Optional(bomFields.productId),
    quantity: Type.Optional(Quantity),
    uom: Type.Optional(Uom('Unit of the BOM quantity')),
    type: Type.Optional(StringEnum(BOM_TYPES)),
    components: Type.Optional(Type.Array(ComponentInput, { maxItems: 500, description: 'Replaces every component' })),
    operations: Type.Optional(Type.Array(OperationInput, { maxItems: 200, description: 'Replaces every operation' })),
  },
  { additionalProperties: false },
)
export type UpdateBom = Static<typeof UpdateBomBody>

export const BOM_SORTABLE = ['createdAt', 'updatedAt', 'name'] as const
export const BomListQuery = listQuery(BOM_SORTABLE, {
  productId: Type.Optional(Uuid('Only BOMs that make this product')),
})
export type BomListQuery = Static<typeof BomListQuery>

export const BomCostLine = Named('BomCostLine', Type.Object({
  productId: Uuid(),
  name: Type.String(),
  quantity: Type.Number({ description: 'Per `quantity` units of the BOM' }),
  unitCost: Nullable(Type.Integer({ description: "Cents: the component product's cost (null when the product has none)" })),
  total: Type.Integer({ description: 'Cents: round(quantity * unitCost), 0 without a cost' }),
}))

export const BomCost = Named('BomCost', Type.Object({
  bomId: Uuid(),
  product: ProductRef,
  quantity: Type.Number({ description: 'The BOM quantity the total is for' }),
  components: Type.Array(BomCostLine),
  total: Type.Integer({ description: 'Cents: the sum of the component totals (one run of the BOM)' }),
  unitCost: Type.Integer({ description: 'Cents per unit of the product: round(total / quantity), half away from zero' }),
  missingCosts: Type.Array(Uuid(), { description: 'Components whose product has no cost (counted as 0)' }),
}))
export type BomCost = Static<typeof BomCost>
