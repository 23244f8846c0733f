import { randomBytes, randomUUID } from 'node:crypto'
import type { Principal } from '../../core/auth.ts'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { sealColumns, type SecretBox } from '../../core/secrets.ts'
import { productsRepository as repo } from './products.repository.ts'
import type { CreateProduct, Product, ProductListQuery, UpdateProduct } from './products.schemas.ts'

registerUniqueMessage('products_org_sku_key', 'A product with this sku already exists')

/** What a product's stock valuation depends on (docs/products.md "Fields"): its cost in its currency, and whether it is storable. */
export interface CostBasis {
  name: string
  cost: number | null
  currency: string
  type: string
}

/**
 * Called inside the transaction that changes a product's cost, currency or
 * type, the product row locked and not yet written, with what it was and what it becomes: the
 * inventory module revalues the stock on hand there (it needs products, so
 * products cannot call it; it registers from its register()). A hook that
 * throws rolls the change back.
 */
export type CostChangedHook = (q: Queryable, organizationId: string, productId: string, before: CostBasis, after: CostBasis) => Promise<void>

const VALUATION_FIELDS = ['cost', 'currency', 'type'] as const
const costBasis = (p: Product): CostBasis => ({ name: p.name, cost: p.cost ?? null, currency: p.currency, type: p.type })

const LICENSE_FIELDS = ['erpVersion', 'billing', 'interval', 'activationsLimit'] as const

/** The rules of a licensed product, checked on the record as it will be after the write. */
function checkLicensing(p: Partial<CreateProduct>) {
  const problems: string[] = []
  if (p.moduleName == null) {
    for (const f of LICENSE_FIELDS) if (p[f] != null) problems.push(`${f} is only allowed on licensed products (with moduleName)`)
  } else {
    if (!p.erpVersion) problems.push('erpVersion is required for licensed products')
    if (p.billing === 'recurring' && !p.interval) problems.push('interval is required for recurring billing')
    if (p.billing !== 'recurring' && p.interval) problems.push('interval is only allowed for recurring billing')
  }
  if (problems.length) throw new ValidationError(problems)
}

/**
 * The context a product's signing secret is sealed with (docs/secrets.md): the
 * column and the product, so that a sealed value copied to another product's
 * row (one whose secret its organization knows) opens nowhere.
 */
export const signingSecretContext = (productId: string) => `products.signing_secret:${productId}`

export class ProductsService {
  private readonly costHooks: CostChangedHook[] = []

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {}

  /** Registers a hook run when a product's cost, currency or type changes (docs/products.md "Fields"). */
  onCostChanged(hook: CostChangedHook) {
    this.costHooks.push(hook)
  }

  /** Seals signing secrets of an earlier version (plaintext) or of the previous SECRET_KEY (at start). */
  async init() {
    await sealColumns(this.db, this.secrets, { table: 'products', id: 'id', columns: [{ name: 'signing_secret', context: signingSecretContext }] })
  }

  /** A new signing secret, sealed for the product's row. */
  private newSecret(productId: string) {
    return this.secrets.seal(randomBytes(32).toString('hex'), signingSecretContext(productId))
  }

  /** The record as stored, with its signing secret unsealed. */
  private open = (p: Product): Product => (p.signingSecret == null ? p : { ...p, signingSecret: this.secrets.unseal(p.signingSecret, signingSecretContext(p.id)) })

  /**
   * The product as the caller may read it (docs/products.md "Who reads what"):
   * signingSecret is for admins only; customers read the catalogue fields
   * only, without cost and reorderPoint. `p` is as stored: only an admin's
   * answer unseals its signing secret; the others drop it sealed.
   */
  private present(p: Product, principal: Principal): Product {
    if (principal.role === 'admin') return this.open(p)
    const { signingSecret: _secret, ...staff } = p
    if (principal.role !== 'customer') return staff
    const { cost: _cost, reorderPoint: _reorderPoint, ...catalogue } = staff
    return catalogue
  }

  /** A new product's stored values: a licensed one gets its defaults and a signing secret. */
  private newValues(id: string, input: CreateProduct): Record<string, unknown> {
    return input.moduleName != null ? { billing: 'one_time', activationsLimit: 1, ...input, signingSecret: this.newSecret(id) } : input
  }

  /** What a patch also writes: a product becoming licensed gets its defaults and a signing secret. */
  private patchExtras(id: string, current: Product, merged: Partial<CreateProduct>, patch: UpdateProduct) {
    const becomesLicensed = current.moduleName === undefined && patch.moduleName != null
    return becomesLicensed ? { billing: merged.billing ?? 'one_time', activationsLimit: merged.activationsLimit ?? 1, signingSecret: this.newSecret(id) } : {}
  }

  async create(principal: Principal, input: CreateProduct) {
    checkLicensing(input)
    const id = randomUUID()
    return this.present(await repo.insert(this.db, principal.organizationId, id, this.newValues(id, input)), principal)
  }

  /** The ids of the products with these skus, by sku: the key of imports. */
  idsBySku(q: Queryable, organizationId: string, skus: string[]) {
    return repo.idsBySku(q, organizationId, skus)
  }

