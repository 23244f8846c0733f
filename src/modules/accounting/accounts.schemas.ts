import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, StringEnum } from '../../core/schemas.ts'

export const ACCOUNT_TYPES = ['asset', 'liability', 'equity', 'income', 'expense'] as const
const AccountTypeSchema = StringEnum(ACCOUNT_TYPES, { description: 'asset, liability, equity, income or expense' })

export const Account = Named('Account', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  code: Type.String({ description: '3 to 10 digits, unique in the organization', examples: ['6100'] }),
  name: Type.String({ examples: ['Rent'] }),
  type: AccountTypeSchema,
  system: Type.Boolean({ description: 'One of the chart every organization is made with: code and type fixed, not deletable' }),
  createdAt: Type.String({ format: 'date-time' }),
}))
export type Account = Static<typeof Account>

/** The account as other answers name it (reports, lines). */
export const AccountRef = Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  code: Type.String(),
  name: Type.String(),
  type: AccountTypeSchema,
})

const Name = Type.String({ minLength: 1, maxLength: 200, examples: ['Rent'] })

export const CreateAccountBody = Type.Object({
  code: Type.String({ pattern: '^[0-9]{3,10}$', maxLength: 10, description: '3 to 10 digits, unique in the organization (409)', examples: ['6100'] }),
  name: Name,
  type: AccountTypeSchema,
}, { additionalProperties: false })
export type CreateAccount = Static<typeof CreateAccountBody>

export const UpdateAccountBody = Type.Object({ name: Name }, { additionalProperties: false })
export type UpdateAccount = Static<typeof UpdateAccountBody>

export const ACCOUNT_SORTABLE = ['code', 'name'] as const
const accountListQuery = listQuery(ACCOUNT_SORTABLE, {
  type: Type.Optional(AccountTypeSchema),
})
/** A chart reads by code: ascending unless sortOrder says otherwise. */
export const AccountListQuery = Type.Object({
  ...accountListQuery.properties,
  sortOrder: StringEnum(['asc', 'desc'] as const, { default: 'asc' }),
}, { additionalProperties: false })
export type AccountListQuery = Static<typeof AccountListQuery>
export const AccountList = Named('AccountList', listOf(Account))
