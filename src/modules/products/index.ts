import { defineModule } from '../../core/module.ts'
import { productsRoutes } from './products.routes.ts'
import { ProductsService } from './products.service.ts'

export type { ProductsService }
export { signingSecretContext } from './products.service.ts'
export type { CostBasis, CostChangedHook } from './products.service.ts'
export type { Product } from './products.schemas.ts'
export { CreateProductBody, UpdateProductBody } from './products.schemas.ts'

declare module '../../core/module.ts' {
  interface Services {
    products: ProductsService
  }
}

/** Products, services and licensed connector modules (docs/products.md "Fields"). */
export const productsModule = defineModule({
  name: 'products',
  needs: [],
  async register(app, ctx) {
    const products = new ProductsService(ctx.db, ctx.secrets)
    await products.init()
    productsRoutes(app, products)
    return products
  },
})
