import { defineModule } from '../../core/module.ts'
import { locationsRoutes } from './locations.routes.ts'
import { LocationsService } from './locations.service.ts'

export type { LocationsService }

declare module '../../core/module.ts' {
  interface Services {
    locations: LocationsService
  }
}

/** Inventory locations; every new organization gets the default ones. */
export const locationsModule = defineModule({
  name: 'locations',
  needs: [],
  async register(app, ctx) {
    const locations = new LocationsService(ctx.db)
    ctx.onOrganizationCreated.push(locations.createDefaults)
    locationsRoutes(app, locations)
    return locations
  },
})
