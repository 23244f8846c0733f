import { Type, type Static } from 'typebox'
import { ROLES } from '../../core/auth.ts'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, StringEnum } from '../../core/schemas.ts'

export const RoleSchema = StringEnum(ROLES)
const Email = Type.String({ format: 'email', maxLength: 254 })
const Password = Type.String({ minLength: 10, maxLength: 200 })
const Name = Type.String({ minLength: 1, maxLength: 200 })

export const User = Named('User', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}))
export type User = Static<typeof User>

export const Organization = Named('Organization', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
}))
export type Organization = Static<typeof Organization>

const tokenPair = {
  accessToken: Type.String(),
  refreshToken: Type.String(),
  expiresIn: Type.Integer({ description: 'Seconds until the access token expires' }),
}
export const TokenPair = Named('TokenPair', Type.Object(tokenPair))
export type TokenPair = Static<typeof TokenPair>

export const RegisterBody = Type.Object(
  { organizationName: Name, name: Name, email: Email, password: Password },
  { additionalProperties: false },
)
export const RegisterResult = Named('RegisterResult', Type.Object({ user: User, organization: Organization, ...tokenPair }))
export const LoginBody = Type.Object({ email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: 200 }) }, { additionalProperties: false })
export const RefreshBody = Type.Object({ refreshToken: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false })
export const ChangePasswordBody = Type.Object({ currentPassword: Type.String({ maxLength: 200 }), newPassword: Password }, { additionalProperties: false })
export const PasswordResetBody = Type.Object({ email: Email }, { additionalProperties: false })
export const PasswordResetConfirmBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Password }, { additionalProperties: false })
export const PasswordResetAccepted = Named('PasswordResetAccepted', Type.Object({ message: Type.String() }))
export const Me = Named('CurrentUser', Type.Object({ user: User, organization: Organization }))

export const USER_SORTABLE = ['name', 'email', 'role', 'createdAt', 'updatedAt'] as const
export const UserListQuery = listQuery(USER_SORTABLE, { role: Type.Optional(RoleSchema) })
export const UserList = Named('UserList', listOf(User))
export const CreateUserBody = Type.Object({ name: Name, email: Email, password: Password, role: RoleSchema }, { additionalProperties: false })
export const UpdateUserBody = Type.Object(
  { name: Type.Optional(Name), email: Type.Optional(Email), password: Type.Optional(Password), role: Type.Optional(RoleSchema) },
  { additionalProperties: false, minProperties: 1 },
)

export const Environment = StringEnum(['live', 'test'] as const)
const apiKey = {
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String(),
  environment: Environment,
  role: RoleSchema,
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  last4: Type.String(),
  userId: Type.String({ format: 'uuid', maxLength: 36, description: 'The user who created the key; it acts with this user' }),
  createdAt: Type.String({ format: 'date-time' }),
}
export const ApiKey = Named('ApiKey', Type.Object(apiKey))
export type ApiKey = Static<typeof ApiKey>
export const CreatedApiKey = Named('CreatedApiKey', Type.Object({ ...apiKey, key: Type.String({ description: 'The secret, shown only in this response' }) }))
export const CreateApiKeyBody = Type.Object(
  { name: Name, environment: Environment, role: Type.Optional(RoleSchema) },
  { additionalProperties: false },
)
export const API_KEY_SORTABLE = ['name', 'createdAt'] as const
export const ApiKeyListQuery = listQuery(API_KEY_SORTABLE, { environment: Type.Optional(Environment) })
export const ApiKeyList = Named('ApiKeyList', listOf(ApiKey))
