import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from '../../../test/helpers/app.ts'
import { expectStatus } from '../../../test/helpers/assert.ts'
import { createContact, createInvoice } from '../../../test/helpers/sales-fixtures.ts'

let t: TestApp
let org: TestOrg
before(async () => {
  t = await buildTestApp()
  org = await createOrg(t.app)
})
after(() => t.close())

const year = new Date().getUTCFullYear()
/** An invoice of 10,000 cents, sent. */
const sentInvoice = async (o = org, overrides: Record<string, unknown> = {}) => {
  const inv = await createInvoice(o, { lineItems: [{ description: 'Service', quantity: 1, unitPrice: 10_000 }], ...overrides })
  expectStatus(await o.post(`/invoices/${inv.id}/send`), 200)
  return inv
}
const status = async (id: string) => (await org.get(`/invoices/${id}`)).body

describe('pay', () => {
  test('sent -> partial_paid -> paid, with amountPaid, amountDue and paidAt', async () => {
    const inv = await sentInvoice()
    const first = expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 4000, currency: 'USD', paymentDate: '2026-03-01', method: 'bank_transfer', reference: 'TX-1' }), 200)
    assert.deepEqual(first, { invoiceId: inv.id, status: 'partial_paid', amountPaid: 4000, amountDue: 6000, paidAt: '2026-03-01T00:00:00.000Z' })
    assert.equal((await status(inv.id)).paidAt, null, 'not paid yet')
    const last = expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 6000 }), 200)
    assert.equal(last.status, 'paid')
    assert.equal(last.amountPaid, 10_000)
    assert.equal(last.amountDue, 0)
    const paid = await status(inv.id)
    assert.equal(paid.status, 'paid')
    assert.equal(paid.paidAt, last.paidAt)
    const payments = expectStatus(await org.get(`/invoices/${inv.id}/payments?sortBy=createdAt&sortOrder=asc`), 200)
    assert.equal(payments.meta.total, 2)
    assert.deepEqual(payments.data.map((p: any) => [p.amount, p.currency, p.method, p.reference]), [[4000, 'usd', 'bank_transfer', 'TX-1'], [6000, 'usd', null, null]])
  })

  test('a full payment of a sent invoice makes it paid at once', async () => {
    const inv = await sentInvoice()
    const res = expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 10_000 }), 200)
    assert.equal(res.status, 'paid')
  })

  test('a draft invoice may be paid (it is issued by the payment)', async () => {
    const inv = await createInvoice(org, { lineItems: [{ description: 'x', quantity: 1, unitPrice: 500 }] })
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 100 }), 200)
    assert.equal((await status(inv.id)).status, 'partial_paid')
    expectStatus(await org.patch(`/invoices/${inv.id}`, { notes: 'x' }), 400)
  })

  test('a draft paid in full is paid at once, with paidAt; sending it afterwards keeps it paid', async () => {
    const inv = await createInvoice(org, { lineItems: [{ description: 'x', quantity: 1, unitPrice: 500 }] })
    const res = expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 500, paymentDate: '2026-03-02' }), 200)
    assert.deepEqual([res.status, res.amountDue, res.paidAt], ['paid', 0, '2026-03-02T00:00:00.000Z'])
    expectStatus(await org.post(`/invoices/${inv.id}/send`), 200)
    const after = await status(inv.id)
    assert.deepEqual([after.status, after.paidAt], ['paid', '2026-03-02T00:00:00.000Z'])
  })

  test('over the amount due is 422 and changes nothing; a paid invoice accepts no more', async () => {
    const inv = await sentInvoice()
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 10_001 }), 422, 'Payment amount exceeds amount due')
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 3000 }), 200)
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 7001 }), 422, 'exceeds amount due (7000)')
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 7000 }), 200)
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 1 }), 422, 'exceeds amount due')
    assert.equal((await status(inv.id)).amountPaid, 10_000)
  })

  test('bad payment bodies are 422; another currency is 422; a cancelled invoice is 400', async () => {
    const inv = await sentInvoice()
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, {}), 422, 'amount is required')
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 0 }), 422, 'amount')
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 10.5 }), 422, 'amount')
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: '100' }), 422, 'amount')
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 100, tip: 1 }), 422, 'tip is not allowed')
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 100, currency: 'eur' }), 422, 'currency must be the invoice currency (usd)')
    assert.equal((await status(inv.id)).amountPaid, 0, 'the refused payment left nothing behind')
    expectStatus(await org.post(`/invoices/${inv.id}/cancel`), 200)
    expectStatus(await org.post(`/invoices/${inv.id}/pay`, { amount: 100 }), 400, 'Cannot pay a cancelled invoice')
    expectStatus(await org.post('/invoices/00000000-0000-4000-8000-000000000000/pay', { amount: 100 }), 404)
  })
})

