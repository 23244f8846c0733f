import type { Schemas } from '../../../sdk/src/index.ts'
import { useSession } from '../session.tsx'
import { ActionButton, Badge, Card, date, ErrorMessage, Field, Form, ListView, Loading, money, Page, Table, useLoad, useUrlFilters, type Tone } from '../ui.tsx'
import { useFreshOnBack } from './Store.tsx'

type Subscription = Schemas['Subscription']

/** The local processor's test cards (docs/billing.md); with Stripe, cards are added in its billing portal. */
const TEST_CARDS = [
  ['pm_card_visa', 'Visa (test)'],
  ['pm_card_mastercard', 'Mastercard (test)'],
  ['pm_card_amex', 'American Express (test)'],
  ['pm_card_discover', 'Discover (test)'],
  ['pm_card_chargeDeclined', 'A card that declines at renewal (test)'],
] as const

/** One row per processor subscription (the API lists one entry per license it renews). */
function bySubscription(entries: Subscription[]) {
  const out = new Map<string, Subscription & { products: string[] }>()
  for (const e of entries) {
    const s = out.get(e.stripeSubscriptionId)
    if (s) s.products.push(e.product.name)
    else out.set(e.stripeSubscriptionId, { ...e, products: [e.product.name] })
  }
  return [...out.values()]
}

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover', jcb: 'JCB', unionpay: 'UnionPay', diners: 'Diners Club' }
const brand = (b: string) => BRANDS[b] ?? b

/** The tone of a status as the payment processor words it: a subscription's, a checkout order's, an invoice's. */
const processorTone: Record<string, Tone> = {
  active: 'good',
  trialing: 'good',
  paid: 'good',
  open: 'warn',
  past_due: 'warn',
  unpaid: 'warn',
  incomplete: 'warn',
  canceled: 'bad',
  cancelled: 'bad',
  refunded: 'bad',
  incomplete_expired: 'bad',
}
const StatusBadge = ({ status }: { status: string }) => <Badge tone={processorTone[status] ?? 'neutral'}>{status.replaceAll('_', ' ')}</Badge>

const decimalMoney = (price: string, currency: string) => money(Math.round(Number(price) * 100), currency)

