import { Type } from 'typebox'
import type { App } from '../../core/module.ts'
import { ADMIN, principalOf } from '../../core/auth.ts'
import { listOf, listQuery } from '../../core/pagination.ts'
import { Named, Nullable, responses, StringEnum } from '../../core/schemas.ts'
import type { MailService } from './mail.service.ts'

const Status = StringEnum(['queued', 'sending', 'sent', 'failed'] as const)
const OutboxMessage = Named('OutboxMessage', Type.Object({
  id: Type.String({ format: 'uuid', maxLength: 36 }),
  to: Type.String(),
  subject: Type.String(),
  status: Status,
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  attachments: Type.Array(Type.Object({ filename: Type.String(), contentType: Type.String(), size: Type.Integer() })),
  createdAt: Type.String({ format: 'date-time' }),
  sentAt: Nullable(Type.String({ format: 'date-time' })),
}))
const OutboxMessageList = Named('OutboxMessageList', listOf(OutboxMessage))
const OutboxQuery = listQuery(['createdAt', 'sentAt', 'status'] as const, {
  status: Type.Optional(Status),
  to: Type.Optional(Type.String({ maxLength: 254 })),
})

export function mailRoutes(app: App, mail: MailService) {
  app.get('/admin/outbox', {
    schema: {
      operationId: 'listOutboxMessages', tags: ['system'],
      summary: 'E-mails queued or sent for the organization',
      description: 'Without SMTP_URL messages stay queued here. search matches subject and recipient.',
      querystring: OutboxQuery,
      response: responses({ 200: OutboxMessageList }),
    },
    config: { access: { roles: ADMIN } },
  }, async (req) => mail.list(principalOf(req).organizationId, req.query))
}