describe('overdue', () => {
  test('the job moves sent and partly paid invoices past their due date to overdue; payments still work', async () => {
    const o = await createOrg(t.app)
    const past = { invoiceDate: '2020-01-01', dueDate: '2020-01-31' }
    const sent = await sentInvoice(o, past)
    const partly = await sentInvoice(o, past)
    expectStatus(await o.post(`/invoices/${partly.id}/pay`, { amount: 1000 }), 200)
    const draft = await createInvoice(o, past)
    const paid = await sentInvoice(o, past)
    expectStatus(await o.post(`/invoices/${paid.id}/pay`, { amount: 10_000 }), 200)
    const future = await sentInvoice(o, { dueDate: '2999-01-01' })

    const run = expectStatus(await o.post('/admin/jobs/invoices-overdue/run'), 200)
    assert.equal(run.job, 'invoices-overdue')
    assert.ok(run.result.overdue >= 2)
    const statusOf = async (id: string) => (await o.get(`/invoices/${id}`)).body.status
    assert.equal(await statusOf(sent.id), 'overdue')
    assert.equal(await statusOf(partly.id), 'overdue')
    assert.equal(await statusOf(draft.id), 'draft')
    assert.equal(await statusOf(paid.id), 'paid')
    assert.equal(await statusOf(future.id), 'sent')
    assert.equal((await o.get('/invoices?status=overdue')).body.meta.total, 2)

    const partial = expectStatus(await o.post(`/invoices/${sent.id}/pay`, { amount: 2500 }), 200)
    assert.deepEqual([partial.status, partial.amountDue], ['overdue', 7500], 'still overdue while a balance remains')
    const full = expectStatus(await o.post(`/invoices/${sent.id}/pay`, { amount: 7500 }), 200)
    assert.equal(full.status, 'paid')
    expectStatus(await o.post('/admin/jobs/invoices-overdue/run'), 200)
    assert.equal(await statusOf(sent.id), 'paid')
  })

  test('only admins run jobs', async () => {
    expectStatus(await org.post('/admin/jobs/invoices-overdue/run', {}, await org.as('member')), 403)
  })
})

describe('cancel and credit notes', () => {
  test('cancel: draft or sent without payments becomes cancelled; with payments or again, 400', async () => {
    const draft = await createInvoice(org)
    const res = expectStatus(await org.post(`/invoices/${draft.id}/cancel`), 200)
    assert.equal(res.status, 'cancelled')
    assert.equal(res.amountDue, 0)
    assert.ok(res.cancelledAt)
    expectStatus(await org.post(`/invoices/${draft.id}/cancel`), 400, 'already cancelled')
    expectStatus(await org.del(`/invoices/${draft.id}`), 400)
    const partly = await sentInvoice()
    expectStatus(await org.post(`/invoices/${partly.id}/pay`, { amount: 1 }), 200)
    expectStatus(await org.post(`/invoices/${partly.id}/cancel`), 400, 'credit note')
  })

  test('a credit note has its own number and cancels the invoice', async () => {
    const o = await createOrg(t.app)
    const inv = await sentInvoice(o)
    expectStatus(await o.post(`/invoices/${inv.id}/pay`, { amount: 4000 }), 200)
    const note = expectStatus(await o.post(`/invoices/${inv.id}/credit-note`, { amount: 4000, reason: 'Returned goods' }), 201)
    assert.equal(note.number, `CN/${year}/00001`)
    assert.deepEqual(
      { invoiceId: note.invoiceId, invoiceNumber: note.invoiceNumber, amount: note.amount, currency: note.currency, reason: note.reason, contact: note.contact.id },
      { invoiceId: inv.id, invoiceNumber: inv.number, amount: 4000, currency: 'usd', reason: 'Returned goods', contact: inv.contact.id },
    )
    const cancelled = (await o.get(`/invoices/${inv.id}`)).body
    assert.equal(cancelled.status, 'cancelled')
    assert.equal(cancelled.amountPaid, 4000)
    assert.equal(cancelled.amountDue, 0)
    expectStatus(await o.post(`/invoices/${inv.id}/credit-note`, {}), 400, 'already cancelled')
    expectStatus(await o.post(`/invoices/${inv.id}/send`), 400)

    const whole = await createInvoice(o)
    const second = expectStatus(await o.post(`/invoices/${whole.id}/credit-note`), 201)
    assert.equal(second.number, `CN/${year}/00002`)
    assert.equal(second.amount, whole.total, 'defaults to the invoice total')
    assert.equal(second.reason, null)

    expectStatus(await o.get(`/credit-notes/${note.id}`), 200)
    const all = expectStatus(await o.get('/credit-notes?sortBy=createdAt&sortOrder=asc'), 200)
    assert.deepEqual(all.data.map((n: any) => n.number), [note.number, second.number])
    assert.deepEqual(expectStatus(await o.get(`/credit-notes?invoiceId=${inv.id}`), 200).data.map((n: any) => n.id), [note.id])
    assert.deepEqual(expectStatus(await o.get(`/credit-notes?contactId=${whole.contact.id}`), 200).data.map((n: any) => n.id), [second.id])
    assert.equal((await o.get('/credit-notes?sortBy=amount&sortOrder=asc')).body.data[0].id, note.id)
    assert.equal((await o.get(`/credit-notes?search=${encodeURIComponent(inv.number)}`)).body.meta.total, 1)
    expectStatus(await o.get('/credit-notes?sortBy=reason'), 400)
    expectStatus(await org.get(`/credit-notes/${note.id}`), 404, 'Credit note not found')
    assert.equal((await org.get(`/credit-notes?invoiceId=${inv.id}`)).body.meta.total, 0)
  })

  test('a credit note above the invoice total is 422', async () => {
    const inv = await sentInvoice()
    expectStatus(await org.post(`/invoices/${inv.id}/credit-note`, { amount: 10_001 }), 422, 'must not exceed the invoice total')
    expectStatus(await org.post(`/invoices/${inv.id}/credit-note`, { amount: 0 }), 422)
    expectStatus(await org.post(`/invoices/${inv.id}/credit-note`, { note: 'x' }), 422, 'note is not allowed')
    assert.equal((await status(inv.id)).status, 'sent')
  })
})

