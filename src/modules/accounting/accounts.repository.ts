import { iso, type Queryable } from '../../core/db.ts'
import { paginate, Where, type PageParams } from '../../core/pagination.ts'
import type { AccountType } from './accounting.types.ts'
import type { Account, AccountListQuery } from './accounts.schemas.ts'

export interface AccountRow {
  id: string
  code: string
  name: string
  type: AccountType
  system: boolean
  created_at: Date
}

export const toAccount = (r: AccountRow): Account => ({ id: r.id, code: r.code, name: r.name, type: r.type, system: r.system, createdAt: iso(r.created_at) })

export const accountsRepository = {
  list(q: Queryable, organizationId: string, query: AccountListQuery & PageParams) {
    const where = new Where()
      .scope('organization_id', organizationId)
      .maybe(query.type, 'type = ?')
      .search(query.search, ['code', 'name'])
    return paginate(q, query, {
      from: 'accounts',
      select: 'id, code, name, type, system, created_at',
      where,
      sortColumns: { code: 'code', name: 'name' },
      defaultSort: 'code',
      tieBreaker: 'id',
      map: toAccount,
    })
  },

  async find(q: Queryable, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}) {
    const { rows } = await q.query<AccountRow>(
      `SELECT id, code, name, type, system, created_at FROM accounts WHERE organization_id = $1 AND id = $2${opts.forUpdate ? ' FOR UPDATE' : ''}`, [organizationId, id])
    return rows[0]
  },

  async insert(q: Queryable, organizationId: string, a: { code: string; name: string; type: AccountType }) {
    const { rows } = await q.query<AccountRow>(
      `INSERT INTO accounts (organization_id, code, name, type, system) VALUES ($1, $2, $3, $4, false)
       RETURNING id, code, name, type, system, created_at`, [organizationId, a.code, a.name, a.type])
    return rows[0]
  },

  async rename(q: Queryable, organizationId: string, id: string, name: string) {
    const { rows } = await q.query<AccountRow>(
      `UPDATE accounts SET name = $3 WHERE organization_id = $1 AND id = $2 RETURNING id, code, name, type, system, created_at`, [organizationId, id, name])
    return rows[0]
  },

  async hasLines(q: Queryable, organizationId: string, id: string): Promise<boolean> {
    const { rows } = await q.query(`SELECT 1 FROM journal_balances WHERE organization_id = $1 AND account_id = $2 LIMIT 1`, [organizationId, id])
    return rows.length > 0
  },

  async delete(q: Queryable, organizationId: string, id: string) {
    await q.query(`DELETE FROM accounts WHERE organization_id = $1 AND id = $2`, [organizationId, id])
  },
}
