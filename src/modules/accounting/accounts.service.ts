import type { Db } from '../../core/db.ts'
import { AppError, NotFoundError, ValidationError, registerUniqueMessage } from '../../core/errors.ts'
import type { PageParams } from '../../core/pagination.ts'
import { accountsRepository as repo, toAccount, type AccountRow } from './accounts.repository.ts'
import type { AccountListQuery, CreateAccount, UpdateAccount } from './accounts.schemas.ts'

registerUniqueMessage('accounts_organization_id_code_key', 'An account with this code already exists')

/** An account's name as stored: trimmed; a blank one is 422. */
export function accountName(name: string): string {
  const trimmed = name.trim()
  if (!trimmed) throw new ValidationError('name must not be blank')
  return trimmed
}

/** Why an account cannot be deleted, or undefined (docs/accounting.md "Chart of accounts"). */
export function whyNotDeletable(account: Pick<AccountRow, 'system'>, hasLines: boolean): string | undefined {
  if (account.system) return 'A system account of the chart cannot be deleted'
  if (hasLines) return 'An account with journal lines cannot be deleted'
  return undefined
}

/** The chart of accounts (docs/accounting.md "Chart of accounts"). */
export class AccountsService {
  constructor(private readonly db: Db) {}

  list(organizationId: string, query: AccountListQuery & PageParams) {
    return repo.list(this.db, organizationId, query)
  }

  async get(organizationId: string, id: string) {
    const row = await repo.find(this.db, organizationId, id)
    if (!row) throw new NotFoundError('Account')
    return toAccount(row)
  }

  async create(organizationId: string, input: CreateAccount) {
    return toAccount(await repo.insert(this.db, organizationId, { code: input.code, name: accountName(input.name), type: input.type }))
  }

  /** Only the name changes: a system account keeps its code and type, and so does every other (its lines name it). */
  async update(organizationId: string, id: string, input: UpdateAccount) {
    const row = await repo.rename(this.db, organizationId, id, accountName(input.name))
    if (!row) throw new NotFoundError('Account')
    return toAccount(row)
  }

  delete(organizationId: string, id: string) {
    return this.db.tx(async (q) => {
      const row = await repo.find(q, organizationId, id, { forUpdate: true })
      if (!row) throw new NotFoundError('Account')
      const why = whyNotDeletable(row, await repo.hasLines(q, organizationId, id))
      if (why) throw new AppError('CONFLICT', why)
      await repo.delete(q, organizationId, id)
    })
  }
}
