import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CpuPool, cpuTask } from '../src/core/cpu-pool.ts'
import { renderDocumentPdf, renderPdf, type PdfDocument } from '../src/core/documents/pdf.ts'
import { AppError } from '../src/core/errors.ts'
import { buildTestApp, createOrg, type TestApp, type TestOrg } from './helpers/app.ts'
import { expectStatus } from './helpers/assert.ts'
import { pdfText } from './helpers/pdf.ts'
import { createContact, createInvoice } from './helpers/sales-fixtures.ts'

// The kernel's CPU pool (src/core/cpu-pool.ts, docs/decisions/0011-heavy-work-off-the-event-loop.md):
// PDFs render in worker threads, at most CPU_POOL_QUEUE renders wait, one more is 503 with Retry-After.

const spin = cpuTask<number, number>(new URL('./helpers/cpu-tasks.ts', import.meta.url), 'spin')
const fail = cpuTask<'app' | 'type' | 'coded', never>(new URL('./helpers/cpu-tasks.ts', import.meta.url), 'fail')

const until = async (check: () => boolean) => {
  for (let i = 0; !check(); i++) {
    if (i > 600) throw new Error('the pool never got there')
    await new Promise((r) => setTimeout(r, 50))
  }
}

let t: TestApp
let org: TestOrg
let invoiceId: string
before(async () => {
  // One worker, one render waiting: a third at once is refused.
  t = await buildTestApp({ CPU_POOL_THREADS: '1', CPU_POOL_QUEUE: '1' })
  org = await createOrg(t.app, 'Pool Works Ltd')
  const contact = await createContact(org, { name: 'Queue Customer' })
  const lineItems = Array.from({ length: 500 }, (_, i) => ({ description: `Line ${i + 1}: a description long enough to wrap onto a second line of its cell`, quantity: 1 + (i % 4), unitPrice: 1000 + i, taxRate: 20 }))
  invoiceId = (await createInvoice(org, { contactId: contact.id, lineItems })).id
})
after(() => t.close())

test('PDFs beyond the pool\'s queue are refused with 503 SERVICE_UNAVAILABLE and Retry-After, never a 500; the others render, and later ones again', async () => {
  const answers = await Promise.all(Array.from({ length: 8 }, () => org.get(`/invoices/${invoiceId}/pdf`)))
  const statuses = answers.map((r) => r.status)
  assert.ok(statuses.every((s) => s === 200 || s === 503), `only 200 and 503: ${statuses}`)
  assert.ok(statuses.includes(200), `some render: ${statuses}`)
  assert.ok(statuses.filter((s) => s === 503).length >= 5, `one runs, one waits, the rest are refused: ${statuses}`)
  for (const res of answers) {
    if (res.status === 200) {
      assert.equal(res.headers['content-type'], 'application/pdf')
      assert.equal(res.raw.rawPayload.subarray(0, 5).toString(), '%PDF-')
      continue
    }
    expectStatus(res, 503, 'retry shortly')
    assert.equal(res.body.code, 'SERVICE_UNAVAILABLE')
    assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/, 'Retry-After in whole seconds, at least 1')
  }
  // Once the queue has drained, a PDF renders again: the refusal held nothing back.
  const again = await org.get(`/invoices/${invoiceId}/pdf`)
  assert.equal(again.status, 200)
  const text = await pdfText(again.raw.rawPayload)
  assert.ok(text.includes('Line 500:'), 'the last line is in the PDF')
})

