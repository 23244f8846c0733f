// Tenancy contract fixtures of the licenses module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { EMPTY_ZIP, adminUserId, createLicensedProduct, issueLicense, multipartForm } from '../../../test/helpers/licenses.ts'
import { createUser, defineTenancyFixtures, foreignLicensedProduct, foreignUser } from '../../../test/helpers/tenancy.ts'

/** A license of the organization's first user (admin) on a new licensed product. */
const ownLicense = async (o: TestOrg) => {
  const product = await createLicensedProduct(o)
  const license = await issueLicense(o, { productId: product.id, userId: await adminUserId(o) })
  return { productId: product.id, id: license.id, key: license.key }
}
/** A build of a product the admin holds a license for. */
const ownBuild = async (o: TestOrg) => {
  const { productId } = await ownLicense(o)
  const form = multipartForm({ version: '19.0.1.0.0' }, { name: 'file', filename: 'm.zip', content: EMPTY_ZIP })
  const res = await o.post(`/products/${productId}/builds`, form.body, undefined, { 'content-type': form.contentType })
  if (res.status !== 201) throw new Error(`build: ${res.status} ${JSON.stringify(res.body)}`)
  return { id: res.body.id as string }
}
const license = async (o: TestOrg) => ({ id: (await ownLicense(o)).id })

export default defineTenancyFixtures({
  paths: {
    '/admin/licenses/:id': license,
    '/admin/licenses/:id/suspend': license,
    '/admin/licenses/:id/reinstate': license,
    '/admin/licenses/:id/revoke': license,
    '/products/:id/builds': async (o) => ({ id: (await createLicensedProduct(o)).id }),
    '/portal/downloads/:id/file': ownBuild,
  },
  references: {
    'POST /admin/licenses': {
      body: async (o) => ({ productId: (await createLicensedProduct(o)).id, userId: (await createUser(o, 'customer')).id }),
      unchanged: '/admin/licenses',
      fields: {
        productId: { status: 422, foreign: foreignLicensedProduct },
        userId: { status: 422, foreign: foreignUser },
      },
    },
  },
  lists: {
    '/licenses': async (o) => {
      const l = await ownLicense(o)
      return [l.id, l.key]
    },
    '/admin/licenses': async (o) => {
      const l = await ownLicense(o)
      return [l.id, l.key]
    },
    '/portal/downloads': async (o) => [(await ownBuild(o)).id],
    '/admin/license-holders': async (o) => {
      const customer = await createUser(o, 'customer')
      return [customer.id, customer.email]
    },
  },
})
