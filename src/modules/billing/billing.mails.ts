import type { MailMessage } from '../mail/index.ts'

/** 49900 usd -> "499.00 USD". */
export function formatMoney(cents: number, currency: string): string {
  return `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`
}

const date = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : 'no expiry')

export interface Recipient {
  organizationId: string
  email: string
  name: string
}

export interface IssuedLicense {
  key: string
  productName: string
  moduleName: string
  erpVersion: string
  expiresAt: Date | null
  status: string
}

export function welcomeMail(to: Recipient, order: { reference: string; total: number; currency: string }, licenses: IssuedLicense[]): MailMessage {
  const lines = licenses.map(
    (l) => `- ${l.productName} (module ${l.moduleName}, ERP ${l.erpVersion}): ${l.key}  valid until ${date(l.expiresAt)}${l.status === 'active' ? '' : ` [${l.status}]`}`,
  )
  return {
    organizationId: to.organizationId,
    to: to.email,
    subject: `Welcome! Your order ${order.reference} and license keys`,
    text: [
      `Hello ${to.name},`,
      '',
      `Thank you for your order ${order.reference} (${formatMoney(order.total, order.currency)}).`,
      licenses.length ? 'Your license keys:' : 'Your order contains no licensed modules.',
      ...lines,
      '',
      'Enter a key in the connector module\'s settings of your ERP to activate it on your instance.',
      'Module builds for your ERP version are in the customer portal (Downloads).',
    ].join('\n'),
  }
}

export function receiptMail(to: Recipient, payment: { invoiceId: string; amountPaid: number; currency: string; periodEnd: Date | null }): MailMessage {
  return {
    organizationId: to.organizationId,
    to: to.email,
    subject: `Receipt for your payment of ${formatMoney(payment.amountPaid, payment.currency)}`,
    text: [
      `Hello ${to.name},`,
      '',
      `We received your payment of ${formatMoney(payment.amountPaid, payment.currency)} (invoice ${payment.invoiceId}).`,
      payment.periodEnd ? `Your subscription is paid until ${date(payment.periodEnd)}; your licenses stay valid until then.` : '',
      '',
      'Thank you.',
    ].join('\n'),
  }
}

export function paymentFailedMail(to: Recipient, failure: { amount: number | null; currency: string | null; reason: string | null }): MailMessage {
  const amount = failure.amount !== null && failure.currency ? ` of ${formatMoney(failure.amount, failure.currency)}` : ''
  return {
    organizationId: to.organizationId,
    to: to.email,
    subject: `Your payment${amount} failed`,
    text: [
      `Hello ${to.name},`,
      '',
      `Your payment${amount} could not be completed${failure.reason ? `: ${failure.reason}` : '.'}`,
      'Please update your payment method in the billing portal. Licenses of a subscription that stays unpaid are suspended.',
    ].join('\n'),
  }
}