/** Account, billing (docs/billing.md "Endpoints"): subscriptions, payment methods, the processor's invoices and the orders from checkout. */
export function BillingPage() {
  const { api } = useSession()
  const dash = useLoad(() => api.get('/api/portal/billing'), [])
  const d = dash.data
  useFreshOnBack()
  // The invoices' page lives in the address, as every list's does.
  const f = useUrlFilters()
  const { page } = f
  const invoices = useLoad(() => api.get('/api/billing/invoices', { params: { query: { page, limit: 10 } } }), [page])
  const reload = () => (dash.reload(), invoices.reload())
  const openPortal = async () => {
    const { url } = await api.post('/api/billing/portal-session', { body: { returnUrl: `${window.location.origin}/billing` } })
    window.location.assign(url)
    await new Promise(() => undefined)
  }

  return (
    <Page title="Billing" actions={d?.customerId ? <ActionButton action={openPortal}>Open the billing portal</ActionButton> : undefined}>
      <ErrorMessage error={dash.error} />
      {!d && !dash.error && <Loading />}
      {d && (
        <>
          <Card title="Subscriptions">
            <Table
              caption="Subscriptions"
              rows={bySubscription(d.subscriptions)}
              rowKey={(s) => s.stripeSubscriptionId}
              empty="No subscriptions. Connectors sold by subscription renew here; one-time purchases are listed under Orders."
              columns={[
                { label: 'Product', cell: (s) => s.products.join(', ') },
                { label: 'Price', align: 'right', cell: (s) => decimalMoney(s.product.price, s.product.currency) },
                { label: 'Status', cell: (s) => <StatusBadge status={s.status} /> },
                {
                  label: 'Renewal',
                  cell: (s) =>
                    s.cancelAtPeriodEnd ? (
                      <Badge tone="warn">{`ends ${date(s.cancelAt)}`}</Badge>
                    ) : (
                      <span>renews {s.license.expiresAt ? `on ${date(s.license.expiresAt)}` : 'automatically'}</span>
                    ),
                },
                { label: 'Subscription', cell: (s) => <code>{s.stripeSubscriptionId}</code> },
                {
                  label: 'Actions',
                  cell: (s) =>
                    s.cancelAtPeriodEnd ? (
                      <span className="muted">Licenses stay active until then</span>
                    ) : (
                      <ActionButton
                        variant="danger"
                        confirm={`Cancel ${s.products.join(', ')} at the end of the paid period? Its licenses stay active until then.`}
                        action={() => api.post('/api/billing/subscriptions/{id}/cancel', { params: { path: { id: s.stripeSubscriptionId } } })}
                        onDone={reload}
                      >
                        Cancel at period end <span className="visually-hidden">{s.products.join(', ')}</span>
                      </ActionButton>
                    ),
                },
              ]}
            />
          </Card>
          <Card title="Payment methods">
            <Table
              caption="Payment methods"
              rows={d.paymentMethods}
              rowKey={(m) => m.id}
              empty="No payment method yet. The card used at checkout is kept here."
              columns={[
                {
                  label: 'Card',
                  cell: (m) => (
                    <span>
                      {brand(m.brand)} •••• {m.last4} {m.isDefault && <Badge tone="info">default</Badge>}
                    </span>
                  ),
                },
                { label: 'Expires', cell: (m) => `${String(m.expiryMonth).padStart(2, '0')}/${m.expiryYear}` },
                {
                  label: 'Actions',
                  cell: (m) => (
                    <div className="actions">
                      {!m.isDefault && (
                        <ActionButton action={() => api.post('/api/billing/payment-methods/{id}/default', { params: { path: { id: m.id } } })} onDone={reload}>
                          Make default <span className="visually-hidden">{`${brand(m.brand)} ending ${m.last4}`}</span>
                        </ActionButton>
                      )}
                      <ActionButton variant="danger" confirm={`Remove the card ending ${m.last4}?`} action={() => api.delete('/api/billing/payment-methods/{id}', { params: { path: { id: m.id } } })} onDone={reload}>
                        Remove <span className="visually-hidden">{`${brand(m.brand)} ending ${m.last4}`}</span>
                      </ActionButton>
                    </div>
                  ),
                },
              ]}
            />
            {d.processor === 'local' ? (
              <Form
                label="Add a card"
                submitLabel="Add card"
                submit={(data) => api.post('/api/billing/payment-methods', { body: { paymentMethodId: String(data.get('paymentMethodId')), setDefault: data.get('setDefault') === 'on' } })}
                onDone={reload}
              >
                <div className="row">
                  <Field label="Card" hint="The local payment processor takes test cards only">
                    <select name="paymentMethodId" defaultValue="pm_card_visa">
                      {TEST_CARDS.map(([id, label]) => (
                        <option key={id} value={id}>
                          {label}
                        </option>
                      ))}
                    </select>
                  </Field>
                  <label className="check">
                    <input type="checkbox" name="setDefault" /> Make it the default
                  </label>
                </div>
              </Form>
            ) : (
              <p className="muted">Add cards in the billing portal.</p>
            )}
          </Card>
          <Card title="Orders">
            <Table
              caption="Orders from checkout"
              rows={d.orders}
              rowKey={(o) => `${o.reference ?? ''}${o.createdAt}`}
              empty="No orders yet. Buy a connector in the Store."
              columns={[
                { label: 'Order', cell: (o) => o.reference ?? '—' },
                { label: 'Items', cell: (o) => o.items.map((i) => `${i.name}${i.quantity > 1 ? ` × ${i.quantity}` : ''}`).join(', ') },
                { label: 'Total', align: 'right', cell: (o) => money(o.total, o.currency) },
                { label: 'Status', cell: (o) => <StatusBadge status={o.status} /> },
                { label: 'Date', cell: (o) => date(o.createdAt) },
              ]}
            />
          </Card>
          <Card title="Invoices">
            <ListView
              list={invoices}
              onPage={f.setPage}
              caption="Invoices of the payment processor"
              rowKey={(i) => i.id}
              empty="No invoices yet: the payment processor issues one for each payment."
              columns={[
                { label: 'Number', cell: (i) => (i.hostedInvoiceUrl ? <a href={i.hostedInvoiceUrl}>{i.number ?? i.id}</a> : (i.number ?? i.id)) },
                { label: 'Period', cell: (i) => (i.periodStart && i.periodEnd ? `${date(i.periodStart)} – ${date(i.periodEnd)}` : '—') },
                { label: 'Amount', align: 'right', cell: (i) => money(i.amountPaid || i.amountDue, i.currency) },
                { label: 'Status', cell: (i) => <StatusBadge status={i.status} /> },
                { label: 'Paid', cell: (i) => date(i.paidAt) },
              ]}
            />
          </Card>
        </>
      )}
    </Page>
  )
}
