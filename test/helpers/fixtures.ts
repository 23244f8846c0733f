import { unique, type TestOrg } from './app.ts'

/**
 * For every route path with parameters: makes a record owned by `owner` and
 * returns the path parameters that name it. The tenancy contract test
 * (test/tenancy.test.ts) calls each route with another organization's
 * credential and expects 404; a route whose path has no entry here fails that
 * test, so a module is covered the moment it registers its routes.
 */
export const pathFixtures: Record<string, (owner: TestOrg) => Promise<Record<string, string>>> = {
  '/users/:id': async (o) => ({ id: (await o.post('/users', { name: 'U', email: `${unique('u')}@example.com`, password: 'long enough password', role: 'member' })).body.id }),
  '/api-keys/:id': async (o) => ({ id: (await o.post('/api-keys', { name: 'k', environment: 'test' })).body.id }),
  '/contacts/:id': async (o) => ({ id: (await o.post('/contacts', { name: 'C' })).body.id }),
  '/products/:id': async (o) => ({ id: (await o.post('/products', { name: 'P' })).body.id }),
  '/employees/:id': async (o) => ({ id: (await o.post('/employees', { name: 'E' })).body.id }),
  '/inventory/locations/:id': async (o) => ({ id: (await o.post('/inventory/locations', { code: unique('L').toUpperCase().slice(0, 20) })).body.id }),
}

/**
 * A valid body for routes whose body schema would otherwise answer 422 before
 * the handler looks the record up. Keyed by "METHOD path".
 */
export const routeBodies: Record<string, unknown> = {
  'PATCH /users/:id': { name: 'Renamed' },
  'PATCH /contacts/:id': { name: 'Renamed' },
  'PATCH /products/:id': { name: 'Renamed' },
  'PATCH /employees/:id': { name: 'Renamed' },
  'PATCH /inventory/locations/:id': { name: 'Renamed' },
}

/** Routes with parameters that are not records of an organization (checked elsewhere). */
export const tenancyExempt = new Set<string>(['POST /admin/jobs/:name/run'])
