import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, StateConflictError, ValidationError } from '../../core/errors.ts'
import type { Services } from '../../core/module.ts'
import type { PageParams } from '../../core/pagination.ts'
import { lineTotal } from '../../core/money.ts'
import { manufacturingRepository as repo, productionRepository, type BomValues } from './manufacturing.repository.ts'
import type { Bom, BomCost, BomListQuery, CreateBom, UpdateBom } from './manufacturing.schemas.ts'

type Deps = Pick<Services, 'products'>

/** How deep a phantom explosion may go before it is taken for a cycle (a guard: a real kit is a few levels deep). */
export const MAX_PHANTOM_DEPTH = 32

/**
 * Bills of materials (docs/manufacturing.md "BOMs"); production and work
 * orders are ProductionService's.
 */
export class ManufacturingService {
  constructor(
    private readonly db: Db,
    private readonly deps: Deps,
  ) {}

  /**
   * For the analytics module (GET /analytics/overview): production orders
   * that became done in the range (YYYY-MM-DD, whole UTC days) and the units
   * produced in it (the sum of every produce posting dated in the range).
   */
  productionFigures(organizationId: string, range: { from: string; to: string }) {
    return productionRepository.periodFigures(this.db, organizationId, range)
  }

  listBoms(organizationId: string, query: BomListQuery & PageParams) {
    return repo.listBoms(this.db, organizationId, query)
  }

  async getBom(organizationId: string, id: string, q: Queryable = this.db): Promise<Bom> {
    const bom = await repo.findBom(q, organizationId, id)
    if (!bom) throw new NotFoundError('BOM')
    return bom
  }

  createBom(organizationId: string, input: CreateBom) {
    return this.db.tx(async (q) => {
      const id = randomUUID()
      const values = await this.resolve(q, organizationId, id, input, undefined)
      await repo.insertBom(q, organizationId, id, values)
      return this.getBom(organizationId, id, q)
    })
  }

  updateBom(organizationId: string, id: string, patch: UpdateBom) {
    return this.db.tx(async (q) => {
      const current = await repo.findBom(q, organizationId, id, true)
      if (!current) throw new NotFoundError('BOM')
      const values = await this.resolve(q, organizationId, id, patch, current)
      await repo.updateBom(q, organizationId, id, values, patch.components !== undefined)
      return this.getBom(organizationId, id, q)
    })
  }

