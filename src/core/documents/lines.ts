import { Type } from 'typebox'
import type { Queryable } from '../db.ts'
import { ValidationError } from '../errors.ts'
import { documentTotals } from '../money.ts'
import { Named, Nullable } from '../schemas.ts'

/** What a line needs of a product: the products module's service satisfies it. */
export interface ProductLookup {
  findMany(organizationId: string, ids: string[], q: Queryable): Promise<Array<{ id: string; name: string; price: number; currency: string }>>
}

export const Quantity = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000 })
export const UnitPrice = Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Cents' })
export const Percent = (description: string) => Type.Number({ minimum: 0, maximum: 100, description })
export const Discount = Percent('Percentage taken off the line amount (10 reduces the line by 10 percent)')
export const TaxRate = Percent('Tax rate of the line in percent; taxAmount is the sum of round(line total * taxRate / 100)')

/** A line as a client sends it to any commercial document. */
export interface LineRequest {
  productId?: string
  description?: string
  quantity: number
  unitPrice?: number
  discount?: number
  taxRate?: number
}

/** A priced line as stored on a document (JSON). */
export interface PricedLine {
  productId: string | null
  /** The product's name when the line names a product. */
  productName: string | null
  description: string
  quantity: number
  unitPrice: number
  discount: number
  taxRate: number | null
  total: number
}

export interface PricedDocument {
  lines: PricedLine[]
  subtotal: number
  taxAmount: number
  total: number
}

/** A line of a sales document (quotation, order) as the API shows it. */
export const SalesLine = Named('SalesLine', Type.Object({
  productId: Nullable(Type.String({ format: 'uuid', maxLength: 36 })),
  productName: Nullable(Type.String()),
  quantity: Type.Number(),
  unitPrice: Type.Integer({ description: 'Cents' }),
  discount: Type.Number({ description: 'Percent of the line amount' }),
  taxRate: Nullable(Type.Number({ description: 'Percent' })),
  total: Type.Integer({ description: 'Cents: round(quantity * unitPrice * (100 - discount) / 100)' }),
}))

export const toSalesLine = (l: PricedLine) => ({
  productId: l.productId, productName: l.productName, quantity: l.quantity, unitPrice: l.unitPrice, discount: l.discount, taxRate: l.taxRate, total: l.total,
})

/**
 * Resolves the products named by the lines, fills unitPrice and description
 * from them where the client left them out, and computes every total. All
 * problems are reported at once (422).
 */
export async function priceLines(
  products: ProductLookup,
  organizationId: string,
  requests: readonly LineRequest[],
  currency: string,
  q: Queryable,
): Promise<PricedDocument> {
  const ids = requests.flatMap((l) => (l.productId ? [l.productId] : []))
  const found = new Map((await products.findMany(organizationId, ids, q)).map((p) => [p.id, p]))
  const problems: string[] = []
  const lines = requests.map((l, i): Omit<PricedLine, 'total'> => {
    const product = l.productId ? found.get(l.productId) : undefined
    if (l.productId && !product) problems.push(`lineItems.${i}.productId does not name a product of this organization`)
    if (l.unitPrice === undefined && product && product.currency !== currency) {
      problems.push(`lineItems.${i}.unitPrice is required: the product is priced in ${product.currency}, the document in ${currency}`)
    }
    if (l.unitPrice === undefined && !l.productId) problems.push(`lineItems.${i}.unitPrice is required without productId`)
    if (l.description === undefined && !l.productId) problems.push(`lineItems.${i}.description is required without productId`)
    return {
      productId: l.productId ?? null,
      productName: product?.name ?? null,
      description: l.description ?? product?.name ?? '',
      quantity: l.quantity,
      unitPrice: l.unitPrice ?? product?.price ?? 0,
      discount: l.discount ?? 0,
      taxRate: l.taxRate ?? null,
    }
  })
  if (problems.length) throw new ValidationError(problems)
  const totals = documentTotals(lines)
  return {
    lines: lines.map((l, i) => ({ ...l, total: totals.lineTotals[i] })),
    subtotal: totals.subtotal,
    taxAmount: totals.taxAmount,
    total: totals.total,
  }
}
