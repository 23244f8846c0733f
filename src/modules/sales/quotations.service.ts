import { randomUUID } from 'node:crypto'
import type { Principal } from '../../core/auth.ts'
import type { Db, Queryable } from '../../core/db.ts'
import type { DomainEvents } from '../../core/events.ts'
import { AppError, InvalidStateError, NotFoundError, StateConflictError } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { nextNumber } from '../../core/sequences.ts'
import type { CpuPool } from '../../core/cpu-pool.ts'
import type { Services } from '../../core/module.ts'
import { quotationPdf } from './quotations.pdf.ts'
import { quotationsRepository as repo, toQuotation, type QuotationRow, type QuotationValues } from './quotations.repository.ts'
import type { CreateQuotation, Quotation, QuotationListQuery, UpdateQuotation } from './quotations.schemas.ts'
import { parseRange, parseTimestamp } from '../../core/dates.ts'
import { contactRef, employeeRef, documentBuyer, mailDocument, pdfFilename, priceLines, type SendInput } from '../../core/documents/index.ts'
import { normalizeCurrency } from '../../core/money.ts'

/** The modules it uses, and the kernel's CPU pool (PDFs render there). */
type Deps = Pick<Services, 'contacts' | 'products' | 'employees' | 'mail' | 'identity' | 'orders'> & { cpu: CpuPool }

/**
 * Quotations: draft -> sent -> confirmed (an order is created), or cancelled.
 * A quotation already confirmed or cancelled answers 409 to every change;
 * one that is sent answers 400 to what only a draft allows (update, delete).
 */
function closedConflict(row: QuotationRow) {
  if (row.status === 'confirmed') return new StateConflictError('Quotation already confirmed')
  if (row.status === 'cancelled') return new StateConflictError('Quotation already cancelled')
  return undefined
}

