import { randomUUID } from 'node:crypto'
import type { Principal } from '../../core/auth.ts'
import { iso, type Db, type Queryable } from '../../core/db.ts'
import type { DomainEvents } from '../../core/events.ts'
import { InvalidStateError, NotFoundError, StateConflictError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { nextNumber } from '../../core/sequences.ts'
import type { CpuPool } from '../../core/cpu-pool.ts'
import type { Services } from '../../core/module.ts'
import { creditNotesRepository as creditNotes } from './credit-notes.repository.ts'
import { invoicePdf } from './invoices.pdf.ts'
import { invoicesRepository as repo, toInvoice, type InvoiceExportRow, type InvoiceRow, type InvoiceValues } from './invoices.repository.ts'
import { keysetBatches } from '../../core/batches.ts'
import type { DayRange } from '../../core/dates.ts'
import type { CreateInvoice, Invoice, CreditNoteInput, CreditNoteListQuery, InvoiceListQuery, InvoiceStatus, PayInput, UpdateInvoice } from './invoices.schemas.ts'
import { parseRange, parseTimestamp, utcDay } from '../../core/dates.ts'
import { contactRef, documentBuyer, mailDocument, pdfFilename, priceLines, type PricedDocument, type SendInput } from '../../core/documents/index.ts'
import { normalizeCurrency } from '../../core/money.ts'
import { ACCOUNTS, type Posting } from '../accounting/index.ts'

registerUniqueMessage('invoices_order_key', 'This order has already been invoiced')
registerUniqueMessage('credit_notes_invoice_id_key', 'This invoice already has a credit note')

const DAY_MS = 24 * 3600 * 1000
export const DEFAULT_PAYMENT_TERM_DAYS = 30

/** The modules it uses, and the kernel's CPU pool (PDFs render there). */
type Deps = Pick<Services, 'contacts' | 'products' | 'mail' | 'identity' | 'accounting'> & { cpu: CpuPool }

/** What an order gives its invoice (see OrdersService.invoice). */
export interface OrderToInvoice extends PricedDocument {
  id: string
  contact: { id: string; name: string; email: string | null }
  currency: string
}

/** Event types of this module; the object of each is the invoice as GET /invoices/:id answers. */
export type InvoiceEvent = 'invoice.created' | 'invoice.updated' | 'invoice.deleted' | 'invoice.sent' | 'invoice.paid' | 'invoice.overdue' | 'invoice.cancelled'

/** Any state but cancelled may be sent: a draft is issued, an open or paid invoice is e-mailed again (a reminder). */
export const canBeSent = (status: InvoiceStatus) => status !== 'cancelled'

/** The status a sending leaves: a draft becomes sent; every other state keeps its own. */
export const statusAfterSend = (status: InvoiceStatus): InvoiceStatus => (status === 'draft' ? 'sent' : status)

/** Any state but cancelled takes a payment: a draft is issued by it (it becomes partial_paid or paid). */
export const canBePaid = (status: InvoiceStatus) => status !== 'cancelled'

/**
 * What a payment of `amount` (not above the amount due) leaves: paid, with
 * paidAt, when nothing is due any more; otherwise a draft or sent invoice
 * becomes partial_paid and partial_paid or overdue keep their state, without paidAt.
 */
export function afterPayment(invoice: Pick<InvoiceRow, 'status' | 'total' | 'amount_paid'>, amount: number, paidAt: Date) {
  const amountPaid = invoice.amount_paid + amount
  if (amountPaid === invoice.total) return { amountPaid, status: 'paid' as InvoiceStatus, paidAt }
  const status: InvoiceStatus = invoice.status === 'draft' || invoice.status === 'sent' ? 'partial_paid' : invoice.status
  return { amountPaid, status, paidAt: null }
}

/** Why the invoice cannot be cancelled directly (cancelled already, or paid in part: a credit note cancels it); undefined when it can. */
export function cancelRefusal(invoice: Pick<InvoiceRow, 'status' | 'amount_paid'>) {
  if (invoice.status === 'cancelled') return 'Invoice is already cancelled'
  if (invoice.amount_paid > 0) return 'An invoice with payments is cancelled by issuing a credit note'
  return undefined
}

// ------------------------------------------------------------ posting rules
// docs/accounting.md "Posting rules: invoices and payments". Each rule is one
// function of the document, called by the live change and by the history.

/** An invoice leaves draft (sent, or issued by its first payment): it was posted then, and a cancellation reverses what is still due. */
export const isIssued = (status: InvoiceStatus) => status !== 'draft'

/** The invoice issued, on its invoiceDate: Dr 1100 total; Cr 4000 subtotal; Cr 2100 taxAmount. */
export function issuePosting(inv: Pick<InvoiceRow, 'id' | 'number' | 'currency' | 'invoice_date' | 'subtotal' | 'tax_amount' | 'total'>): Posting {
  return {
    date: utcDay(inv.invoice_date), currency: inv.currency, memo: `Invoice ${inv.number}`, source: { type: 'invoice', id: inv.id },
    lines: [
      { account: ACCOUNTS.receivable, debit: inv.total },
      { account: ACCOUNTS.sales, credit: inv.subtotal },
      { account: ACCOUNTS.taxPayable, credit: inv.tax_amount },
    ],
  }
}

/** A payment, on its paymentDate: Dr 1000; Cr 1100, the amount. */
export function paymentPosting(inv: Pick<InvoiceRow, 'number' | 'currency'>, p: { id: string; amount: number; paymentDate: Date }): Posting {
  return {
    date: utcDay(p.paymentDate), currency: inv.currency, memo: `Payment of invoice ${inv.number}`, source: { type: 'invoice_payment', id: p.id },
    lines: [{ account: ACCOUNTS.bank, debit: p.amount }, { account: ACCOUNTS.receivable, credit: p.amount }],
  }
}

/**
 * The part of the tax in an amount due: round(taxAmount x due / total), half
 * away from zero, in exact integer arithmetic (BigInt: the product may pass
 * 2^53, and a float may misround a half). All three are at least 0.
 */
export function taxShare(taxAmount: number, due: number, total: number): number {
  if (total <= 0 || due <= 0 || taxAmount <= 0) return 0
  const n = BigInt(taxAmount) * BigInt(due)
  const d = BigInt(total)
  return Number((2n * n + d) / (2n * d))
}

/**
 * An issued invoice cancelled (by hand or by its credit note), on the day of
 * its cancellation, with D the amount due just before (total - paid; nothing
 * is paid after it): Cr 1100 D; Dr 2100 taxShare(D); Dr 4000 the rest. A fully
 * paid invoice leaves D = 0 and posts nothing.
 */
export function cancellationPosting(inv: Pick<InvoiceRow, 'id' | 'number' | 'currency' | 'tax_amount' | 'total' | 'amount_paid'>, cancelledAt: Date): Posting {
  const due = inv.total - inv.amount_paid
  const tax = taxShare(inv.tax_amount, due, inv.total)
  return {
    date: utcDay(cancelledAt), currency: inv.currency, memo: `Invoice ${inv.number} cancelled`, source: { type: 'invoice_cancellation', id: inv.id },
    lines: [
      { account: ACCOUNTS.receivable, credit: due },
      { account: ACCOUNTS.taxPayable, debit: tax },
      { account: ACCOUNTS.sales, debit: due - tax },
    ],
  }
}

/** The states that become overdue once their due date has passed: sent and partly paid (not drafts, not paid). */
export const OVERDUE_FROM: readonly InvoiceStatus[] = ['sent', 'partial_paid']

export class InvoicesService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly deps: Deps,
  ) {}

  /** Appends an invoice event in the caller's transaction; answers the invoice. */
  private async emit(q: Queryable, type: InvoiceEvent, invoice: Invoice) {
    await this.events.append(q, { organizationId: invoice.organizationId, type, resource: { type: 'invoice', id: invoice.id }, object: invoice })
    return invoice
  }

  private dates(invoiceDate: string | Date | undefined, dueDate: string | Date | undefined) {
    const issued = invoiceDate instanceof Date ? invoiceDate : invoiceDate ? parseTimestamp(invoiceDate, 'invoiceDate') : new Date()
    const due = dueDate instanceof Date ? dueDate : dueDate ? parseTimestamp(dueDate, 'dueDate') : new Date(issued.getTime() + DEFAULT_PAYMENT_TERM_DAYS * DAY_MS)
    if (due < issued) throw new ValidationError('dueDate must not be before invoiceDate')
    return { invoiceDate: issued, dueDate: due }
  }

  private async insert(q: Queryable, organizationId: string, values: InvoiceValues) {
    const number = await nextNumber(q, organizationId, 'INV')
    return this.emit(q, 'invoice.created', toInvoice(await repo.insert(q, organizationId, randomUUID(), number, values)))
  }

  create(organizationId: string, input: CreateInvoice) {
    return this.db.tx(async (q) => {
      const currency = normalizeCurrency(input.currency ?? 'usd')
      const contact = await contactRef(this.deps.contacts, organizationId, input.contactId, q)
      const priced = await priceLines(this.deps.products, organizationId, input.lineItems, currency, q)
      return this.insert(q, organizationId, { ...priced, contact, orderId: null, currency, notes: input.notes ?? null, ...this.dates(input.invoiceDate, input.dueDate) })
    })
  }

  /** A draft invoice with the order's lines, inside the caller's transaction. */
  createFromOrder(q: Queryable, organizationId: string, order: OrderToInvoice, opts: { invoiceDate?: string; dueDate?: string; notes?: string | null }) {
    const { id, contact, currency, lines, subtotal, taxAmount, total } = order
    return this.insert(q, organizationId, {
      contact, orderId: id, currency, lines, subtotal, taxAmount, total, notes: opts.notes ?? null, ...this.dates(opts.invoiceDate, opts.dueDate),
    })
  }

  list(organizationId: string, query: InvoiceListQuery & PageParams) {
    return repo.list(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  private async row(q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
    const row = await repo.find(q, organizationId, id, opts)
    if (!row) throw new NotFoundError('Invoice')
    return row
  }

  async get(organizationId: string, id: string, q: Queryable = this.db) {
    return toInvoice(await this.row(q, organizationId, id))
  }

  update(organizationId: string, id: string, patch: UpdateInvoice) {
    return this.db.tx(async (q) => {
      const current = await this.row(q, organizationId, id, { forUpdate: true })
      if (current.status !== 'draft') throw new InvalidStateError('Only draft invoices can be updated')
      const currency = patch.currency ? normalizeCurrency(patch.currency) : current.currency
      const priced: PricedDocument = patch.lineItems
        ? await priceLines(this.deps.products, organizationId, patch.lineItems, currency, q)
        : { lines: current.line_items, subtotal: current.subtotal, taxAmount: current.tax_amount, total: current.total }
      const contact = patch.contactId ? await contactRef(this.deps.contacts, organizationId, patch.contactId, q) : { id: current.contact_id, name: current.contact_name, email: current.contact_email }
      const values: InvoiceValues = {
        ...priced, contact, currency, orderId: current.order_id,
        notes: patch.notes !== undefined ? patch.notes : current.notes,
        ...this.dates(patch.invoiceDate ?? current.invoice_date, patch.dueDate ?? current.due_date),
      }
      return this.emit(q, 'invoice.updated', toInvoice((await repo.updateDraft(q, organizationId, id, values))!))
    })
  }

  delete(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const current = await this.row(q, organizationId, id, { forUpdate: true })
      if (current.status !== 'draft') throw new InvalidStateError('Only draft invoices can be deleted')
      // Subscribers within this transaction (orders release their invoice) run before the row goes.
      await this.emit(q, 'invoice.deleted', toInvoice(current))
      await repo.deleteDraft(q, organizationId, id)
    })
  }

  async pdf(principal: Principal, id: string) {
    const organizationId = principal.organizationId
    const row = await this.row(this.db, organizationId, id)
    const seller = await this.deps.identity.documentSeller(organizationId)
    const buyer = await documentBuyer(this.deps.contacts, organizationId, { id: row.contact_id, name: row.contact_name, email: row.contact_email }, this.db)
    return { filename: pdfFilename(row.number), content: await invoicePdf(this.deps.cpu, row, seller, buyer) }
  }

  async send(principal: Principal, id: string, input: SendInput) {
    const organizationId = principal.organizationId
    // Read before the transaction: PGlite runs one transaction at a time, so a
    // query outside it would wait for it forever.
    const seller = await this.deps.identity.documentSeller(organizationId)
    const orgName = seller.name
    return this.db.tx(async (q) => {
      const current = await this.row(q, organizationId, id, { forUpdate: true })
      if (!canBeSent(current.status)) throw new InvalidStateError('Cannot send a cancelled invoice')
      const row = (await repo.markSent(q, organizationId, id, statusAfterSend(current.status)))!
      const to = await mailDocument(this.deps.mail, q, {
        organizationId,
        to: input.to ?? (await this.deps.contacts.get(organizationId, row.contact_id, q)).email,
        subject: input.subject ?? `Invoice ${row.number} from ${orgName}`,
        text: input.message ?? `Dear ${row.contact_name},\n\nPlease find attached invoice ${row.number} of ${orgName}, due ${iso(row.due_date).slice(0, 10)}.\n`,
        number: row.number,
        pdf: async () => invoicePdf(this.deps.cpu, row, seller, await documentBuyer(this.deps.contacts, organizationId, { id: row.contact_id, name: row.contact_name, email: row.contact_email }, q)),
      })
      await this.emit(q, 'invoice.sent', toInvoice(row))
      // Posted last: the entry's number holds the organization's JE sequence until the commit (docs/decisions/0014-general-ledger.md).
      if (!isIssued(current.status)) await this.deps.accounting.post(q, organizationId, issuePosting(row))
      return { sent: true, to, sentAt: row.sent_at!.toISOString() }
    })
  }

  pay(organizationId: string, id: string, input: PayInput) {
    return this.db.tx(async (q) => {
      const paidAt = input.paymentDate ? parseTimestamp(input.paymentDate, 'paymentDate') : new Date()
      // The row lock makes concurrent payments decide one after the other, each on the amount the previous one left.
      const current = await this.row(q, organizationId, id, { forUpdate: true })
      if (!canBePaid(current.status)) throw new InvalidStateError('Cannot pay a cancelled invoice')
      const due = current.total - current.amount_paid
      if (input.amount > due) throw new ValidationError(`Payment amount exceeds amount due (${due})`)
      const row = await repo.recordPayment(q, organizationId, id, { amountPaid: current.amount_paid }, afterPayment(current, input.amount, paidAt))
      if (!row) throw new StateConflictError('The invoice changed while the payment was recorded; try again')
      const currency = input.currency ? normalizeCurrency(input.currency) : row.currency
      if (currency !== row.currency) throw new ValidationError(`currency must be the invoice currency (${row.currency})`)
      const paymentId = randomUUID()
      await repo.insertPayment(q, organizationId, id, paymentId, { amount: input.amount, currency, paymentDate: paidAt, method: input.method ?? null, reference: input.reference ?? null })
      await this.emit(q, row.status === 'paid' ? 'invoice.paid' : 'invoice.updated', toInvoice(row))
      // A draft is issued by its first payment: posted as issued first, then paid; last in the transaction (docs/decisions/0014-general-ledger.md).
      const payment = paymentPosting(row, { id: paymentId, amount: input.amount, paymentDate: paidAt })
      await this.deps.accounting.postAll(q, organizationId, isIssued(current.status) ? [payment] : [issuePosting(row), payment])
      return { invoiceId: row.id, status: row.status, amountPaid: row.amount_paid, amountDue: row.total - row.amount_paid, paidAt: paidAt.toISOString() }
    })
  }

  async listPayments(organizationId: string, id: string, page: PageParams) {
    await this.row(this.db, organizationId, id)
    return repo.listPayments(this.db, organizationId, id, page)
  }

  cancel(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const current = await this.row(q, organizationId, id, { forUpdate: true })
      const refusal = cancelRefusal(current)
      if (refusal) throw new InvalidStateError(refusal)
      const row = (await repo.cancel(q, organizationId, current.id))!
      const event = await this.emit(q, 'invoice.cancelled', toInvoice(row))
      await this.postCancellation(q, organizationId, current, row)
      return event
    })
  }

  /**
   * Posts the cancellation of what was still due, if the invoice was issued
   * (a draft was never posted); last in the transaction, as the ledger asks.
   */
  private async postCancellation(q: Queryable, organizationId: string, before: InvoiceRow, cancelled: InvoiceRow) {
    if (isIssued(before.status)) await this.deps.accounting.post(q, organizationId, cancellationPosting(cancelled, cancelled.cancelled_at!))
  }

  issueCreditNote(organizationId: string, id: string, input: CreditNoteInput) {
    return this.db.tx(async (q) => {
      const invoice = await this.row(q, organizationId, id, { forUpdate: true })
      if (invoice.status === 'cancelled') throw new InvalidStateError('Invoice is already cancelled')
      const amount = input.amount ?? invoice.total
      if (amount > invoice.total) throw new ValidationError(`amount must not exceed the invoice total (${invoice.total})`)
      if (amount < 1) throw new ValidationError('amount is required for an invoice with a total of 0')
      const cancelled = (await repo.cancel(q, organizationId, id))!
      await this.emit(q, 'invoice.cancelled', toInvoice(cancelled))
      const number = await nextNumber(q, organizationId, 'CN')
      const note = await creditNotes.insert(q, organizationId, randomUUID(), number, {
        invoiceId: id, contact: { id: invoice.contact_id, name: invoice.contact_name, email: invoice.contact_email },
        amount, currency: invoice.currency, reason: input.reason ?? null,
      })
      await this.postCancellation(q, organizationId, invoice, cancelled)
      return note
    })
  }

  listCreditNotes(organizationId: string, query: CreditNoteListQuery & PageParams) {
    return creditNotes.list(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  async getCreditNote(organizationId: string, id: string) {
    const note = await creditNotes.find(this.db, organizationId, id)
    if (!note) throw new NotFoundError('Credit note')
    return note
  }

  /**
   * For the analytics module (receivables aging): open amounts as of the end
   * of the UTC day `asOf` (YYYY-MM-DD) in one currency, per contact, summed
   * in the age buckets the due-date `cutoffs` (descending instants) make
   * (core/aging.ts). See InvoicesRepository.openAmounts for what counts.
   * `perContact: false`: one row, the totals over every contact.
   */
  openAmounts(organizationId: string, r: { asOf: string; currency: string; contactId?: string; cutoffs: Date[]; perContact?: boolean }) {
    return repo.openAmounts(this.db, organizationId, r)
  }

  /**
   * The postings of an organization's invoices made before the ledger
   * (accounting.registerHistory; docs/accounting.md "History"), by the same
   * rules as the live changes: each issued invoice on its invoiceDate, each
   * payment on its paymentDate, each cancellation of an issued invoice on its
   * day with D = total - paid (nothing is paid after a cancellation).
   */
  async history(q: Queryable, organizationId: string): Promise<Posting[]> {
    const issued = await repo.issued(q, organizationId)
    const byId = new Map(issued.map((i) => [i.id, i]))
    const out: Posting[] = issued.map(issuePosting)
    for (const p of await repo.allPayments(q, organizationId)) {
      const inv = byId.get(p.invoice_id)
      if (inv) out.push(paymentPosting(inv, { id: p.id, amount: p.amount, paymentDate: p.payment_date }))
    }
    for (const inv of issued) if (inv.status === 'cancelled') out.push(cancellationPosting(inv, inv.cancelled_at ?? inv.updated_at))
    return out
  }

  /** Sent and partly paid invoices (OVERDUE_FROM) past due become overdue: in one organization, or in every one (organizationId undefined: the scheduled job). */
  async markOverdue(organizationId?: string) {
    let overdue = 0
    for (;;) {
      const moved = await this.db.tx(async (q) => {
        const rows = await repo.moveDue(q, { from: OVERDUE_FROM, to: 'overdue', dueBefore: new Date(), limit: 500, organizationId })
        for (const row of rows) await this.emit(q, 'invoice.overdue', toInvoice(row))
        return rows.length
      })
      overdue += moved
      if (moved < 500) return { overdue }
    }
  }

  /**
   * The invoices dated (invoiceDate) within the UTC days of range, every
   * status, oldest first, read in keyset batches: a caller may stream
   * millions without holding them (the `invoices` report run).
   */
  async *exportRows(organizationId: string, range: DayRange): AsyncGenerator<InvoiceExportRow> {
    for await (const { key: _key, ...row } of keysetBatches<InvoiceExportRow>((after, limit) => repo.exportBatch(this.db, organizationId, range, after, limit))) yield row
  }

}
