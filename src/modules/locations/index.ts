import type { App } from '../../app.ts'
import type { ModuleContext } from '../services.ts'
import { locationsRoutes } from './locations.routes.ts'
import { LocationsService } from './locations.service.ts'

declare module '../services.ts' {
  interface Services {
    locations: LocationsService
  }
}

export async function locationsModule(app: App, ctx: ModuleContext) {
  const locations = new LocationsService(ctx.db)
  ctx.services.locations = locations
  ctx.onOrganizationCreated.push(locations.createDefaults)
  locationsRoutes(app, locations)
}
