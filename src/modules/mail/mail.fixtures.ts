// Tenancy contract fixtures of the mail module (see test/helpers/tenancy.ts).
import { createInvoice } from '../../../test/helpers/sales-fixtures.ts'
import { defineTenancyFixtures } from '../../../test/helpers/tenancy.ts'

export default defineTenancyFixtures({
  lists: {
    // An invoice sent by e-mail waits in the outbox.
    '/admin/outbox': async (o) => {
      const invoice = await createInvoice(o)
      const sent = await o.post(`/invoices/${invoice.id}/send`, {})
      if (sent.status !== 200) throw new Error(`send: ${sent.status} ${JSON.stringify(sent.body)}`)
      const outbox = await o.get(`/admin/outbox?to=${encodeURIComponent(sent.body.to)}`)
      return [...outbox.body.data.map((m: { id: string }) => m.id), sent.body.to]
    },
  },
})
