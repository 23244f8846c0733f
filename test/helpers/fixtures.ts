import { unique, type TestOrg } from './app.ts'
import { salesPathFixtures, salesRouteBodies } from './sales-fixtures.ts'

/**
 * For every route path with parameters: makes a record owned by `owner` and
 * returns the path parameters that name it. The tenancy contract test
 * (test/tenancy.test.ts) calls each route with another organization's
 * credential and expects 404; a route whose path has no entry here fails that
 * test, so a module is covered the moment it registers its routes.
 */
/** A multipart/form-data body built by hand (TestOrg helpers send strings as they are). */
export function multipartForm(fields: Record<string, string>, file?: { name: string; filename: string; content: Buffer }) {
  const boundary = `----bp${unique('b')}`
  const parts: Buffer[] = []
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: application/zip\r\n\r\n`))
    parts.push(file.content, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** The smallest valid ZIP: an empty archive. */
export const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)])

const licensedProduct = async (o: TestOrg) =>
  (await o.post('/products', { name: 'Licensed', moduleName: unique('m').toLowerCase(), erpVersion: '19.0' })).body.id as string
/** A license of the organization's first user (admin) on a new licensed product. */
const ownLicense = async (o: TestOrg) => {
  const productId = await licensedProduct(o)
  const userId = (await o.get('/auth/me')).body.user.id
  return { productId, licenseId: (await o.post('/admin/licenses', { productId, userId })).body.id as string }
}

/** A monthly subscription of the organization's first user, bought through the local processor's checkout page. */
const ownSubscription = async (o: TestOrg) => {
  const product = await o.post('/products', { name: 'Monthly', price: 1000, moduleName: unique('s').toLowerCase(), erpVersion: '19.0', billing: 'recurring', interval: 'month' })
  const checkout = await o.post('/billing/checkout', { items: [{ productId: product.body.id, quantity: 1 }], successUrl: 'https://example.com/ok', cancelUrl: 'https://example.com/no' })
  await o.post(`${new URL(checkout.body.url).pathname.replace(/^\/api/, '')}/complete`)
  return (await o.get('/billing/subscriptions')).body[0].stripeSubscriptionId as string
}

export const pathFixtures: Record<string, (owner: TestOrg) => Promise<Record<string, string>>> = {
  ...salesPathFixtures,
  '/users/:id': async (o) => ({ id: (await o.post('/users', { name: 'U', email: `${unique('u')}@example.com`, password: 'long enough password', role: 'member' })).body.id }),
  '/api-keys/:id': async (o) => ({ id: (await o.post('/api-keys', { name: 'k', environment: 'test' })).body.id }),
  '/contacts/:id': async (o) => ({ id: (await o.post('/contacts', { name: 'C' })).body.id }),
  '/products/:id': async (o) => ({ id: (await o.post('/products', { name: 'P' })).body.id }),
  '/employees/:id': async (o) => ({ id: (await o.post('/employees', { name: 'E' })).body.id }),
  '/admin/licenses/:id': async (o) => ({ id: (await ownLicense(o)).licenseId }),
  '/admin/licenses/:id/suspend': async (o) => ({ id: (await ownLicense(o)).licenseId }),
  '/admin/licenses/:id/reinstate': async (o) => ({ id: (await ownLicense(o)).licenseId }),
  '/admin/licenses/:id/revoke': async (o) => ({ id: (await ownLicense(o)).licenseId }),
  '/products/:id/builds': async (o) => ({ id: await licensedProduct(o) }),
  '/portal/downloads/:id/file': async (o) => {
    const { productId } = await ownLicense(o)
    const form = multipartForm({ version: '19.0.1.0.0' }, { name: 'file', filename: 'm.zip', content: EMPTY_ZIP })
    return { id: (await o.post(`/products/${productId}/builds`, form.body, undefined, { 'content-type': form.contentType })).body.id }
  },
  '/billing/subscriptions/:id': async (o) => ({ id: await ownSubscription(o) }),
  '/billing/subscriptions/:id/cancel': async (o) => ({ id: await ownSubscription(o) }),
  '/billing/invoices/:id': async (o) => {
    await ownSubscription(o)
    return { id: (await o.get('/billing/invoices')).body.data[0].id }
  },
  '/billing/payment-methods/:id': async (o) => ({ id: (await o.post('/billing/payment-methods', { paymentMethodId: 'pm_card_visa' })).body.id }),
  '/inventory/locations/:id': async (o) => ({ id: (await o.post('/inventory/locations', { code: unique('L').toUpperCase().slice(0, 20) })).body.id }),
}

/**
 * A valid body for routes whose body schema would otherwise answer 422 before
 * the handler looks the record up. Keyed by "METHOD path".
 */
export const routeBodies: Record<string, unknown> = {
  ...salesRouteBodies,
  'PATCH /users/:id': { name: 'Renamed' },
  'PATCH /contacts/:id': { name: 'Renamed' },
  'PATCH /products/:id': { name: 'Renamed' },
  'PATCH /employees/:id': { name: 'Renamed' },
  'PATCH /inventory/locations/:id': { name: 'Renamed' },
}

/** Routes with parameters that are not records of an organization (checked elsewhere). */
export const tenancyExempt = new Set<string>(['POST /admin/jobs/:name/run'])
