import { Type, type Static } from 'typebox'
import { listOf, listQuery, pagingProperties } from '../../core/pagination.ts'
import { Named, Nullable, StringEnum } from '../../core/schemas.ts'
import type { PublicEventType } from '../../core/events.ts'

const Timestamp = Type.String({ format: 'date-time' })

export const LICENSE_STATUSES = ['active', 'expired', 'inactive', 'suspended', 'revoked'] as const
export type LicenseStatus = (typeof LICENSE_STATUSES)[number]
export const LicenseStatus = StringEnum(LICENSE_STATUSES)

/** The refusal codes of docs/licenses.md "Checks", plus VALID for a license that passes. */
export const VALIDATION_CODES = ['VALID', 'LICENSE_NOT_FOUND', 'LICENSE_INACTIVE', 'LICENSE_EXPIRED', 'MODULE_MISMATCH', 'VERSION_MISMATCH', 'NOT_ACTIVATED_ON_DOMAIN'] as const
export type ValidationCode = (typeof VALIDATION_CODES)[number]

const LicenseObject = Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  key: Type.String({ description: 'Prefix and four dash-separated groups of four upper-case letters' }),
  productId: Type.String({ format: 'uuid', maxLength: 36 }),
  product: Type.Object({ id: Type.String({ format: 'uuid', maxLength: 36 }), name: Type.String() }),
  moduleName: Type.String({ description: 'The one module this license is for' }),
  erpVersion: Type.String({ description: 'The one ERP major version this license is for, e.g. 19.0' }),
  status: LicenseStatus,
  activationsCount: Type.Integer(),
  activationsLimit: Type.Integer(),
  domains: Type.Array(Type.String(), { description: 'Domains the license is activated on' }),
  expiresAt: Nullable(Timestamp),
  userId: Nullable(Type.String({ format: 'uuid', maxLength: 36 })),
  subscriptionId: Nullable(Type.String({ description: 'Payment-processor subscription the license renews with' })),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export const License = Named('License', LicenseObject)
export type License = Static<typeof License>

/** A customer account as support and admins see it to issue a license (docs/licenses.md "Holders by name"): no role, no hash, nothing else. */
export const LicenseHolder = Named('LicenseHolder', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  name: Type.String(),
  email: Type.String({ format: 'email' }),
}, { additionalProperties: false }))
export type LicenseHolder = Static<typeof LicenseHolder>

/** A license as the admin routes answer it: the License and its holder by name (docs/licenses.md "Holders by name"). */
export const AdminLicense = Named('AdminLicense', Type.Object({
  ...LicenseObject.properties,
  holder: Type.Union([LicenseHolder, Type.Null()], {
    description: "The holder's account ({id, name, email}); null when the license has no holder, its account was deleted, or (to support) the holder is not a customer account",
  }),
}, { additionalProperties: false }))
export type AdminLicense = Static<typeof AdminLicense>

// License client endpoints (docs/licenses.md "License client endpoints").

const clientFields = {
  key: Type.String({ minLength: 1, maxLength: 64, description: 'License key (upper-cased by the client; any case accepted)' }),
  domain: Type.String({ minLength: 1, maxLength: 2048, description: "Host of the ERP instance's public URL; scheme, port, path and trailing dot are ignored" }),
  module_name: Type.String({ minLength: 1, maxLength: 64, description: 'Technical name of the module' }),
  hw_fingerprint: Type.String({ minLength: 1, maxLength: 256, description: "SHA-256 of the installation's hardware or database identity" }),
  erp_version: Type.String({ minLength: 1, maxLength: 32, description: 'ERP version, e.g. 19.0' }),
}

/** validate, activate, deactivate: key and domain required; the other fields are checked when sent. */
export const ClientRequest = Type.Object(
  {
    key: clientFields.key,
    domain: clientFields.domain,
    module_name: Type.Optional(clientFields.module_name),
    hw_fingerprint: Type.Optional(clientFields.hw_fingerprint),
    erp_version: Type.Optional(clientFields.erp_version),
  },
  { additionalProperties: false },
)
export type ClientRequest = Static<typeof ClientRequest>

/** issue-token and deactivate-self: the connector's full five-field request. */
export const FullClientRequest = Type.Object(clientFields, { additionalProperties: false })

export const ValidateResult = Named('LicenseValidation', Type.Object({
  valid: Type.Boolean(),
  code: StringEnum(VALIDATION_CODES),
  message: Type.String(),
  license: Nullable(Type.Object({ key: Type.String(), status: LicenseStatus, expiresAt: Nullable(Timestamp) })),
}))
export type ValidateResult = Static<typeof ValidateResult>

