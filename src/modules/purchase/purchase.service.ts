import { randomUUID } from 'node:crypto'
import type { Principal } from '../../core/auth.ts'
import { iso, type Db, type Queryable } from '../../core/db.ts'
import type { DomainEvent, DomainEvents } from '../../core/events.ts'
import { AppError, InvalidStateError, NotFoundError, StateConflictError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import type { CpuPool } from '../../core/cpu-pool.ts'
import type { Services } from '../../core/module.ts'
import type { PageParams } from '../../core/pagination.ts'
import { nextNumber } from '../../core/sequences.ts'
import { isAfterToday, parseRange, parseTimestamp, utcDay } from '../../core/dates.ts'
import { documentBuyer, mailDocument, pdfFilename } from '../../core/documents/index.ts'
import { lineTotal, normalizeCurrency } from '../../core/money.ts'
import type { Transfer } from '../inventory/index.ts'
import { ACCOUNTS, type Posting } from '../accounting/index.ts'
import { billsRepository as bills, toBill, type BillRow } from './bills.repository.ts'
import { purchaseOrderPdf } from './purchase.pdf.ts'
import { purchaseRepository as repo, type LineRow, type PurchaseLine, type PurchaseOrderRow, type PurchaseValues } from './purchase.repository.ts'
import type {
  Bill, BillListQuery, BillStatus, CreateRfq, PayBill, PurchaseOrder, PurchaseOrderListQuery, ReceiptResult, ReceiptStatus, Receive, RfqListQuery, SendRfq, UpdateRfq,
} from './purchase.schemas.ts'
import type { VendorsService } from './vendors.service.ts'

registerUniqueMessage('vendor_bills_purchase_order_key', 'Purchase order already billed')

/** The modules it uses, and the kernel's CPU pool (PDFs render there). */
type Deps = Pick<Services, 'contacts' | 'products' | 'mail' | 'identity' | 'inventory' | 'accounting'> & { cpu: CpuPool }

const DAY_MS = 24 * 3600 * 1000
/** Quantities are decimals; sums are compared at a precision far below any unit of measure. */
const exceeds = (a: number, b: number) => Math.round((a - b) * 1e9) > 0

/** The refusal of a change that only a draft allows (docs/purchase.md "States": 400 in every other state). */
function notDraft(row: PurchaseOrderRow, verb: string) {
  return new InvalidStateError(`Only draft RFQs can be ${verb}; this one is ${row.status}`)
}

/** Confirm, send and cancel of a confirmed or cancelled RFQ: 409. */
function closedConflict(row: PurchaseOrderRow) {
  if (row.status === 'confirmed') return new StateConflictError('Purchase order already confirmed')
  if (row.status === 'cancelled') return new StateConflictError('RFQ already cancelled')
  return undefined
}

// ------------------------------------------------------------ vendor bill rules
// docs/accounting.md "Posting rules: vendor bills and their payments". Each
// posting rule is one function of the document, called by the live change and
// by the history.

/**
 * The account a bill line's amount is debited to: 2200 (goods received not
 * billed), which its receipt credited; 5200 (purchase price difference) when
 * the bill is not in the product's currency, as its receipt used 5200 too
 * (docs/accounting.md "Posting rules: vendor bills and their payments"). A
 * product not found keeps 2200.
 */
export const billLineAccount = (billCurrency: string, productCurrency: string | undefined) =>
  productCurrency !== undefined && productCurrency !== billCurrency ? ACCOUNTS.purchasePriceDifference : ACCOUNTS.goodsReceivedNotBilled

/**
 * A vendor bill, on its invoiceDate: Dr 2200 (or 5200, billLineAccount, per
 * line) the subtotal; Dr 1300 its tax (total - subtotal); Cr 2000 the total.
 * `productCurrencies` maps each line's product to its currency.
 */
export function billPosting(bill: Pick<BillRow, 'id' | 'number' | 'currency' | 'invoice_date' | 'line_items' | 'subtotal' | 'total'>, productCurrencies: ReadonlyMap<string, string>): Posting {
  let received = 0
  let difference = 0
  for (const l of bill.line_items) {
    if (billLineAccount(bill.currency, productCurrencies.get(l.productId)) === ACCOUNTS.goodsReceivedNotBilled) received += l.total
    else difference += l.total
  }
  // The lines sum to the subtotal; a rounding remainder, if any, stays on 2200.
  received += bill.subtotal - received - difference
  return {
    date: utcDay(bill.invoice_date), currency: bill.currency, memo: `Vendor bill ${bill.number}`, source: { type: 'vendor_bill', id: bill.id },
    lines: [
      { account: ACCOUNTS.goodsReceivedNotBilled, debit: received },
      { account: ACCOUNTS.purchasePriceDifference, debit: difference },
      { account: ACCOUNTS.taxReceivable, debit: bill.total - bill.subtotal },
      { account: ACCOUNTS.payable, credit: bill.total },
    ],
  }
}

/** A bill payment, on its paymentDate: Dr 2000; Cr 1000, the amount. */
export function billPaymentPosting(bill: Pick<BillRow, 'number' | 'currency'>, p: { id: string; amount: number; paymentDate: Date }): Posting {
  return {
    date: utcDay(p.paymentDate), currency: bill.currency, memo: `Payment of vendor bill ${bill.number}`, source: { type: 'bill_payment', id: p.id },
    lines: [{ account: ACCOUNTS.payable, debit: p.amount }, { account: ACCOUNTS.bank, credit: p.amount }],
  }
}

/** What a payment of `amount` (not above the amount due) leaves: paid once nothing is due, posted otherwise. */
export function afterBillPayment(bill: Pick<BillRow, 'total' | 'amount_paid'>, amount: number) {
  const amountPaid = bill.amount_paid + amount
  return { amountPaid, status: (amountPaid === bill.total ? 'paid' : 'posted') as BillStatus }
}

/**
 * RFQs and purchase orders (one record: an RFQ confirmed is the purchase
 * order, under the same PO/<year>/<seq> reference), their receipts through the
 * inventory module, and their vendor bills.
 *
 *   draft -> sent -> confirmed (receipt transfer created) ; draft|sent -> cancelled
 *   confirmed: receiptStatus pending -> partial -> received ; billed once
 */
export class PurchaseService {
  constructor(
    private readonly db: Db,
    private readonly events: DomainEvents,
    private readonly vendors: VendorsService,
    private readonly deps: Deps,
  ) {
    // A purchase receipt validated in the inventory module (POST /inventory/transfers/:id/validate)
    // is booked on its purchase order in the same transaction, as a receive would book it.
    events.within(['transfer.done'], (q, e) => this.onTransferDone(q, e))
  }

  /** The currency of each product of the lines. */
  private async productCurrencies(q: Queryable, organizationId: string, lines: ReadonlyArray<{ productId: string }>) {
    const products = await this.deps.products.findMany(organizationId, lines.map((l) => l.productId), q)
    return new Map(products.map((p) => [p.id, p.currency]))
  }

  private async emit(q: Queryable, type: 'purchase_order.confirmed' | 'purchase_order.received', po: PurchaseOrder) {
    await this.events.append(q, { organizationId: po.organizationId, type, resource: { type: 'purchase_order', id: po.id }, object: po })
    return po
  }

  // ------------------------------------------------------------ RFQs

  /**
   * Prices the lines: storable products of the organization, one line per
   * product, unitPrice given or taken from the vendor's pricelist (the row in
   * the RFQ's currency with the highest minQty not above the quantity).
   * Every problem is reported at once (422).
   */
  private async priceLines(q: Queryable, organizationId: string, vendorId: string, currency: string, requests: CreateRfq['lineItems']) {
    const problems: string[] = []
    const products = new Map((await this.deps.products.findMany(organizationId, requests.map((l) => l.productId), q)).map((p) => [p.id, p]))
    const seen = new Set<string>()
    requests.forEach((l, i) => {
      const p = products.get(l.productId)
      if (!p) problems.push(`lineItems.${i}.productId does not name a product of this organization`)
      else if (p.type !== 'storable') problems.push(`lineItems.${i}.productId names a ${p.type} product; only storable products can be purchased`)
      if (seen.has(l.productId)) problems.push(`lineItems.${i}.productId repeats a product of another line; give one line per product`)
      seen.add(l.productId)
    })
    const unpriced = requests.flatMap((l, i) => (l.unitPrice === undefined ? [{ i, productId: l.productId, quantity: l.quantity }] : []))
    const found = await this.vendors.prices(q, organizationId, vendorId, currency, unpriced)
    const prices = new Map(unpriced.flatMap((u, k) => (found.has(k) ? [[u.i, found.get(k)!] as const] : [])))
    requests.forEach((l, i) => {
      if (l.unitPrice === undefined && products.has(l.productId) && !prices.has(i)) {
        problems.push(`lineItems.${i}.unitPrice is required: the vendor has no ${currency} pricelist price for this product at quantity ${l.quantity}`)
      }
    })
    if (problems.length) throw new ValidationError(problems)
    const lines: PurchaseLine[] = requests.map((l, i) => {
      const unitPrice = l.unitPrice ?? prices.get(i)!
      return { productId: l.productId, productName: products.get(l.productId)!.name, quantity: l.quantity, unitPrice, total: lineTotal(l.quantity, unitPrice) }
    })
    const total = lines.reduce((s, l) => s + l.total, 0)
    if (!Number.isSafeInteger(total)) throw new ValidationError('total is too large')
    return { lines, total }
  }

  private async values(q: Queryable, organizationId: string, input: CreateRfq | UpdateRfq, current?: { row: PurchaseOrderRow; lines: LineRow[] }): Promise<PurchaseValues> {
    const vendor = input.vendorId !== undefined
      ? await this.vendors.referenced(organizationId, input.vendorId, q)
      : { id: current!.row.vendor_id, name: current!.row.vendor_name, email: current!.row.vendor_email, currency: null }
    const currency = input.currency ? normalizeCurrency(input.currency) : (current?.row.currency ?? vendor.currency ?? 'usd')
    if (current && !input.lineItems && currency !== current.row.currency) {
      throw new ValidationError(`lineItems is required to change the currency: the lines are priced in ${current.row.currency}`)
    }
    // Lines are priced when they are sent; a PATCH without lineItems keeps the lines and their prices.
    const priced = input.lineItems
      ? await this.priceLines(q, organizationId, vendor.id, currency, input.lineItems)
      : {
          lines: current!.lines.map((l) => ({ productId: l.product_id, productName: l.product_name, quantity: l.quantity, unitPrice: l.unit_price, total: l.total })),
          total: current!.row.total,
        }
    return {
      vendor: { id: vendor.id, name: vendor.name, email: vendor.email },
      currency,
      ...priced,
      expectedArrival: input.expectedArrival === undefined
        ? (current?.row.expected_arrival ?? null)
        : input.expectedArrival === null ? null : parseTimestamp(input.expectedArrival, 'expectedArrival'),
      notes: input.notes !== undefined ? input.notes : (current?.row.notes ?? null),
    }
  }

  async create(principal: Principal, input: CreateRfq) {
    const organizationId = principal.organizationId
    // Read before the transaction: PGlite runs one transaction at a time.
    const user = principal.userId ? await this.deps.identity.findUser(organizationId, principal.userId) : undefined
    const buyer = user ? { id: user.id, name: user.name } : null
    return this.db.tx(async (q) => {
      const values = await this.values(q, organizationId, input)
      const id = randomUUID()
      await repo.insert(q, organizationId, id, await nextNumber(q, organizationId, 'PO'), buyer, values)
      return repo.load(q, (await repo.find(q, organizationId, id))!)
    })
  }

  listRfqs(organizationId: string, query: RfqListQuery & PageParams) {
    return repo.list(this.db, organizationId, query, { status: query.status, vendorId: query.vendorId, dateColumn: 'created_at', ...parseRange(query.from, query.to) })
  }

  listOrders(organizationId: string, query: PurchaseOrderListQuery & PageParams) {
    return repo.list(this.db, organizationId, query, {
      status: 'confirmed', receiptStatus: query.receiptStatus, vendorId: query.vendorId, dateColumn: 'confirmed_at', ...parseRange(query.from, query.to),
    })
  }

  private async row(q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean; what?: string } = {}) {
    const row = await repo.find(q, organizationId, id, opts)
    if (!row) throw new NotFoundError(opts.what ?? 'RFQ')
    return row
  }

  async get(organizationId: string, id: string) {
    return repo.load(this.db, await this.row(this.db, organizationId, id))
  }

  /** GET /purchase/orders/:id: a confirmed one; an RFQ not (yet) confirmed is not a purchase order (404). */
  async getOrder(organizationId: string, id: string) {
    const row = await this.row(this.db, organizationId, id, { what: 'Purchase order' })
    if (row.status !== 'confirmed') throw new NotFoundError('Purchase order')
    return repo.load(this.db, row)
  }

  update(organizationId: string, id: string, patch: UpdateRfq) {
    return this.db.tx(async (q) => {
      const row = await this.row(q, organizationId, id, { forUpdate: true })
      if (row.status !== 'draft') throw notDraft(row, 'updated')
      const values = await this.values(q, organizationId, patch, { row, lines: await repo.lines(q, organizationId, id) })
      await repo.updateDraft(q, organizationId, id, values)
      return repo.load(q, (await repo.find(q, organizationId, id))!)
    })
  }

  delete(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const row = await this.row(q, organizationId, id, { forUpdate: true })
      if (row.status !== 'draft') throw notDraft(row, 'deleted')
      await repo.deleteDraft(q, organizationId, id)
    })
  }

  /** Why a transition from draft or sent found nothing: 404, 409, or a concurrent change. */
  private async refusal(q: Queryable, organizationId: string, id: string) {
    return closedConflict(await this.row(q, organizationId, id)) ?? new AppError('CONFLICT', 'RFQ changed concurrently; retry')
  }

  /** The organization's profile as the issuer of the RFQ (its payment instructions are for its customers, not printed here). */
  private async issuer(organizationId: string) {
    return { ...(await this.deps.identity.documentSeller(organizationId)), paymentInstructions: null }
  }

  private async vendorParty(q: Queryable, organizationId: string, row: PurchaseOrderRow) {
    return documentBuyer(this.deps.contacts, organizationId, { id: row.vendor_id, name: row.vendor_name, email: row.vendor_email }, q)
  }

  /**
   * E-mails the vendor the RFQ as a PDF through the outbox, in the transaction
   * that moves draft to sent. A sent RFQ may be sent again (a new e-mail; it
   * stays sent, sentAt is the last sending). Confirmed or cancelled: 409.
   */
  async send(principal: Principal, id: string, input: SendRfq) {
    const organizationId = principal.organizationId
    const issuer = await this.issuer(organizationId)
    return this.db.tx(async (q) => {
      const row = await repo.transition(q, organizationId, id, ['draft', 'sent'], 'sent')
      if (!row) throw await this.refusal(q, organizationId, id)
      const po = await repo.load(q, row)
      await mailDocument(this.deps.mail, q, {
        organizationId,
        to: input.to ?? (await this.deps.contacts.get(organizationId, row.vendor_id, q)).email,
        subject: input.subject ?? `Request for Quotation ${row.reference} from ${issuer.name}`,
        text: input.message ?? `Dear ${row.vendor_name},\n\nPlease find attached our request for quotation ${row.reference}.\n`,
        number: row.reference,
        pdf: async () => purchaseOrderPdf(this.deps.cpu, po, issuer, await this.vendorParty(q, organizationId, row)),
      })
      return po
    })
  }

  async pdf(organizationId: string, id: string) {
    const row = await this.row(this.db, organizationId, id)
    const po = await repo.load(this.db, row)
    const content = await purchaseOrderPdf(this.deps.cpu, po, await this.issuer(organizationId), await this.vendorParty(this.db, organizationId, row))
    return { filename: pdfFilename(row.reference), content }
  }

  /**
   * Draft or sent becomes a confirmed purchase order; in the same transaction
   * the inventory module creates its receipt LOC-SUPPLIER -> LOC-STOCK in
   * `ready`, one move per line. The row lock makes a concurrent second confirm
   * see it confirmed (409).
   */
  confirm(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const row = await this.row(q, organizationId, id, { forUpdate: true })
      const conflict = closedConflict(row)
      if (conflict) throw conflict
      const lines = await repo.lines(q, organizationId, id)
      const receipt = await this.deps.inventory.createTransfer(q, organizationId, {
        type: 'receipt',
        sourceLocationId: 'LOC-SUPPLIER',
        destinationLocationId: 'LOC-STOCK',
        scheduledDate: iso(row.expected_arrival),
        moves: lines.map((l) => ({ productId: l.product_id, demandQty: l.quantity })),
        origin: row.reference,
      }, { status: 'ready' })
      const confirmed = await repo.confirm(q, organizationId, id, receipt.id)
      return this.emit(q, 'purchase_order.confirmed', await repo.load(q, confirmed!))
    })
  }

  cancel(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const row = await repo.transition(q, organizationId, id, ['draft', 'sent'], 'cancelled')
      if (!row) throw await this.refusal(q, organizationId, id)
      return repo.load(q, row)
    })
  }

  // ------------------------------------------------------------ receipts

  /** A receipt's prices as the inventory's entries read them: the PO's currency and each line's unitPrice by product. */
  private static receiptPricesOf = (currency: string, lines: LineRow[]): import('../inventory/index.ts').ReceiptPrices =>
    ({ currency, prices: Object.fromEntries(lines.map((l) => [l.product_id, Number(l.unit_price)])) })

  /**
   * Receives the lines sent: validates the pending receipt transfer with those
   * quantities (the others 0), so the rest stays as its backorder; books the
   * quantities on the lines. The PO row is locked first, so parallel receipts
   * of one PO run one after the other and each sees what the previous took.
   * Above the open quantity of a line: 400 and nothing is received.
   */
  async receive(organizationId: string, id: string, input: Receive): Promise<ReceiptResult> {
    const receiptDate = input.receiptDate === undefined ? undefined : parseTimestamp(input.receiptDate, 'receiptDate')
    if (receiptDate && isAfterToday(receiptDate)) throw new ValidationError('receiptDate must not be after today')
    const problems: string[] = []
    const sent = new Map<string, { qty: number; notes: string | null }>()
    input.lines.forEach((l, i) => {
      if (sent.has(l.productId)) problems.push(`lines.${i}.productId repeats a product of another line`)
      sent.set(l.productId, { qty: l.receivedQty, notes: l.notes ?? null })
    })
    if (problems.length) throw new ValidationError(problems)

    return this.db.tx(async (q) => {
      const row = await this.row(q, organizationId, id, { forUpdate: true, what: 'Purchase order' })
      if (row.status !== 'confirmed') throw new StateConflictError(`Only confirmed purchase orders can be received; this one is ${row.status}`)
      if (row.receipt_status === 'received' || !row.pending_receipt_id) throw new StateConflictError('Purchase order already fully received')
      const lines = await repo.lines(q, organizationId, id)
      const byProduct = new Map(lines.map((l) => [l.product_id, l]))
      input.lines.forEach((l, i) => {
        if (!byProduct.has(l.productId)) problems.push(`lines.${i}.productId is not a product of this purchase order`)
      })
      if (problems.length) throw new ValidationError(problems)
      for (const [productId, s] of sent) {
        const l = byProduct.get(productId)!
        if (exceeds(l.received_qty + s.qty, l.quantity)) {
          throw new AppError('LIMIT_EXCEEDED', `Received quantity exceeds ordered quantity for ${l.product_name}: ordered ${l.quantity}, received ${l.received_qty}, open ${l.quantity - l.received_qty}, sent ${s.qty}`)
        }
      }
      const pending = await this.deps.inventory.getTransfer(organizationId, row.pending_receipt_id, q)
      if (pending.status === 'cancelled') throw new StateConflictError(`The receipt ${pending.reference} of this purchase order was cancelled in inventory`)
      // Unlink the pending receipt first, so that the transfer.done reaction below leaves it to this booking.
      await repo.setReceipt(q, organizationId, id, null, row.receipt_status!)
      const done = await this.deps.inventory.validateTransfer(q, organizationId, pending.id, {
        moves: pending.moves.map((m) => ({ productId: m.productId, doneQty: sent.get(m.productId)?.qty ?? 0 })),
        ...(receiptDate ? { doneAt: receiptDate } : {}),
        // The entries credit 2200 at the PO's prices (docs/accounting.md "Posting rules: stock moves and revaluations").
        receiptPrices: PurchaseService.receiptPricesOf(row.currency, lines),
      })
      const { po, receivedLines } = await this.book(q, row, done, receiptDate, sent)
      return {
        receiptId: done.id,
        transferReference: done.reference,
        receivedLines,
        backorderQty: po.lineItems.reduce((s, l) => s + (l.quantity - l.receivedQty), 0),
      }
    })
  }

  /**
   * Books a validated receipt transfer on its purchase order: the done
   * quantities onto the lines (never beyond what was ordered: 400), the
   * backorder as the next pending receipt, the receipt record, the status,
   * and the purchase_order.received event.
   */
  private async book(q: Queryable, row: PurchaseOrderRow, done: Transfer, receiptDate: Date | undefined, notes: Map<string, { notes: string | null }>) {
    const receivedLines = done.moves.filter((m) => m.doneQty > 0).map((m) => ({ productId: m.productId, receivedQty: m.doneQty }))
    for (const l of receivedLines) {
      if (!(await repo.addReceived(q, row.organization_id, row.id, l.productId, l.receivedQty))) {
        throw new AppError('LIMIT_EXCEEDED', `Received quantity exceeds ordered quantity for ${done.moves.find((m) => m.productId === l.productId)?.productName ?? l.productId}`)
      }
    }
    const lines = await repo.lines(q, row.organization_id, row.id)
    const open = lines.filter((l) => exceeds(l.quantity, l.received_qty))
    const status: ReceiptStatus = !open.length ? 'received' : lines.some((l) => l.received_qty > 0) ? 'partial' : 'pending'
    let next: string | null = done.backorder?.id ?? null
    if (open.length && !next) {
      // No backorder (nothing was left on the validated transfer, or the inventory module left none): a new ready receipt for what is open.
      next = (await this.deps.inventory.createTransfer(q, row.organization_id, {
        type: 'receipt', sourceLocationId: 'LOC-SUPPLIER', destinationLocationId: 'LOC-STOCK', scheduledDate: iso(row.expected_arrival),
        moves: open.map((l) => ({ productId: l.product_id, demandQty: l.quantity - l.received_qty })), origin: row.reference,
      }, { status: 'ready' })).id
    }
    if (!open.length) next = null
    await repo.insertReceipt(q, row.organization_id, {
      id: done.id,
      purchaseOrderId: row.id,
      transferReference: done.reference,
      receiptDate: receiptDate ?? (done.doneAt ? new Date(done.doneAt) : new Date()),
      lines: receivedLines.map((l) => ({ ...l, notes: notes.get(l.productId)?.notes ?? null })),
    })
    const updated = await repo.setReceipt(q, row.organization_id, row.id, next, status)
    const po = await this.emit(q, 'purchase_order.received', await repo.load(q, updated))
    return { po, receivedLines }
  }

  /**
   * The inventory's receipt pricing (registered from purchase's register()):
   * the PO prices of receipt transfers validated in the inventory module
   * directly, and of the history.
   */
  receiptPricing = async (q: Queryable, organizationId: string, transferIds: string[]): Promise<Map<string, import('../inventory/index.ts').ReceiptPrices>> => {
    const out = new Map<string, import('../inventory/index.ts').ReceiptPrices>()
    for (const r of await repo.receiptPrices(q, organizationId, transferIds)) {
      const prices = out.get(r.transfer_id) ?? { currency: r.currency, prices: {} }
      prices.prices[r.product_id] = Number(r.unit_price)
      out.set(r.transfer_id, prices)
    }
    return out
  }

  /** A receipt transfer validated in the inventory module: booked on the purchase order it is pending for, if any. */
  private async onTransferDone(q: Queryable, event: DomainEvent) {
    const transfer = event.data.object as Transfer
    if (!event.organizationId || transfer?.type !== 'receipt' || !transfer.id) return
    const row = await repo.findByPendingReceipt(q, event.organizationId, transfer.id)
    if (row) await this.book(q, row, transfer, undefined, new Map())
  }

  // ------------------------------------------------------------ vendor bills

  /**
   * The vendor bill of a confirmed purchase order, for its ordered lines and
   * total, posted with nothing paid. Once per purchase order: the row lock
   * makes a concurrent second bill see the first (409), and the unique index
   * on vendor_bills(purchase_order_id) backs it.
   */
  bill(organizationId: string, id: string, input: Bill) {
    const invoiceDate = input.invoiceDate ? parseTimestamp(input.invoiceDate, 'invoiceDate') : new Date()
    const dueDate = input.dueDate ? parseTimestamp(input.dueDate, 'dueDate') : new Date(invoiceDate.getTime() + 30 * DAY_MS)
    if (dueDate < invoiceDate) throw new ValidationError('dueDate must not be before invoiceDate')
    return this.db.tx(async (q) => {
      const row = await this.row(q, organizationId, id, { forUpdate: true, what: 'Purchase order' })
      if (row.status !== 'confirmed') throw new StateConflictError(`Only confirmed purchase orders can be billed; this one is ${row.status}`)
      if (row.bill_id) throw new StateConflictError('Purchase order already billed')
      const lines = await repo.lines(q, organizationId, id)
      const bill = await bills.insert(q, organizationId, {
        id: randomUUID(),
        number: await nextNumber(q, organizationId, 'BILL'),
        purchaseOrderId: id,
        vendor: { id: row.vendor_id, name: row.vendor_name, email: row.vendor_email },
        vendorInvoiceNumber: input.vendorInvoiceNumber,
        lines: lines.map((l) => ({ productId: l.product_id, productName: l.product_name, quantity: l.quantity, unitPrice: l.unit_price, total: l.total })),
        total: row.total,
        currency: row.currency,
        invoiceDate,
        dueDate,
      })
      await repo.setBill(q, organizationId, id, bill.id)
      const stored = (await bills.row(q, organizationId, bill.id))!
      await this.deps.accounting.post(q, organizationId, billPosting(stored, await this.productCurrencies(q, organizationId, stored.line_items)))
      return bill
    })
  }

  /**
   * Pays a vendor bill (docs/purchase.md "Paying a vendor bill"): at most the
   * amount due (422 above it, so a paid bill takes nothing more); paid once
   * nothing is due, with the `bill.paid` event. The row lock makes parallel
   * payments decide one after the other, each on what the previous one left.
   */
  payBill(organizationId: string, id: string, input: PayBill) {
    const paidAt = input.paymentDate ? parseTimestamp(input.paymentDate, 'paymentDate') : new Date()
    return this.db.tx(async (q) => {
      const current = await bills.row(q, organizationId, id, { forUpdate: true })
      if (!current) throw new NotFoundError('Vendor bill')
      const due = current.total - current.amount_paid
      if (input.amount > due) throw new ValidationError(`Payment amount exceeds amount due (${due})`)
      const row = await bills.recordPayment(q, organizationId, id, { amountPaid: current.amount_paid }, afterBillPayment(current, input.amount))
      if (!row) throw new StateConflictError('The bill changed while the payment was recorded; try again')
      const payment = { id: randomUUID(), amount: input.amount, paymentDate: paidAt }
      await bills.insertPayment(q, organizationId, id, { ...payment, currency: row.currency, method: input.method ?? null, reference: input.reference ?? null })
      if (row.status === 'paid') {
        await this.events.append(q, { organizationId, type: 'bill.paid', resource: { type: 'vendor_bill', id }, object: toBill(row) })
      }
      // Last: the entry's number holds the organization's JE sequence until the commit (docs/decisions/0014-general-ledger.md).
      await this.deps.accounting.post(q, organizationId, billPaymentPosting(row, payment))
      return { billId: row.id, status: row.status, amountPaid: row.amount_paid, amountDue: row.total - row.amount_paid, paidAt: paidAt.toISOString() }
    })
  }

  /**
   * The postings of an organization's bills and bill payments made before the
   * ledger (accounting.registerHistory; docs/accounting.md "History"), by the
   * same rules as the live changes: each bill on its invoiceDate, each
   * payment on its paymentDate.
   */
  async history(q: Queryable, organizationId: string): Promise<Posting[]> {
    const all = await bills.all(q, organizationId)
    const currencies = await this.productCurrencies(q, organizationId, all.flatMap((b) => b.line_items))
    const byId = new Map(all.map((b) => [b.id, b]))
    const out = all.map((b) => billPosting(b, currencies))
    for (const p of await bills.allPayments(q, organizationId)) {
      const bill = byId.get(p.bill_id)
      if (bill) out.push(billPaymentPosting(bill, { id: p.id, amount: p.amount, paymentDate: p.payment_date }))
    }
    return out
  }

  listBills(organizationId: string, query: BillListQuery & PageParams) {
    return bills.list(this.db, organizationId, query, parseRange(query.from, query.to))
  }

  /**
   * For the analytics module (payables aging): amounts due on vendor bills as
   * of the end of the UTC day `asOf` in one currency, per vendor, summed in
   * the age buckets the due-date `cutoffs` make (core/aging.ts).
   */
  openBillAmounts(organizationId: string, r: { asOf: string; currency: string; vendorId?: string; cutoffs: Date[] }) {
    return bills.openAmounts(this.db, organizationId, r)
  }

  /** A vendor named in a body or a report run's parameters: 422 unless it is a vendor of this organization. */
  async referencedVendor(organizationId: string, id: string, field = 'vendorId') {
    await this.vendors.referenced(organizationId, id, this.db, field)
  }

  async getBill(organizationId: string, id: string) {
    const bill = await bills.find(this.db, organizationId, id)
    if (!bill) throw new NotFoundError('Vendor bill')
    return bill
  }
}
