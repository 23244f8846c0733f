import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { pdfText } from '../../../test/helpers/pdf.ts'
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
  assert.match(formatMoney(100, 'inr'), /^INR\s1\.00$/, 'symbols the PDF fonts cannot draw fall back to the code')
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