export class QuotationsService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly deps: Deps,
  ) {}

  private async emit(q: Queryable, type: 'quotation.created' | 'quotation.sent' | 'quotation.confirmed' | 'quotation.cancelled', quotation: Quotation) {
    await this.events.append(q, { organizationId: quotation.organizationId, type, resource: { type: 'quotation', id: quotation.id }, object: quotation })
    return quotation
  }

  private async values(q: Queryable, organizationId: string, input: CreateQuotation | UpdateQuotation, current?: QuotationRow): Promise<QuotationValues> {
    const currency = input.currency ? normalizeCurrency(input.currency) : (current?.currency ?? 'usd')
    const salespersonId = input.salespersonId !== undefined ? input.salespersonId : current?.salesperson_id
    const validUntil = input.validUntil !== undefined ? input.validUntil : (current?.valid_until ?? null)
    const priced = input.lineItems
      ? await priceLines(this.deps.products, organizationId, input.lineItems, currency, q)
      : { lines: current!.line_items, subtotal: current!.subtotal, taxAmount: current!.tax_amount, total: current!.total }
    return {
      ...priced,
      currency,
      contact: input.contactId
        ? await contactRef(this.deps.contacts, organizationId, input.contactId, q)
        : { id: current!.contact_id, name: current!.contact_name, email: current!.contact_email },
      salesperson: !salespersonId
        ? null
        : salespersonId === current?.salesperson_id
          ? { id: salespersonId, name: current.salesperson_name ?? '' }
          : await employeeRef(this.deps.employees, organizationId, salespersonId, q),
      validUntil: typeof validUntil === 'string' ? parseTimestamp(validUntil, 'validUntil') : validUntil,
      terms: input.terms !== undefined ? input.terms : (current?.terms ?? null),
    }
  }

  create(organizationId: string, input: CreateQuotation) {
    return this.db.tx(async (q) => {
      const values = await this.values(q, organizationId, input)
      const reference = await nextNumber(q, organizationId, 'QO')
      return this.emit(q, 'quotation.created', toQuotation(await repo.insert(q, organizationId, randomUUID(), reference, values)))
    })
  }

  list(organizationId: string, query: QuotationListQuery & PageParams) {
    return repo.list(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  private async row(q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
    const row = await repo.find(q, organizationId, id, opts)
    if (!row) throw new NotFoundError('Quotation')
    return row
  }

  async get(organizationId: string, id: string) {
    return toQuotation(await this.row(this.db, organizationId, id))
  }

  /** The locked draft, or why it may not change: 409 when closed, 400 when sent. */
  private async draft(q: Queryable, organizationId: string, id: string, verb: string) {
    const row = await this.row(q, organizationId, id, { forUpdate: true })
    const conflict = closedConflict(row)
    if (conflict) throw conflict
    if (row.status !== 'draft') throw new InvalidStateError(`Only draft quotations can be ${verb}`)
    return row
  }

  update(organizationId: string, id: string, patch: UpdateQuotation) {
    return this.db.tx(async (q) => {
      const current = await this.draft(q, organizationId, id, 'updated')
      const values = await this.values(q, organizationId, patch, current)
      return toQuotation((await repo.updateDraft(q, organizationId, id, values))!)
    })
  }

  delete(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      await this.draft(q, organizationId, id, 'deleted')
      await repo.deleteDraft(q, organizationId, id)
    })
  }

  /** The reason a transition from draft or sent found nothing: 404 or 409. */
  private async refusal(q: Queryable, organizationId: string, id: string) {
    return closedConflict(await this.row(q, organizationId, id)) ?? new AppError('CONFLICT', 'Quotation changed concurrently; retry')
  }

  async send(principal: Principal, id: string, input: SendInput) {
    const organizationId = principal.organizationId
    // Read before the transaction: PGlite runs one transaction at a time.
    const seller = await this.deps.identity.documentSeller(organizationId)
    const orgName = seller.name
    return this.db.tx(async (q) => {
      const row = await repo.transition(q, organizationId, id, ['draft', 'sent'], 'sent')
      if (!row) throw await this.refusal(q, organizationId, id)
      const to = await mailDocument(this.deps.mail, q, {
        organizationId,
        to: input.to ?? (await this.deps.contacts.get(organizationId, row.contact_id, q)).email,
        subject: input.subject ?? `Quotation ${row.reference} from ${orgName}`,
        text: input.message ?? `Dear ${row.contact_name},\n\nPlease find attached our quotation ${row.reference}.\n`,
        number: row.reference,
        pdf: async () => quotationPdf(this.deps.cpu, row, seller, await documentBuyer(this.deps.contacts, organizationId, { id: row.contact_id, name: row.contact_name, email: row.contact_email }, q)),
      })
      await this.emit(q, 'quotation.sent', toQuotation(row))
      return { sent: true, to, sentAt: row.sent_at!.toISOString() }
    })
  }

  /** Confirms a draft or sent quotation into a confirmed order; the row lock makes a concurrent second confirm see it confirmed (409). */
  confirm(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const row = await this.row(q, organizationId, id, { forUpdate: true })
      const conflict = closedConflict(row)
      if (conflict) throw conflict
      const order = await this.deps.orders.create(q, organizationId, {
        source: 'sales',
        quotationId: row.id,
        contact: { id: row.contact_id, name: row.contact_name, email: row.contact_email },
        salesperson: row.salesperson_id ? { id: row.salesperson_id, name: row.salesperson_name ?? '' } : null,
        lines: row.line_items,
        subtotal: row.subtotal,
        taxAmount: row.tax_amount,
        total: row.total,
        currency: row.currency,
      })
      await this.emit(q, 'quotation.confirmed', toQuotation((await repo.transition(q, organizationId, id, ['draft', 'sent'], 'confirmed', { orderId: order.id }))!))
      return order
    })
  }

  cancel(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const row = await repo.transition(q, organizationId, id, ['draft', 'sent'], 'cancelled')
      if (!row) throw await this.refusal(q, organizationId, id)
      return this.emit(q, 'quotation.cancelled', toQuotation(row))
    })
  }

  async pdf(principal: Principal, id: string) {
    const organizationId = principal.organizationId
    const row = await this.row(this.db, organizationId, id)
    const seller = await this.deps.identity.documentSeller(organizationId)
    const buyer = await documentBuyer(this.deps.contacts, organizationId, { id: row.contact_id, name: row.contact_name, email: row.contact_email }, this.db)
    return { filename: pdfFilename(row.reference), content: await quotationPdf(this.deps.cpu, row, seller, buyer) }
  }

  /**
   * For the analytics module (GET /analytics/overview): quotations in
   * `currency` created in the range (whole UTC days), and how many of them
   * are confirmed now (with or without a salesperson; /sales/team counts
   * the same per salesperson).
   */
  async quotationCounts(organizationId: string, range: { from: string; to: string; currency: string }) {
    const rows = await repo.byStatus(this.db, organizationId, range)
    return {
      quotations: rows.reduce((n, r) => n + r.count, 0),
      confirmed: rows.find((r) => r.status === 'confirmed')?.count ?? 0,
    }
  }
}
