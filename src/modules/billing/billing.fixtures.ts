// Tenancy contract fixtures of the billing module (see test/helpers/tenancy.ts).
import type { TestOrg } from '../../../test/helpers/app.ts'
import { CANCEL_URL, SUCCESS_URL } from '../../../test/helpers/billing.ts'
import { createLicensedProduct } from '../../../test/helpers/licenses.ts'
import { defineTenancyFixtures, foreignLicensedProduct, foreignPaymentMethod } from '../../../test/helpers/tenancy.ts'

/** A monthly subscription of the organization's first user, bought through the local processor's checkout page. */
const ownSubscription = async (o: TestOrg) => {
  const product = await createLicensedProduct(o, { price: 1000, billing: 'recurring', interval: 'month' })
  const checkout = await o.post('/billing/checkout', { items: [{ productId: product.id, quantity: 1 }], successUrl: SUCCESS_URL, cancelUrl: CANCEL_URL })
  if (checkout.status !== 201) throw new Error(`checkout: ${checkout.status} ${JSON.stringify(checkout.body)}`)
  // Pay as the page's form does: the action carries the token of the checkout url.
  const page = new URL(checkout.body.url)
  await o.post(`${page.pathname.replace(/^\/api/, '')}/complete${page.search}`)
  const subscriptions = (await o.get('/billing/subscriptions')).body as Array<{ stripeSubscriptionId: string; product: { id: string } }>
  const bought = subscriptions.find((s) => s.product.id === product.id)
  if (!bought) throw new Error(`no subscription after checkout: ${JSON.stringify(subscriptions)}`)
  return bought.stripeSubscriptionId
}
const subscription = async (o: TestOrg) => ({ id: await ownSubscription(o) })
const processorInvoice = async (o: TestOrg) => {
  const sub = await ownSubscription(o)
  const invoices = (await o.get('/billing/invoices?limit=100')).body.data as Array<{ id: string; subscriptionId: string | null }>
  const invoice = invoices.find((i) => i.subscriptionId === sub)
  if (!invoice) throw new Error(`no invoice of subscription ${sub}`)
  return { id: invoice.id }
}
const paymentMethod = async (o: TestOrg) => {
  const res = await o.post('/billing/payment-methods', { paymentMethodId: 'pm_card_visa' })
  if (res.status !== 201) throw new Error(`payment method: ${res.status} ${JSON.stringify(res.body)}`)
  return { id: res.body.id as string }
}

export default defineTenancyFixtures({
  paths: {
    '/billing/subscriptions/:id': subscription,
    '/billing/subscriptions/:id/cancel': subscription,
    '/billing/invoices/:id': processorInvoice,
    '/billing/payment-methods/:id': paymentMethod,
    '/billing/payment-methods/:id/default': paymentMethod,
  },
  references: {
    'POST /billing/checkout': {
      body: async (o) => ({ items: [{ productId: (await createLicensedProduct(o)).id, quantity: 1 }], successUrl: SUCCESS_URL, cancelUrl: CANCEL_URL }),
      unchanged: '/portal/billing',
      fields: { 'items[].productId': { status: 422, foreign: foreignLicensedProduct } },
    },
    'POST /billing/payment-methods': {
      body: async () => ({ paymentMethodId: 'pm_card_visa' }),
      unchanged: '/billing/payment-methods',
      fields: { paymentMethodId: { status: 422, foreign: foreignPaymentMethod } },
    },
  },
  lists: {
    '/billing/subscriptions': async (o) => [await ownSubscription(o)],
    '/billing/invoices': async (o) => [(await processorInvoice(o)).id],
    '/billing/payment-methods': async (o) => [(await paymentMethod(o)).id],
    // The dashboard: the owner's processor customer and subscription.
    '/portal/billing': async (o) => {
      const sub = await ownSubscription(o)
      return [sub, (await o.get('/portal/billing')).body.customerId]
    },
  },
})
