import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { productsRoutes } from './products.routes.ts'
import { ProductsService } from './products.service.ts'

declare module '../services.ts' {
  interface Services {
    products: ProductsService
  }
}

export async function productsModule(app: App, ctx: ModuleContext) {
  const products = new ProductsService(ctx.db)
  ctx.services.products = products
  productsRoutes(app, products)
}