describe('under concurrency', () => {
  test('50 parallel full payments of one invoice: exactly one succeeds, amountPaid never exceeds total', async () => {
    const inv = await sentInvoice()
    const results = await Promise.all(Array.from({ length: 50 }, () => org.post(`/invoices/${inv.id}/pay`, { amount: 10_000 })))
    const ok = results.filter((r) => r.status === 200)
    assert.equal(ok.length, 1)
    for (const r of results) if (r.status !== 200) expectStatus(r, 422, 'exceeds amount due')
    assert.equal(ok[0].body.status, 'paid')
    const final = await status(inv.id)
    assert.deepEqual([final.status, final.amountPaid, final.amountDue], ['paid', 10_000, 0])
    assert.equal((await org.get(`/invoices/${inv.id}/payments`)).body.meta.total, 1)
  })

  test('25 parallel partial payments summing to more than the amount due: accepted ones fit, status ends right', async () => {
    const inv = await sentInvoice()
    const amounts = Array.from({ length: 25 }, (_, i) => 300 + ((i * 137) % 500)) // 300..799, sum well above 10,000
    assert.ok(amounts.reduce((a, b) => a + b) > 10_000)
    const results = await Promise.all(amounts.map((amount) => org.post(`/invoices/${inv.id}/pay`, { amount })))
    const accepted = amounts.filter((_, i) => results[i].status === 200)
    for (const r of results) if (r.status !== 200) expectStatus(r, 422, 'exceeds amount due')
    const sum = accepted.reduce((a, b) => a + b, 0)
    assert.ok(sum <= 10_000, `accepted ${sum}`)
    const final = await status(inv.id)
    assert.equal(final.amountPaid, sum)
    assert.equal(final.amountDue, 10_000 - sum)
    assert.equal(final.status, sum === 10_000 ? 'paid' : 'partial_paid')
    const payments = (await org.get(`/invoices/${inv.id}/payments?limit=100`)).body
    assert.equal(payments.meta.total, accepted.length)
    assert.equal(payments.data.reduce((s: number, p: any) => s + p.amount, 0), sum)
    // Every refused payment was refused because it no longer fitted.
    const smallestRefused = Math.min(...amounts.filter((_, i) => results[i].status !== 200))
    assert.ok(smallestRefused > 10_000 - sum, 'a refused payment would have fitted at the end')
  })

  test('a draft paid and cancelled at once: exactly one wins, and a cancelled invoice never holds a payment', async () => {
    for (let i = 0; i < 6; i++) {
      const inv = await createInvoice(org, { lineItems: [{ description: 'x', quantity: 1, unitPrice: 10_000 }] })
      const [paid, cancelled] = await Promise.all([org.post(`/invoices/${inv.id}/pay`, { amount: 10_000 }), org.post(`/invoices/${inv.id}/cancel`)])
      const final = await status(inv.id)
      if (paid.status === 200) {
        expectStatus(cancelled, 400, 'cancelled by issuing a credit note')
        assert.deepEqual([final.status, final.amountPaid, final.paidAt], ['paid', 10_000, paid.body.paidAt])
      } else {
        expectStatus(paid, 400, 'Cannot pay a cancelled invoice')
        expectStatus(cancelled, 200)
        assert.deepEqual([final.status, final.amountPaid], ['cancelled', 0])
        assert.equal((await org.get(`/invoices/${inv.id}/payments`)).body.meta.total, 0)
      }
    }
  })

  test('50 parallel invoice creations get 50 distinct consecutive numbers', async () => {
    const o = await createOrg(t.app)
    const contact = await createContact(o)
    const results = await Promise.all(Array.from({ length: 50 }, () => o.post('/invoices', { contactId: contact.id, lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }] })))
    for (const r of results) expectStatus(r, 201)
    const seqs = results.map((r) => Number(r.body.number.split('/')[2])).sort((a, b) => a - b)
    assert.deepEqual(seqs, Array.from({ length: 50 }, (_, i) => i + 1))
    assert.ok(results.every((r) => r.body.number.startsWith(`INV/${year}/`)))
  })
})