test('the kernel API: a task beyond maxQueue is refused at once with an AppError SERVICE_UNAVAILABLE and a Retry-After', async () => {
  const pool = new CpuPool({ threads: 1, maxQueue: 2 })
  try {
    const running = pool.run(spin, 1500)
    // The first task leaves the queue once the worker has started and taken it.
    await until(() => pool.running === 1 && pool.queued === 0)
    const waiting = [pool.run(spin, 10), pool.run(spin, 10)]
    assert.equal(pool.queued, 2)
    await assert.rejects(pool.run(spin, 10), (err: unknown) => {
      assert.ok(err instanceof AppError)
      assert.equal(err.code, 'SERVICE_UNAVAILABLE')
      assert.ok(err.options.retryAfterSeconds! >= 1 && err.options.retryAfterSeconds! <= 60)
      return true
    })
    assert.ok((await running) > 0)
    for (const w of await Promise.all(waiting)) assert.ok(w > 0, 'the waiting tasks ran')
  } finally {
    await pool.close()
  }
  assert.equal(pool.running, 0, 'close() stops the workers')
  await assert.rejects(pool.run(spin, 1), (err: unknown) => err instanceof AppError && err.code === 'SERVICE_UNAVAILABLE')
})

test('an error thrown inside a worker comes back as the same error: an AppError with its code and messages, a built-in error with its class, message and code', async () => {
  const pool = new CpuPool({ threads: 1, maxQueue: 4 })
  try {
    await assert.rejects(pool.run(fail, 'app'), (err: unknown) => {
      assert.ok(err instanceof AppError)
      assert.equal(err.code, 'VALIDATION_FAILED')
      assert.deepEqual(err.messages, ['first rule broken', 'second rule broken'])
      return true
    })
    await assert.rejects(pool.run(fail, 'type'), (err: unknown) => {
      assert.ok(err instanceof TypeError)
      assert.equal(err.message, 'not a function, as a broken renderer would say')
      assert.match(String(err.stack), /cpu-tasks\.ts/, 'the stack is the worker\'s')
      return true
    })
    await assert.rejects(pool.run(fail, 'coded'), { name: 'Error', message: 'a failure with a code', code: 'ERR_SOMETHING' })
  } finally {
    await pool.close()
  }
})

/** A document pdfkit cannot render: its currency is no ISO code, so formatting the amounts throws. */
const broken: PdfDocument = {
  title: 'Invoice', number: 'INV/2026/00001',
  seller: { name: 'Seller', legalName: null, address: null, taxId: null, email: null, phone: null, logo: null, paymentInstructions: null },
  buyer: { name: 'Buyer', legalName: null, address: null, taxId: null, email: null, phone: null },
  dates: [['Invoice date', '2026-04-01']],
  lines: [{ description: 'Work', quantity: 1, unitPrice: 100, discount: 0, taxRate: null, total: 100 }],
  currency: 'not a currency', totals: [{ label: 'Total', amount: 100, strong: true }],
}

test('a render error inside the worker is the error the renderer throws on the event loop', async () => {
  const before = await renderDocumentPdf(broken).then(() => null, (err: Error) => err)
  assert.ok(before, 'the document fails to render on the calling thread')
  for (const threads of [1, 0]) {
    const pool = new CpuPool({ threads, maxQueue: 4 })
    try {
      await assert.rejects(renderPdf(pool, broken), (err: Error) => {
        assert.equal(err.constructor, before.constructor, `threads ${threads}: same class`)
        assert.equal(err.message, before.message, `threads ${threads}: same message`)
        return true
      })
    } finally {
      await pool.close()
    }
  }
})

test('CPU_POOL_THREADS=0 renders on the event loop, as before the pool: the same PDF', async () => {
  const inline = await buildTestApp({ CPU_POOL_THREADS: '0' })
  try {
    const o = await createOrg(inline.app, 'Inline Works Ltd')
    const inv = await createInvoice(o, { lineItems: [{ description: 'Rendered in place', quantity: 1, unitPrice: 4200 }] })
    const res = await o.get(`/invoices/${inv.id}/pdf`)
    assert.equal(res.status, 200)
    const text = await pdfText(res.raw.rawPayload)
    for (const expected of ['Inline Works Ltd', inv.number, 'Rendered in place', '$42.00']) assert.ok(text.includes(expected), `lacks "${expected}": ${text}`)
    assert.equal(inline.app.ctx.cpu.running, 0, 'no worker started')
  } finally {
    await inline.close()
  }
})