  /**
   * The rules of create and update beyond the schema for the rows of an
   * import (checkLicensing, on the record as it will be): the problems of
   * each row by its index.
   */
  async importProblems(q: Queryable, organizationId: string, rows: ReadonlyArray<{ id?: string; input: CreateProduct | UpdateProduct }>) {
    const current = new Map((await this.findMany(organizationId, rows.flatMap((r) => (r.id ? [r.id] : [])), q)).map((p) => [p.id, p]))
    const problems = new Map<number, string[]>()
    rows.forEach((r, i) => {
      try {
        checkLicensing(r.id ? { ...current.get(r.id), ...r.input } : r.input)
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err
        problems.set(i, [err.messages].flat())
      }
    })
    return problems
  }

  /**
   * Bulk write of an import, in the caller's transaction
   * (docs/imports.md "Writes"): new products in one statement, patches in one statement after
   * locking their rows; a patch that changes a product's cost, currency or
   * type runs the cost hooks as update does (the stock on hand revalued),
   * for that product.
   */
  async writeMany(q: Queryable, organizationId: string, inserts: CreateProduct[], updates: ReadonlyArray<{ id: string; patch: UpdateProduct }>) {
    const created = await repo.insertMany(q, organizationId, inserts.map((input) => {
      const id = randomUUID()
      return { id, values: this.newValues(id, input) }
    }))
    const current = new Map((await repo.lockMany(q, organizationId, updates.map((u) => u.id))).map((p) => [p.id, this.open(p)]))
    const patches: Array<{ id: string; patch: Record<string, unknown> }> = []
    for (const { id, patch } of updates) {
      const before = current.get(id)
      if (!before) throw new NotFoundError('Product')
      const merged = { ...before, ...patch }
      checkLicensing(merged)
      if (this.costHooks.length > 0 && VALUATION_FIELDS.some((f) => patch[f] !== undefined)) {
        for (const hook of this.costHooks) await hook(q, organizationId, id, costBasis(before), costBasis(merged))
      }
      patches.push({ id, patch: { ...this.patchExtras(id, before, merged, patch), ...patch } })
    }
    const updated = await repo.updateMany(q, organizationId, patches)
    return { created: created.length, updated: updated.length }
  }

  async list(principal: Principal, query: ProductListQuery & PageParams) {
    const page = await repo.list(this.db, principal.organizationId, query)
    return { ...page, data: page.data.map((p) => this.present(p, principal)) }
  }

  /**
   * Every product GET /products lists with these filters, A to Z, read a page at a time by cursor, as a
   * member reads them (never the signing secret): the report run `products` (docs/analytics.md "Types").
   */
  async *exportRows(organizationId: string, filters: Pick<ProductListQuery, 'type'> & { search?: string }): AsyncGenerator<Omit<Product, 'signingSecret'>> {
    let cursor: string | undefined
    do {
      const page = await repo.list(this.db, organizationId, { ...filters, page: 1, limit: 100, sortBy: 'name', sortOrder: 'asc', ...(cursor ? { cursor } : {}) })
      for (const { signingSecret: _secret, ...product } of page.data) yield product
      cursor = page.meta.nextCursor ?? undefined
    } while (cursor)
  }

  /** The full record (secret included) or 404; other modules use it to check references. */
  async get(organizationId: string, id: string, q: Queryable = this.db) {
    return this.open(await this.stored(q, organizationId, id))
  }

  private async locked(q: Queryable, organizationId: string, id: string) {
    const product = await repo.lock(q, organizationId, id)
    if (!product) throw new NotFoundError('Product')
    return this.open(product)
  }

  private async stored(q: Queryable, organizationId: string, id: string) {
    const product = await repo.find(q, organizationId, id)
    if (!product) throw new NotFoundError('Product')
    return product
  }

  /** Products among ids; unknown ids are simply absent from the result. */
  findMany(organizationId: string, ids: string[], q: Queryable = this.db) {
    return ids.length ? repo.findMany(q, organizationId, [...new Set(ids)]).then((ps) => ps.map(this.open)) : Promise.resolve([])
  }

  async read(principal: Principal, id: string) {
    return this.present(await this.stored(this.db, principal.organizationId, id), principal)
  }

  async update(principal: Principal, id: string, patch: UpdateProduct) {
    return this.db.tx(async (q) => {
      // A change that moves the stock's value locks the row first: the old cost is the one it replaces, under the lock.
      const revalues = this.costHooks.length > 0 && VALUATION_FIELDS.some((f) => patch[f] !== undefined)
      const current = revalues ? await this.locked(q, principal.organizationId, id) : await this.get(principal.organizationId, id, q)
      const merged = { ...current, ...patch }
      checkLicensing(merged)
      const extra = this.patchExtras(id, current, merged, patch)
      // The hooks run before the row is written: their locks (the stock's quants) come after the product's, whatever the patch changes.
      if (revalues) for (const hook of this.costHooks) await hook(q, principal.organizationId, id, costBasis(current), costBasis(merged))
      const updated = await repo.update(q, principal.organizationId, id, { ...extra, ...patch })
      if (!updated) throw new NotFoundError('Product')
      return this.present(updated, principal)
    })
  }

  async delete(principal: Principal, id: string) {
    if (!(await repo.delete(this.db, principal.organizationId, id))) throw new NotFoundError('Product')
  }
}