export const ActivateResult = Named('LicenseActivation', Type.Object({ activated: Type.Boolean(), activationsCount: Type.Integer(), activationsLimit: Type.Integer() }))
export const DeactivateResult = Named('LicenseDeactivation', Type.Object({ deactivated: Type.Boolean(), activationsCount: Type.Integer() }))
export const TokenResult = Named('OfflineToken', Type.Object({
  token: Type.String({ description: 'Compact JWS (alg EdDSA) with claims key, module, domain, erp_version, hw_fingerprint, status, iat, exp' }),
  kid: Type.String({ description: 'Id of the signing key in GET /.well-known/jwks.json' }),
  expiresAt: Timestamp,
}))

export const Jwks = Named('JsonWebKeySet', Type.Object({
  keys: Type.Array(
    Type.Object({ kty: Type.String(), crv: Type.String(), x: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.String() }),
  ),
}))

// Administration

export const IssueLicenseBody = Type.Object(
  {
    productId: Type.String({ format: 'uuid', maxLength: 36, description: 'A licensed product of the organization' }),
    userId: Type.String({ format: 'uuid', maxLength: 36, description: 'The user who holds the license' }),
    activationsLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, description: "Defaults to the product's activationsLimit" })),
    expiresAt: Type.Optional(Nullable(Type.String({ format: 'date-time', maxLength: 40, description: 'Defaults to one billing interval from now for recurring products, none for one-time ones' }))),
  },
  { additionalProperties: false },
)
export type IssueLicense = Static<typeof IssueLicenseBody>

export const LICENSE_SORTABLE = ['createdAt', 'updatedAt', 'expiresAt', 'status', 'key'] as const
export const AdminLicenseListQuery = listQuery(LICENSE_SORTABLE, {
  status: Type.Optional(LicenseStatus),
  productId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  key: Type.Optional(Type.String({ maxLength: 64, description: 'Exact key, any case' })),
  userId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
})
export type AdminLicenseListQuery = Static<typeof AdminLicenseListQuery>
export const LicenseList = Named('LicenseList', listOf(AdminLicense))

/** GET /admin/license-holders: customer accounts of the organization found by name or e-mail, A to Z, at most 20 a page. */
export const LicenseHolderQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Words of the name or e-mail' })),
  page: pagingProperties.page,
  limit: Type.Integer({ minimum: 1, maximum: 20, default: 20, description: 'Page size, at most 20' }),
}, { additionalProperties: false })
export type LicenseHolderQuery = Static<typeof LicenseHolderQuery>
export const LicenseHolderList = Named('LicenseHolderList', listOf(LicenseHolder))

// Module builds and downloads

export const Build = Named('Build', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  productId: Type.String({ format: 'uuid', maxLength: 36 }),
  productName: Type.String(),
  erpVersion: Type.String(),
  version: Type.String({ description: '<erp_major>.0.<module_major>.<minor>.<patch>, e.g. 19.0.2.0.0' }),
  filename: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
  sha256: Type.String(),
  createdAt: Timestamp,
}))
export type Build = Static<typeof Build>
export const BuildList = Named('BuildList', listOf(Build))

/** Documents the multipart form; the handler reads and checks the parts itself. */
export const BuildUploadForm = Type.Object({
  version: Type.String({ maxLength: 32, description: 'Module version <erp_major>.0.<module_major>.<minor>.<patch> for the product\'s ERP version, e.g. 19.0.2.0.0' }),
  file: Type.String({ format: 'binary', description: 'The module as a ZIP archive' }),
}, { required: ['version', 'file'], additionalProperties: false, description: 'Other fields are refused (422)' })

export const BUILD_SORTABLE = ['createdAt', 'version'] as const
export const BuildListQuery = listQuery(BUILD_SORTABLE, {
  productId: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  erpVersion: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}\\.0$', maxLength: 5 })),
})
export type BuildListQuery = Static<typeof BuildListQuery>
export const ProductBuildsQuery = listQuery(BUILD_SORTABLE, {})

/**
 * The event types of licenses for integrators (webhooks, GET /events): data.object is the license as GET /licenses lists it.
 * Its key is for admins only (docs/webhooks.md "The event object"): GET /events shows it null to members; webhooks carry it.
 */
const adminOnly = ['key'] as const
export const licenseEventTypes: PublicEventType[] = [
  { type: 'license.created', version: 1, object: License, adminOnly, description: 'A license was issued (by an admin, or by a checkout).' },
  { type: 'license.activated', version: 1, object: License, adminOnly, description: 'A license was activated on a new domain (POST /licenses/activate).' },
  { type: 'license.deactivated', version: 1, object: License, adminOnly, description: 'A license was deactivated on a domain (POST /licenses/deactivate).' },
  { type: 'license.suspended', version: 1, object: License, adminOnly, description: 'A license was suspended (by an admin, or its subscription stopped being in force).' },
  { type: 'license.reinstated', version: 1, object: License, adminOnly, description: 'A suspended license is active again (by an admin, or its subscription is in force again).' },
  { type: 'license.revoked', version: 1, object: License, adminOnly, description: 'A license was revoked (by an admin, a cancelled subscription or a refund).' },
]
