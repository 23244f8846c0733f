import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { pdfPages, pdfText, sampleLogo } from '../../../test/helpers/pdf.ts'
import { createContact, createInvoice } from '../../../test/helpers/sales-fixtures.ts'
import { formatMoney } from '../../core/documents/index.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app, 'Pdf Works Ltd')
})
after(() => t.close())

test('GET /invoices/:id/pdf is a PDF with organization, number, dates, contact, lines, tax and total', async () => {
  const contact = await createContact(org, { name: 'Zed Customer', email: 'zed@customer.test' })
  const inv = await createInvoice(org, {
    contactId: contact.id,
    invoiceDate: '2026-04-01',
    dueDate: '2026-05-01',
    notes: 'Payable by bank transfer',
    lineItems: [{ description: 'Design work', quantity: 10, unitPrice: 12_345, discount: 10, taxRate: 20 }],
  })
  const res = await org.get(`/invoices/${inv.id}/pdf`)
  assert.equal(res.status, 200)
  assert.equal(res.headers['content-type'], 'application/pdf')
  assert.match(String(res.headers['content-disposition']), /INV-\d{4}-\d{5}\.pdf/)
  const pdf = res.raw.rawPayload
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-')
  const text = await pdfText(pdf)
  assert.equal(inv.total, 133_326) // 111,105 + 22,221 tax
  for (const expected of ['Pdf Works Ltd', inv.number, '2026-04-01', '2026-05-01', 'Zed Customer', 'zed@customer.test', 'Design work', '$1,111.05', '$222.21', '$1,333.26', 'Payable by bank transfer']) {
    assert.ok(text.includes(expected), `PDF text lacks "${expected}": ${text}`)
  }
})

test('amounts are printed in the currency format', () => {
  assert.equal(formatMoney(123_456, 'usd'), '$1,234.56')
  assert.equal(formatMoney(123_456, 'eur'), '€1,234.56')
  assert.equal(formatMoney(1200, 'jpy'), '¥1,200', 'yen have no minor unit')
  assert.equal(formatMoney(-5, 'usd'), '-$0.05')
  assert.equal(formatMoney(100, 'inr'), '₹1.00', 'the embedded fonts draw every currency symbol')
  assert.equal(formatMoney(1500, 'krw'), '₩1,500', 'won have no minor unit')
  assert.equal(formatMoney(250, 'rub'), '₽2.50')
  assert.match(formatMoney(250, 'pln'), /^zł\s2\.50$/)
})

test('send e-mails the PDF: the outbox holds it for the contact with the attachment', async () => {
  const contact = await createContact(org, { email: `billing.${Date.now()}@customer.test` })
  const inv = await createInvoice(org, { contactId: contact.id })
  const sent = expectStatus(await org.post(`/invoices/${inv.id}/send`, { subject: 'Invoice attached', message: 'See the PDF' }), 200)
  assert.equal(sent.to, contact.email)
  const outbox = expectStatus(await org.get(`/admin/outbox?to=${encodeURIComponent(contact.email)}`), 200)
  assert.equal(outbox.meta.total, 1)
  const mail = outbox.data[0]
  assert.equal(mail.to, contact.email)
  assert.equal(mail.subject, 'Invoice attached')
  assert.equal(mail.attachments.length, 1)
  assert.equal(mail.attachments[0].filename, `${inv.number.replaceAll('/', '-')}.pdf`)
  assert.equal(mail.attachments[0].contentType, 'application/pdf')
  assert.ok(mail.attachments[0].size > 1000)
})

test('a refused send queues nothing', async () => {
  const contact = await createContact(org, { email: null })
  const inv = await createInvoice(org, { contactId: contact.id })
  const before = (await org.get('/admin/outbox')).body.meta.total
  expectStatus(await org.post(`/invoices/${inv.id}/send`), 422)
  assert.equal((await org.get('/admin/outbox')).body.meta.total, before)
})

// Names in four scripts: the PDF must print each exactly (the standard PDF fonts garbled them).
const SCRIPTS = ['Łódź', 'Αθήνα', 'Москва', '東京']

async function profiledOrg() {
  const o = await createOrg(t.app, 'Łódź Trading')
  expectStatus(await o.patch('/organization', {
    legalName: 'Łódź Trading Sp. z o.o.',
    address: { lines: ['ul. Piotrkowska 104'], city: 'Łódź', postalCode: '90-926', country: 'PL' },
    taxId: 'PL7251234567',
    email: 'billing@lodz-trading.example',
    phone: '+48 42 123 45 67',
    logo: sampleLogo().toString('base64'),
    paymentInstructions: 'IBAN PL61 1090 1014 0000 0712 1981 2874',
  }), 200)
  return o
}

