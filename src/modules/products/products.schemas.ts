import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'

export const ProductType = StringEnum(['storable', 'consumable', 'service'] as const)
export const Billing = StringEnum(['one_time', 'recurring'] as const)
export const Interval = StringEnum(['month', 'year'] as const)
// Bounded so every amount is exact in JSON and fits the bigint column (beyond it the database refused with 500).
const Cents = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Integer amount in the smallest currency unit' })
const Currency = Type.String({ pattern: '^[a-z]{3}$', maxLength: 3, description: 'Lower-case ISO 4217 code' })
const ErpVersion = Type.String({ pattern: '^[0-9]{1,3}\\.0$', maxLength: 5, description: 'ERP major version, e.g. 18.0' })
const ModuleName = Type.String({ pattern: '^[a-z][a-z0-9_]{1,63}$', maxLength: 64, description: 'Technical name of the connector module' })

export const Product = Named('Product', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String(),
  sku: Nullable(Type.String()),
  description: Nullable(Type.String()),
  price: Type.Integer(),
  currency: Type.String(),
  type: ProductType,
  uom: Type.String(),
  reorderPoint: Type.Optional(Type.Number({ description: 'Absent from the answers to customers' })),
  cost: Type.Optional(Nullable(Type.Integer({ description: 'Cents; absent from the answers to customers' }))),
  licensed: Type.Boolean({ description: 'True when the product is a connector module sold with licenses' }),
  moduleName: Type.Optional(Type.String()),
  erpVersion: Type.Optional(Type.String()),
  billing: Type.Optional(Billing),
  interval: Type.Optional(Nullable(Interval)),
  activationsLimit: Type.Optional(Type.Integer()),
  signingSecret: Type.Optional(Type.String({ description: 'HMAC key of the license client endpoints; shown to admins only' })),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}))
export type Product = Static<typeof Product>

const writable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  sku: Nullable(Type.String({ minLength: 1, maxLength: 64 })),
  description: Nullable(Type.String({ maxLength: 5000 })),
  price: Cents,
  currency: Currency,
  type: ProductType,
  uom: Type.String({ minLength: 1, maxLength: 20 }),
  reorderPoint: Type.Number({ minimum: 0, maximum: 1_000_000_000, description: 'Stock level at which to reorder, in the unit of measure' }),
  cost: Nullable(Cents),
  moduleName: ModuleName,
  erpVersion: ErpVersion,
  billing: Billing,
  interval: Nullable(Interval),
  activationsLimit: Type.Integer({ minimum: 1, maximum: 10000 }),
}

export const CreateProductBody = Type.Object(
  { ...Type.Partial(Type.Object(writable)).properties, name: writable.name },
  { additionalProperties: false },
)
export type CreateProduct = Static<typeof CreateProductBody>
export const UpdateProductBody = Type.Partial(Type.Object(writable), { additionalProperties: false, minProperties: 1 })
export type UpdateProduct = Static<typeof UpdateProductBody>

export const PRODUCT_SORTABLE = ['name', 'price', 'sku', 'createdAt'] as const
export const ProductListQuery = listQuery(PRODUCT_SORTABLE, {
  type: Type.Optional(ProductType),
  licensed: Type.Optional(Type.Boolean()),
  moduleName: Type.Optional(Type.String({ maxLength: 64 })),
  erpVersion: Type.Optional(ErpVersion),
})
export type ProductListQuery = Static<typeof ProductListQuery>
export const ProductList = Named('ProductList', listOf(Product))
