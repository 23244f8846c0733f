import { iso, type Queryable } from '../../core/db.ts'
import { Where, paginate, type PageParams } from '../../core/pagination.ts'
import type { CreditNote, CreditNoteListQuery } from './invoices.schemas.ts'

interface CreditNoteRow {
  id: string
  organization_id: string
  number: string
  invoice_id: string
  invoice_number: string
  contact_id: string
  contact_name: string
  contact_email: string | null
  amount: number
  currency: string
  reason: string | null
  created_at: Date
}

const toCreditNote = (r: CreditNoteRow): CreditNote => ({
  id: r.id,
  number: r.number,
  invoiceId: r.invoice_id,
  invoiceNumber: r.invoice_number,
  contact: { id: r.contact_id, name: r.contact_name, email: r.contact_email },
  amount: r.amount,
  currency: r.currency,
  reason: r.reason,
  organizationId: r.organization_id,
  createdAt: iso(r.created_at),
})

const SELECT = 'cn.*, i.number AS invoice_number'
const FROM = 'credit_notes cn JOIN invoices i ON i.organization_id = cn.organization_id AND i.id = cn.invoice_id'

export interface CreditNoteValues {
  invoiceId: string
  contact: { id: string; name: string; email: string | null }
  amount: number
  currency: string
  reason: string | null
}

export const creditNotesRepository = {
  async insert(q: Queryable, organizationId: string, id: string, number: string, v: CreditNoteValues) {
    await q.query(
      `INSERT INTO credit_notes (id, organization_id, number, invoice_id, contact_id, contact_name, contact_email, amount, currency, reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [id, organizationId, number, v.invoiceId, v.contact.id, v.contact.name, v.contact.email, v.amount, v.currency, v.reason],
    )
    return (await this.find(q, organizationId, id))!
  },

  async find(q: Queryable, organizationId: string, id: string) {
    const { rows } = await q.query<CreditNoteRow>(`SELECT ${SELECT} FROM ${FROM} WHERE cn.organization_id = $1 AND cn.id = $2`, [organizationId, id])
    return rows[0] ? toCreditNote(rows[0]) : undefined
  },

  list(q: Queryable, organizationId: string, query: CreditNoteListQuery & PageParams, range: { from?: Date; to?: Date }) {
    const where = new Where()
      .scope('cn.organization_id', organizationId)
      .maybe(query.invoiceId, 'cn.invoice_id = ?')
      .maybe(query.contactId, 'cn.contact_id = ?')
      .maybe(range.from, 'cn.created_at >= ?')
      .maybe(range.to, 'cn.created_at <= ?')
      .search(query.search, ['cn.number', 'i.number', 'cn.contact_name', 'cn.contact_email'])
    return paginate(q, query, {
      from: FROM,
      select: SELECT,
      where,
      sortColumns: { amount: 'cn.amount', createdAt: 'cn.created_at' },
      defaultSort: 'createdAt',
      tieBreaker: 'cn.id',
      map: toCreditNote,
      counter: 'credit_notes',
    })
  },
}