  deleteBom(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const bom = await repo.findBom(q, organizationId, id, true)
      if (!bom) throw new NotFoundError('BOM')
      if (await repo.usedByOpenOrder(q, organizationId, id)) throw new StateConflictError('BOM is used by a production order that is not done or cancelled')
      await repo.deleteBom(q, organizationId, id)
    })
  }

  /**
   * The cost of one run of the BOM (its `quantity` units): the sum of
   * round(component quantity x component cost), and per unit of the product
   * round(total / quantity). Components are costed at their product's cost,
   * phantom kits included (no explosion); a product without a cost counts 0
   * and is named in missingCosts.
   */
  async bomCost(organizationId: string, id: string): Promise<BomCost> {
    const bom = await this.getBom(organizationId, id)
    const products = new Map((await this.deps.products.findMany(organizationId, bom.components.map((c) => c.productId))).map((p) => [p.id, p]))
    const missing = new Set<string>()
    const components = bom.components.map((c) => {
      const unitCost = products.get(c.productId)?.cost ?? null
      if (unitCost === null) missing.add(c.productId)
      return { productId: c.productId, name: c.name, quantity: c.quantity, unitCost, total: unitCost === null ? 0 : lineTotal(c.quantity, unitCost) }
    })
    const total = components.reduce((s, c) => s + c.total, 0)
    return { bomId: bom.id, product: bom.product, quantity: bom.quantity, components, total, unitCost: Math.round(total / bom.quantity), missingCosts: [...missing] }
  }

  /** The stored values of a create or a patch over `current`: products checked (422; components storable), uoms defaulted, no phantom cycle (422). */
  private async resolve(q: Queryable, organizationId: string, bomId: string, input: UpdateBom, current: Bom | undefined): Promise<BomValues> {
    const productId = input.productId ?? current!.product.id
    const componentInput = input.components ?? current?.components ?? []
    const found = new Map((await this.deps.products.findMany(organizationId, [productId, ...componentInput.map((c) => c.productId)], q)).map((p) => [p.id, p]))
    const errors: string[] = []
    const product = found.get(productId)
    if (!product) errors.push('productId does not name a product of this organization')
    componentInput.forEach((c, i) => {
      const component = found.get(c.productId)
      if (!component) errors.push(`components[${i}].productId does not name a product of this organization`)
      else if (c.productId === productId) errors.push(`components[${i}].productId is the product the BOM makes`)
      // Only storable products move through stock (docs/manufacturing.md "BOMs"): a component line of another type is refused here, not at the order.
      else if (component.type !== 'storable') errors.push(`components[${i}].productId: ${component.name} is a ${component.type} product; only storable products move through stock`)
    })
    const seen = new Set<string>()
    componentInput.forEach((c, i) => {
      if (seen.has(c.productId)) errors.push(`components[${i}].productId appears twice; give one line per product`)
      seen.add(c.productId)
    })
    if (errors.length) throw new ValidationError(errors)
    const values: BomValues = {
      name: input.name ?? current!.name,
      productId,
      quantity: input.quantity ?? current?.quantity ?? 1,
      uom: input.uom ?? (input.productId === undefined && current ? current.uom : product!.uom),
      type: input.type ?? current?.type ?? 'manufacture',
      components: componentInput.map((c) => ({ productId: c.productId, quantity: c.quantity, uom: c.uom ?? found.get(c.productId)!.uom })),
      operations: input.operations ?? current?.operations ?? [],
    }
    await this.checkPhantomCycle(q, organizationId, bomId, values)
    return values
  }

  /**
   * 422 when saving this BOM would let a phantom explosion come back to a
   * product it started from: from each component, follow the phantom BOMs
   * (every one of the product, this BOM as it will be saved included) down
   * their components; reaching the BOM's own product is a cycle.
   */
  private async checkPhantomCycle(q: Queryable, organizationId: string, bomId: string, v: BomValues) {
    // Edges product -> component of the phantom BOMs, this one as it will be.
    const edges = new Map<string, string[]>()
    const addEdge = (from: string, to: string) => edges.set(from, [...(edges.get(from) ?? []), to])
    if (v.type === 'phantom') for (const c of v.components) addEdge(v.productId, c.productId)
    const parent = new Map<string, string>()
    let frontier = [...new Set(v.components.map((c) => c.productId))]
    for (const p of frontier) parent.set(p, v.productId)
    for (let depth = 0; frontier.length; depth++) {
      if (depth > MAX_PHANTOM_DEPTH) throw new ValidationError(`components: phantom BOMs nest deeper than ${MAX_PHANTOM_DEPTH} levels`)
      for (const row of await repo.phantomComponents(q, organizationId, frontier, bomId)) addEdge(row.bom_product_id, row.product_id)
      const next: string[] = []
      for (const from of frontier) {
        for (const to of edges.get(from) ?? []) {
          if (to === v.productId) {
            const path = [to, from]
            for (let p = parent.get(from); p !== undefined && p !== v.productId; p = parent.get(p)) path.push(p)
            path.push(v.productId)
            throw new ValidationError(`components: phantom BOM cycle ${path.reverse().join(' -> ')} (a phantom BOM may not contain, directly or through other phantom BOMs, the product it makes)`)
          }
          if (!parent.has(to)) {
            parent.set(to, from)
            next.push(to)
          }
        }
      }
      frontier = next
    }
  }
}
