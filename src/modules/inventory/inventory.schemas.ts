import { Type, type Static } from 'typebox'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { Quantity } from '../../core/documents/index.ts'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import type { PublicEventType } from '../../core/events.ts'

const Uuid = Type.String({ format: 'uuid', maxLength: 36 })
/** A location id as a body or filter gives it; an id that names no location of the organization is 422 (bodies) or matches nothing (filters). */
const LocationId = Type.String({ minLength: 1, maxLength: 34, description: 'LOC-<code>' })
/** A quantity that may be zero (done quantities, counted quantities). */
const QuantityOrZero = Type.Number({ minimum: 0, maximum: 1_000_000_000 })

export const TRANSFER_TYPES = ['receipt', 'delivery', 'internal'] as const
export type TransferType = (typeof TRANSFER_TYPES)[number]
export const TRANSFER_STATUSES = ['draft', 'ready', 'done', 'cancelled'] as const
export type TransferStatus = (typeof TRANSFER_STATUSES)[number]

// ---- Product stock (docs/inventory.md "Product stock") ----

export const ProductStock = Named('ProductStock', Type.Object({
  productId: Uuid,
  productName: Type.String(),
  sku: Nullable(Type.String()),
  onHand: Type.Number({ description: 'Sum over internal locations (or over those of warehouseId)' }),
  reserved: Type.Number({ description: 'Reserved by ready transfers taking from those locations' }),
  available: Type.Number({ description: 'onHand - reserved' }),
  reorderPoint: Type.Number(),
  uom: Type.String(),
}))
export type ProductStock = Static<typeof ProductStock>

export const PRODUCT_STOCK_SORTABLE = ['name', 'sku', 'onHand', 'available'] as const
export const ProductStockQuery = listQuery(PRODUCT_STOCK_SORTABLE, {
  belowReorder: Type.Optional(Type.Boolean({ description: 'true keeps products with a reorderPoint above 0 and available <= reorderPoint; false does not filter' })),
  warehouseId: Type.Optional({ ...Uuid, description: "Quantities of that warehouse's internal locations only (an unknown warehouse holds nothing)" }),
})
export type ProductStockQuery = Static<typeof ProductStockQuery>
export const ProductStockList = Named('ProductStockList', listOf(ProductStock))

export const ProductStockParams = Type.Object({ productId: Uuid })
export const LocationStock = Named('LocationStock', Type.Array(Type.Object({
  locationId: Type.String(),
  locationName: Type.String(),
  quantity: Type.Number(),
})))

// ---- Transfers (docs/inventory.md "Transfers") ----

export const TransferMove = Type.Object({
  productId: Uuid,
  productName: Type.String(),
  demandQty: Type.Number(),
  doneQty: Type.Number(),
  reservedQty: Type.Number({ description: 'Held at the internal source while the transfer is ready' }),
})

const TransferRef = Type.Object({ id: Uuid, reference: Type.String() })

