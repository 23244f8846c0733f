import { Type, type Static } from 'typebox'
import type { PublicEventType } from '../../core/events.ts'
import { cursorPagingProperties, listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { Quantity } from '../../core/documents/index.ts'

const Uuid = (description?: string) => Type.String({ format: 'uuid', maxLength: 36, ...(description ? { description } : {}) })
const Uom = (description: string) => Type.String({ minLength: 1, maxLength: 20, description })

// ---------------------------------------------------------------- BOMs (docs/manufacturing.md "BOMs")

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

// ---------------------------------------------------------------- Production orders (docs/manufacturing.md "Production orders")

export const PRODUCTION_STATUSES = ['draft', 'confirmed', 'in_progress', 'done', 'cancelled'] as const
export type ProductionStatus = (typeof PRODUCTION_STATUSES)[number]
export const TERMINAL: readonly ProductionStatus[] = ['done', 'cancelled']

export const ProductionComponent = Named('ProductionOrderComponent', Type.Object({
  productId: Uuid(),
  name: Type.String({ description: "The component product's current name" }),
  quantity: Type.Number({ description: 'What the whole order consumes: component quantity x order quantity / BOM quantity, phantom kits exploded' }),
  consumedQty: Type.Number({ description: 'Consumed so far by produce' }),
}))
export type ProductionComponent = Static<typeof ProductionComponent>

export const ProductionOutput = Named('ProductionOrderOutput', Type.Object({
  quantity: Type.Number(),
  lotNumber: Nullable(Type.String()),
  producedAt: Timestamp,
  consumptionTransferId: Nullable(Uuid('The validated component transfer (LOC-STOCK -> LOC-PRODUCTION); null when nothing was consumed')),
  finishedTransferId: Uuid('The validated transfer of the finished quantity (LOC-PRODUCTION -> LOC-STOCK)'),
}))

export const TransferRef = Named('ManufacturingTransferRef', Type.Object({ id: Uuid(), reference: Type.String() }))

export const ProductionOrder = Named('ProductionOrder', Type.Object({
  id: Uuid(),
  reference: Type.String({ description: 'MO/<year>/<sequence>' }),
  product: ProductRef,
  bomId: Nullable(Uuid('The BOM the order was made from (null once that BOM is deleted, which only a done or cancelled order allows)')),
  quantity: Type.Number(),
  producedQty: Type.Number(),
  uom: Type.String(),
  status: StringEnum(PRODUCTION_STATUSES),
  scheduledDate: Timestamp,
  components: Type.Array(ProductionComponent),
  componentTransfer: Nullable(TransferRef),
  productions: Type.Array(ProductionOutput, { description: 'Every produce, oldest first' }),
  confirmedAt: Nullable(Timestamp),
  closedAt: Nullable(Timestamp),
  organizationId: Uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type ProductionOrder = Static<typeof ProductionOrder>
export const ProductionOrderList = Named('ProductionOrderList', listOf(ProductionOrder))

export const CreateProductionOrderBody = Type.Object(
  {
    productId: Uuid('The product to make'),
    bomId: Type.Optional(Uuid("A BOM of that product; defaults to the product's first BOM")),
    quantity: Quantity,
    scheduledDate: Type.Optional({ ...TimestampInput, description: 'Planned start; defaults to now' }),
  },
  { additionalProperties: false },
)
export type CreateProductionOrder = Static<typeof CreateProductionOrderBody>

export const ProduceBody = Type.Object(
  {
    qty: Quantity,
    lotNumber: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
)
export type Produce = Static<typeof ProduceBody>

export const PRODUCTION_SORTABLE = ['reference', 'scheduledDate', 'createdAt', 'updatedAt'] as const
export const ProductionOrderListQuery = listQuery(PRODUCTION_SORTABLE, {
  status: Type.Optional(StringEnum(PRODUCTION_STATUSES)),
  productId: Type.Optional(Uuid('Only orders that make this product')),
  from: Type.Optional({ ...TimestampInput, description: 'Scheduled on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Scheduled on or before (a date includes the whole day)' }),
})
export type ProductionOrderListQuery = Static<typeof ProductionOrderListQuery>

// ---------------------------------------------------------------- Work orders

export const WORK_ORDER_STATUSES = ['pending', 'in_progress', 'done'] as const
export type WorkOrderStatus = (typeof WORK_ORDER_STATUSES)[number]

export const WorkOrder = Named('WorkOrder', Type.Object({
  id: Type.String({ description: 'wo_<n>, numbered per organization' }),
  productionOrderId: Uuid(),
  name: Type.String(),
  workcenter: Type.String(),
  expectedDurationMinutes: Type.Number({ description: "The BOM operation's durationMinutes" }),
  status: StringEnum(WORK_ORDER_STATUSES),
  startedAt: Nullable(Timestamp),
  finishedAt: Nullable(Timestamp),
  durationMinutes: Nullable(Type.Number()),
  notes: Nullable(Type.String()),
}))
export type WorkOrder = Static<typeof WorkOrder>
export const WorkOrderList = Named('WorkOrderList', listOf(WorkOrder))

export const WorkOrderListQuery = Type.Object(cursorPagingProperties, { additionalProperties: false })
export type WorkOrderListQuery = Static<typeof WorkOrderListQuery>

export const WorkOrderParams = Type.Object({
  id: Uuid(),
  woId: Type.String({ pattern: '^wo_[0-9]{1,15}$', maxLength: 18, description: 'wo_<n>' }),
})

export const WorkOrderDoneBody = Type.Object(
  {
    durationMinutes: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000, description: 'Defaults to the minutes since the start, to two decimals' })),
    notes: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  { additionalProperties: false },
)
export type WorkOrderDone = Static<typeof WorkOrderDoneBody>

/** Event types of production orders (docs/webhooks.md); data.object is the order as GET answers it. */
export const manufacturingEventTypes: PublicEventType[] = [
  { type: 'production_order.confirmed', version: 1, object: ProductionOrder, description: 'A production order was confirmed: its component needs are reserved.' },
  { type: 'production_order.done', version: 1, object: ProductionOrder, description: 'A production order became done: all of it was produced, or it was closed after producing some.' },
  { type: 'production_order.cancelled', version: 1, object: ProductionOrder, description: 'A production order was closed before anything was produced; its reservations are released.' },
]
