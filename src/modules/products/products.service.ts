import { randomBytes, randomUUID } from 'node:crypto'
import type { Principal } from '../../core/auth.ts'
import type { Db, Queryable } from '../../core/db.ts'
import { NotFoundError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { productsRepository as repo } from './products.repository.ts'
import type { CreateProduct, Product, ProductListQuery, UpdateProduct } from './products.schemas.ts'

registerUniqueMessage('products_org_sku_key', 'A product with this sku already exists')

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

export class ProductsService {
  constructor(private readonly db: Db) {}

  /**
   * The product as the caller may read it (CONTRACT "Reference data"):
   * signingSecret is for admins only; customers read the catalogue fields
   * only, without cost and reorderPoint.
   */
  present(p: Product, principal: Principal): Product {
    if (principal.role === 'admin') return p
    const { signingSecret: _secret, ...staff } = p
    if (principal.role !== 'customer') return staff
    const { cost: _cost, reorderPoint: _reorderPoint, ...catalogue } = staff
    return catalogue
  }

  async create(principal: Principal, input: CreateProduct) {
    checkLicensing(input)
    const licensed = input.moduleName != null
    const values = licensed
      ? { billing: 'one_time', activationsLimit: 1, ...input, signingSecret: randomBytes(32).toString('hex') }
      : input
    return this.present(await repo.insert(this.db, principal.organizationId, randomUUID(), values), principal)
  }

  async list(principal: Principal, query: ProductListQuery & PageParams) {
    const page = await repo.list(this.db, principal.organizationId, query)
    return { ...page, data: page.data.map((p) => this.present(p, principal)) }
  }

  /** The full record (secret included) or 404; other modules use it to check references. */
  async get(organizationId: string, id: string, q: Queryable = this.db) {
    const product = await repo.find(q, organizationId, id)
    if (!product) throw new NotFoundError('Product')
    return product
  }

  /** Products among ids; unknown ids are simply absent from the result. */
  findMany(organizationId: string, ids: string[], q: Queryable = this.db) {
    return ids.length ? repo.findMany(q, organizationId, [...new Set(ids)]) : Promise.resolve([])
  }

  async read(principal: Principal, id: string) {
    return this.present(await this.get(principal.organizationId, id), principal)
  }

  async update(principal: Principal, id: string, patch: UpdateProduct) {
    return this.db.tx(async (q) => {
      const current = await this.get(principal.organizationId, id, q)
      const merged = { ...current, ...patch }
      checkLicensing(merged)
      const becomesLicensed = current.moduleName === undefined && patch.moduleName != null
      const extra = becomesLicensed
        ? { billing: merged.billing ?? 'one_time', activationsLimit: merged.activationsLimit ?? 1, signingSecret: randomBytes(32).toString('hex') }
        : {}
      const updated = await repo.update(q, principal.organizationId, id, { ...extra, ...patch })
      if (!updated) throw new NotFoundError('Product')
      return this.present(updated, principal)
    })
  }

  async delete(principal: Principal, id: string) {
    if (!(await repo.delete(this.db, principal.organizationId, id))) throw new NotFoundError('Product')
  }
}