test('the invoice PDF prints every script, the seller profile with its logo, the buyer address, tax per rate and page numbers', async () => {
  const o = await profiledOrg()
  const contact = await createContact(o, {
    name: '東京商事株式会社',
    taxId: 'JP-T1234567890123',
    address: { lines: ['千代田区丸の内1-1-1', 'Αθήνα House, Москва wing'], city: '東京', postalCode: '100-0005', country: 'jp' },
  })
  const inv = await createInvoice(o, {
    contactId: contact.id,
    currency: 'eur',
    notes: 'Dziękujemy! Спасибо! ありがとうございます。',
    lineItems: [
      { description: 'Consulting in Łódź', quantity: 10, unitPrice: 12_345, discount: 10, taxRate: 20 },
      { description: 'Translation, Αθήνα', quantity: 2, unitPrice: 5_000, taxRate: 5 },
      { description: 'Support from Москва', quantity: 1, unitPrice: 30_000, taxRate: 20 },
      { description: '東京 office set-up', quantity: 1, unitPrice: 99_900 },
    ],
  })
  const res = await o.get(`/invoices/${inv.id}/pdf`)
  assert.equal(res.status, 200)
  const pages = await pdfPages(res.raw.rawPayload)
  assert.equal(pages.length, 1)
  const text = pages[0].text
  for (const expected of [
    ...SCRIPTS,
    // Seller: the profile.
    'Łódź Trading', 'Łódź Trading Sp. z o.o.', 'ul. Piotrkowska 104', '90-926 Łódź', 'Poland', 'Tax ID: PL7251234567', 'billing@lodz-trading.example',
    // Buyer: the contact's address and tax id.
    '東京商事株式会社', '千代田区丸の内1-1-1', 'Αθήνα House, Москва wing', '100-0005', 'Japan', 'Tax ID: JP-T1234567890123',
    // Tax per rate: 20% of 111,105 + 30,000 = 28,221; 5% of 10,000 = 500.
    'Tax 20% on €1,411.05', '€282.21', 'Tax 5% on €100.00', '€5.00', 'Total', '€2,797.26',
    'IBAN PL61 1090 1014 0000 0712 1981 2874', 'ありがとうございます。',
    `Invoice ${inv.number}`, 'Page 1 of 1', 'DRAFT',
  ]) assert.ok(text.includes(expected), `PDF text lacks "${expected}": ${text}`)
  assert.equal(inv.taxAmount, 28_221 + 500)
  assert.ok(!text.includes('Tax 0%'), 'untaxed lines print no tax line')
  assert.equal(pages[0].images, 1, 'the logo is drawn')
  assert.ok(res.raw.rawPayload.length < 150_000, `the fonts are subset: ${res.raw.rawPayload.length} bytes`)
})

test('a draft prints DRAFT; sent prints no mark; paid prints PAID and no payment instructions; cancelled prints CANCELLED', async () => {
  const o = await profiledOrg()
  const contact = await createContact(o)
  const marks = async (id: string) => {
    const text = await pdfText((await o.get(`/invoices/${id}/pdf`)).raw.rawPayload)
    return { marks: ['DRAFT', 'PAID', 'CANCELLED'].filter((m) => text.includes(m)), instructions: text.includes('IBAN PL61') }
  }
  const inv = await createInvoice(o, { contactId: contact.id })
  assert.deepEqual(await marks(inv.id), { marks: ['DRAFT'], instructions: true })
  expectStatus(await o.post(`/invoices/${inv.id}/send`), 200)
  assert.deepEqual(await marks(inv.id), { marks: [], instructions: true })
  expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: inv.total, currency: inv.currency }), 200)
  assert.deepEqual(await marks(inv.id), { marks: ['PAID'], instructions: false })
  const paidText = await pdfText((await o.get(`/invoices/${inv.id}/pdf`)).raw.rawPayload)
  assert.ok(paidText.includes('Paid on'), paidText)

  const cancelled = await createInvoice(o, { contactId: contact.id })
  expectStatus(await o.post(`/invoices/${cancelled.id}/send`), 200)
  expectStatus(await o.post(`/invoices/${cancelled.id}/cancel`), 200)
  assert.deepEqual(await marks(cancelled.id), { marks: ['CANCELLED'], instructions: false })
})

test('200 lines break across pages: every line once, the header row and "Page n of N" with the number on every page', async () => {
  const contact = await createContact(org)
  const lineItems = Array.from({ length: 200 }, (_, i) => ({
    description: i % 10 === 0 ? `Item ${i + 1}: a description long enough to wrap onto a second line of its cell, Łódź 東京` : `Item ${i + 1}`,
    quantity: 1, unitPrice: 100 + i, taxRate: i % 2 ? 20 : 7,
  }))
  const inv = await createInvoice(org, { contactId: contact.id, lineItems })
  const pages = await pdfPages((await org.get(`/invoices/${inv.id}/pdf`)).raw.rawPayload)
  assert.ok(pages.length >= 3, `${pages.length} pages`)
  pages.forEach((p, i) => {
    assert.ok(p.text.includes(`Page ${i + 1} of ${pages.length}`), `page ${i + 1}: ${p.text.slice(-200)}`)
    assert.ok(p.text.includes(inv.number), `page ${i + 1} lacks the number`)
    assert.ok(p.text.includes('Description') && p.text.includes('Unit price'), `page ${i + 1} lacks the header row`)
    assert.ok(p.text.includes('DRAFT'), `page ${i + 1} lacks the mark`)
  })
  const all = pages.map((p) => p.text).join('\n')
  for (let i = 1; i <= 200; i++) {
    const found = all.match(new RegExp(`Item ${i}(?![0-9])`, 'g')) ?? []
    assert.equal(found.length, 1, `Item ${i} printed ${found.length} times`)
  }
  const last = pages[pages.length - 1].text
  assert.ok(last.includes('Tax 20%') && last.includes('Tax 7%') && last.includes(formatMoney(inv.total, inv.currency)), last)
})
