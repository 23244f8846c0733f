import { Type, type Static } from 'typebox'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, StringEnum } from '../../core/schemas.ts'
import { Timestamp, TimestampInput } from '../../core/dates.ts'
import { Nullable } from '../../core/schemas.ts'

export const LEAD_STATUSES = ['new', 'converted'] as const
const LeadStatus = StringEnum(LEAD_STATUSES)

const optionalText = (maxLength: number) => Type.Optional(Type.String({ maxLength }))

export const CaptureBody = Type.Object(
  {
    captureToken: Type.String({ minLength: 1, maxLength: 100, description: "The organization's public capture token (GET /crm/capture-settings)" }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    phone: optionalText(50),
    company: optionalText(200),
    message: optionalText(5000),
    source: optionalText(200),
  },
  { additionalProperties: false },
)
export type CaptureInput = Static<typeof CaptureBody>
export const CaptureResult = Named('LeadCaptureResult', Type.Object({ id: Type.String({ format: 'uuid', maxLength: 36 }), receivedAt: Timestamp }))

export const CaptureSettings = Named('LeadCaptureSettings', Type.Object({
  captureToken: Type.String({ description: 'Public: put it in the web form that posts to the endpoint' }),
  endpoint: Type.String({ description: 'Where forms post their leads' }),
  rotatedAt: Timestamp,
}))

export const Lead = Named('Lead', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  status: LeadStatus,
  name: Type.String(),
  email: Type.String(),
  phone: Nullable(Type.String()),
  company: Nullable(Type.String()),
  message: Nullable(Type.String()),
  source: Nullable(Type.String()),
  contactId: Nullable(Type.String({ format: 'uuid', maxLength: 36, description: 'The contact the lead was converted into' })),
  convertedAt: Nullable(Timestamp),
  organizationId: Type.String({ format: 'uuid', maxLength: 36 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}))
export type Lead = Static<typeof Lead>

export const LEAD_SORTABLE = ['createdAt', 'name', 'email'] as const
export const LeadListQuery = listQuery(LEAD_SORTABLE, {
  status: Type.Optional(LeadStatus),
  from: Type.Optional({ ...TimestampInput, description: 'Captured on or after' }),
  to: Type.Optional({ ...TimestampInput, description: 'Captured on or before (a date includes the whole day)' }),
})
export type LeadListQuery = Static<typeof LeadListQuery>
export const LeadList = Named('LeadList', listOf(Lead))