export const Transfer = Named('Transfer', Type.Object({
  id: Uuid,
  reference: Type.String({ description: 'WH/IN/<n> (receipt), WH/OUT/<n> (delivery), WH/INT/<n> (internal), five digits' }),
  type: StringEnum(TRANSFER_TYPES),
  status: StringEnum(TRANSFER_STATUSES),
  sourceLocationId: Type.String(),
  destinationLocationId: Type.String(),
  sourceLocation: Type.String({ description: 'Display name of the source location' }),
  destinationLocation: Type.String({ description: 'Display name of the destination location' }),
  scheduledDate: Nullable(Timestamp),
  origin: Nullable(Type.String({ description: 'Source document, e.g. the purchase order reference' })),
  moves: Type.Array(TransferMove),
  backorder: Nullable({ ...TransferRef, description: 'The transfer left for the rest by a partial validation' }),
  backorderOf: Nullable({ ...TransferRef, description: 'The transfer whose partial validation left this one' }),
  doneAt: Nullable(Timestamp),
  organizationId: Uuid,
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Transfer = Static<typeof Transfer>

export const CreateTransferBody = Type.Object(
  {
    type: StringEnum(TRANSFER_TYPES),
    sourceLocationId: LocationId,
    destinationLocationId: LocationId,
    scheduledDate: Type.Optional(Nullable(TimestampInput)),
    origin: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    moves: Type.Array(
      Type.Object({ productId: Uuid, demandQty: Quantity }, { additionalProperties: false }),
      { minItems: 1, maxItems: 200, description: 'One move per storable product' },
    ),
  },
  { additionalProperties: false },
)
export type CreateTransfer = Static<typeof CreateTransferBody>

export const ValidateTransferBody = Type.Object(
  {
    moves: Type.Optional(Type.Array(
      Type.Object({ productId: Uuid, doneQty: QuantityOrZero }, { additionalProperties: false }),
      { maxItems: 200, description: 'doneQty per product; moves not listed are done with their demand' },
    )),
  },
  { additionalProperties: false },
)
export type ValidateTransfer = Static<typeof ValidateTransferBody>

export const TRANSFER_SORTABLE = ['reference', 'scheduledDate', 'createdAt', 'updatedAt'] as const
export const TransferListQuery = listQuery(TRANSFER_SORTABLE, {
  type: Type.Optional(StringEnum(TRANSFER_TYPES)),
  status: Type.Optional(StringEnum(TRANSFER_STATUSES)),
  from: Type.Optional({ ...TimestampInput, description: 'Scheduled on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Scheduled on or before (a date includes the whole day)' }),
})
export type TransferListQuery = Static<typeof TransferListQuery>
export const TransferList = Named('TransferList', listOf(Transfer))

// ---- Adjustments ----

export const AdjustmentLine = Type.Object({
  productId: Uuid,
  productName: Type.String(),
  theoreticalQty: Type.Number(),
  realQty: Type.Number(),
  difference: Type.Number({ description: 'realQty - theoreticalQty' }),
})

export const Adjustment = Named('Adjustment', Type.Object({
  id: Uuid,
  reference: Type.String({ description: 'WH/ADJ/<n>' }),
  locationId: Type.String(),
  date: Timestamp,
  reason: Nullable(Type.String()),
  lines: Type.Array(AdjustmentLine),
  organizationId: Uuid,
  createdAt: Timestamp,
}))
export type Adjustment = Static<typeof Adjustment>

export const CreateAdjustmentBody = Type.Object(
  {
    locationId: LocationId,
    date: Type.Optional({ ...TimestampInput, description: "The moves' doneAt; defaults to now; a day after today is 422" }),
    reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    lines: Type.Array(
      Type.Object(
        {
          productId: Uuid,
          theoreticalQty: Type.Optional({ ...QuantityOrZero, description: 'The quantity the location holds when the adjustment posts: filled in when left out; another value is 422' }),
          realQty: { ...QuantityOrZero, description: 'What was counted: the location holds this afterwards' },
          difference: Type.Optional(Type.Number({ minimum: -1_000_000_000, maximum: 1_000_000_000, description: 'realQty - theoreticalQty; a value that disagrees is 422' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 200 },
    ),
  },
  { additionalProperties: false },
)
export type CreateAdjustment = Static<typeof CreateAdjustmentBody>

/** A row of a stock import (docs/imports.md "Stock"): the quantity to hold of the product `sku` at an internal location. */
export const StockImportRow = Type.Object(
  {
    sku: Type.String({ minLength: 1, maxLength: 64 }),
    locationId: LocationId,
    quantity: { ...QuantityOrZero, description: 'The quantity the location holds afterwards (an adjustment posts the difference)' },
  },
  { additionalProperties: false },
)
export type StockImportRow = Static<typeof StockImportRow>

export const ADJUSTMENT_SORTABLE = ['date', 'createdAt', 'reference'] as const
export const AdjustmentListQuery = listQuery(ADJUSTMENT_SORTABLE, {
  locationId: Type.Optional(LocationId),
  from: Type.Optional({ ...TimestampInput, description: 'Dated on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Dated on or before (a date includes the whole day)' }),
})
export type AdjustmentListQuery = Static<typeof AdjustmentListQuery>
export const AdjustmentList = Named('AdjustmentList', listOf(Adjustment))

// ---- Moves (the ledger) ----

export const StockMove = Named('StockMove', Type.Object({
  id: Uuid,
  reference: Type.String({ description: 'The transfer or adjustment reference' }),
  product: Type.Object({ id: Uuid, name: Type.String() }),
  quantity: Type.Number(),
  sourceLocationId: Type.String(),
  destinationLocationId: Type.String(),
  transferId: Nullable(Uuid),
  adjustmentId: Nullable(Uuid),
  doneAt: Timestamp,
}))
export type StockMove = Static<typeof StockMove>

export const MOVE_SORTABLE = ['doneAt', 'quantity', 'reference'] as const
export const MoveListQuery = listQuery(MOVE_SORTABLE, {
  productId: Type.Optional(Uuid),
  locationId: Type.Optional({ ...LocationId, description: 'Moves into or out of this location' }),
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Exact reference, e.g. WH/IN/00001' })),
  from: Type.Optional({ ...TimestampInput, description: 'Done on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Done on or before (a date includes the whole day)' }),
})
export type MoveListQuery = Static<typeof MoveListQuery>
export const StockMoveList = Named('StockMoveList', listOf(StockMove))

/** The event types this module appends for integrators (webhooks, GET /events): data.object is the Transfer. */
export const inventoryEventTypes: PublicEventType[] = [
  { type: 'transfer.done', version: 1, object: Transfer, description: 'A transfer (receipt, delivery, internal) was validated: its stock moved.' },
]
